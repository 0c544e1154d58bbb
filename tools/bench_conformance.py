"""Benchmark: conformance ratios from a conformance report (runs the 3-document slice when there is none).

Prints: documents compiled, verbs called, requests Prism accepted, crashes, and seconds per verb.
``python tools/bench_conformance.py [--report out/conformance/report.json]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_REPORT = ROOT / "out" / "conformance" / "report.json"


def _ratio(part: int, whole: int) -> str:
    return f"{part}/{whole} = {part / whole:.3f}" if whole else f"{part}/0"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--report", type=Path, default=DEFAULT_REPORT)
    args = parser.parse_args(argv)
    if not args.report.exists():
        code = subprocess.run(
            [
                sys.executable,
                str(ROOT / "tools" / "conformance.py"),
                "--limit",
                "3",
                "--out",
                str(args.report.parent),
            ],
            capture_output=True,
        ).returncode
        if not args.report.exists():
            print(f"bench_conformance: no report (conformance exited {code})", file=sys.stderr)
            return 1
    report = json.loads(args.report.read_text(encoding="utf-8"))
    docs = report["documents"]
    verbs = [v for d in docs for v in d["verbs"]]
    called = [v for v in verbs if v["outcome"] in ("ok", "rejected")]
    accepted = [v for v in verbs if v["outcome"] == "ok"]
    crashes = sum(1 for d in docs if d["compiled"] == "crash") + sum(
        1 for v in verbs if v["outcome"] == "crash"
    )
    compiled = sum(1 for d in docs if d["compiled"] == "ok")
    print(f"bench_conformance: {args.report} ({len(docs)} documents, {report['seconds']} s)")
    print(f"  documents compiled              {_ratio(compiled, len(docs))}")
    print(f"  verbs that sent a request       {_ratio(len(called), len(verbs))}")
    print(f"  requests Prism accepted         {_ratio(len(accepted), len(called))}")
    print(f"  crashes                         {crashes}")
    if verbs:
        print(f"  seconds per verb (wall, 2 jobs) {report['seconds'] / len(verbs):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
