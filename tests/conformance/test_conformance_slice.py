"""The conformance verdicts, and the CI slice: a few corpus documents compiled and called against Prism."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import CORPUS, PRISM, ROOT, load_tool, need

conformance = load_tool("conformance")
Exchange = load_tool("conformance_proxy").Exchange

ENVELOPE_OK = json.dumps({"ok": True, "status": 200, "verb": "v", "title": "t", "body": {}})
ENVELOPE_ERR = json.dumps(
    {
        "ok": False,
        "status": None,
        "verb": "v",
        "error": {"code": "missing_credentials", "message": "Set X_API_KEY."},
    }
)


def _verdict(stdout: str, exchanges: list[Any], stderr: str = "", timed_out: bool = False) -> Any:
    result = conformance.VerbResult("pack", "v", "not_called", exchanges=exchanges)
    done = None if timed_out else subprocess.CompletedProcess([], 0, stdout, stderr)
    conformance.classify(result, done, timed_out)
    return result


def _exchange(**fields: Any) -> Any:
    return Exchange(method="GET", target="/a", headers=[], content_type="", body="", **fields)


def test_verdicts() -> None:
    assert _verdict(ENVELOPE_OK, [_exchange(status=200)]).outcome == "ok"
    answered = _verdict(ENVELOPE_OK, [_exchange(status=500, problem="VIOLATIONS", response_violations=2)])
    assert answered.outcome == "ok" and "VIOLATIONS" in answered.detail
    route = _verdict(ENVELOPE_OK, [_exchange(status=404, problem="NO_PATH_MATCHED_ERROR")])
    assert (route.outcome, route.reason) == ("rejected", "route")
    bad = _verdict(
        ENVELOPE_OK,
        [
            _exchange(
                status=422,
                violations=[
                    {"location": ["request", "query", "n"], "message": "must be integer", "code": "type"}
                ],
            )
        ],
    )
    assert (bad.outcome, bad.reason) == ("rejected", "validation") and "request.query.n" in bad.detail
    assert _verdict(ENVELOPE_OK, [_exchange(status=401, problem="UNAUTHORIZED")]).reason == "security"
    missing = _verdict(ENVELOPE_ERR, [])
    assert (missing.outcome, missing.reason) == ("not_called", "missing_credentials")
    crash = _verdict("", [], stderr="Traceback (most recent call last):\n  ...\nKeyError: 'x'")
    assert (crash.outcome, crash.reason, crash.detail) == ("crash", "traceback", "KeyError: 'x'")
    assert _verdict("not json", []).reason == "no_envelope"
    assert _verdict("", [], timed_out=True).reason == "timeout"


@pytest.mark.e2e
@pytest.mark.slow
def test_ci_slice_runs_without_crashes(tmp_path: Path) -> None:
    need(PRISM, "npm install --prefix .conformance @stoplight/prism-cli")
    need(CORPUS, "make corpus")
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "tools" / "conformance.py"),
            "--limit",
            "3",
            "--max-packs",
            "1",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=ROOT,
    )
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    docs = report["documents"]
    assert len(docs) == 3
    assert "TOTAL (3 documents" in done.stdout
    crashes = [(d["doc"], "compile", d["compileDetail"]) for d in docs if d["compiled"] == "crash"]
    crashes += [
        (d["doc"], v["verb"], v["detail"]) for d in docs for v in d["verbs"] if v["outcome"] == "crash"
    ]
    assert crashes == [], done.stdout
    assert done.returncode == 0, done.stdout + done.stderr
    assert all(d["compiled"] in ("ok", "refused") for d in docs)
    assert sum(1 for d in docs for v in d["verbs"] if v["outcome"] == "ok") >= 5, done.stdout
