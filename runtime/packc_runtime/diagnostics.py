"""Diagnostics: problems found in input (a document or a pack), reported, never raised."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from packc_runtime.rules import escape_token

Level = Literal["error", "warning"]

__all__ = ["Diagnostic", "Level", "escape_token", "has_errors", "pointer"]


def pointer(*tokens: str | int, base: str = "#") -> str:
    """Build a JSON pointer in URI-fragment form, e.g. ``#/paths/~1pets/get``."""
    out = base
    for token in tokens:
        out += "/" + escape_token(token)
    return out


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem: a stable code, a level, where it is and what to do about it.

    Attributes:
        code: stable identifier, e.g. ``M017`` (lint) or ``D104`` (document).
        level: ``error`` stops the job; ``warning`` is reported and the job goes on.
        pointer: JSON pointer into the document or pack file, e.g. ``surface.json#/verbs/list``.
        message: one sentence saying what is wrong.
        fix: one sentence saying what to do (may be empty when the message says it).
    """

    code: str
    level: Level
    pointer: str
    message: str
    fix: str = ""

    def __str__(self) -> str:
        text = f"{self.level} {self.code} {self.pointer}: {self.message}"
        return f"{text} {self.fix}" if self.fix else text

    def to_json(self) -> dict[str, str]:
        """The diagnostic as a JSON-ready dict with stable keys."""
        return {
            "code": self.code,
            "level": self.level,
            "pointer": self.pointer,
            "message": self.message,
            "fix": self.fix,
        }


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    """True when any diagnostic is an error."""
    return any(d.level == "error" for d in diagnostics)
