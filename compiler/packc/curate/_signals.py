"""The ranking's signals: small functions, each giving an operation its points and the reason why."""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from packc.curate._entry import ENTRY, GLOBAL_SEARCH, entry_point
from packc.curate._schemas import body_fields, main_schema, names_noun
from packc.curate._shape import Shape, hanging_from, noun_of, path_segments, stem, words
from packc.curate._signal_words import (
    ADMIN,
    ADMIN_TEXT,
    DIRECTORY,
    EVERYDAY_VERBS,
    PLUMBING,
    SIGNATURE_VERBS,
)
from packc.curate._weights import Weights
from packc.model import Api, Operation

__all__ = ["SIGNALS", "Facts", "Signal", "SignalFn"]

Signal = tuple[str, int]  # (signal name, points)
Resource = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Facts:
    """What the whole API says, worked out once (``packc.curate._rank``); every signal reads it."""

    api: Api
    w: Weights
    total: int  # operations ranked
    under: Counter[Resource]  # operations at or below each path prefix
    members: Counter[Resource]  # operations of each resource
    crud: Mapping[Resource, set[str]]  # each resource's core actions
    containers: Mapping[Resource, int]  # collections whose items hold nearly all the API
    alone: frozenset[Resource]  # resources that only create (nothing to list or read back)
    alone_api: bool  # ... and the API is mostly made of them
    base_depth: int  # the lower-quartile path depth
    nouns: Mapping[Resource, Resource]
    by_stem: Mapping[str, set[str]]  # operation keys whose own text has each stem
    mentions: Mapping[Resource, int]
    homes: Mapping[Resource, Resource]
    lister: Mapping[Resource, Resource]  # the listing of a noun whose home has none
    refs: Counter[str]  # how many component schemas reference each one
    memo: dict[str, str | None]  # main schema names by $ref, filled as operations are read
    tag_pos: Mapping[str, int]
    intro: frozenset[str]  # stems of the title and the introduction's lead
    median_text: int
    richest: int | None
    said: Counter[str]  # how many operations share each description
    common: Callable[[], frozenset[str]]
    selves: frozenset[Resource]  # nouns the API's who-am-I names


SignalFn = Callable[[Facts, Operation, Shape], Signal | None]


def log_points(n: int, weight: float, cap: int) -> int:
    return min(cap, round(weight * math.log2(1 + n)))


def action(f: Facts, op: Operation, s: Shape) -> Signal | None:
    if s.action in f.w.core:
        return (f"core {s.action}", f.w.core[s.action])
    return (f"action {s.action}", f.w.other_action)


def verb(f: Facts, op: Operation, s: Shape) -> Signal | None:
    if s.action in SIGNATURE_VERBS:
        return (f"signature verb {s.action}", f.w.signature_verb)
    first = [stem(w) for w in words(op.summary or op.description[:80])[:1]]
    if first and first[0] in SIGNATURE_VERBS and first[0] != s.action:
        return (
            f"summary says {first[0]}",
            f.w.summary_verb if s.action not in f.w.core else f.w.summary_verb_core,
        )
    noun = f.nouns.get(s.resource, ())
    if s.action == "create" and noun[-1:] and noun[-1] in SIGNATURE_VERBS:
        # POST /refunds, /transfers, /issues/{n}/comments: creating the record is the act itself.
        return (f"creates a {noun[-1]}: the act itself", f.w.act_noun)
    if s.action in EVERYDAY_VERBS:
        return ("everyday verb", f.w.everyday_verb)
    return None


def entry(f: Facts, op: Operation, s: Shape) -> Signal | None:
    sure = entry_point(op, s, f.common)
    if sure:
        return (ENTRY, f.w.entry + f.w.entry_per_sureness * sure)
    if s.action == "search" and not s.resource:
        return (GLOBAL_SEARCH, f.w.global_search)
    return None


def depth(f: Facts, op: Operation, s: Shape) -> Signal | None:
    if s.depth > f.base_depth + f.w.deep_slack:
        return (f"path depth {s.depth}", f.w.deep_per_level * (s.depth - f.base_depth - f.w.deep_slack))
    if s.depth <= f.base_depth and s.depth <= f.w.shallow_max_depth:
        return (f"shallow path (depth {s.depth})", f.w.shallow)
    return None


def _lists_for(f: Facts, s: Shape) -> bool:
    """Whether this is how its noun is listed (the home has no list), or created there too when the
    home cannot create (POST /users/{id}/meetings)."""
    noun = f.nouns.get(s.resource, ())
    return f.lister.get(noun) == s.resource and (
        s.action == "list" or (s.action == "create" and "create" not in f.crud.get(f.homes.get(noun, ()), ()))
    )


