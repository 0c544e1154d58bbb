"""Plan: operations → verbs (names, ranking, selection) and verbs → packs (one, or a family)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from packc.curate._families import MAX_VERBS, MIN_VERBS
from packc.curate._families import groups as family
from packc.curate._pick import select
from packc.curate._rank import Ranked, Signal, rank_operations
from packc.curate.goal import select_for_goal
from packc.curate.ids import api_id as _api_id
from packc.curate.ids import api_slug, cut_id, task_id
from packc.curate.naming import (
    MAX_NAME,
    name_operation,
    name_operations,
    pack_names,
    resolve_names,
    scopes,
    unscoped,
)
from packc.errors import UsageError
from packc.model import Api, Operation
from packc.read.overrides import OpOverride, Overrides
from packc_runtime.diagnostics import Diagnostic
from packc_runtime.format.identifiers import PackId, sanitize_id

__all__ = [
    "MAX_VERBS",
    "MIN_VERBS",
    "LeftOut",
    "PackPlan",
    "Plan",
    "PlannedVerb",
    "api_slug",
    "name_operation",
    "plan",
]


@dataclass(frozen=True, slots=True)
class PlannedVerb:
    """One operation as a verb: its name, why it got that name, and how it ranked."""

    name: str
    op: Operation
    resource: tuple[str, ...]
    action: str
    score: int
    reasons: tuple[str, ...] = ()
    override: OpOverride = field(default_factory=OpOverride)
    signals: tuple[Signal, ...] = ()  # (signal, points) that make up the score; docs/compile.md "Selection"


@dataclass(frozen=True, slots=True)
class LeftOut:
    """An operation no pack carries, and why."""

    op: Operation
    name: str
    reason: str
    score: int | None = None  # its ranking's points, when it was ranked and not picked


@dataclass(frozen=True, slots=True)
class PackPlan:
    id: PackId
    group: str | None
    verbs: tuple[PlannedVerb, ...]


@dataclass(frozen=True, slots=True)
class Plan:
    api_id: PackId
    packs: tuple[PackPlan, ...]
    left_out: tuple[LeftOut, ...]
    diagnostics: tuple[Diagnostic, ...] = ()
    task: str | None = None  # --for: the task the one pack serves
    unmet: tuple[str, ...] = ()  # the parts of it no operation clearly does (C112), in its own words

    def to_json(self) -> dict[str, Any]:
        """The plan as JSON: packs with their verbs, left-out operations with reasons."""
        return {
            "api": self.api_id,
            "packs": [
                {
                    "id": p.id,
                    "group": p.group,
                    "verbs": [
                        {
                            "verb": v.name,
                            "method": v.op.method.upper(),
                            "path": v.op.path,
                            "operationId": v.op.operation_id,
                            "score": v.score,
                            "reasons": list(v.reasons),
                            "signals": [{"signal": name, "points": points} for name, points in v.signals],
                        }
                        for v in p.verbs
                    ],
                }
                for p in self.packs
            ],
            "left_out": [
                {
                    "verb": lo.name,
                    "method": lo.op.method.upper(),
                    "path": lo.op.path,
                    "operationId": lo.op.operation_id,
                    "reason": lo.reason,
                }
                for lo in self.left_out
            ],
            "diagnostics": [d.to_json() for d in self.diagnostics],
            **({"for": self.task, "unmet": list(self.unmet)} if self.task is not None else {}),
        }


def _planned(
    name: str,
    op: Operation,
    res: tuple[str, ...],
    act: str,
    ov: OpOverride,
    r: Ranked,
    extra: tuple[Signal, ...] = (),
) -> PlannedVerb:
    signals = (
        (((f"included by {'--include' if ov.by_hand else 'x-packc'}", 1000),) if ov.include else ())
        + extra
        + r.points
    )
    reasons = tuple(f"{signal} ({points:+d})" for signal, points in signals)
    return PlannedVerb(name, op, res, act, sum(p for _, p in signals), reasons, ov, signals)


def _with_include(r: Ranked, v: PlannedVerb) -> Ranked:
    return Ranked(r.shape, v.signals) if v.override.include else r


def _one_pack(ranked: list[PlannedVerb], ranking: Mapping[str, Ranked], max_verbs: int) -> list[str]:
    """The one pack's verb names, in the order ``select`` took them (``ranked``: best first); what a
    person or the document includes is taken first."""
    return select(
        [(v.name, _with_include(ranking[v.op.key], v)) for v in ranked],
        max_verbs,
        first=[v.name for v in ranked if v.override.include],
    )


def _in_pack(
    verbs: Iterable[PlannedVerb], scope_words: frozenset[str], overrides: Overrides
) -> tuple[PlannedVerb, ...]:
    """A pack's verbs under the names a person would write there (``naming.pack_names``), sorted by name.

    Selection and grouping use the API-wide names, so shortening happens last and moves no pick."""
    verbs = list(verbs)
    stub = overrides.stub_verbs
    names = pack_names(
        ((v.op, v.name, bool(v.override.verb) or (stub is not None and v.name in stub)) for v in verbs),
        scope_words,
    )
    return tuple(sorted((replace(v, name=names[v.op.key]) for v in verbs), key=lambda v: v.name))


_Named = tuple[Operation, tuple[str, ...], str, OpOverride]


def _by_hand(
    named: list[_Named],
    names: Mapping[str, str],
    include: Sequence[str],
    exclude: Sequence[str],
    *,
    split: bool,
    max_verbs: int,
    scope_words: frozenset[str],
    stub: bool,
) -> list[_Named]:
    """``--include``/``--exclude``: each name must name exactly one operation: ``METHOD /path``, an
    operationId, a verb's API-wide name, or its name inside a pack as ``packc plan`` shows it
    (``pulls.list`` for ``repos.pulls.list``). A name of none, or of several (GitHub's ``issues.list`` is
    ``GET /issues`` and, inside a pack, ``GET /repos/{owner}/{repo}/issues``), is a :class:`UsageError`."""
    if include and split:
        raise UsageError(
            "--include picks verbs for the one pack; --split already covers every operation "
            "(--exclude works with both)"
        )
    keys = {f"{op.method.upper()} {op.path}": op.key for op, _res, _act, _ov in named}
    aliases: dict[str, set[str]] = {}
    for op, _res, _act, _ov in named:
        name = names.get(op.key)
        for alias in (op.operation_id, name, unscoped(op, name, scope_words) if name else None):
            if alias:
                aliases.setdefault(alias, set()).add(op.key)

    def key_of(given: str) -> str | None:
        method, _, path = given.strip().partition(" ")
        exact = keys.get(f"{method.upper()} {path.strip()}") if path else None
        found = {exact} if exact else aliases.get(given.strip(), set())
        if len(found) > 1:
            raise UsageError(
                f"{given!r} names {len(found)} operations ({', '.join(sorted(found))}): say which one "
                "as 'METHOD /path'"
            )
        return next(iter(found), None)

    unknown: list[str] = []
    chosen: dict[str, dict[str, str]] = {"--include": {}, "--exclude": {}}
    for flag, given_names in (("--include", include), ("--exclude", exclude)):
        for given in given_names:
            key = key_of(given)
            if key is None:
                shown = given if len(given) <= 80 else given[:77] + "..."
                unknown.append(f"{flag} {shown!r}{_close(given, sorted([*keys, *aliases]))}")
            else:
                chosen[flag][key] = given
    if unknown:
        head = (
            f"{unknown[0]} names no operation of this document"
            if len(unknown) == 1
            else f"{len(unknown)} names match no operation of this document: {'; '.join(unknown)}"
        )
        raise UsageError(
            f"{head}. packc plan lists every verb with its method and path; an operationId works too"
            + (
                "; a pack's own openapi.json holds only its verbs' operations: compile the original "
                "document for others"
                if stub
                else ""
            )
        )
    kept, dropped = chosen["--include"], chosen["--exclude"]
    both = sorted(set(kept) & set(dropped))
    if both:
        raise UsageError(
            f"--include {kept[both[0]]!r} and --exclude {dropped[both[0]]!r} name the same operation "
            f"({both[0]}): say one of them"
        )
    given_too = {op.key for op, _res, _act, ov in named if ov.include and op.key not in dropped}
    if len(set(kept) | given_too) > max_verbs:
        raise UsageError(
            f"--include{' and x-packc include' if given_too - set(kept) else ''} name "
            f"{len(set(kept) | given_too)} operations; a pack holds at most {max_verbs} verbs "
            "(--split, without --include, makes packs of every operation)"
        )
    return [
        (
            op,
            res,
            act,
            replace(ov, include=True, exclude=False, by_hand=True)
            if op.key in kept
            else replace(ov, exclude=True, include=False, by_hand=True)
            if op.key in dropped
            else ov,
        )
        for op, res, act, ov in named
    ]


def _known_names(named: Sequence[_Named], names: Mapping[str, str], scope_words: frozenset[str]) -> list[str]:
    """The names a stub may give a verb: each operation's API-wide name and its name inside a pack."""
    known = set(names.values())
    known |= {unscoped(op, names[op.key], scope_words) for op, *_ in named if op.key in names}
    return sorted(known)


