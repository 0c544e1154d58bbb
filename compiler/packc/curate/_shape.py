"""Shape: where an operation sits (its resource and action), read from its path and method alone.

Also the words and light stems the ranking, the selection and ``--for`` compare (``issues`` meets
``issue``, ``chat.postMessage`` is chat, post, message). Deterministic and cached per text.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from packc.model import Operation
from packc.words import irregular

__all__ = [
    "COLLECTION_ACTIONS",
    "ITEM_ACTIONS",
    "Shape",
    "creates_at_item",
    "hanging_from",
    "noun_homes",
    "noun_mentions",
    "noun_of",
    "parent_item",
    "path_segments",
    "same_noun",
    "segment_list",
    "shape",
    "stem",
    "words",
]


@dataclass(frozen=True, slots=True)
class Shape:
    """Where an operation sits: its resource (path segments, parameters as ``{}``) and what it does."""

    resource: tuple[str, ...]
    action: str  # list, get, create, update, delete, or the operation's own verb (merge, send, ...)
    depth: int
    object: str = ""  # what an RPC-style name acts on: "message" in /chat.postMessage
    verb: str = ""  # the RPC-style name's own verb when it differs from the action: "history" (a list)


# --- words --------------------------------------------------------------------------------------------

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_PREFIX = re.compile(r"^(v\d+([._-]?\d+)*[a-z]*|\d+([._-]\d+)*|api|apis|rest|public|latest)$", re.I)
_VERSION = re.compile(r"^v\d+([._-]?\d+)*([a-z]+\d*)?$", re.I)  # v1, v3, v2.1, v1beta1
# Nouns in -ing that name an API's things and whose base is an everyday verb: each stems to itself,
# plural or not, so a resource /settings or /listings never meets the task verb set or list.
_ING_NOUNS = frozenset(
    {
        "setting",
        "listing",
        "building",
        "booking",
        "pricing",
        "billing",
        "shipping",
        "posting",
        "tracking",
        "routing",
        "mapping",
        "rating",
        "warning",
        "heading",
        "offering",
        "holding",
        "opening",
        "saving",
        "earning",
        "finding",
        "recording",
        "meeting",
        "reading",
        "filing",
        "landing",
        "training",
        "ring",
        "thing",
        "string",
        "king",
        "wing",
        "spring",
    }
)
_KEEP_E = ("at", "iz", "ag", "ov", "ar", "os", "rg", "iv", "ur", "ac", "as", "ak", "ot")


@functools.lru_cache(maxsize=1 << 16)
def words(text: str) -> tuple[str, ...]:
    """Lower-case words: ``chat.postMessage`` → chat, post, message; ``payment_intents`` → payment, intents."""
    return tuple(w.lower() for w in _WORD.findall(text))


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A light stem, enough to meet a word's other forms: ``issues`` → issue, ``merged``/``merging`` → merge."""
    w = word.lower()
    known = irregular(w)
    if known is not None:
        return known
    if len(w) <= 3:
        return w
    for suffix, repl in (("ies", "y"), ("sses", "ss"), ("xes", "x"), ("ches", "ch"), ("shes", "sh")):
        if w.endswith(suffix) and len(w) > len(suffix) + 1:
            return w[: -len(suffix)] + repl
    if w in _ING_NOUNS or (w.endswith("s") and w[:-1] in _ING_NOUNS):
        return w.removesuffix("s")
    if w.endswith("ings") and len(w) > 7:
        w = w[:-1]  # meetings: as meeting, so that both meet the noun of /meetings
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
_RPC_VERBS = {
    "list": "list",
    "get": "get",
    "info": "get",
    "create": "create",
    "add": "create",
    "new": "create",
    "update": "update",
    "edit": "update",
    "set": "update",
    "delete": "delete",
    "remove": "delete",
    "send": "send",
    "post": "post",
    "search": "search",
    "upload": "upload",
    "reply": "reply",
    "invite": "invite",
    "kick": "kick",
    "ban": "ban",
    "pin": "pin",
    "unpin": "unpin",
    "forward": "forward",
    "copy": "copy",
    "answer": "answer",
    "export": "export",
    "import": "import",
    "archive": "archive",
    "open": "open",
    "close": "close",
    "join": "join",
    "leave": "leave",
    "rename": "rename",
    "history": "list",
    "replies": "list",
    "members": "list",
    "approve": "approve",
    "restrict": "restrict",
    "revoke": "revoke",
}
_RPC_NOUNS = frozenset(
    {"history", "replies", "members", "info", "new"}
)  # verbs only in a dotted name: not /membersInvited
# What a method does to an item (/pets/{id}) and to a collection (/pets): the one home of these
# (naming.py names verbs with them, this module reads an operation's action with them).
ITEM_ACTIONS: Mapping[str, str] = {
    "get": "get",
    "put": "update",
    "patch": "update",
    "post": "update",
    "delete": "delete",
}
COLLECTION_ACTIONS: Mapping[str, str] = {
    "get": "list",
    "post": "create",
    "put": "update",
    "patch": "update",
    "delete": "delete",
}
_ITEM, _COLLECTION = ITEM_ACTIONS, COLLECTION_ACTIONS


