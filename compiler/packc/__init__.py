"""packc: compile OpenAPI documents into packs."""

from .compile import CompileResult, compile
from .errors import InputError, PackcError, UsageError

__all__ = ["CompileResult", "InputError", "PackcError", "UsageError", "compile"]
