"""packc: compile OpenAPI documents into packs."""

from .errors import InputError, PackcError, UsageError

__all__ = ["InputError", "PackcError", "UsageError"]
