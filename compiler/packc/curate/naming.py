"""Naming: an operation → its verb name, from path and method first, operationId and summary second.

The rules and the clash order are in docs/compile.md ("Names"). Depends on the operation alone,
except clash resolution, which runs over all operations in a fixed order.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from urllib.parse import parse_qsl

from packc.curate._responses import response_shape
from packc.curate._shape import COLLECTION_ACTIONS, ITEM_ACTIONS, creates_at_item
from packc.model import Api, Operation
from packc.read.overrides import OpOverride
from packc.text import snake
from packc.words import SELF_WORDS, VERBS, is_plural, past, singular
from packc_runtime.diagnostics import Diagnostic
from packc_runtime.format.identifiers import RESERVED_VERBS

__all__ = [
    "CRUD",
    "MAX_NAME",
    "VERSION",
    "name_operation",
    "name_operations",
    "pack_names",
    "path_segments",
    "path_words",
    "resolve_names",
    "response_shape",
    "scopes",
    "unscoped",
]

MAX_NAME = 64

_PREFIX = re.compile(r"^(api|apis|rest|public|latest|beta|alpha)$", re.I)
# A version segment (v1, v1.0, v2beta1, 2010-04-01, 3): never a word of a name, wherever it stands.
VERSION = re.compile(r"^(v\d+([._-]?\d+)*([a-z]+\d*)?|\d+([._-]\d+)*)$", re.I)
_COLLECTION, _ITEM = COLLECTION_ACTIONS, ITEM_ACTIONS
CRUD = {"list", "get", "create", "update", "delete"}
# DELETE of an action a PUT or POST takes (PUT /issues/{n}/lock) undoes it.
_UNDONE = {
    "lock",
    "star",
    "follow",
    "pin",
    "mute",
    "block",
    "subscribe",
    "archive",
    "assign",
    "watch",
    "hide",
    "suspend",
    "publish",
    "link",
}


def _plural(word: str) -> bool:
    return is_plural(word)


def _segments(path: str) -> tuple[list[tuple[str, bool]], str]:
    """Path → [(word, is_param)] without version segments and leading prefixes, and a trailing ``:custom`` verb."""
    # A path key may carry what is not a path (AWS "/#X-Amz-Target=Svc.Op", flickr "/rest?method=a.b.c"):
    # the fragment never names anything; a query's values are words of the path.
    base, _, query = path.partition("#")[0].partition("?")
    raw = [s for s in base.split("/") if s]
    if query:  # parse_qsl costs more than the rest of this function
        raw += [word for _key, value in parse_qsl(query) for word in value.split(".") if word]
    custom = ""
    if raw:
        m = re.match(r"^(.*?[^:]):([A-Za-z][\w-]*)$", raw[-1])
        if m and "{" not in m.group(2):
            raw[-1], custom = m.group(1), m.group(2)
    segs: list[tuple[str, bool]] = []
    for s in raw:
        is_param = "{" in s
        bare = re.sub(r"\.(json|xml|yaml|csv)$", "", s)
        if is_param:
            segs.append(("", True))
            continue
        # An RPC method path (Slack's /chat.postMessage) names its words with dots.
        for part in bare.split(".") if not VERSION.match(bare) else [bare]:
            word = snake(part)
            if word and not VERSION.match(part):
                segs.append((word, False))
    if not segs:  # only versions: keep the last one rather than nothing
        last = next((s for s in reversed(raw) if "{" not in s and snake(s)), None)
        if last is not None:
            segs.insert(0, (snake(last), False))
    # Drop leading prefixes (api, rest, ...) while something follows them.
    while len(segs) > 1 and not segs[0][1] and _PREFIX.match(segs[0][0]):
        segs.pop(0)
    return segs, snake(custom)


_LEADING_VERBS = {
    "add",
    "associate",
    "attach",
    "batch",
    "cancel",
    "check",
    "copy",
    "create",
    "delete",
    "deregister",
    "describe",
    "detach",
    "disable",
    "disassociate",
    "enable",
    "export",
    "get",
    "import",
    "invoke",
    "list",
    "modify",
    "put",
    "register",
    "remove",
    "reset",
    "restore",
    "search",
    "send",
    "set",
    "start",
    "stop",
    "tag",
    "terminate",
    "untag",
    "update",
    "validate",
    "patch",
    "post",
}
_METHOD_WORDS = {"get": "get", "post": "create", "put": "update", "patch": "update", "delete": "delete"}
_METHOD_PATH = re.compile(r"^(get|post|put|patch|delete|head|options)[-_ ]*(/.*)$", re.I)


def _fallback(op: Operation) -> tuple[tuple[str, ...], str]:
    """(resource, action) of an operation whose path has no word: from its operationId (or what a
    fragment key names, AWS ``#X-Amz-Target=Svc.CreateTable``), a leading verb becoming the action
    (``CreateTable`` → ``table.create``); an operationId that spells a method and a path
    (``patch-/crm/v3/extensions/cards/{appId}/{cardId}``) is named as that path; else the first
    words of the summary; else ``<method>_root``."""
    fragment = op.path.partition("#")[2]
    named = op.operation_id or (fragment.rpartition("=")[2].rpartition(".")[2] if fragment else "")
    spelled = _METHOD_PATH.match(named.strip())
    if spelled:
        segs, custom = _segments(spelled.group(2))
        if any(not p for _w, p in segs):
            return _from_segments(_scoped(segs, spelled.group(2)), custom, op.method, "")
    words = (
        [w for w in snake(named).split("_") if w and not VERSION.match(w.removeprefix("n"))] if named else []
    )
    if len(words) > 1 and words[0] in _LEADING_VERBS:
        act = _METHOD_WORDS.get(words[0], words[0]) if words[0] in ("patch", "post", "put") else words[0]
        return ("_".join(words[1:]),), act
    if words:
        return (), "_".join(words)
    summary = snake(" ".join(op.summary.split()[:5]))
    return (), summary or f"{op.method}_root"


def _scoped(segs: list[tuple[str, bool]], path: str) -> list[tuple[str, bool]]:
    """Trailing parameters that are not the last word's item (``/cards/{appId}``: an app's cards)
    scope a collection: dropped, so the path reads as that collection."""
    params = [p.strip("{}") for p in path.split("/") if p.startswith("{")]
    statics = [w for w, p in segs if not p]
    if not params or not segs[-1][1] or not statics:
        return segs
    stem = snake(params[-1]).removesuffix("_id").removesuffix("_sid").removesuffix("_key")
    if stem == singular(statics[-1]) or stem == statics[-1]:
        return segs
    while segs and segs[-1][1]:
        segs = segs[:-1]
    return segs


_READ_VERBS = {"get", "list", "describe", "find", "fetch", "lookup", "count"}


def _verb_word(word: str) -> bool:
    return word.split("_")[0] in VERBS or ("_" in word and word.split("_")[0] in _READ_VERBS)


def _from_segments(
    segs: list[tuple[str, bool]], custom: str, method: str, shape: str
) -> tuple[tuple[str, ...], str]:
    """(resource, action) from path segments; ``shape`` is what a GET answers: array, object or ''."""
    statics = [w for w, p in segs if not p]
    if custom:
        return tuple(statics[-2:]), custom
    if not segs[-1][1] and statics[-1] in CRUD and len(statics) > 1:  # /conversations.list, /pets/list
        return tuple(statics[-3:-1]), statics[-1]
    if segs[-1][1]:
        return tuple(statics[-2:]), _ITEM.get(method, method)
    last = statics[-1]
    after_item = len(segs) > 1 and segs[-2][1]
    if method == "get" and shape in ("array", "list"):
        return tuple(statics[-2:]), "list"
    if (
        method == "get"
        and (shape == "object" or (not shape and statics == [last] and last in SELF_WORDS))
        and not _verb_word(last)
    ):
        # A single object read (GET /user, GET /orgs/{org}/actions/permissions): get, not list.
        return tuple(statics[-2:]), "get"
    if len(statics) == 1 or (_plural(last) and not ("_" in last and _verb_word(last))):
        return tuple(statics[-2:]), _COLLECTION.get(method, method)
    # A singular trailing word after something else: an action (POST /pets/{id}/adopt, PUT
    # /pulls/{n}/merge, GET /user/login) or a singular sub-resource (GET/PUT .../subscription).
    context = tuple(statics[-2:-1]) if after_item else tuple(statics[-3:-1])
    if method == "post" or (method == "put" and _verb_word(last)):
        return context, last
    if method == "get":
        return context, last
    if method == "delete" and last in _UNDONE:
        return context, f"un{last}"
    return tuple(statics[-2:]), _ITEM.get(method, method)


# Actions that look over many items: a path that ends in one (GET /v1/customers/search) searches
# what comes before it, and a path that starts with one (GET /search/issues) searches what follows.
_LOOKUPS = {"search", "query", "lookup", "find"}


def _rpc_method(path: str) -> bool:
    """Whether a path is one RPC method spelled with dots and no parameter (Slack's ``/conversations.info``)."""
    base, _, query = path.partition("#")[0].partition("?")
    if "{" in base:
        return False
    if "." in query:  # flickr's /rest?method=flickr.photos.getInfo
        return True
    last = re.sub(r"\.(json|xml|yaml|csv)$", "", base.rstrip("/").rpartition("/")[2])
    return "." in last and not VERSION.match(last)


def name_operation(
    op: Operation, api: Api | None = None, cache: dict[str, str] | None = None
) -> tuple[tuple[str, ...], str]:
    """The (resource words, action) a path and method give, before any clash resolution.

    Depends on the operation alone (and, for a GET, on what its response says it returns), so
    unrelated edits of the document never rename a verb.
    """
    segs, custom = _segments(op.path)
    if not custom and not any(not p for _w, p in segs):
        return _fallback(op)
    statics = [w for w, p in segs if not p]
    if not custom and not segs[-1][1] and len(statics) > 1:
        if statics[-1] in _LOOKUPS and op.method in ("get", "post"):
            # /v1/customers/search → customers.search; what it searches are the words right before it
            # (/workspaces/{w}/tasks/search → tasks.search).
            run = [
                w
                for w, _p in segs[:-1][::-1][
                    : next((i for i, (_w, p) in enumerate(segs[:-1][::-1]) if p), len(segs) - 1)
                ]
            ][::-1]
            return tuple(run[-2:] or statics[-2:-1]), statics[-1]  # /engines/{id}/search → engines.search
        if statics[0] in _LOOKUPS and len(segs) == 2 and op.method in ("get", "post"):
            return (statics[1],), statics[0]  # /search/issues → issues.search
        if _rpc_method(op.path) and statics[-1] not in CRUD:
            # An RPC method is named as the API names it: its namespace, then its method, whatever its
            # response (/conversations.info → conversations.info, /chat.postMessage → chat.post_message).
            return tuple(statics[-3:-1]), statics[-1]
    if not custom and segs[-1][1] and creates_at_item(op):
        return tuple(statics[-2:]), "create"  # POST /flags/{projectKey} "Create a feature flag": flags.create
    return _from_segments(segs, custom, op.method, response_shape(api, op, cache))


def name_operations(api: Api, ops: Iterable[Operation]) -> list[tuple[Operation, tuple[str, ...], str]]:
    """Every operation's (resource, action); a GET of an action that a write takes on the same path
    (GET and PUT ``/pulls/{n}/merge``) reads its state: ``pulls.merged.get``."""
    ops = list(ops)
    shapes: dict[str, str] = {}
    named = [(op, *name_operation(op, api, shapes)) for op in ops]
    # A word that has items below it (/projects/{id}/merge_requests/{mr}) is a collection, though a verb
    # leads it: POST .../merge_requests creates one, GET lists them.
    collections = {op.path.rstrip("/").rpartition("/")[0] for op in ops if op.path.rstrip("/").endswith("}")}
    named = [
        (op, res, act)
        if act in CRUD
        or op.path not in collections
        or not path_words(op)
        or path_words(op)[-1] != act
        or op.method not in _COLLECTION
        else (op, (*res, act)[-2:], _COLLECTION[op.method])
        for op, res, act in named
    ]
    acted = {(op.path, act) for op, _res, act in named if op.method != "get" and act not in CRUD}
    read = {op.path for op, _res, act in named if op.method == "get" and act == "get"}
    out: list[tuple[Operation, tuple[str, ...], str]] = []
    for op, res, act in named:
        if act in CRUD or not act:
            pass
        elif op.method == "get" and (op.path, act) in acted and _verb_word(act) and act not in _LOOKUPS:
            first, _, rest = act.partition("_")
            res, act = (*res, "_".join(w for w in (past(first).replace(" ", "_"), rest) if w)), "get"
        elif op.method in _ITEM and op.method != "get" and op.path in read and not _verb_word(act):
            # A singular sub-resource that GET reads (POST /charges/{id}/dispute): writing it updates it.
            res, act = (*res, act)[-2:], _ITEM[op.method]
        out.append((op, res, act))
    return out


def _join(words: Iterable[str]) -> str:
    return _fit(".".join(w for w in words if w))


def _fit(name: str, limit: int = MAX_NAME) -> str:
    """``name`` cut to ``limit`` characters by whole words, never mid-word: the middle resource
    segments go first (the scope and the action say most), then the action's last words, then the
    scope's; only a single word longer than the limit is cut inside."""
    parts = name.split(".")
    while len(".".join(parts)) > limit and len(parts) > 2:
        parts.pop(1)
    for at in (-1, 0):
        while len(".".join(parts)) > limit and "_" in parts[at].strip("_"):
            parts[at] = parts[at].strip("_").rsplit("_", 1)[0]
    return ".".join(parts)[:limit].rstrip("._")


# Clash order: PATCH keeps "update" and PUT becomes "replace" when a path has both.
_CLASH_ORDER = ("get", "post", "patch", "put", "delete", "head", "options", "trace")


_CONNECTIVES = {"by", "for", "in", "of", "and", "with", "from", "to"}


def _op_words(operation_id: str, res: tuple[str, ...], op: Operation | None = None) -> str:
    """An operationId as a name word, without what the resource already says: GitHub's
    ``users/get-by-id`` on ``user`` → ``get_by_id``; ``teams/list-legacy`` → ``list_legacy``. One
    that spells its method and path keeps only what the path does not say: Stripe's
    ``PostSourcesSourceVerify`` → ``verify``; Box's ``get_files_id_get_shared_link`` → ``get_shared_link``."""
    if _METHOD_PATH.match(operation_id.strip()):
        return snake(operation_id)
    words = [
        w
        for w in snake(operation_id.rpartition("/")[2] or operation_id).split("_")
        if w and not VERSION.match(w)
    ]
    if op is not None:
        statics = [part for w in path_words(op) for part in w.split("_")]
        found = (snake(p).split("_") for p in re.findall(r"{([^}]*)}", op.path))
        params = [*sorted(found, key=len, reverse=True), ["id"]]
        rest = words[1:] if words and words[0] == op.method else words
        at = -1
        for w in statics:  # the path's words, in order
            at = next((i for i in range(at + 1, len(rest)) if w in (rest[i], singular(rest[i]))), len(rest))
        if statics and at < len(rest) and rest[0] in (statics[0], singular(statics[0])):
            extra, tail = [], rest[at + 1 :]
            while tail:  # a parameter's words (web_link_id, id) are not the operation's own
                k = next((len(p) for p in params if tail[: len(p)] == p), 0)
                extra += [] if k else tail[:1]
                tail = tail[k or 1 :]
            # Nothing the path does not say: no word of its own (a later candidate tells it apart).
            return "_".join(extra) if set(extra) - _CONNECTIVES else "" if not extra else "_".join(words)
    known = {w for r in res for w in (r, singular(r))}
    while len(words) > 1 and (words[0] in known or singular(words[0]) in known):
        words.pop(0)
    return "_".join(words)


def _numbered(name: str, n: int) -> str:
    """``name`` with ``_n`` added, cut so the suffix survives the 64-character limit."""
    suffix = f"_{n}"
    return _fit(name, MAX_NAME - len(suffix)) + suffix


def _method_rank(op: Operation) -> tuple[int, bool, str]:
    # An item's DELETE keeps ``delete`` before its collection's (which becomes ``delete_all``).
    bulk = op.method == "delete" and not op.path.rstrip("/").endswith("}")
    return (_CLASH_ORDER.index(op.method), bulk, op.path)


def resolve_names(
    items: list[tuple[Operation, tuple[str, ...], str, OpOverride]], diags: list[Diagnostic]
) -> dict[str, str]:
    """Unique names by op key: user names first, then path names; clashes in method/path order."""
    taken: dict[str, str] = {}
    out: dict[str, str] = {}
    for op, _res, _act, ov in sorted(items, key=lambda it: _method_rank(it[0])):
        if ov.verb:
            if ov.verb in taken:
                diags.append(
                    Diagnostic(
                        "C106",
                        "error",
                        op.pointer,
                        f"Verb name {ov.verb!r} is given to two operations.",
                        "Give each operation its own x-packc verb.",
                    )
                )
                continue
            taken[ov.verb] = op.key
            out[op.key] = ov.verb
    for word in RESERVED_VERBS:  # the pack CLI's own commands: a derived name goes on to its next candidate
        taken.setdefault(word, "")
    readable = {op.path for op, _res, _act, _ov in items if op.method == "get"}
    for op, res, act, _ov in sorted(items, key=lambda it: _method_rank(it[0])):
        if op.key in out:
            continue
        candidates = [_join([*res, act])]
        if op.method == "put" and act == "update":
            candidates.append(_join([*res, "replace"]))
        if op.method in ("post", "put", "patch") and op.path in readable and act not in CRUD | _LOOKUPS:
            # A singular sub-resource that GET reads (POST /charges/{id}/dispute): writing it updates it.
            candidates.append(_join([*res, act, _ITEM[op.method]]))
        if op.method == "delete" and not op.path.rstrip("/").endswith("}"):
            candidates.append(_join([*res, "delete_all"]))  # DELETE on a collection beside its item's
        # The same words under another parent (/orgs/{org}/actions/secrets, /orgs/{org}/dependabot/secrets,
        # /repos/...): the nearest word to their left that tells them apart, then the top-level word.
        words = path_words(op)
        near = [w for w in reversed(words) if w not in res and w != act][
            :1
        ]  # the action's word tells nothing apart
        top = [w for w in words[:1] if w not in res and w not in near]
        acts = [act, "replace"] if op.method == "put" and act == "update" else [act]
        candidates.extend(
            _join([*extra, *res, a]) for extra in (near, top, [*top, *near]) if extra for a in acts
        )
        own = _op_words(op.operation_id or "", res, op)
        if own and own != act:
            candidates.append(_join([*res, own]))
        if act != op.method:
            candidates.append(_join([*res, f"{act}_{op.method}"]))
        name = next((c for c in candidates if c not in taken), None)
        n = 2
        while name is None:
            probe = _numbered(candidates[0], n)
            name = probe if probe not in taken else None
            n += 1
        taken[name] = op.key
        out[op.key] = name
    # A verb that is a dotted prefix of another would make CLI words ambiguous: lengthen it.
    names = set(out.values())
    prefixes = {".".join(n.split(".")[:i]) for n in names for i in range(1, n.count(".") + 1)}
    for key, name in sorted(out.items(), key=lambda kv: kv[1]):
        if name in prefixes:
            method = key.split(" ", 1)[0].lower()
            # GET reads it: ".get", or ".list" when an item below took ".get" (/balance/history and
            # /balance/history/{id}); other methods get their collection action.
            actions = (
                ("get", "list")
                if method == "get"
                else (_COLLECTION.get(method, method),) + (("replace",) if method == "put" else ())
            )
            options = [_join([name, a]) for a in actions]
            longer = next((o for o in options if o not in names and o not in prefixes), options[0])
            base, n = longer, 2
            while longer in names or longer in prefixes:
                longer = _numbered(base, n)
                n += 1
            names.discard(name)
            names.add(longer)
            prefixes.update(".".join(longer.split(".")[:i]) for i in range(1, longer.count(".") + 1))
            out[key] = longer
    return out


# A scope: a path's first word, followed by a parameter, whose items hold at least this share of the
# API's operations (and at least _SCOPE_MIN of them): GitHub's /repos/{owner}/{repo} (42%), Twilio's
# /Accounts/{AccountSid} (98%), GitLab's /projects/{id} (70%); not Stripe's /v1/customers/{customer}
# (10%), whose sub-resources (a customer's sources) are the customer's, not the API's.
_SCOPE_SHARE = 0.2
_SCOPE_MIN = 10


def _scope_word(path: str) -> str:
    """The path's first word when a parameter follows it (``repos`` of /repos/{owner}/{repo}/issues), else ''."""
    segs = _segments(path)[0]
    return segs[0][0] if len(segs) > 1 and not segs[0][1] and segs[1][1] else ""


def scopes(ops: Iterable[Operation]) -> frozenset[str]:
    """The words that scope most of an API: in a pack, a verb's name may leave them out (``pack_names``)."""
    counts: dict[str, int] = {}
    total = 0
    for op in ops:
        total += 1
        word = _scope_word(op.path)
        if word:
            counts[word] = counts.get(word, 0) + 1
    return frozenset(w for w, n in counts.items() if n >= max(_SCOPE_MIN, _SCOPE_SHARE * total))


def unscoped(op: Operation, name: str, scope_words: frozenset[str]) -> str:
    """``name`` without its scope word (``repos.issues.list`` → ``issues.list``), else ``name``."""
    word = _scope_word(op.path)
    rest = name[len(word) + 1 :] if word in scope_words and name.startswith(f"{word}.") else ""
    return rest if rest.count(".") >= 1 else name


def pack_names(verbs: Iterable[tuple[Operation, str, bool]], scope_words: frozenset[str]) -> dict[str, str]:
    """Names inside one pack: ``repos.issues.list`` → ``issues.list`` (op key → name).

    Each verb is (operation, API-wide name, fixed). A name that is not fixed (a user's or a stub's)
    takes the first of these that no other verb of the pack has, or would take, and that is no
    dotted prefix of another's (else every verb in such a clash tries its next one):

    1. the name without its scope word (``scopes``): the path's first word when a parameter follows
       it (the arguments carry it: ``--owner --repo``) and a resource word is left
       (``repos.issues.list`` → ``issues.list``; ``repos.issues.comments.list``, named so beside
       /repos/{owner}/{repo}/issues/comments, → ``issues.comments.list`` in a pack without that).
       A parent no parameter follows (/user/repos, /SIP/Domains, Slack's conversations.history) is
       never left out: nothing else in the call says it;
    2. the API-wide name.
    """
    options = {
        op.key: [name] if fixed else list(dict.fromkeys([unscoped(op, name, scope_words), name]))
        for op, name, fixed in verbs
    }
    at = dict.fromkeys(options, 0)
    while True:
        final = {key: options[key][i] for key, i in at.items()}
        moving = [key for key, clash in _clashing(final).items() if clash and at[key] < len(options[key]) - 1]
        if not moving:
            return final
        for key in moving:
            at[key] += 1


def _clashing(names: Mapping[str, str]) -> dict[str, bool]:
    """For each key, whether its name is another's too, or a dotted prefix of another's, or has one as its prefix."""
    counts: dict[str, int] = {}
    for name in names.values():
        counts[name] = counts.get(name, 0) + 1
    prefixes = {".".join(n.split(".")[:i]) for n in names.values() for i in range(1, n.count(".") + 1)}

    def clash(name: str) -> bool:
        heads = (".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1))
        return counts[name] > 1 or name in prefixes or any(h in counts for h in heads)

    return {key: clash(name) for key, name in names.items()}


def path_segments(path: str) -> tuple[tuple[str, bool], ...]:
    """The path's words and parameters in order, ``(word, False)`` or ``('', True)``, prefixes dropped."""
    return tuple(_segments(path)[0])


def path_words(op: Operation) -> tuple[str, ...]:
    """The static words of an operation's path, prefixes (api, v1, ...) dropped: its place in the API."""
    return _static_words(op.path)


@functools.lru_cache(maxsize=1 << 16)
def _static_words(path: str) -> tuple[str, ...]:
    # Cached: merging small groups compares their paths' first words again after every merge
    # (Microsoft Graph: ~10^6 lookups), and _segments costs a few regex calls each time.
    return tuple(w for w, is_param in _segments(path)[0] if not is_param)
