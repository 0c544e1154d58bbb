"""Rank: how much each operation matters to its API, from signals every document carries.

Each signal gives whole points, so ``packc plan`` can show why a verb was kept; the signals and
their weights are listed in docs/compile.md ("Selection"). Nothing here knows a vendor: it reads
paths, methods, summaries, descriptions, tags, operationIds and the document's own schema
references. Deterministic: the same document gives the same points.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

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
from packc.model import Api, Operation
from packc.words import SELF_WORDS

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

Signal = tuple[str, int]  # (signal name, points)


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


# --- signals ------------------------------------------------------------------------------------------

_CORE = {"list": 30, "get": 28, "create": 30, "update": 18, "delete": 8}
# Verbs an agent is usually asked to do: an API's signature actions (send a message, search, merge),
# and, less so, the everyday create and list.
SIGNATURE_VERBS = frozenset(
    {
        "send",
        "post",
        "search",
        "merge",
        "reply",
        "publish",
        "upload",
        "confirm",
        "capture",
        "refund",
        "approve",
        "comment",
        "share",
        "query",
        "invite",
        "assign",
        "transition",
        "deploy",
        "pay",
        "charge",
        "transfer",
        "translate",
        "transcribe",
    }
)
_EVERYDAY_VERBS = frozenset({"create", "list"})
_ADMIN = frozenset(
    {
        "admin",
        "admins",
        "administrator",
        "enterprise",
        "enterprises",
        "internal",
        "beta",
        "preview",
        "experimental",
        "legacy",
        "deprecated",
        "alpha",
        "sandbox",
        "test",
        "testing",
        "helpers",
    }
)
_PLUMBING = frozenset(
    {
        "settings",
        "setting",
        "permissions",
        "permission",
        "audit",
        "billing",
        "webhook",
        "webhooks",
        "hook",
        "hooks",
        "oauth",
        "token",
        "tokens",
        "secret",
        "secrets",
        "keys",
        "rulesets",
        "configuration",
        "configurations",
        "config",
        "migrations",
        "credentials",
        "credential",
        "runners",
        "runner",
        "usage",
        "quotas",
        "limits",
        "logs",
        "metrics",
        "reports",
        "field",
        "fields",
        "property",
        "properties",
        "metadata",
        "schema",
        "schemas",
        "multipart",
        "presign",
        "presigned",
        "chunk",
        "chunked",
    }
)
# Who is in the API's directory: creating or removing them is an administrator's chore, not an agent's
# everyday work (Stripe Connect accounts, Jira users, GitHub teams, Trello organizations).
_DIRECTORY = frozenset(
    {
        "user",
        "team",
        "group",
        "organization",
        "org",
        "member",
        "account",
        "workspace",
        "tenant",
        "role",
        "subaccount",
    }
)
_ADMIN_TEXT = re.compile(r"\b(admin|administrators?|enterprise)\b", re.I)


ACT_NOUN = 18
INTRO, INTRO_LEAD = 20, 1000  # points for a noun the introduction names; characters of it read
DIRECTORY_READ = 15


def _log_points(n: int, weight: float, cap: int) -> int:
    return min(cap, round(weight * math.log2(1 + n)))


def _operation_node(api: Api, op: Operation) -> dict[str, Any] | None:
    paths = api.document.get("paths")
    node = paths.get(op.path) if isinstance(paths, dict) else None
    node = node.get(op.method) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else None


def _main_schema(api: Api, op: Operation, memo: dict[str, str | None]) -> str | None:
    """The component schema an operation returns (or, failing that, takes): its main object."""
    node = _operation_node(api, op)
    if node is None:
        return None
    bodies: list[Any] = []
    responses = node.get("responses")
    if isinstance(responses, dict):
        ok = [s for s in responses if str(s).startswith("2")]
        bodies += [responses[s] for s in (sorted(ok, key=str) if len(ok) > 1 else ok)]
    if isinstance(node.get("requestBody"), dict):
        bodies.append(node["requestBody"])
    for body in bodies:
        body = api.deref(body)
        content = body.get("content") if isinstance(body, dict) else None
        if not isinstance(content, dict):
            continue
        for media in content.values():
            schema = media.get("schema") if isinstance(media, dict) else None
            name = _schema_name(api, schema, 0, memo)
            if name:
                return name
    return None


def _body_fields(api: Api, op: Operation) -> int:
    """How many top-level fields the operation's request body has (a signature action takes many)."""
    node = _operation_node(api, op)
    body = api.deref(node.get("requestBody")) if node is not None else None
    content = body.get("content") if isinstance(body, dict) else None
    most = 0
    if isinstance(content, dict):
        for media in content.values():
            schema = api.deref(media.get("schema")) if isinstance(media, dict) else None
            props = schema.get("properties") if isinstance(schema, dict) else None
            if isinstance(props, dict):
                most = max(most, len(props))
    return most