def prominence(f: Facts, op: Operation, s: Shape) -> Signal | None:
    if not s.resource:
        return None
    where = (
        f.homes[f.nouns[s.resource]] if _lists_for(f, s) else s.resource
    )  # the listing stands in for its home
    n = f.under[where]
    return (f"{n} operations under {'/'.join(where)}", log_points(n, f.w.under_weight, f.w.under_cap))


def parent_prominence(f: Facts, op: Operation, s: Shape) -> Signal | None:
    parent = hanging_from(s.resource) if s.resource else ()
    if parent and f.under[parent] > f.under[s.resource]:
        n = f.under[parent]
        return (
            f"{n} operations under its parent {'/'.join(parent)}",
            log_points(n, f.w.parent_weight, f.w.parent_cap),
        )
    return None


def _home_share(f: Facts, s: Shape) -> tuple[bool, float]:
    """The noun's main home earns its fame; a nested listing of it, a share, unless the home cannot
    list (no GET /cards: /lists/{id}/cards is how cards are listed)."""
    home = f.homes.get(f.nouns.get(s.resource, ())) == s.resource or _lists_for(f, s)
    return home, 1.0 if home else f.w.away_share


def mentions(f: Facts, op: Operation, s: Shape) -> Signal | None:
    n = f.mentions.get(s.resource)
    if not n:
        return None
    home, share = _home_share(f, s)
    noun = " ".join(f.nouns.get(s.resource, ()))
    return (
        f"{noun!r} named by {n} other operations" + ("" if home else " (not its home)"),
        round(share * log_points(n, f.w.mentions_weight, f.w.mentions_cap)),
    )


def intro(f: Facts, op: Operation, s: Shape) -> Signal | None:
    noun = " ".join(f.nouns.get(s.resource, ()))
    if noun and f.nouns[s.resource][-1] in f.intro:
        return (f"{noun!r} named in the API's own introduction", f.w.intro)
    return None


def acted_on(f: Facts, op: Operation, s: Shape) -> Signal | None:
    """What an RPC call acts on (``chat.postMessage``: message), named by other operations."""
    if not s.object or noun_of((s.object,)) == f.nouns.get(s.resource):
        return None
    obj = noun_of((s.object,))
    named = len(set.intersection(*(f.by_stem.get(w, set()) for w in obj)) - {op.key}) if obj else 0
    if named:
        return (
            f"{' '.join(obj)!r} (what it acts on) named by {named} other operations",
            log_points(named, f.w.object_weight, f.w.object_cap),
        )
    return None


def schema(f: Facts, op: Operation, s: Shape) -> Signal | None:
    # Asked of every operation, in order: a schema's name is worked out once, where first met.
    name = main_schema(f.api, op, f.memo)
    if name and f.refs.get(name) and names_noun(name, f.nouns.get(s.resource, ())):
        home, share = _home_share(f, s)
        return (
            f"schema {name!r} referenced {f.refs[name]} times" + ("" if home else " (not its home)"),
            round(share * log_points(f.refs[name], f.w.schema_weight, f.w.schema_cap)),
        )
    return None


def standalone(f: Facts, op: Operation, s: Shape) -> Signal | None:
    # POST /chat/completions, /mail/send-like resources: nothing to list or read back, the request is
    # the point. An API of such calls has these as its signature actions.
    if s.action != "create" or s.resource not in f.alone:
        return None
    if f.alone_api:
        return (f"standalone action, like {len(f.alone)} of {len(f.members)} resources", f.w.standalone_api)
    return ("standalone action (nothing to list or read back)", f.w.standalone)


def crud(f: Facts, op: Operation, s: Shape) -> Signal | None:
    acts = f.crud.get(s.resource, ())
    if len(acts) >= f.w.crud_min:
        return (f"resource has {len(acts)} of list/get/create/update/delete", f.w.crud_per_action * len(acts))
    return None


def container(f: Facts, op: Operation, s: Shape) -> Signal | None:
    if s.resource in f.containers and s.action in ("list", "create", "delete"):
        return (
            f"{f.containers[s.resource]} of {f.total} operations work inside one of its items",
            f.w.container,
        )
    return None