def _check_stub_names(
    stub: Mapping[str, object], exact: set[str], shorts: Mapping[str, int], known: Sequence[str]
) -> None:
    """Every verb a stub (a choice) names must name exactly one operation, as ``--include``'s names must."""
    problems: list[str] = []
    for given in sorted(stub):
        if given in exact or shorts.get(given) == 1:
            continue
        shown = given if len(given) <= 80 else given[:77] + "..."
        if shorts.get(given, 0) > 1:
            problems.append(
                f"{shown!r} is the name inside a pack of {shorts[given]} operations: use its API-wide name"
            )
        else:
            problems.append(f"{shown!r}{_close(given, known)}")
    if problems:
        raise UsageError(
            f"the stub manifest's verbs {'; '.join(problems)} name no single operation of this document. "
            "packc plan lists every verb by the name a stub uses; nothing is written"
        )


def _close(given: str, known: Sequence[str]) -> str:
    close = difflib.get_close_matches(given, known, n=3, cutoff=0.6)
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""


def plan(
    api: Api,
    overrides: Overrides,
    *,
    split: bool = False,
    max_verbs: int = MAX_VERBS,
    goal: str | None = None,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
) -> Plan:
    """Name every operation, rank them, and cut the verbs into one pack or (``split``) a family.

    With ``goal`` (a task in words, ``--for``), the one pack holds the verbs that serve the task
    (see ``packc.curate.goal``) instead of the API's core. ``include``/``exclude`` (``--include``/``--exclude``)
    name operations a person keeps in the one pack or leaves out of every pack: by verb name as
    ``packc plan`` shows it, by operationId, or as ``METHOD /path``; a name that matches nothing is a
    :class:`UsageError` that suggests the closest names.
    """
    diags: list[Diagnostic] = []
    named = []
    for op, res, act in name_operations(api, api.operations):
        named.append((op, res, act, overrides.ops.get(op.key, OpOverride())))
    names = resolve_names(named, diags)
    api_id = overrides.api_id or sanitize_id(_api_id(api))  # already in the grammar; checked

    scope_words = scopes(api.operations)
    if include or exclude:
        named = _by_hand(
            named,
            names,
            include,
            exclude,
            split=split,
            max_verbs=max_verbs,
            scope_words=scope_words,
            stub=overrides.stub_verbs is not None,
        )
        diags += [
            Diagnostic(
                "C113",
                "warning",
                op.pointer,
                f"--include keeps {op.method.upper()} {op.path}, which the document marks deprecated.",
                "Prefer the operation that replaces it, if the API has one.",
            )
            for op, _res, _act, ov in named
            if ov.by_hand and ov.include and op.deprecated
        ]
    # A stub may name a verb as its pack did (issues.list for repos.issues.list): it picks the one
    # operation whose name, without its scope word, is that, unless another operation has it as its
    # own name (GitHub's GET /issues is issues.list) or more than one would shorten to it.
    by_short: set[str] = set()
    if overrides.stub_verbs is not None:
        shorts: dict[str, int] = {}
        for op, _res, _act, _ov in named:
            if op.key in names and (cut := unscoped(op, names[op.key], scope_words)) != names[op.key]:
                shorts[cut] = shorts.get(cut, 0) + 1
        exact = set(names.values())
        by_short = {
            n for n, count in shorts.items() if count == 1 and n not in exact and n in overrides.stub_verbs
        }
        _check_stub_names(overrides.stub_verbs, exact, shorts, _known_names(named, names, scope_words))
    left_out: list[LeftOut] = []
    entries: list[tuple[Operation, tuple[str, ...], str, OpOverride, str]] = []
    for op, res, act, ov in named:
        if op.key not in names:
            continue
        name = names[op.key]
        chosen_by_stub = overrides.stub_verbs is not None and (
            name in overrides.stub_verbs or unscoped(op, name, scope_words) in by_short
        )
        # A stub's verbs are the exact choice: they win over x-packc exclude (not over --exclude).
        if ov.exclude and (ov.by_hand or not chosen_by_stub):
            left_out.append(
                LeftOut(op, name, "excluded by --exclude" if ov.by_hand else "excluded by x-packc")
            )
            continue
        if overrides.stub_verbs is not None and not chosen_by_stub:
            if ov.include and ov.by_hand:
                raise UsageError(
                    f"--include {name!r}: the stub manifest names the verbs its pack keeps, and "
                    f"{name!r} is not among them; add it to the stub's verbs, or compile the document"
                )
            left_out.append(LeftOut(op, name, "not among the stub manifest's verbs"))
            continue
        entries.append((op, res, act, ov, name))
    ranking = rank_operations(api, [e[0] for e in entries])
    extra: dict[str, tuple[Signal, ...]] = {}
    goal_keys: list[str] | None = None
    misses: list[str] = []
    withheld: dict[str, str] = {}  # what the task does not ask for: a risk, and why it is left out
    if goal and not split:
        # The one pack's picks, best first, exactly as without a goal: the room a vague task leaves.
        plain = sorted(
            (_planned(name, op, res, act, ov, ranking[op.key]) for op, res, act, ov, name in entries),
            key=lambda v: (-v.score, v.name),
        )
        key_of = {v.name: v.op.key for v in plain}
        core = [key_of[n] for n in _one_pack(plain, ranking, max_verbs)]
        goal_keys, matches = select_for_goal(
            goal, [e[0] for e in entries], ranking, max_verbs, MIN_VERBS, core, misses, withheld
        )
        if misses:
            parts = ", ".join(repr(m) for m in misses[:5]) + (
                f" and {len(misses) - 5} more" if len(misses) > 5 else ""
            )
            diags.append(
                Diagnostic(
                    "C112",
                    "warning",
                    "--for",
                    f"No operation clearly does {'this part' if len(misses) == 1 else 'these parts'} of the task: "
                    f"{parts}. The pack holds the closest matches and, in the room left, the API's "
                    "everyday core.",
                    "If the API can do it, say it in the document's own words (packc plan lists every operation), "
                    "or name the verbs in a stub manifest.",
                )
            )
        extra = {k: m.signals() for k, m in matches.items()}
        for k in set(goal_keys) & set(core) - {k for k, m in matches.items() if m.relevance > 0}:
            extra[k] = (("the API's core, in the room the task left", 0),)
    candidates = [
        _planned(name, op, res, act, ov, ranking[op.key], extra.get(op.key, ()))
        for op, res, act, ov, name in entries
    ]

    ranked = sorted(candidates, key=lambda v: (-v.score, v.name))
    packs: list[PackPlan] = []
    if not split:
        if goal_keys is not None:
            included = [v.op.key for v in ranked if v.override.include]  # first: kept whatever the task picks
            keys = set((included + [k for k in goal_keys if k not in included])[:max_verbs])
            chosen = {v.name for v in ranked if v.op.key in keys}
        else:
            chosen = set(_one_pack(ranked, ranking, max_verbs))
        kept = [v for v in ranked if v.name in chosen]
        rest = [v for v in ranked if v.name not in chosen]
        for i, v in enumerate(rest, start=len(kept) + 1):
            why = (
                withheld.get(
                    v.op.key, "not among the verbs the task needs; say it in the task, or --include it"
                )
                if goal_keys is not None
                else f"one pack holds {max_verbs} verbs; --include keeps it, --split covers every operation"
            )
            left_out.append(
                LeftOut(v.op, v.name, f"ranked #{i} of {len(ranked)} (score {v.score}); {why}", v.score)
            )
        # A task's pack has an id of its own (unless the document or stub names one): compiled into
        # the same folder as the API's one pack, it would otherwise replace it.
        one_id = (
            sanitize_id(task_id(api_id, goal, MAX_NAME))
            if goal_keys is not None and goal and not overrides.api_id
            else api_id
        )
        if kept:
            packs.append(PackPlan(one_id, None, tuple(sorted(kept, key=lambda v: v.name))))
    else:
        groups = family(ranked)
        used: set[str] = set()
        for key, verbs in groups:
            # Derived from document text (tags, paths): made to fit the id grammar, never refused.
            pack_id = api_id if len(groups) == 1 else sanitize_id(cut_id(f"{api_id}-{key}", MAX_NAME))
            base, n = pack_id, 2
            while pack_id in used:  # ids cut to 64 characters may meet
                pack_id = sanitize_id(f"{cut_id(base, MAX_NAME - 4)}-{n}")
                n += 1
            used.add(pack_id)
            packs.append(PackPlan(pack_id, key, tuple(sorted(verbs, key=lambda v: v.name))))
    packs = [replace(p, verbs=_in_pack(p.verbs, scope_words, overrides)) for p in packs]
    if not packs:
        diags.append(
            Diagnostic(
                "C110",
                "error",
                "#/paths",
                "No operation is left to make a verb of.",
                "Add operations, or include some that --exclude, x-packc or the stub excludes.",
            )
        )
    left = tuple(sorted(left_out, key=lambda lo: lo.name))
    return Plan(
        api_id, tuple(packs), left, tuple(diags), goal if goal_keys is not None else None, tuple(misses)
    )


def by_key(plan_: Plan) -> Mapping[str, PlannedVerb]:
    """Every planned verb by operation key."""
    return {v.op.key: v for p in plan_.packs for v in p.verbs}