_EXTENSION = re.compile(r"\.(json|xml|yaml|csv)$", re.I)


def segment_list(path: str) -> tuple[list[str], bool]:
    segs, dotted = path_segments(path)
    return list(segs), dotted


@functools.lru_cache(maxsize=1 << 16)
def path_segments(path: str) -> tuple[tuple[str, ...], bool]:
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
            # /pulls/{index}.{diffType}: the item in another form, not the item itself.
            form = raw.partition("}")[2]
            if "{" in form:
                out.append(form.strip(".{}-_") or "form")
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
    # /youtube/v3/search, /gmail/v1/users/...: a product name before the version is the base path too.
    version = next((i for i, seg in enumerate(out[:3]) if _VERSION.match(seg)), None)
    if version is not None and version + 1 < len(out) and "{}" not in out[:version]:
        del out[: version + 1]
    while len(out) > 1 and out[0] != "{}" and _PREFIX.match(out[0]):
        out.pop(0)
    return tuple(out), dotted


def creates_at_item(op: Operation) -> bool:
    """A POST or PUT on an item path that its summary says creates: at a name the caller chooses
    (``POST /repos/{o}/{r}/contents/{filepath}`` "Create a file"), or under a parent's key
    (LaunchDarkly's ``POST /flags/{projectKey}`` "Create a feature flag"). "Create or update" stays
    an update. The ranking's shape and the verb's name both read it here."""
    head = words(op.summary)[:3]
    return (
        op.method in ("post", "put")
        and bool(head)
        and stem(head[0]) in ("create", "add")
        and "or" not in head
    )  # "Create a file", "Creates a new feature flag", "Adds a member"


