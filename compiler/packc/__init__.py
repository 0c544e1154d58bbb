"""packc: compile OpenAPI documents into packs."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from packc.errors import InputError, PackcError, UsageError
    from packc.options import CompileOptions
    from packc.pipeline import CompileResult, compile, plan_source
    from packc.read.frontend import FrontEndResult, read_api
    from packc.skill import skill_text

__all__ = [
    "CompileOptions",
    "CompileResult",
    "FrontEndResult",
    "InputError",
    "PackcError",
    "UsageError",
    "compile",
    "plan_source",
    "read_api",
    "skill_text",
]

# Exports load on first use, so `packc call` and `packc exec` (runtime work) do not pay for the
# compiler's imports: the whole pipeline costs most of a second of start-up. (The pipeline module
# is not named `compile`: importing it would then rebind `packc.compile` to the module.)
_HOMES = {
    "CompileOptions": "options",
    "CompileResult": "pipeline",
    "FrontEndResult": "read.frontend",
    "InputError": "errors",
    "PackcError": "errors",
    "UsageError": "errors",
    "compile": "pipeline",
    "plan_source": "pipeline",
    "read_api": "read.frontend",
    "skill_text": "skill",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'packc' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