_ID_WORDS = frozenset({"id", "ids", "sid", "gid", "uuid", "key", "slug"})


def _required_nouns(api: Api, op: Operation) -> frozenset[tuple[str, ...]]:
    """The nouns an operation's required body fields name: ``server_type`` → (server, type)."""
    node = _operation_node(api, op)
    body = api.deref(node.get("requestBody")) if node is not None else None
    content = body.get("content") if isinstance(body, dict) else None
    out: set[tuple[str, ...]] = set()
    for media in content.values() if isinstance(content, dict) else ():
        schema = api.deref(media.get("schema")) if isinstance(media, dict) else None
        required = schema.get("required") if isinstance(schema, dict) else None
        for name in required if isinstance(required, list) else ():
            ws = [w for w in words(str(name)) if w not in _ID_WORDS]
            if 1 <= len(ws) <= 2:
                out.add(tuple(stem(w) for w in ws))
        break
    return frozenset(out)


def _schema_name(api: Api, schema: Any, depth: int, memo: dict[str, str | None]) -> str | None:
    if not isinstance(schema, dict) or depth > 2:
        return None
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
        if ref not in memo:  # many operations return the same schema
            target = api.deref(schema)
            inner = _schema_name(api, target, depth + 1, memo) if _is_wrapper(target) else None
            memo[ref] = inner or ref.rsplit("/", 1)[1]
        return memo[ref]
    if isinstance(schema.get("items"), dict):
        return _schema_name(api, schema["items"], depth + 1, memo)
    for key in ("anyOf", "oneOf", "allOf"):  # Stripe's customer | deleted_customer: the first named one
        parts = schema.get(key)
        if isinstance(parts, list):
            for part in parts:
                name = _schema_name(api, part, depth + 1, memo)
                if name:
                    return name
    if _is_wrapper(schema):
        for prop in schema["properties"].values():
            name = _schema_name(api, prop, depth + 1, memo)
            if name:
                return name
    return None


def _is_wrapper(schema: Any) -> bool:
    """A list envelope: an object whose only object-valued property is one array (``{data: [...], has_more}``)."""
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return False
    arrays = [p for p in schema["properties"].values() if isinstance(p, dict) and p.get("type") == "array"]
    return len(arrays) == 1 and len(schema["properties"]) <= 6


def _schema_refs(api: Api) -> Counter[str]:
    """How many component schemas reference each one (directly, in properties, items or compositions)."""
    components = api.document.get("components")
    schemas = components.get("schemas") if isinstance(components, Mapping) else None
    counts: Counter[str] = Counter()
    if not isinstance(schemas, Mapping):
        return counts
    for name, schema in schemas.items():
        found: set[str] = set()
        _refs(schema, found, 0)
        found.discard(name)
        counts.update(found)
    return counts


def _refs(node: Any, out: set[str], depth: int) -> None:
    if depth > 3 or not isinstance(node, Mapping):
        return
    ref = node.get("$ref")
    if isinstance(ref, str):
        if ref.startswith("#/components/schemas/"):
            out.add(ref.rsplit("/", 1)[1])
        return
    for key in ("items", "additionalProperties"):
        _refs(node.get(key), out, depth + 1)
    for key in ("allOf", "anyOf", "oneOf"):
        parts = node.get(key)
        if isinstance(parts, list):
            for part in parts:
                _refs(part, out, depth + 1)
    props = node.get("properties")
    if isinstance(props, Mapping):
        for prop in props.values():
            _refs(prop, out, depth + 1)


def _text_stems(op: Operation) -> set[str]:
    """Stems of what an operation says about itself: summary, first sentence of description, operationId."""
    text = op.summary or op.description.split(". ")[0][:200]
    return {stem(w) for w in words(f"{text} {op.operation_id or ''}")}


def _ordered_tags(api: Api) -> dict[str, int]:
    """Declared tag positions, when the document ordered its tags itself (not alphabetically)."""
    names = [t.name for t in api.tags]
    # By each name's first word, stemmed: "Certificates" then "Certificate Actions" is alphabetical.
    heads = [stem(ws[0]) if ws else "" for ws in (words(n) for n in names)]
    in_order = sum(1 for a, b in itertools.pairwise(heads) if a <= b)
    if len(names) < 3 or in_order >= 0.7 * (len(names) - 1):
        return {}  # alphabetical (or nearly): the order says nothing about importance
    return {n: i for i, n in enumerate(names)}


