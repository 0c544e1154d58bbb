"""packc: compile OpenAPI documents into packs."""

from .compile import CompileResult, compile
from .errors import InputError, PackcError, UsageError
from .frontend import FrontEndResult, read_api

__all__ = ["CompileResult", "FrontEndResult", "InputError", "PackcError", "UsageError", "compile", "read_api"]