def shape(op: Operation) -> Shape:
    """The operation's resource and action, read from its path and method alone."""
    segs, dotted = segment_list(op.path)
    depth = len(segs)
    item = bool(segs) and segs[-1] == "{}"
    while segs and segs[-1] == "{}":
        segs.pop()
    method = op.method
    if not segs:
        return Shape((), _ITEM.get(method, method) if item else _COLLECTION.get(method, method), depth)
    if item:
        if creates_at_item(op):
            return Shape(tuple(segs), "create", depth)
        return Shape(tuple(segs), _ITEM.get(method, method), depth)
    last = segs[-1]
    ws = words(last)
    verb = ws[0] if ws else ""
    gathered = len(segs) > 2 and segs[-2].lower() in ("actions", "action") and segs[-3] == "{}"
    if gathered and method == "post":
        # /servers/{id}/actions/create_image, /load_balancers/{id}/actions/add_target: "actions" only
        # gathers an item's verbs; each is an act on the item, not a create of an "actions" resource.
        return Shape(_without_items(segs[:-2]), last.lower(), depth - 1)
    if (
        not dotted
        and len(ws) > 1
        and len(segs) > 1
        and segs[-2] == "{}"
        and method == "post"
        and _RPC_VERBS.get(verb) in ("create", "update", "delete")
    ):
        # POST /tasks/{id}/addProject: an act on the task (add it to a project), not a create.
        return Shape(_without_items(segs[:-1]), "_".join(ws), depth)
    if verb in _RPC_VERBS and (
        dotted or (len(ws) > 1 and verb not in _RPC_NOUNS) or verb in ("search", "list")
    ):
        # /chat.postMessage → (chat, post); /sendMessage → (message, send); /customers/search → (customers, search)
        rest = tuple(segs[:-1]) or (("_".join(ws[1:]),) if len(ws) > 1 else ())
        return Shape(
            rest, _RPC_VERBS[verb], depth, "_".join(ws[1:]), "" if _RPC_VERBS[verb] == verb else verb
        )
    singular = stem(last) == last.lower() and not last.lower().endswith("s")
    said = [stem(w) for w in words(op.summary)[:1]]
    if (
        len(segs) > 1
        and singular
        and (method == "post" or (method in ("put", "patch") and said == [stem(last)]))
    ):
        # POST /charges/{id}/capture, PUT /pulls/{n}/merge ("Merge a pull request"): the word is the
        # action on its parent. (GET /pulls/{n}/merge reads; PUT /pets/{id}/photo updates a photo.)
        parent = _without_items(segs[:-1])
        if len(parent) > 1 and parent[-1].lower() in ("actions", "action"):
            # /campaigns/{id}/actions/send: "actions" only gathers a campaign's verbs
            parent = _without_items(parent[:-1])
            depth -= 1
        return Shape(parent, last.lower(), depth)
    if method == "get" and singular:
        return Shape(tuple(segs), "get", depth)  # GET /user, /v2/account, /me: one object
    return Shape(tuple(segs), _COLLECTION.get(method, method), depth)


def _without_items(segs: Sequence[str]) -> tuple[str, ...]:
    """The segments without the item parameters they end in: ``repos/{}/{}`` → ``repos``."""
    end = len(segs)
    while end and segs[end - 1] == "{}":
        end -= 1
    return tuple(segs[:end])


def hanging_from(resource: tuple[str, ...]) -> tuple[str, ...]:
    """The item a resource hangs from: ``repos/{}/{}`` for ``repos/{}/{}/issues``; () at the top."""
    i = len(resource) - 1
    while i > 0 and resource[i - 1] != "{}":
        i -= 1
    return resource[:i] if i > 0 else ()


def parent_item(resource: tuple[str, ...]) -> tuple[str, ...]:
    """The resource whose item a sub-resource hangs from: ``repos/{}/{}/issues`` for its comments."""
    return _without_items(hanging_from(resource))


def noun_of(resource: tuple[str, ...]) -> tuple[str, ...]:
    last = next((seg for seg in reversed(resource) if seg != "{}"), "")
    return tuple(stem(w) for w in words(last))


def same_noun(a: str, b: str) -> bool:
    """``repo`` and ``repository``: one word is the other's abbreviation (3 letters or more)."""
    short, long_ = sorted((a, b), key=len)
    return short == long_ or (len(short) >= 3 and long_.startswith(short))


def noun_homes(
    nouns: Mapping[tuple[str, ...], tuple[str, ...]], under: Counter[tuple[str, ...]]
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


def _compound_hits(word: str, by_stem: Mapping[str, set[str]]) -> list[set[str]]:
    """A compound the path writes as one word and the text as two (``pullrequests``: "pull request",
    ``nodebalancers``: "node balancer"): the operations whose text has both parts, for each split."""
    if len(word) < 8:
        return []
    return [
        by_stem.get(stem(word[:i]), set()) & by_stem.get(stem(word[i:]), set())
        for i in range(3, len(word) - 2)
    ]


def noun_mentions(
    shapes: Mapping[str, Shape],
    by_stem: Mapping[str, set[str]],
    nouns: Mapping[tuple[str, ...], tuple[str, ...]],
) -> dict[tuple[str, ...], int]:
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
            if len(noun) == 1:
                naming[noun] = max((naming[noun], *_compound_hits(noun[0], by_stem)), key=len)
        hits = naming[noun]
        out[resource] = len(hits) - len(hits & members.get(resource, set()))
    return out
