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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .model import Api, Operation

__all__ = ["Ranked", "Shape", "Signal", "entry_point", "noun_of", "parent_item", "rank_operations", "same_noun", "select", "shape", "stem", "words"]

Signal = tuple[str, int]  # (signal name, points)


@dataclass(frozen=True, slots=True)
class Shape:
    """Where an operation sits: its resource (path segments, parameters as ``{}``) and what it does."""

    resource: tuple[str, ...]
    action: str  # list, get, create, update, delete, or the operation's own verb (merge, send, ...)
    depth: int
    object: str = ""  # what an RPC-style name acts on: "message" in /chat.postMessage
    verb: str = ""  # the RPC-style name's own verb when it differs from the action: "history" (a list)


@dataclass(frozen=True, slots=True)
class Ranked:
    """The points an operation earned, signal by signal."""

    shape: Shape
    points: tuple[Signal, ...]
    score: int = field(init=False)  # the sum of the points, kept (selection reads it often)

    def __post_init__(self) -> None:
        object.__setattr__(self, "score", sum(p for _, p in self.points))


# --- words --------------------------------------------------------------------------------------------

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_PREFIX = re.compile(r"^(v\d+([._-]?\d+)*[a-z]*|\d+([._-]\d+)*|api|apis|rest|public|latest)$", re.I)
_IRREGULAR = {"people": "person", "children": "child", "analyses": "analysis", "statuses": "status",
              "addresses": "address", "aliases": "alias", "indices": "index", "indexes": "index",
              "businesses": "business", "processes": "process", "accesses": "access"}
_KEEP_E = ("at", "iz", "ag", "ov", "ar", "os", "rg", "iv", "ur", "ac", "as", "ak", "ot")


@functools.lru_cache(maxsize=1 << 16)
def words(text: str) -> tuple[str, ...]:
    """Lower-case words: ``chat.postMessage`` → chat, post, message; ``payment_intents`` → payment, intents."""
    return tuple(w.lower() for w in _WORD.findall(text))


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A light stem, enough to meet a word's other forms: ``issues`` → issue, ``merged``/``merging`` → merge."""
    w = word.lower()
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    if len(w) <= 3:
        return w
    for suffix, repl in (("ies", "y"), ("sses", "ss"), ("xes", "x"), ("ches", "ch"), ("shes", "sh")):
        if w.endswith(suffix) and len(w) > len(suffix) + 1:
            return w[: -len(suffix)] + repl
    for suffix in ("ing", "ed"):
        if w.endswith(suffix) and len(w) > len(suffix) + 3:
            base = w[: -len(suffix)]
            if len(base) > 2 and base[-1] == base[-2] and base[-1] not in "ls":
                return base[:-1]  # "mapped" → map
            return base + "e" if base.endswith(_KEEP_E) else base
    if w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


# --- where an operation sits --------------------------------------------------------------------------

# Verbs an RPC-style path names first (/chat.postMessage, /sendMessage, /conversations.list).
_RPC_VERBS = {"list": "list", "get": "get", "info": "get", "create": "create", "add": "create", "new": "create",
              "update": "update", "edit": "update", "set": "update", "delete": "delete", "remove": "delete",
              "send": "send", "post": "post", "search": "search", "upload": "upload", "reply": "reply",
              "invite": "invite", "kick": "kick", "ban": "ban", "pin": "pin", "unpin": "unpin", "forward": "forward",
              "copy": "copy", "answer": "answer", "export": "export", "import": "import", "archive": "archive",
              "open": "open", "close": "close", "join": "join", "leave": "leave", "rename": "rename", "history": "list",
              "replies": "list", "members": "list", "approve": "approve", "restrict": "restrict", "revoke": "revoke"}
_RPC_NOUNS = frozenset({"history", "replies", "members", "info", "new"})  # verbs only in a dotted name: not /membersInvited
_ITEM = {"get": "get", "put": "update", "patch": "update", "post": "update", "delete": "delete"}
_COLLECTION = {"get": "list", "post": "create", "put": "update", "patch": "update", "delete": "delete"}


_EXTENSION = re.compile(r"\.(json|xml|yaml|csv)$", re.I)


