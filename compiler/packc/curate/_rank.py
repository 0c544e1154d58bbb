"""Rank: how much each operation matters to its API, from signals every document carries.

Each signal (``packc.curate._signals``) gives whole points and says why, so ``packc plan`` can show
why a verb was kept; their weights are one table (``packc.curate._weights``), told in words in
docs/compile.md ("Selection"). Nothing here knows a vendor: it reads paths, methods, summaries,
descriptions, tags, operationIds and the document's own schema references. Deterministic: the same
document gives the same points.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from packc.curate._entry import ENTRY, GLOBAL_SEARCH, SELF_PREFIXES, common_arguments, entry_point
from packc.curate._schemas import ID_WORDS, required_nouns, schema_refs
from packc.curate._shape import (
    Shape,
    hanging_from,
    noun_homes,
    noun_mentions,
    noun_of,
    parent_item,
    path_segments,
    same_noun,
    segment_list,
    shape,
    stem,
    words,
)
from packc.curate._signal_words import SIGNATURE_VERBS
from packc.curate._signals import SIGNALS, Facts, Signal
from packc.curate._weights import WEIGHTS, Weights
from packc.model import Api, Operation

__all__ = [
    "ENTRY",
    "GLOBAL_SEARCH",
    "SIGNATURE_VERBS",
    "Ranked",
    "Shape",
    "Signal",
    "common_arguments",
    "entry_point",
    "noun_of",
    "parent_item",
    "rank_operations",
    "same_noun",
    "shape",
    "stem",
    "words",
]


@dataclass(frozen=True, slots=True)
class Ranked:
    """The points an operation earned, signal by signal."""

    shape: Shape
    points: tuple[Signal, ...]
    # The nouns a create's required body fields name (``server_type``, ``image``, ``region``): the
    # lists that give their values are what a person calls before it.
    needs: frozenset[tuple[str, ...]] = frozenset()
    score: int = field(init=False)  # the sum of the points, kept (selection reads it often)

    def __post_init__(self) -> None:
        object.__setattr__(self, "score", sum(p for _, p in self.points))


def rank_operations(api: Api, ops: Sequence[Operation], weights: Weights = WEIGHTS) -> dict[str, Ranked]:
    """Points for every operation, signal by signal, keyed by operation key."""
    shapes = _collections(ops, _rpc_reads(ops, _scoped_lists(ops, {op.key: shape(op) for op in ops})))
    facts = _facts(api, ops, shapes, weights)
    out: dict[str, Ranked] = {}
    for op in ops:
        s = shapes[op.key]
        points = tuple(p for signal in SIGNALS if (p := signal(facts, op, s)) is not None)
        needs = required_nouns(api, op) if s.action == "create" else frozenset()
        out[op.key] = Ranked(s, points, needs)
    return out


def _facts(api: Api, ops: Sequence[Operation], shapes: dict[str, Shape], w: Weights) -> Facts:
    """What the whole API says that the signals read: worked out once, before any operation's points."""
    under: Counter[tuple[str, ...]] = Counter()  # operations at or below each path prefix
    for op in ops:
        segs = segment_list(op.path)[0]
        for i in range(1, len(segs) + 1):
            under[tuple(segs[:i])] += 1
    members = Counter(s.resource for s in shapes.values())
    crud: dict[tuple[str, ...], set[str]] = {}
    for s in shapes.values():
        if s.action in w.core:
            crud.setdefault(s.resource, set()).add(s.action)
    # A collection whose items hold nearly all the API (/Accounts/{sid}/... in Twilio): every call works
    # inside one of them; listing, creating or deleting them is management, not the API's use.
    containers = {
        seg[:-1]: under[seg]
        for seg in under
        if len(seg) >= 2
        and seg[-1] == "{}"
        and "{}" not in seg[:-1]
        and under[seg] >= w.container_share * len(ops)
        and len(ops) >= w.container_min_ops
    }
    alone = {r for r, acts in crud.items() if acts == {"create"} and members[r] == 1}
    # An API made mostly of such calls (a model's completions, embeddings, moderations): they are its point.
    alone_api = len(alone) >= w.standalone_api_share * len(members)
    depths = sorted(s.depth for s in shapes.values())
    base_depth = depths[len(depths) // 4] if depths else 1
    stems = {op.key: _text_stems(op) for op in ops}
    nouns = {r: noun_of(r) for r in {s.resource for s in shapes.values()}}
    by_stem: dict[str, set[str]] = {}
    for key, found in stems.items():
        for st in found:
            by_stem.setdefault(st, set()).add(key)
    mentions = noun_mentions(shapes, by_stem, nouns)
    homes = noun_homes(nouns, under)
    # A noun whose home has no list is listed under a parent (no GET /cards: /lists/{id}/cards); the
    # shallowest such listing under the busiest parent is the way to list it.
    lister: dict[tuple[str, ...], tuple[str, ...]] = {}
    for r in sorted(crud, key=lambda r: (len(r), -under[hanging_from(r)], r)):
        listed = nouns.get(r, ())
        home_of = homes.get(listed)
        if (
            "list" in crud[r]
            and ("{}" in r or r[:1] in SELF_PREFIXES)
            and len(r) <= 3
            and home_of not in (None, r)
            and "list" not in crud.get(home_of, ())
        ):
            lister.setdefault(listed, r)
    # What the document's own introduction names (its title and the lead of info.description):
    # "The Gmail API lets you view and manage Gmail mailbox data like threads, messages, and labels."
    intro = {stem(w) for w in words(f"{api.info.title} {api.info.description[: w.intro_lead]}")}
    texts = sorted(len(op.summary) + len(op.description) for op in ops)
    median_text = texts[len(texts) // 2] if texts else 0
    # The few operations a document describes at most length (its authors' own emphasis): top 1%, at least 3.
    richest = (
        texts[-max(w.richest_min, len(texts) // w.richest_part)] if len(texts) >= w.richest_min_ops else None
    )
    said = Counter(op.description for op in ops)  # a text shared by a resource's operations is no emphasis
    # The nouns the API's "who am I" names (GET /v1/account, /user): the collection of the same noun
    # (/v1/accounts, /users) is everyone else's, a directory to administer, not the caller's work.
    common = functools.cache(lambda: common_arguments(ops))
    selves = {
        noun_of(shapes[op.key].resource)[-1:] for op in ops if entry_point(op, shapes[op.key], common) >= 1
    }
    return Facts(
        api=api,
        w=w,
        total=len(ops),
        under=under,
        members=members,
        crud=crud,
        containers=containers,
        alone=frozenset(alone),
        alone_api=alone_api,
        base_depth=base_depth,
        nouns=nouns,
        by_stem=by_stem,
        mentions=mentions,
        homes=homes,
        lister=lister,
        refs=schema_refs(api),
        memo={},
        tag_pos=_ordered_tags(api, w),
        intro=frozenset(intro),
        median_text=median_text,
        richest=richest,
        said=said,
        common=common,
        selves=frozenset(selves),
    )


def _text_stems(op: Operation) -> set[str]:
    """Stems of what an operation says about itself: summary, first sentence of description, operationId."""
    text = op.summary or op.description.split(". ")[0][:200]
    return {stem(w) for w in words(f"{text} {op.operation_id or ''}")}


def _ordered_tags(api: Api, w: Weights) -> dict[str, int]:
    """Declared tag positions, when the document ordered its tags itself (not alphabetically)."""
    names = [t.name for t in api.tags]
    # By each name's first word, stemmed: "Certificates" then "Certificate Actions" is alphabetical.
    heads = [stem(ws[0]) if ws else "" for ws in (words(n) for n in names)]
    in_order = sum(1 for a, b in itertools.pairwise(heads) if a <= b)
    if len(names) < w.tag_min or in_order >= w.tag_sorted_share * (len(names) - 1):
        return {}  # alphabetical (or nearly): the order says nothing about importance
    return {n: i for i, n in enumerate(names)}


_KEY_WORDS = ID_WORDS | {
    "name",
    "number",
    "code",
}  # what a path parameter adds to the noun it names


def _scoped_lists(ops: Sequence[Operation], shapes: dict[str, Shape]) -> dict[str, Shape]:
    """``GET /flags/{projectKey}`` lists a project's flags: a top-level item path whose one parameter
    names another of the API's resources (not its own noun) reads many of it, not one."""
    known = {n[-1] for s in shapes.values() if (n := noun_of(s.resource))}
    out = dict(shapes)
    for op in ops:
        s = shapes[op.key]
        path = op.path.rstrip("/")
        if s.action != "get" or not path.endswith("}") or path.count("{") != 1 or len(s.resource) != 1:
            continue
        named = [stem(w) for w in words(path.rsplit("{", 1)[1].rstrip("}")) if w not in _KEY_WORDS]
        own = noun_of(s.resource)
        if named and own and named[-1] in known and not any(same_noun(w, o) for w in named for o in own):
            out[op.key] = Shape(s.resource, "list", s.depth, s.object, s.verb)
    return out


def _collections(ops: Sequence[Operation], shapes: dict[str, Shape]) -> dict[str, Shape]:
    """``GET /api/v1/app/`` beside ``GET /api/v1/app/{app_id}/``: a singular word with items below
    it is a collection, and its read lists them (``GET /user`` beside ``/user/{account_id}`` stays
    the caller's one object: it is who am I)."""
    items = {segs[:-1] for op in ops if (segs := path_segments(op.path)[0])[-1:] == ("{}",)}
    out = dict(shapes)
    for op in ops:
        s = shapes[op.key]
        if (
            op.method == "get"
            and s.action == "get"
            and not s.object
            and not op.path.rstrip("/").endswith("}")
            and path_segments(op.path)[0] in items
            and not entry_point(op, s)
        ):
            out[op.key] = Shape(s.resource, "list", s.depth)
    return out


def _rpc_reads(ops: Sequence[Operation], shapes: dict[str, Shape]) -> dict[str, Shape]:
    """In an API that POSTs nearly every call (RPC over HTTP), POST says nothing: ``POST
    /inbound/domains.json`` ("List the domains ...") lists; a create says so in its name (add-domain)."""
    if len(ops) < 10 or sum(op.method == "post" for op in ops) < 0.8 * len(ops):
        return shapes
    out = dict(shapes)
    for op in ops:
        s = shapes[op.key]
        last = s.resource[-1:] if s.resource else ()
        if op.method == "post" and s.action == "create" and not s.object and last and _plural_word(last[0]):
            said = words(op.summary or op.description[:80])[:1]
            if not said or not (set(said) & {"create", "add", "new", "send", "post", "upload", "make"}):
                out[op.key] = Shape(s.resource, "list", s.depth)
    return out


def _plural_word(word: str) -> bool:
    w = word.lower()
    return stem(w) != w and w.endswith("s")
