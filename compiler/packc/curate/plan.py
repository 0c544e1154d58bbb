"""Plan: operations → verbs (names, ranking, selection) and verbs → packs (one, or a family)."""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from packc.curate._pick import select
from packc.curate._rank import Ranked, Signal, rank_operations
from packc.curate.goal import select_for_goal
from packc.curate.ids import api_id as _api_id
from packc.curate.ids import api_slug, cut_id, group_words
from packc.curate.naming import (
    MAX_NAME,
    name_operation,
    name_operations,
    pack_names,
    path_words,
    resolve_names,
    scopes,
    unscoped,
)
from packc.errors import UsageError
from packc.model import Api, Operation
from packc.read.overrides import OpOverride, Overrides
from packc.text import slug, snake
from packc.words import is_plural
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

MAX_VERBS = 12
MIN_VERBS = 5


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


def _unique_key(key: str, taken: Iterable[str]) -> str:
    used = set(taken)
    out, n = key, 2
    while out in used:
        out = f"{key}-{n}"
        n += 1
    return out


# --- packs ------------------------------------------------------------------------------------------


def _key(text: str) -> str:
    """A group key from a tag or word: hyphen words, versions dropped, cut by whole words."""
    return cut_id("-".join(group_words(slug(text, 200).split("-"))), 40) if slug(text) else ""


def _group_key(v: PlannedVerb) -> str:
    if v.override.group:
        return _key(v.override.group) or "misc"
    if v.op.tags and _key(v.op.tags[0]):
        return _key(v.op.tags[0])
    words = path_words(v.op)
    return _key(words[0]) if words else _key(v.name.split(".")[0]) or "misc"


def _related(a: list[PlannedVerb], b: list[PlannedVerb]) -> int:
    ra = {w for v in a for w in path_words(v.op)[:1]}
    rb = {w for v in b for w in path_words(v.op)[:1]}
    return len(ra & rb)


def _balanced(key: str, ordered: list[PlannedVerb]) -> list[tuple[str, list[PlannedVerb]]]:
    """Cut an ordered list into ⌈n/12⌉ packs of near-equal size (each 6 or more when n > 12)."""
    n = math.ceil(len(ordered) / MAX_VERBS)
    size, extra = divmod(len(ordered), n)
    out, start = [], 0
    for i in range(n):
        end = start + size + (1 if i < extra else 0)
        out.append((key if i == 0 else f"{key}-{i + 1}", ordered[start:end]))
        start = end
    return out