_KEY_WORDS = _ID_WORDS | {"name", "number", "code"}  # what a path parameter adds to the noun it names


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


def rank_operations(api: Api, ops: Sequence[Operation]) -> dict[str, Ranked]:
    """Points for every operation, signal by signal, keyed by operation key."""
    shapes = _collections(ops, _rpc_reads(ops, _scoped_lists(ops, {op.key: shape(op) for op in ops})))
    under: Counter[tuple[str, ...]] = Counter()  # operations at or below each path prefix
    for op in ops:
        segs = segment_list(op.path)[0]
        for i in range(1, len(segs) + 1):
            under[tuple(segs[:i])] += 1
    members = Counter(s.resource for s in shapes.values())
    crud: dict[tuple[str, ...], set[str]] = {}
    for s in shapes.values():
        if s.action in _CORE:
            crud.setdefault(s.resource, set()).add(s.action)
    # A collection whose items hold nearly all the API (/Accounts/{sid}/... in Twilio): every call works
    # inside one of them; listing, creating or deleting them is management, not the API's use.
    containers = {
        seg[:-1]: under[seg]
        for seg in under
        if len(seg) >= 2
        and seg[-1] == "{}"
        and "{}" not in seg[:-1]
        and under[seg] >= 0.9 * len(ops)
        and len(ops) >= 20
    }
    alone = {r for r, acts in crud.items() if acts == {"create"} and members[r] == 1}
    # An API made mostly of such calls (a model's completions, embeddings, moderations): they are its point.
    alone_points = 28 if len(alone) >= 0.3 * len(members) else 16
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
            and ("{}" in r or r[:1] in _SELF_PREFIXES)
            and len(r) <= 3
            and home_of not in (None, r)
            and "list" not in crud.get(home_of, ())
        ):
            lister.setdefault(listed, r)
    refs = _schema_refs(api)
    memo: dict[str, str | None] = {}
    tag_pos = _ordered_tags(api)
    # What the document's own introduction names (its title and the lead of info.description):
    # "The Gmail API lets you view and manage Gmail mailbox data like threads, messages, and labels."
    intro = {stem(w) for w in words(f"{api.info.title} {api.info.description[:INTRO_LEAD]}")}
    texts = sorted(len(op.summary) + len(op.description) for op in ops)
    median_text = texts[len(texts) // 2] if texts else 0
    # The few operations a document describes at most length (its authors' own emphasis): top 1%, at least 3.
    richest = texts[-max(3, len(texts) // 100)] if len(texts) >= 20 else None
    said = Counter(op.description for op in ops)  # a text shared by a resource's operations is no emphasis
    # The nouns the API's "who am I" names (GET /v1/account, /user): the collection of the same noun
    # (/v1/accounts, /users) is everyone else's, a directory to administer, not the caller's work.
    common = functools.cache(lambda: common_arguments(ops))
    selves = {
        noun_of(shapes[op.key].resource)[-1:] for op in ops if entry_point(op, shapes[op.key], common) >= 1
    }
    out: dict[str, Ranked] = {}
    for op in ops:
        s = shapes[op.key]
        pts: list[Signal] = []
        if s.action in _CORE:
            pts.append((f"core {s.action}", _CORE[s.action]))
        else:
            pts.append((f"action {s.action}", 12))
        first = [stem(w) for w in words(op.summary or op.description[:80])[:1]]
        if s.action in SIGNATURE_VERBS:
            pts.append((f"signature verb {s.action}", 24))
        elif first and first[0] in SIGNATURE_VERBS and first[0] != s.action:
            pts.append((f"summary says {first[0]}", 24 if s.action not in _CORE else 18))
        elif (
            s.action == "create"
            and nouns.get(s.resource, ())[-1:]
            and nouns[s.resource][-1] in SIGNATURE_VERBS
        ):
            # POST /refunds, /transfers, /issues/{n}/comments: creating the record is the act itself.
            pts.append((f"creates a {nouns[s.resource][-1]}: the act itself", ACT_NOUN))
        elif s.action in _EVERYDAY_VERBS:
            pts.append(("everyday verb", 6))
        sure = entry_point(op, s, common)
        if sure:
            pts.append((ENTRY, 8 + 4 * sure))
        elif s.action == "search" and not s.resource:
            pts.append((GLOBAL_SEARCH, 16))
        if s.depth > base_depth + 1:
            pts.append((f"path depth {s.depth}", -5 * (s.depth - base_depth - 1)))
        elif s.depth <= base_depth and s.depth <= 2:
            pts.append((f"shallow path (depth {s.depth})", 6))
        # ... and its create there too when the home cannot create (POST /users/{id}/meetings).
        lists_for = lister.get(nouns.get(s.resource, ())) == s.resource and (
            s.action == "list"
            or (
                s.action == "create"
                and "create" not in crud.get(homes.get(nouns.get(s.resource, ()), ()), ())
            )
        )
        if s.resource:
            where = (
                homes[nouns[s.resource]] if lists_for else s.resource
            )  # the listing stands in for its home
            pts.append(
                (f"{under[where]} operations under {'/'.join(where)}", _log_points(under[where], 5, 30))
            )
            parent = hanging_from(s.resource)
            if parent and under[parent] > under[s.resource]:
                pts.append(
                    (
                        f"{under[parent]} operations under its parent {'/'.join(parent)}",
                        _log_points(under[parent], 2, 12),
                    )
                )
        home_of = homes.get(nouns.get(s.resource, ()))
        home = home_of == s.resource
        # The noun's main home earns its fame; a nested listing of it, a third, unless the home cannot
        # list (no GET /cards: /lists/{id}/cards is how cards are listed).
        home = home or lists_for
        share = 1.0 if home else 0.34
        noun = " ".join(nouns.get(s.resource, ()))
        if mentions.get(s.resource):
            pts.append(
                (
                    f"{noun!r} named by {mentions[s.resource]} other operations"
                    + ("" if home else " (not its home)"),
                    round(share * _log_points(mentions[s.resource], 4, 24)),
                )
            )
        if noun and nouns[s.resource][-1] in intro:
            pts.append((f"{noun!r} named in the API's own introduction", INTRO))
        if s.object and noun_of((s.object,)) != nouns.get(s.resource):
            obj = noun_of((s.object,))
            named = len(set.intersection(*(by_stem.get(w, set()) for w in obj)) - {op.key}) if obj else 0
            if named:
                pts.append(
                    (
                        f"{' '.join(obj)!r} (what it acts on) named by {named} other operations",
                        _log_points(named, 4, 24),
                    )
                )
        schema = _main_schema(api, op, memo)
        if schema and refs.get(schema) and _names_noun(schema, nouns.get(s.resource, ())):
            pts.append(
                (
                    f"schema {schema!r} referenced {refs[schema]} times"
                    + ("" if home else " (not its home)"),
                    round(share * _log_points(refs[schema], 4, 20)),
                )
            )
        if s.action == "create" and s.resource in alone:
            # POST /chat/completions, /mail/send-like resources: nothing to list or read back, the
            # request is the point. An API of such calls has these as its signature actions.
            pts.append(
                (
                    "standalone action (nothing to list or read back)"
                    if alone_points == 16
                    else f"standalone action, like {len(alone)} of {len(members)} resources",
                    alone_points,
                )
            )
        if len(crud.get(s.resource, ())) >= 2:
            pts.append(
                (
                    f"resource has {len(crud[s.resource])} of list/get/create/update/delete",
                    3 * len(crud[s.resource]),
                )
            )
        if s.resource in containers and s.action in ("list", "create", "delete"):
            pts.append(
                (f"{containers[s.resource]} of {len(ops)} operations work inside one of its items", -25)
            )
        if tag_pos and op.tags and op.tags[0] in tag_pos:
            pts.append(
                (
                    f"tag {op.tags[0]!r} is #{tag_pos[op.tags[0]] + 1} of {len(tag_pos)}",
                    round(12 * (1 - tag_pos[op.tags[0]] / len(tag_pos))),
                )
            )
        if op.summary:
            pts.append(("summary", 4))
        text = len(op.summary) + len(op.description)
        if text > median_text:
            pts.append(
                (
                    f"description {text} characters (median {median_text})",
                    min(14, round(5 * math.log2(text / max(median_text, 20)))),
                )
            )
            if (
                richest is not None
                and text >= richest
                and text >= 4 * median_text
                and said[op.description] == 1
            ):
                pts.append(("among the document's most described operations", 12))
        fields = _body_fields(api, op)
        if fields >= 4:
            pts.append((f"request body of {fields} fields", min(10, round(3 * math.log2(fields / 2)))))
        pts += _penalties(op)
        last = nouns.get(s.resource, ())[-1:]
        if (
            s.action in ("list", "get")
            and len(s.resource) == 1
            and tuple(last) in selves
            and last[0] in _DIRECTORY
            and not entry_point(op, s, common)
        ):
            pts.append((f"other {last[0]}s than the caller's own: a directory", -DIRECTORY_READ))
        if s.action in ("create", "update", "delete") and last and last[0] in _DIRECTORY:
            pts.append((f"{s.action} a {last[0]}: directory management", -15))
        needs = _required_nouns(api, op) if s.action == "create" else frozenset()
        out[op.key] = Ranked(s, tuple(pts), needs)
    return out


ENTRY = "entry point: who am I, with no arguments"
GLOBAL_SEARCH = "search of the whole API"
_SELF_PREFIXES = frozenset({("me",), ("my",), ("self",), ("user",)})  # /me/playlists: the caller's own
_ACCOUNT_WORDS = frozenset({"user", "account", "profile", "ping"})
_PEOPLE_WORDS = frozenset({"user", "account", "profile", "member", "person", "people"})  # /users/me
_CURRENT = re.compile(
    r"\b(current|authenticated|logged[- ]in|calling|your)\s+(user|account|member|profile)\b"
    r"(?!\s+(?!and\b|or\b|for\b|of\b|in\b|with\b|by\b|to\b)[a-z])"  # not "current account balance"
    r"|\bwho am i\b|\byourself\b",
    re.I,
)


def common_arguments(ops: Collection[Operation]) -> frozenset[str]:
    """Query arguments that more than half the operations require: credentials or an API-wide
    setting (Stack Exchange's ``site``), not lookups."""
    seen: dict[str, int] = {}
    for op in ops:
        for p in op.parameters:
            if p.required and p.location == "query":
                seen[p.name] = seen.get(p.name, 0) + 1
    return frozenset(name for name, n in seen.items() if 2 * n > len(ops))


def entry_point(op: Operation, s: Shape, common: Callable[[], Collection[str]] = frozenset) -> int:
    """How surely an operation is the first call of every quickstart, GET the current user or account
    (``/user``, ``/me``, ``/users/me``, ``/v2/account``, ``/getMe``): 3 for a self word in the path, 2
    for a summary that says so, 1 for a lone user/account/profile/ping path (``/account``, not
    ``/rooms/account_profile``); 0 for anything with arguments but ``common()`` ones (a ``site`` every
    call takes; asked only then, since reading every operation's arguments costs seconds on Graph). ``/articles/me`` is the caller's articles, not the caller: a self word counts alone
    or after a word for people or accounts."""
    if op.method not in ("get", "post") or "{" in op.path or s.action not in ("get", "ping") or s.depth > 2:
        return 0  # (POST /users/ping.json: an RPC-style API's check of the caller's credentials)
    last = words(s.resource[-1])[-1:] if s.resource else []
    before = words(s.resource[-2])[-1:] if len(s.resource) >= 2 else []
    text = op.summary or op.description[:160]
    self_word = bool(last) and last[0] in SELF_WORDS and (not before or stem(before[0]) in _PEOPLE_WORDS)
    strength = (
        3
        if self_word
        else 2
        if _CURRENT.search(text)
        else (1 if (last and last[0] in _ACCOUNT_WORDS and len(s.resource) == 1) or s.action == "ping" else 0)
    )
    asked = [p.name for p in op.parameters if p.required and p.location != "path"] if strength else []
    if asked and not set(asked) <= set(common()):
        return 0  # GET /user?accountId=...: a lookup, not "who am I"
    return strength


@functools.lru_cache(maxsize=1 << 16)
def _path_marks(path: str) -> frozenset[str]:
    return frozenset(w for seg in path_segments(path)[0] for w in words(seg))


def _penalties(op: Operation) -> list[Signal]:
    pts: list[Signal] = []
    marks = _path_marks(op.path) | {w for t in op.tags for w in words(t)} | set(words(op.operation_id or ""))
    if op.deprecated:
        pts.append(("deprecated", -100))
    admin = marks & _ADMIN or {k for k in op.extensions if k in ("x-internal", "x-beta")}
    if admin:
        pts.append((f"{min(admin)} operation", -40))
    plumbing = marks & _PLUMBING
    if plumbing:
        pts.append((f"{min(plumbing)}: plumbing", -15))
    if not admin and _ADMIN_TEXT.search(op.summary or op.description.split(". ")[0][:200]):
        pts.append(("summary mentions admin or enterprise", -10))
    if op.method in ("head", "options", "trace"):
        pts.append((f"{op.method.upper()} is rarely needed", -50))
    return pts


def _names_noun(schema: str, noun: tuple[str, ...]) -> bool:
    """Whether a schema's name names the resource's noun (``issue-comment`` for comments, ``customer``)."""
    return bool(noun) and any(same_noun(stem(w), noun[-1]) for w in words(schema))
