"""Naming: an operation → its verb name, from path and method first, operationId and summary second.

The rules and the clash order are in docs/compile.md ("Names"). Depends on the operation alone,
except clash resolution, which runs over all operations in a fixed order.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from urllib.parse import parse_qsl

from packc_runtime.diagnostics import Diagnostic

from .model import Operation
from .overrides import OpOverride
from .text import snake

__all__ = ["CRUD", "MAX_NAME", "name_operation", "path_words", "resolve_names"]

MAX_NAME = 64

_PREFIX = re.compile(r"^(api|apis|rest|public|latest|beta|alpha|v\d+([._]\d+)*[a-z]*|\d+([._]\d+)*)$", re.I)
_COLLECTION = {"get": "list", "post": "create", "put": "update", "patch": "update", "delete": "delete"}
_ITEM = {"get": "get", "post": "update", "put": "update", "patch": "update", "delete": "delete"}
CRUD = {"list", "get", "create", "update", "delete"}
_SINGULAR_S = ("ss", "us", "is", "news", "status", "series", "species", "settings", "access", "analytics")


def _plural(word: str) -> bool:
    return (word.endswith("s") and not word.endswith(_SINGULAR_S)) or word in ("people", "data", "media", "children")


def _segments(path: str) -> tuple[list[tuple[str, bool]], str]:
    """Path → [(word, is_param)] without version prefixes, and a trailing ``:custom`` verb."""
    # A path key may carry what is not a path (AWS "/#X-Amz-Target=Svc.Op", flickr "/rest?method=a.b.c"):
    # the fragment never names anything; a query's values are words of the path.
    base, _, query = path.partition("#")[0].partition("?")
    raw = [s for s in base.split("/") if s]
    raw += [word for _key, value in parse_qsl(query) for word in value.split(".") if word]
    custom = ""
    if raw:
        m = re.match(r"^(.*?[^:]):([A-Za-z][\w-]*)$", raw[-1])
        if m and "{" not in m.group(2):
            raw[-1], custom = m.group(1), m.group(2)
    segs: list[tuple[str, bool]] = []
    for s in raw:
        is_param = "{" in s
        word = "" if is_param else snake(re.sub(r"\.(json|xml|yaml|csv)$", "", s))
        if not is_param and not word:
            continue
        segs.append((word, is_param))
    # Drop leading prefixes (api, v1, ...) while something follows them.
    while len(segs) > 1 and not segs[0][1] and _PREFIX.match(segs[0][0]):
        segs.pop(0)
    return segs, snake(custom)


_LEADING_VERBS = {"add", "associate", "attach", "batch", "cancel", "check", "copy", "create", "delete", "deregister",
                  "describe", "detach", "disable", "disassociate", "enable", "export", "get", "import", "invoke",
                  "list", "modify", "put", "register", "remove", "reset", "restore", "search", "send", "set", "start",
                  "stop", "tag", "terminate", "untag", "update", "validate"}


def _fallback(op: Operation) -> tuple[tuple[str, ...], str]:
    """(resource, action) of an operation whose path has no word: from its operationId (or what a
    fragment key names, AWS ``#X-Amz-Target=Svc.CreateTable``), a leading verb becoming the action
    (``CreateTable`` → ``table.create``); else the first words of the summary; else ``<method>_root``."""
    fragment = op.path.partition("#")[2]
    named = op.operation_id or (fragment.rpartition("=")[2].rpartition(".")[2] if fragment else "")
    words = snake(named).split("_") if named and snake(named) else []
    if len(words) > 1 and words[0] in _LEADING_VERBS:
        return ("_".join(words[1:]),), words[0]
    if words:
        return (), "_".join(words)
    summary = snake(" ".join(op.summary.split()[:5]))
    return (), summary or f"{op.method}_root"


def name_operation(op: Operation) -> tuple[tuple[str, ...], str]:
    """The (resource words, action) a path and method give, before any clash resolution.

    Depends on the operation alone, so unrelated edits of the document never rename a verb.
    """
    segs, custom = _segments(op.path)
    statics = [w for w, p in segs if not p]
    method = op.method
    if custom:
        return tuple(statics[-2:]), custom
    if not statics:
        return _fallback(op)
    if segs[-1][1]:
        return tuple(statics[-2:]), _ITEM.get(method, method)
    last = statics[-1]
    if len(statics) == 1 or _plural(last):
        return tuple(statics[-2:]), _COLLECTION.get(method, method)
    # A singular trailing word after something else: an action (POST /pets/{id}/adopt,
    # GET /user/login) or a singular sub-resource written to with PUT/PATCH/DELETE.
    if method in ("get", "post"):
        return tuple(statics[-3:-1]), last
    return tuple(statics[-2:]), _ITEM.get(method, method)


def _join(words: Iterable[str]) -> str:
    name = ".".join(w for w in words if w)
    if len(name) <= MAX_NAME:
        return name
    parts = name.split(".")
    while len(".".join(parts)) > MAX_NAME and len(parts[-1]) > 1:
        over = len(".".join(parts)) - MAX_NAME
        parts[-1] = parts[-1][: max(1, len(parts[-1]) - over)].rstrip("_")
    return ".".join(parts)[:MAX_NAME].rstrip("._")


# Clash order: PATCH keeps "update" and PUT becomes "replace" when a path has both.
_CLASH_ORDER = ("get", "post", "patch", "put", "delete", "head", "options", "trace")


def _numbered(name: str, n: int) -> str:
    """``name`` with ``_n`` added, cut so the suffix survives the 64-character limit."""
    suffix = f"_{n}"
    return name[: MAX_NAME - len(suffix)].rstrip("._") + suffix


def _method_rank(op: Operation) -> tuple[int, bool, str]:
    # An item's DELETE keeps ``delete`` before its collection's (which becomes ``delete_all``).
    bulk = op.method == "delete" and not op.path.rstrip("/").endswith("}")
    return (_CLASH_ORDER.index(op.method), bulk, op.path)


def resolve_names(items: list[tuple[Operation, tuple[str, ...], str, OpOverride]],
                   diags: list[Diagnostic]) -> dict[str, str]:
    """Unique names by op key: user names first, then path names; clashes in method/path order."""
    taken: dict[str, str] = {}
    out: dict[str, str] = {}
    for op, _res, _act, ov in sorted(items, key=lambda it: _method_rank(it[0])):
        if ov.verb:
            if ov.verb in taken:
                diags.append(Diagnostic("C106", "error", op.pointer, f"Verb name {ov.verb!r} is given to two operations.",
                                        "Give each operation its own x-packc verb."))
                continue
            taken[ov.verb] = op.key
            out[op.key] = ov.verb
    readable = {op.path for op, _res, _act, _ov in items if op.method == "get"}
    for op, res, act, _ov in sorted(items, key=lambda it: _method_rank(it[0])):
        if op.key in out:
            continue
        candidates = [_join([*res, act])]
        if op.method == "put" and act == "update":
            candidates.append(_join([*res, "replace"]))
        if op.method in ("post", "put", "patch") and op.path in readable and act not in CRUD:
            # A singular sub-resource that GET reads (POST /charges/{id}/dispute): writing it updates it.
            candidates.append(_join([*res, act, _ITEM[op.method]]))
        if op.method == "delete" and not op.path.rstrip("/").endswith("}"):
            candidates.append(_join([*res, "delete_all"]))  # DELETE on a collection beside its item's
        # The same words under another parent (/orgs/{org}/actions/secrets, /orgs/{org}/dependabot/secrets,
        # /repos/...): the nearest word to their left that tells them apart, then the top-level word.
        words = path_words(op)
        near = [w for w in reversed(words) if w not in res][:1]
        top = [w for w in words[:1] if w not in res and w not in near]
        acts = [act, "replace"] if op.method == "put" and act == "update" else [act]
        candidates.extend(_join([*extra, *res, a]) for extra in (near, top, [*top, *near]) if extra for a in acts)
        if op.operation_id and snake(op.operation_id) and snake(op.operation_id) != act:
            candidates.append(_join([*res, snake(op.operation_id)]))
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
            actions = ("get", "list") if method == "get" else (_COLLECTION.get(method, method),)
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



def path_words(op: Operation) -> tuple[str, ...]:
    """The static words of an operation's path, prefixes (api, v1, ...) dropped: its place in the API."""
    return _static_words(op.path)


@functools.lru_cache(maxsize=1 << 16)
def _static_words(path: str) -> tuple[str, ...]:
    # Cached: merging small groups compares their paths' first words again after every merge
    # (Microsoft Graph: ~10^6 lookups), and _segments costs a few regex calls each time.
    return tuple(w for w, is_param in _segments(path)[0] if not is_param)