def _split_big(
    key: str, verbs: list[PlannedVerb], kin: Iterable[PlannedVerb] = ()
) -> list[tuple[str, list[PlannedVerb]]]:
    """A group above 12 → packs by sub-resource: the path word after what the whole group shares.

    Sub-resources stay whole where they fit (first fit, biggest first); the group's own operations
    (nothing after the shared words) keep the group's name; a sub-resource above 12 splits again by
    its own sub-resources; what cannot be told apart is cut into balanced packs. ``kin``: the list
    and create of the same collection elsewhere (``/user/repos``, ``/orgs/{org}/repos`` beside
    ``/repos/{owner}/{repo}``), which belong with the group's own operations in its core pack.
    """
    kin = list(kin)
    words = {v.op.key: path_words(v.op) for v in verbs}
    common = 0
    first = words[verbs[0].op.key]
    while common < len(first) and all(len(w) > common and w[common] == first[common] for w in words.values()):
        common += 1
    words.update({v.op.key: path_words(v.op) for v in kin})
    subs: dict[str, list[PlannedVerb]] = {}
    for v in sorted(verbs, key=lambda v: (words[v.op.key], v.name)):
        w = words[v.op.key]
        subs.setdefault(w[common] if len(w) > common else "", []).append(v)
    if len(subs) == 1 and not kin:  # nothing tells them apart: balanced packs in path order
        return _balanced(key, next(iter(subs.values())))
    # The sub-resource named like the group (/repos/... in tag "repos") takes the group's other
    # collections of the same noun: its core pack lists and creates them too.
    same = next((sub for sub in subs if sub and slug(sub) == key.rsplit("-", 1)[-1]), None)
    kinfolk: list[PlannedVerb] = []
    if same is not None and len(subs) > 1 and len(subs[same]) > MAX_VERBS:  # its core pack is made below
        for sub in [
            s for s in subs if s != same and len(subs[s]) < len(subs[same])
        ]:  # not from the group's body
            found = {v.op.key for v in subs[sub] if _collection_of(v, same)}
            kinfolk += [v for v in subs[sub] if v.op.key in found]
            subs[sub] = [v for v in subs[sub] if v.op.key not in found]
        subs = {sub: members for sub, members in subs.items() if members}
    if kin and 0 < len(subs.get("", [])) <= MAX_VERBS - len(kin):
        subs[""] = [*subs[""], *kin]
    else:  # no core pack to hold them: back to their own places
        for v in kin:
            subs.setdefault(words[v.op.key][0], []).append(v)
    core = _core(subs) if 0 < len(subs.get("", [])) <= MAX_VERBS else []
    left = len(verbs) + len(kin) - len(core)
    if core and 0 < left < MIN_VERBS:  # leave the rest a pack of 5: the core gives back its last picks
        keep = max(len(subs[""]), len(core) - (MIN_VERBS - left))
        while keep > len(subs[""]) and core[keep - 1].op.path == core[keep].op.path:
            keep -= 1  # a sub-collection's list and create go back together
        core = core[:keep]
    if core:
        taken = {v.op.key for v in core}
        subs = {
            sub: kept
            for sub, members in subs.items()
            if sub and (kept := [v for v in members if v.op.key not in taken])
        }
    pieces: list[tuple[str, list[PlannedVerb]]] = []  # whole sub-resources, each 12 or fewer
    for sub, members in sorted(subs.items(), key=lambda kv: (-len(kv[1]), kv[0] != "", kv[0])):
        word = slug(sub) or "misc"
        # The group's own operations, or a first word that repeats the group's name (tag "repos" on
        # /repos/...), keep the group's name.
        name = key if not sub or key == word or key.endswith(f"-{word}") else f"{key}-{word}"
        if len(members) > MAX_VERBS:
            pieces.extend(_split_big(name, members, kinfolk if sub == same else ()))
        else:
            pieces.append((name, members))
    # The fewest packs that hold the pieces whole: each piece, biggest first, goes to the emptiest pack.
    rest = len(verbs) + len(kin) - len(core)
    count = max(1, math.ceil(rest / MAX_VERBS))
    while pieces:
        bins: list[list[tuple[str, list[PlannedVerb]]]] = [[] for _ in range(count)]
        for piece in sorted(pieces, key=lambda p: (-len(p[1]), p[0] != key, p[0])):
            min(bins, key=lambda b: sum(len(m) for _, m in b)).append(piece)
        if all(sum(len(m) for _, m in b) <= MAX_VERBS for b in bins):
            break
        count += 1
    # A pack is named after its biggest piece (the group's own operations first).
    out = [
        (min(b, key=lambda p: (p[0] != key, -len(p[1]), p[0]))[0], [v for _, m in b for v in m])
        for b in (bins if pieces else [])
        if b
    ]
    if core:  # the core pack keeps the group's name; a piece pack that took it too is named after its word
        out = [
            (name if name != key else f"{key}-{slug(path_words(members[0].op)[common])}", members)
            for name, members in out
        ]
        out.append((key, core))
    # A pack below 5 joins the smallest other pack; past 12 the two are cut into balanced packs.
    while len(out) > 1 and min(len(m) for _, m in out) < MIN_VERBS:
        out.sort(key=lambda b: (len(b[1]), b[0]))
        small, other = out.pop(0), out.pop(0)
        name = key if key in (small[0], other[0]) else other[0]
        merged = sorted(other[1] + small[1], key=lambda v: (words[v.op.key], v.name))
        out.extend([(name, merged)] if len(merged) <= MAX_VERBS else _balanced(name, merged))
    return [
        (name, sorted(members, key=lambda v: (words[v.op.key], v.name)))
        for name, members in sorted(out, key=lambda b: (b[0], min((words[v.op.key], v.name) for v in b[1])))
    ]


def _collection_of(v: PlannedVerb, word: str) -> bool:
    """Whether ``v`` lists or creates a collection of ``word`` at another place (``GET /user/repos``)."""
    path = v.op.path.partition("?")[0].rstrip("/")
    last = path.rsplit("/", 1)[-1]
    return v.op.method in ("get", "post") and "{" not in last and last == word and len(path_words(v.op)) > 1