def _segments(path: str) -> tuple[list[str], bool]:
    segs, dotted = _segments_of(path)
    return list(segs), dotted


@functools.lru_cache(maxsize=1 << 16)
def _segments_of(path: str) -> tuple[tuple[str, ...], bool]:
    """Path → segments (``{}`` for a parameter, dotted words split, prefixes dropped), and whether the
    last word came from a dotted segment (``/chat.postMessage``: an RPC-style method name)."""
    base = path.partition("#")[0].partition("?")[0]
    out: list[str] = []
    dotted = False
    for raw in base.split("/"):
        if not raw:
            continue
        if "{" in raw:
            out.append("{}")
            dotted = False
            continue
        if "." not in raw:
            out.append(raw)
            dotted = False
            continue
        raw = _EXTENSION.sub("", raw)
        parts = [p for p in raw.split(".") if p]
        out.extend(parts)
        dotted = len(parts) > 1
    while len(out) > 1 and out[0] != "{}" and _PREFIX.match(out[0]):
        out.pop(0)
    return tuple(out), dotted


def shape(op: Operation) -> Shape:
    """The operation's resource and action, read from its path and method alone."""
    segs, dotted = _segments(op.path)
    depth = len(segs)
    item = bool(segs) and segs[-1] == "{}"
    while segs and segs[-1] == "{}":
        segs.pop()
    method = op.method
    if not segs:
        return Shape((), _ITEM.get(method, method) if item else _COLLECTION.get(method, method), depth)
    if item:
        return Shape(tuple(segs), _ITEM.get(method, method), depth)
    last = segs[-1]
    ws = words(last)
    verb = ws[0] if ws else ""
    if verb in _RPC_VERBS and (dotted or (len(ws) > 1 and verb not in _RPC_NOUNS) or verb in ("search", "list")):
        # /chat.postMessage → (chat, post); /sendMessage → (message, send); /customers/search → (customers, search)
        rest = tuple(segs[:-1]) or (("_".join(ws[1:]),) if len(ws) > 1 else ())
        return Shape(rest, _RPC_VERBS[verb], depth, "_".join(ws[1:]), "" if _RPC_VERBS[verb] == verb else verb)
    singular = stem(last) == last.lower() and not last.lower().endswith("s")
    said = [stem(w) for w in words(op.summary)[:1]]
    if len(segs) > 1 and singular and (method == "post" or (method in ("put", "patch") and said == [stem(last)])):
        # POST /charges/{id}/capture, PUT /pulls/{n}/merge ("Merge a pull request"): the word is the
        # action on its parent. (GET /pulls/{n}/merge reads; PUT /pets/{id}/photo updates a photo.)
        parent = segs[:-1]
        while parent and parent[-1] == "{}":
            parent.pop()
        if len(parent) > 1 and parent[-1].lower() in ("actions", "action"):
            parent.pop()  # /campaigns/{id}/actions/send: "actions" only gathers a campaign's verbs
            depth -= 1
            while parent and parent[-1] == "{}":
                parent.pop()
        return Shape(tuple(parent), last.lower(), depth)
    if method == "get" and singular:
        return Shape(tuple(segs), "get", depth)  # GET /user, /v2/account, /me: one object
    return Shape(tuple(segs), _COLLECTION.get(method, method), depth)


# --- signals ------------------------------------------------------------------------------------------

_CORE = {"list": 30, "get": 28, "create": 30, "update": 18, "delete": 8}
# Verbs an agent is usually asked to do: an API's signature actions (send a message, search, merge),
# and, less so, the everyday create and list.
SIGNATURE_VERBS = frozenset({"send", "post", "search", "merge", "reply", "publish", "upload", "confirm", "capture",
                             "refund", "approve", "comment", "share", "query", "invite", "assign", "transition",
                             "deploy", "pay", "charge", "transfer", "translate", "transcribe"})
_EVERYDAY_VERBS = frozenset({"create", "list"})
_ADMIN = frozenset({"admin", "admins", "administrator", "enterprise", "enterprises", "internal", "beta", "preview",
                    "experimental", "legacy", "deprecated", "alpha", "sandbox", "test", "testing", "helpers"})
