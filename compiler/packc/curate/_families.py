"""A family of packs (``--split``): verbs grouped by tag or path, big groups split, small ones merged."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from packc.curate.ids import cut_id, group_words
from packc.curate.naming import path_words
from packc.text import slug, snake
from packc.words import is_plural

if TYPE_CHECKING:
    from packc.curate.plan import PlannedVerb

__all__ = ["MAX_VERBS", "MIN_VERBS", "groups"]

MAX_VERBS = 12
MIN_VERBS = 5


def _unique_key(key: str, taken: Iterable[str]) -> str:
    used = set(taken)
    out, n = key, 2
    while out in used:
        out = f"{key}-{n}"
        n += 1
    return out


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


def groups(verbs: list[PlannedVerb]) -> list[tuple[str, list[PlannedVerb]]]:
    """A family's packs, ``(group key, verbs)`` sorted by key: by tag or first path word, a group
    above 12 split by sub-resource, one below 5 merged into the most related group with room."""
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