def tag_order(f: Facts, op: Operation, s: Shape) -> Signal | None:
    if f.tag_pos and op.tags and op.tags[0] in f.tag_pos:
        at, of = f.tag_pos[op.tags[0]], len(f.tag_pos)
        return (f"tag {op.tags[0]!r} is #{at + 1} of {of}", round(f.w.tag_order * (1 - at / of)))
    return None


def summary(f: Facts, op: Operation, s: Shape) -> Signal | None:
    return ("summary", f.w.summary) if op.summary else None


def description(f: Facts, op: Operation, s: Shape) -> Signal | None:
    text, median = len(op.summary) + len(op.description), f.median_text
    if text > median:
        return (
            f"description {text} characters (median {median})",
            min(
                f.w.description_cap,
                round(f.w.description_weight * math.log2(text / max(median, f.w.description_floor))),
            ),
        )
    return None


def richest(f: Facts, op: Operation, s: Shape) -> Signal | None:
    """Among the few operations a document describes at most length (its authors' own emphasis)."""
    text = len(op.summary) + len(op.description)
    if (
        text > f.median_text
        and f.richest is not None
        and text >= f.richest
        and text >= f.w.richest_over_median * f.median_text
        and f.said[op.description] == 1  # a text shared by a resource's operations is no emphasis
    ):
        return ("among the document's most described operations", f.w.richest)
    return None


def body(f: Facts, op: Operation, s: Shape) -> Signal | None:
    fields = body_fields(f.api, op)
    if fields >= f.w.body_min:
        return (
            f"request body of {fields} fields",
            min(f.w.body_cap, round(f.w.body_weight * math.log2(fields / f.w.body_half))),
        )
    return None


@functools.lru_cache(maxsize=1 << 16)
def _path_marks(path: str) -> frozenset[str]:
    return frozenset(w for seg in path_segments(path)[0] for w in words(seg))


def _marks(op: Operation) -> frozenset[str]:
    return _path_marks(op.path) | {w for t in op.tags for w in words(t)} | set(words(op.operation_id or ""))


def _admin(op: Operation) -> set[str] | frozenset[str]:
    return _marks(op) & ADMIN or {k for k in op.extensions if k in ("x-internal", "x-beta")}


def deprecated(f: Facts, op: Operation, s: Shape) -> Signal | None:
    return ("deprecated", f.w.deprecated) if op.deprecated else None


def admin(f: Facts, op: Operation, s: Shape) -> Signal | None:
    found = _admin(op)
    return (f"{min(found)} operation", f.w.admin) if found else None


def plumbing(f: Facts, op: Operation, s: Shape) -> Signal | None:
    found = _marks(op) & PLUMBING
    return (f"{min(found)}: plumbing", f.w.plumbing) if found else None


def admin_text(f: Facts, op: Operation, s: Shape) -> Signal | None:
    if not _admin(op) and ADMIN_TEXT.search(op.summary or op.description.split(". ")[0][:200]):
        return ("summary mentions admin or enterprise", f.w.admin_text)
    return None


def rare_method(f: Facts, op: Operation, s: Shape) -> Signal | None:
    if op.method in ("head", "options", "trace"):
        return (f"{op.method.upper()} is rarely needed", f.w.rare_method)
    return None


def directory_read(f: Facts, op: Operation, s: Shape) -> Signal | None:
    """GET /users beside the API's who-am-I GET /user: everyone else, a directory to administer."""
    last = f.nouns.get(s.resource, ())[-1:]
    if (
        s.action in ("list", "get")
        and len(s.resource) == 1
        and tuple(last) in f.selves
        and last[0] in DIRECTORY
        and not entry_point(op, s, f.common)
    ):
        return (f"other {last[0]}s than the caller's own: a directory", f.w.directory_read)
    return None


def directory_management(f: Facts, op: Operation, s: Shape) -> Signal | None:
    last = f.nouns.get(s.resource, ())[-1:]
    if s.action in ("create", "update", "delete") and last and last[0] in DIRECTORY:
        return (f"{s.action} a {last[0]}: directory management", f.w.directory_management)
    return None


# Every signal, in the order an operation's points are listed (``packc plan`` shows them so); the
# weights of all of them are ``packc.curate._weights.WEIGHTS``.
SIGNALS: tuple[SignalFn, ...] = (
    action,
    verb,
    entry,
    depth,
    prominence,
    parent_prominence,
    mentions,
    intro,
    acted_on,
    schema,
    standalone,
    crud,
    container,
    tag_order,
    summary,
    description,
    richest,
    body,
    deprecated,
    admin,
    plumbing,
    admin_text,
    rare_method,
    directory_read,
    directory_management,
)