def _core(subs: Mapping[str, list[PlannedVerb]]) -> list[PlannedVerb]:
    """The pack a person would make of a big group: its own operations (list/create/get/update/
    delete), then the actions on its item (a pull request's merge, an issue's lock) and the list
    and create of the sub-collections under it (its reviews, its comments), those that rank
    highest first, up to 12. What is left splits by sub-resource as before."""
    own = subs[""]
    items = {v.op.path.rstrip("/") for v in own if v.op.path.rstrip("/").endswith("}")}

    def under(v: PlannedVerb) -> str:
        """The one static segment after a core item's path, or ``''``."""
        for item in items:
            tail = v.op.path[len(item) :]
            if v.op.path.startswith(item + "/") and tail.count("/") == 1 and "{" not in tail:
                return tail.strip("/")
        return ""

    actions, children = [], []
    for sub, members in sorted(subs.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        for v in sorted(members, key=lambda v: (v.op.path, v.op.method)):
            word = under(v) if sub else ""
            if not word:
                continue
            if not is_plural(snake(word)):
                actions.append(v)  # PUT .../pulls/{n}/merge, GET .../merge, PUT .../issues/{n}/lock
            elif v.op.method in ("get", "post"):
                children.append(v)  # GET/POST .../pulls/{n}/reviews
    # Of the item's actions and sub-collections, the ones that matter most first.
    rest = sorted([*actions, *children], key=lambda v: (-v.score, v.name))
    return [*own, *rest][:MAX_VERBS]


def _merged_name(members: list[tuple[str, int]]) -> str:
    """A merged group's name: its biggest parts (at most three), as long as the name stays short."""
    out = ""
    for name, _size in sorted(members, key=lambda m: (-m[1], m[0]))[:3]:
        candidate = f"{out}-{name}" if out else name
        if out and len(candidate) > 32:
            break
        out = candidate
    return out


def _groups(verbs: list[PlannedVerb]) -> list[tuple[str, list[PlannedVerb]]]:
    by_key: dict[str, list[PlannedVerb]] = {}
    for v in verbs:
        by_key.setdefault(_group_key(v), []).append(v)
    groups: dict[str, list[PlannedVerb]] = {}
    parts: dict[str, list[tuple[str, int]]] = {}
    for key in sorted(by_key):
        if len(by_key[key]) > MAX_VERBS:
            for sub, chunk in _split_big(key, by_key[key]):
                name = _unique_key(sub, [*groups, *(k for k in by_key if k != key)])
                groups[name] = chunk
                parts[name] = [(name, len(chunk))]
        else:
            groups[key] = by_key[key]
            parts[key] = [(key, len(by_key[key]))]
    # Merge small groups into the most related group with room, else into any small group.
    changed = True
    while changed:
        changed = False
        for key in sorted(groups, key=lambda k: (len(groups[k]), k)):
            if len(groups[key]) >= MIN_VERBS:
                continue
            others = [k for k in groups if k != key]
            if not others:
                break
            room = [k for k in others if len(groups[k]) + len(groups[key]) <= MAX_VERBS] or others
            best = max(
                room,
                key=lambda k: (
                    _related(groups[key], groups[k]),
                    len(groups[k]) < MIN_VERBS,
                    -len(groups[k]),
                    [-ord(c) for c in k],
                ),
            )
            related = _related(groups[key], groups[best]) > 0
            into, other = sorted((best, key), key=lambda k: (-len(groups[k]), k))
            merged = groups.pop(into) + groups.pop(other)
            # Related groups keep the larger one's name; unrelated ones are named after their parts.
            members = parts.pop(into) + parts.pop(other)
            name = into if related else _unique_key(_merged_name(members), groups)
            if len(merged) <= MAX_VERBS:
                groups[name] = merged
                parts[name] = members
            else:  # no group had room: merge, then cut into balanced packs (each then has 6 or more)
                for sub, chunk in _balanced(name, merged):
                    unique = _unique_key(sub, groups)
                    groups[unique] = chunk
                    parts[unique] = [(unique, len(chunk))]
            changed = True
            break
    return sorted(groups.items())


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
    left_out: list[LeftOut] = []
    entries: list[tuple[Operation, tuple[str, ...], str, OpOverride, str]] = []
    for op, res, act, ov in named:
        if op.key not in names:
            continue
        name = names[op.key]
        if ov.exclude:
            left_out.append(
                LeftOut(op, name, "excluded by --exclude" if ov.by_hand else "excluded by x-packc")
            )
            continue
        if (
            overrides.stub_verbs is not None
            and name not in overrides.stub_verbs
            and unscoped(op, name, scope_words) not in by_short
        ):
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
    if goal and not split:
        # The one pack's picks, best first, exactly as without a goal: the room a vague task leaves.
        plain = sorted(
            (_planned(name, op, res, act, ov, ranking[op.key]) for op, res, act, ov, name in entries),
            key=lambda v: (-v.score, v.name),
        )
        key_of = {v.name: v.op.key for v in plain}
        core = [key_of[n] for n in _one_pack(plain, ranking, max_verbs)]
        goal_keys, matches = select_for_goal(
            goal, [e[0] for e in entries], ranking, max_verbs, MIN_VERBS, core, misses
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
                "not among the verbs the task needs; say it in the task, or --include it"
                if goal_keys is not None
                else f"one pack holds {max_verbs} verbs; --include keeps it, --split covers every operation"
            )
            left_out.append(LeftOut(v.op, v.name, f"ranked #{i} of {len(ranked)} (score {v.score}); {why}"))
        if kept:
            packs.append(PackPlan(api_id, None, tuple(sorted(kept, key=lambda v: v.name))))
    else:
        groups = _groups(ranked)
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