_PLUMBING = frozenset({"settings", "setting", "permissions", "permission", "audit", "billing", "webhook", "webhooks",
                       "hook", "hooks", "oauth", "token", "tokens", "secret", "secrets", "keys", "rulesets",
                       "configuration", "configurations", "config", "migrations", "credentials", "credential",
                       "runners", "runner", "usage", "quotas", "limits", "logs", "metrics", "reports",
                       "field", "fields", "property", "properties", "metadata", "schema", "schemas"})
# Who is in the API's directory: creating or removing them is an administrator's chore, not an agent's
# everyday work (Stripe Connect accounts, Jira users, GitHub teams, Trello organizations).
_DIRECTORY = frozenset({"user", "team", "group", "organization", "org", "member", "account", "workspace",
                        "tenant", "role", "subaccount"})
_ADMIN_TEXT = re.compile(r"\b(admin|administrators?|enterprise)\b", re.I)


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
    in_order = sum(1 for a, b in itertools.pairwise(names) if a.casefold() <= b.casefold())
    if len(names) < 3 or in_order >= 0.7 * (len(names) - 1):
        return {}  # alphabetical (or nearly): the order says nothing about importance
    return {n: i for i, n in enumerate(names)}


def rank_operations(api: Api, ops: Sequence[Operation]) -> dict[str, Ranked]:
    """Points for every operation, signal by signal, keyed by operation key."""
    shapes = {op.key: shape(op) for op in ops}
    under: Counter[tuple[str, ...]] = Counter()  # operations at or below each path prefix
    for op in ops:
        segs = _segments(op.path)[0]
        for i in range(1, len(segs) + 1):
            under[tuple(segs[:i])] += 1
    members = Counter(s.resource for s in shapes.values())
    crud: dict[tuple[str, ...], set[str]] = {}
    for s in shapes.values():
        if s.action in _CORE:
            crud.setdefault(s.resource, set()).add(s.action)
    # A collection whose items hold nearly all the API (/Accounts/{sid}/... in Twilio): every call works
    # inside one of them; listing, creating or deleting them is management, not the API's use.
    containers = {seg[:-1]: under[seg] for seg in under if len(seg) >= 2 and seg[-1] == "{}" and "{}" not in seg[:-1]
                  and under[seg] >= 0.9 * len(ops) and len(ops) >= 20}
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
    mentions = _mentions(shapes, by_stem, nouns)
    homes = _homes(nouns, under)
    # A noun whose home has no list is listed under a parent (no GET /cards: /lists/{id}/cards); the
    # shallowest such listing under the busiest parent is the way to list it.
    lister: dict[tuple[str, ...], tuple[str, ...]] = {}
    for r in sorted(crud, key=lambda r: (len(r), -under[_parent(r)], r)):
        listed = nouns.get(r, ())
        home_of = homes.get(listed)
        if "list" in crud[r] and ("{}" in r or r[:1] in _SELF_PREFIXES) and len(r) <= 3 and home_of not in (None, r) and "list" not in crud.get(home_of, ()):
            lister.setdefault(listed, r)
    refs = _schema_refs(api)
    memo: dict[str, str | None] = {}
    tag_pos = _ordered_tags(api)
    texts = sorted(len(op.summary) + len(op.description) for op in ops)
    median_text = texts[len(texts) // 2] if texts else 0
    # The few operations a document describes at most length (its authors' own emphasis): top 1%, at least 3.
    richest = texts[-max(3, len(texts) // 100)] if len(texts) >= 20 else None
    said = Counter(op.description for op in ops)  # a text shared by a resource's operations is no emphasis
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
        elif s.action in _EVERYDAY_VERBS:
            pts.append(("everyday verb", 6))
        sure = entry_point(op, s)
        if sure:
            pts.append((ENTRY, 8 + 4 * sure))
        elif s.action == "search" and not s.resource:
            pts.append((GLOBAL_SEARCH, 16))
        if s.depth > base_depth + 1:
            pts.append((f"path depth {s.depth}", -5 * (s.depth - base_depth - 1)))
        elif s.depth <= base_depth and s.depth <= 2:
            pts.append((f"shallow path (depth {s.depth})", 6))
        lists_for = lister.get(nouns.get(s.resource, ())) == s.resource and s.action == "list"
        if s.resource:
            where = homes[nouns[s.resource]] if lists_for else s.resource  # the listing stands in for its home
            pts.append((f"{under[where]} operations under {'/'.join(where)}",
                        _log_points(under[where], 5, 30)))
            parent = _parent(s.resource)
            if parent and under[parent] > under[s.resource]:
                pts.append((f"{under[parent]} operations under its parent {'/'.join(parent)}",
                            _log_points(under[parent], 2, 12)))
        home_of = homes.get(nouns.get(s.resource, ()))
        home = home_of == s.resource
        # The noun's main home earns its fame; a nested listing of it, a third, unless the home cannot
        # list (no GET /cards: /lists/{id}/cards is how cards are listed).
        home = home or lists_for
        share = 1.0 if home else 0.34
        noun = " ".join(nouns.get(s.resource, ()))
        if mentions.get(s.resource):
            pts.append((f"{noun!r} named by {mentions[s.resource]} other operations" + ("" if home else " (not its home)"),
                        round(share * _log_points(mentions[s.resource], 4, 24))))
        if s.object and noun_of((s.object,)) != nouns.get(s.resource):
            obj = noun_of((s.object,))
            named = len(set.intersection(*(by_stem.get(w, set()) for w in obj)) - {op.key}) if obj else 0
            if named:
                pts.append((f"{' '.join(obj)!r} (what it acts on) named by {named} other operations",
                            _log_points(named, 4, 24)))
        schema = _main_schema(api, op, memo)
        if schema and refs.get(schema) and _names_noun(schema, nouns.get(s.resource, ())):
            pts.append((f"schema {schema!r} referenced {refs[schema]} times" + ("" if home else " (not its home)"),
                        round(share * _log_points(refs[schema], 4, 20))))
        if s.action == "create" and s.resource in alone:
            # POST /chat/completions, /mail/send-like resources: nothing to list or read back, the
            # request is the point. An API of such calls has these as its signature actions.
            pts.append(("standalone action (nothing to list or read back)" if alone_points == 16 else
                        f"standalone action, like {len(alone)} of {len(members)} resources", alone_points))
        if len(crud.get(s.resource, ())) >= 2:
            pts.append((f"resource has {len(crud[s.resource])} of list/get/create/update/delete",
                        3 * len(crud[s.resource])))
        if s.resource in containers and s.action in ("list", "create", "delete"):
            pts.append((f"{containers[s.resource]} of {len(ops)} operations work inside one of its items", -25))
        if tag_pos and op.tags and op.tags[0] in tag_pos:
            pts.append((f"tag {op.tags[0]!r} is #{tag_pos[op.tags[0]] + 1} of {len(tag_pos)}",
                        round(12 * (1 - tag_pos[op.tags[0]] / len(tag_pos)))))
        if op.summary:
            pts.append(("summary", 4))
        text = len(op.summary) + len(op.description)
        if text > median_text:
            pts.append((f"description {text} characters (median {median_text})",
                        min(14, round(5 * math.log2(text / max(median_text, 20))))))
            if richest is not None and text >= richest and text >= 4 * median_text and said[op.description] == 1:
                pts.append(("among the document's most described operations", 12))
        fields = _body_fields(api, op)
        if fields >= 4:
            pts.append((f"request body of {fields} fields", min(10, round(3 * math.log2(fields / 2)))))
        pts += _penalties(op)
        last = nouns.get(s.resource, ())[-1:]
        if s.action in ("create", "update", "delete") and last and last[0] in _DIRECTORY:
            pts.append((f"{s.action} a {last[0]}: directory management", -15))
        out[op.key] = Ranked(s, tuple(pts))
    return out


ENTRY = "entry point: who am I, with no arguments"
GLOBAL_SEARCH = "search of the whole API"
_SELF_WORDS = frozenset({"me", "myself", "self", "whoami", "viewer", "identity"})
_SELF_PREFIXES = frozenset({("me",), ("my",), ("self",), ("user",)})  # /me/playlists: the caller's own
_ACCOUNT_WORDS = frozenset({"user", "account", "profile", "ping"})
_CURRENT = re.compile(r"\b(current|authenticated|logged[- ]in|calling|your)\s+(user|account|member|profile)\b"
                      r"(?!\s+(?!and\b|or\b|for\b|of\b|in\b|with\b|by\b|to\b)[a-z])"  # not "current account balance"
                      r"|\bwho am i\b|\byourself\b", re.I)


def entry_point(op: Operation, s: Shape) -> int:
    """How surely an operation is the first call of every quickstart, GET the current user or account
    (``/user``, ``/me``, ``/v2/account``, ``/getMe``): 3 for a self word in the path, 2 for a summary
    that says so, 1 for a lone user/account/profile/ping path; 0 for anything with arguments."""
    if op.method not in ("get", "post") or "{" in op.path or s.action != "get" or s.depth > 2:
        return 0
    last = words(s.resource[-1])[-1:] if s.resource else []
    text = op.summary or op.description[:160]
    strength = 3 if last and last[0] in _SELF_WORDS else 2 if _CURRENT.search(text) else (
        1 if last and last[0] in _ACCOUNT_WORDS else 0)
    if strength and any(p.required and p.location != "path" for p in op.parameters):
        return 0  # GET /user?accountId=...: a lookup, not "who am I"
    return strength


@functools.lru_cache(maxsize=1 << 16)
def _path_marks(path: str) -> frozenset[str]:
    return frozenset(w for seg in _segments_of(path)[0] for w in words(seg))


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


def _parent(resource: tuple[str, ...]) -> tuple[str, ...]:
    """The item a resource hangs from: ``repos/{}/{}`` for ``repos/{}/{}/issues``; () at the top."""
    i = len(resource) - 1
    while i > 0 and resource[i - 1] != "{}":
        i -= 1
    return resource[:i] if i > 0 else ()


def parent_item(resource: tuple[str, ...]) -> tuple[str, ...]:
    """The resource whose item a sub-resource hangs from: ``repos/{}/{}/issues`` for its comments."""
    parent = list(_parent(resource))
    while parent and parent[-1] == "{}":
        parent.pop()
    return tuple(parent)


def noun_of(resource: tuple[str, ...]) -> tuple[str, ...]:
    last = next((seg for seg in reversed(resource) if seg != "{}"), "")
    return tuple(stem(w) for w in words(last))


def same_noun(a: str, b: str) -> bool:
    """``repo`` and ``repository``: one word is the other's abbreviation (3 letters or more)."""
    short, long_ = sorted((a, b), key=len)
    return short == long_ or (len(short) >= 3 and long_.startswith(short))


def _names_noun(schema: str, noun: tuple[str, ...]) -> bool:
    """Whether a schema's name names the resource's noun (``issue-comment`` for comments, ``customer``)."""
    return bool(noun) and any(same_noun(stem(w), noun[-1]) for w in words(schema))


def _homes(nouns: Mapping[tuple[str, ...], tuple[str, ...]], under: Counter[tuple[str, ...]]
           ) -> dict[tuple[str, ...], tuple[str, ...]]:
    """Each noun's home: of the resources it names, the one with the most operations at or below it
    (then the shallowest). ``/repos/{o}/{r}/issues`` (30 operations) rather than ``/issues`` (1)."""
    by_last: dict[str, list[tuple[str, ...]]] = {}
    for resource, noun in nouns.items():
        if noun:
            by_last.setdefault(noun[-1], []).append(resource)
    lasts = sorted(by_last)
    by_start: dict[str, list[str]] = {}  # abbreviations share their first three letters
    for last in lasts:
        by_start.setdefault(last[:3], []).append(last)
    homes: dict[tuple[str, ...], tuple[str, ...]] = {}
    for last in lasts:
        # Abbreviations share a home: "repo" resources compete with "repository" ones.
        family = [r for other in by_start[last[:3]] if same_noun(last, other) for r in by_last[other]]
        best = min(family, key=lambda r: (-under[r], len(r), r))
        for resource in by_last[last]:
            homes[nouns[resource]] = best
    return homes


def _mentions(shapes: Mapping[str, Shape], by_stem: Mapping[str, set[str]],
              nouns: Mapping[tuple[str, ...], tuple[str, ...]]) -> dict[tuple[str, ...], int]:
    """For each resource, how many operations of other resources name its noun in their own text."""
    members: dict[tuple[str, ...], set[str]] = {}
    for key, s in shapes.items():
        members.setdefault(s.resource, set()).add(key)
    naming: dict[tuple[str, ...], set[str]] = {}  # one intersection per noun, shared by its resources
    out: dict[tuple[str, ...], int] = {}
    for resource, noun in nouns.items():
        if not noun:
            continue
        if noun not in naming:
            naming[noun] = set.intersection(*(by_stem.get(w, set()) for w in noun))
        hits = naming[noun]
        out[resource] = len(hits) - len(hits & members.get(resource, set()))
    return out


_TRIO = frozenset({"list", "get", "create"})


def _kind(s: Shape) -> tuple[str, str, str]:
    """What an operation does to its resource, told apart from its siblings: conversations.history
    and conversations.replies both list, but neither is the other's companion."""
    return (s.action, s.object, s.verb)


def select(ranked: Sequence[tuple[str, Ranked]], limit: int, *, spread: int = 10, most: int = 4,
           together: int = 10) -> list[str]:
    """The ``limit`` best operations, over several resources, each kept whole where it counts.

    Companions gain ``together`` points: a resource's list, get and create once one of the three is
    taken (each kind once: a second list is no companion), and so do its signature acts. Any other
    operation of a resource already taken costs ``spread`` points per operation taken before it,
    except a signature action (merge, send, share) and the resource's first update; from the
    ``most``-th on, every operation of the resource but its list/get/create costs 25 points more (a
    pack of 12 verbs of one resource is no pack, but neither is one padded with an API's plumbing).
    An API of ``limit`` operations or fewer keeps them all.
    """
    taken: Counter[tuple[str, ...]] = Counter()
    actions: dict[tuple[str, ...], set[tuple[str, str, str]]] = {}
    chosen: list[str] = []
    remaining = list(ranked)
    if len(remaining) <= limit:
        return [key for key, _ in remaining]

    def take(i: int) -> None:
        key, r = remaining.pop(i)
        chosen.append(key)
        taken[r.shape.resource] += 1
        actions.setdefault(r.shape.resource, set()).add(_kind(r.shape))

    # Two verbs every pack wants when its API has them: who am I (the first call of every
    # quickstart, and how an agent checks its credentials), and a search of the whole API.
    for kind in (ENTRY, GLOBAL_SEARCH):
        found = [(max(p for n, p in r.points if n == kind), r.score, -i) for i, (_, r) in enumerate(remaining)
                 if any(n == kind for n, _ in r.points)]
        if found and len(chosen) < limit:
            take(-max(found)[2])

    def adjusted(r: Ranked) -> int:
        s = r.shape
        n = taken[s.resource]
        done = actions.get(s.resource, set())
        first = _kind(s) not in done
        trio = s.action in _TRIO and first  # a second "get" is no companion
        exempt = trio or s.action in SIGNATURE_VERBS or (s.action == "update" and first)
        # A campaign created brings its send; a payment intent's confirm, its create.
        companion = (trio or (s.action in SIGNATURE_VERBS and first)) and any(
            k[0] in _TRIO or k[0] in SIGNATURE_VERBS for k in done)
        bonus = together if companion else 0
        cost = (0 if exempt else spread * n) + (25 * (n - most + 1) if n >= most and not trio else 0)
        return r.score + bonus - cost

    # ``ranked`` is best first: no operation gains more than ``together`` points, so the scan for
    # the best adjusted one stops where the plain score can no longer reach it.
    while remaining and len(chosen) < limit:
        best_i, best = -1, (0, "")
        for i, (key, r) in enumerate(remaining):
            if best_i >= 0 and r.score + together < -best[0]:
                break
            candidate = (-adjusted(r), key)
            if best_i < 0 or candidate < best:
                best_i, best = i, candidate
        take(best_i)
    return chosen
