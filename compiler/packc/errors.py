"""The compiler's exceptions.

    PackcError                 base; carries diagnostics and an exit code
    ├── UsageError             the user asked for something impossible (exit 2)
    │   └── CommandShadows     install would put a command before one already on PATH
    └── InputError             the input cannot be compiled (exit 1): unreadable, too large,
                               unsafe, or not an OpenAPI document

Problems *in* a document are :class:`~packc_runtime.diagnostics.Diagnostic` values returned beside
results; these exceptions are for when there is no result to return.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from packc_runtime.diagnostics import Diagnostic

__all__ = ["CommandShadows", "InputError", "PackcError", "UsageError"]


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


class CommandShadows(UsageError):
    """``packc install`` refused: the command name already runs something on PATH that packc did not
    write (``git``, the Stripe CLI's ``stripe``); ``command`` is the name, ``shadows`` what it runs."""

    code = "command_shadows"

    def __init__(self, command: str, shadows: Path, bin_dir: Path) -> None:
        self.command, self.shadows = command, shadows
        super().__init__(
            f"[{self.code}] The command {command!r} already runs {shadows}, which packc did not install; "
            f"installing the pack as {bin_dir / command} would shadow it (or be shadowed by it), and "
            f"typing {command} would reach the pack's server instead. Install it under another name with "
            f"--name NAME (e.g. --name {command}-api), or pass --force if you mean to replace it on PATH."
        )
