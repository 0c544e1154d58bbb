"""Identifiers a pack is named by (pack id, family, cliBin, verb names) and paths built from them.

A pack id, a family and a cliBin become a directory name, a file name, a command name, a Python
module name and a TOML key; a verb name becomes words on a command line. Each is checked once where
it enters (the document's ``x-packc``, a stub manifest, lint of a hand-written pack) against one
strict grammar, and carried as its own type afterwards:

- pack id, family, cliBin: ``[a-z][a-z0-9]*(-[a-z0-9]+)*``, at most 64 characters (the Agent Skills
  ``name`` rule: lower-case ASCII letters and digits, single hyphens between them);
- verb name: dot-separated words of ``[a-z0-9_]``, each starting with a letter or a digit, at most
  64 characters in all (``pets.list``, ``issues.comments.create_2``).

Text packc derives a name from itself (an API title, an OAuth host) is turned into the grammar by
:func:`sanitize_id` instead of being refused. :func:`safe_child` builds a path under a root and
refuses one that would leave it, through ``..``, an absolute part or a symbolic link.
"""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path, PurePosixPath
from typing import ClassVar, Self

__all__ = [
    "MAX_IDENTIFIER",
    "RESERVED_VERBS",
    "CliBin",
    "Family",
    "Identifier",
    "InvalidIdentifier",
    "PackId",
    "UnsafePath",
    "VerbName",
    "safe_child",
    "sanitize_id",
]

MAX_IDENTIFIER = 64
# The pack CLI's own commands (``<cliBin> connect``, ``<cliBin> mcp``, ``<cliBin> help``): a verb of
# one of these names would take the command's place, so ``connect`` (which HARNESS.md and every
# credential error tell the person to run) would call the document's operation instead.
RESERVED_VERBS = frozenset({"connect", "mcp", "help"})
_NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
_VERB = re.compile(r"[a-z0-9][a-z0-9_]*(?:\.[a-z0-9][a-z0-9_]*)*")


class InvalidIdentifier(ValueError):
    """A value that is not a valid identifier of its kind."""

    def __init__(self, kind: str, value: object, reason: str) -> None:
        super().__init__(f"{kind} {value!r} {reason}")
        self.kind = kind
        self.value = value
        self.reason = reason


class UnsafePath(ValueError):
    """A relative path that would leave its root (``..``, absolute, a symbolic link out)."""

    def __init__(self, root: Path, name: str, reason: str) -> None:
        super().__init__(f"{name!r} {reason} (under {root})")
        self.root = root
        self.name = name
        self.reason = reason


class Identifier(str):
    """A checked string: constructing one from a value outside the grammar raises InvalidIdentifier."""

    __slots__ = ()
    kind: ClassVar[str] = "identifier"
    role: ClassVar[str] = "it becomes a file name"
    grammar: ClassVar[re.Pattern[str]] = _NAME
    rule: ClassVar[str] = (
        "lower-case ASCII letters and digits with single hyphens between them, "
        "starting with a letter, at most 64 characters (e.g. petstore, github-issues)"
    )

    def __new__(cls, value: object) -> Self:
        reason = cls.problem(value)
        if reason is not None:
            raise InvalidIdentifier(cls.kind, value, reason)
        assert isinstance(value, str)
        return super().__new__(cls, value)

    @classmethod
    def problem(cls, value: object) -> str | None:
        """Why ``value`` is not valid (a phrase after the value), or None when it is."""
        if not isinstance(value, str):
            return "is not a string"
        if not value:
            return "is empty"
        if len(value) > MAX_IDENTIFIER:
            return f"is longer than {MAX_IDENTIFIER} characters"
        if not cls.grammar.fullmatch(value):
            return f"is outside the grammar ({cls.role})"
        return None

    @classmethod
    def is_valid(cls, value: object) -> bool:
        """True when ``value`` is in the grammar."""
        return cls.problem(value) is None


class PackId(Identifier):
    """A pack's ``id``: its directory name, HARNESS.md ``name`` and the repo's distribution name."""

    __slots__ = ()
    kind = "pack id"
    role = "it names the pack's directory, its repo's module and HARNESS.md's name"


class Family(Identifier):
    """``binding.family``: the packs that share one consent."""

    __slots__ = ()
    kind = "family"
    role = "it names the packs that share one consent and their credentials"


class CliBin(Identifier):
    """``cliBin``: the launcher's file name under ``bin/`` and the installed command."""

    __slots__ = ()
    kind = "cliBin"
    role = "it names the launcher under bin/ and the installed command"


class VerbName(Identifier):
    """A verb name: dotted lower-case words, each one a word on the pack's command line."""

    __slots__ = ()
    kind = "verb name"
    role = "its words are typed on the pack's command line"
    grammar = _VERB
    rule = (
        "dot-separated words of lower-case ASCII letters, digits and '_', each starting with a letter "
        "or a digit, at most 64 characters (e.g. pets.list)"
    )


def sanitize_id(text: str, *, fallback: str = "api", limit: int = MAX_IDENTIFIER) -> PackId:
    """Turn any text into the pack-id grammar: ``GitHub v3 REST`` → ``github-v3-rest``.

    Letters are folded to ASCII and lower case, every run of other characters becomes one hyphen,
    a leading digit gets an ``n`` in front, and the result is cut to ``limit`` at a word boundary.
    An empty result gives ``fallback`` (which must itself be valid).
    """
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    out = "-".join(w for w in re.split(r"[^a-z0-9]+", ascii_text) if w)
    if out and out[0].isdigit():
        out = "n" + out
    out = out[: max(1, min(limit, MAX_IDENTIFIER))].rstrip("-")
    return PackId(out or fallback)


def safe_child(root: Path, name: str) -> Path:
    """``root / name`` resolved, refusing any ``name`` that would leave ``root``.

    ``name`` is a relative POSIX path (``bin/petstore``). Refused: an empty name or part, an absolute
    path or drive, ``.``/``..`` parts, backslashes, NUL, and a path whose existing part is a symbolic
    link leading out of ``root``.

    Raises:
        UnsafePath: when the path would leave ``root``.
    """
    if not name or "\x00" in name or "\\" in name:
        raise UnsafePath(root, name, "is empty or holds a NUL or a backslash")
    pure = PurePosixPath(name)
    if pure.is_absolute() or re.match(r"^[A-Za-z]:", name):
        raise UnsafePath(root, name, "is absolute")
    parts = name.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise UnsafePath(root, name, "has an empty, '.' or '..' part")
    base = Path(os.path.realpath(root))
    target = Path(os.path.realpath(base.joinpath(*parts)))  # follows every symbolic link that exists
    if not target.is_relative_to(base) or target == base:
        raise UnsafePath(root, name, "leaves the directory through a symbolic link")
    return target
