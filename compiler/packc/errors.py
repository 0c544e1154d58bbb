"""The compiler's exceptions.

    PackcError                 base; carries diagnostics and an exit code
    ├── UsageError             the user asked for something impossible (exit 2)
    └── InputError             the input cannot be compiled (exit 1): unreadable, too large,
                               unsafe, or not an OpenAPI document

Problems *in* a document are :class:`~packc_runtime.diagnostics.Diagnostic` values returned beside
results; these exceptions are for when there is no result to return.
"""

from __future__ import annotations

from collections.abc import Sequence

from packc_runtime.diagnostics import Diagnostic

__all__ = ["InputError", "PackcError", "UsageError"]


class PackcError(Exception):
    """Base of the compiler's errors."""

    exit_code = 1

    def __init__(self, message: str, diagnostics: Sequence[Diagnostic] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.diagnostics = tuple(diagnostics)

    def __str__(self) -> str:
        return self.message


class UsageError(PackcError):
    """Misuse: bad flags or options."""

    exit_code = 2


class InputError(PackcError):
    """The input cannot be read or compiled; ``diagnostics`` say where and why."""

    exit_code = 1
