"""Who am I: how surely an operation is the first call of every quickstart (``GET /user``, ``/me``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

from packc.curate._shape import Shape, stem, words
from packc.model import Operation
from packc.words import SELF_WORDS

__all__ = ["ENTRY", "GLOBAL_SEARCH", "SELF_PREFIXES", "common_arguments", "entry_point"]

ENTRY = "entry point: who am I, with no arguments"
GLOBAL_SEARCH = "search of the whole API"
SELF_PREFIXES = frozenset({("me",), ("my",), ("self",), ("user",)})  # /me/playlists: the caller's own
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
