"""What the parts of normalize share: warnings, following internal ``$ref``s, pointers, fast constructors."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import fields
from typing import Any, TypeVar

from packc.model import JSON, resolve_pointer
from packc_runtime.diagnostics import Diagnostic
from packc_runtime.rules import escape_token

__all__ = ["SCHEMA_TYPES", "Context", "builder", "ptr", "text"]

SCHEMA_TYPES = (dict, bool)  # a tuple: `dict | bool` would build a union object on every call
_MAX_HOPS = 32
_T = TypeVar("_T")


class Context:
    """The document being read and where its warnings go.

    ``diagnostics`` is the list warnings are appended to; normalize points it at the ``Api``'s
    deferred list once the eager part is done, so warnings from parts read later are kept too.
    """

    def __init__(self, document: Mapping[str, JSON], base_url: str | None) -> None:
        self.doc = document
        self.base_url = base_url
        self.diagnostics: list[Diagnostic] = []
        self.targets: dict[str, JSON] = {}  # ref -> target; real documents repeat refs thousands of times

    def warn(self, code: str, where: str, message: str, fix: str) -> None:
        self.diagnostics.append(Diagnostic(code, "warning", where, message, fix))

    def deref(self, node: JSON, where: str) -> tuple[JSON, str]:
        """Follow internal refs; a dangling or circular ref gives (None, pointer) and a warning."""
        hops = 0
        while isinstance(node, dict) and "$ref" in node and isinstance(node["$ref"], str):
            ref = node["$ref"]
            target = self.targets.get(ref)
            if target is None:
                target = self.targets[ref] = resolve_pointer(self.doc, ref)
            if target is None:
                self.warn(
                    "D020",
                    where,
                    f"The $ref {ref!r} points at nothing in the document; the object is skipped.",
                    "Fix the ref so it names an existing component.",
                )
                return None, where
            hops += 1
            if hops > _MAX_HOPS:
                self.warn(
                    "D025",
                    where,
                    f"The $ref {ref!r} is part of a cycle of refs; the object is skipped.",
                    "Break the cycle so the ref reaches a real object.",
                )
                return None, where
            node, where = target, ref
        return node, where


def builder(cls: type[_T], *, skip: Collection[str] = ()) -> Callable[..., _T]:
    """A faster constructor of the frozen, slotted model class ``cls``, taking its fields by keyword.

    The dataclass ``__init__`` of a frozen class sets each field with ``object.__setattr__(self,
    name, value)``; setting the slots through their descriptors builds the same object in half the
    time, which matters for the thousands of operations, parameters, responses and media types of a
    big document. Every field but those in ``skip`` (left empty: ``Operation``'s deferred parts)
    must be given, so a field added to the model fails loudly here instead of being left unset.
    """
    names = [f.name for f in fields(cls) if f.name not in skip]  # type: ignore[arg-type]
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    lines = [f"def make(*, {', '.join(names)}):", "    self = _new(_cls)"]
    for name in names:
        namespace[f"_set_{name}"] = cls.__dict__[name].__set__
        lines.append(f"    _set_{name}(self, {name})")
    lines.append("    return self")
    exec("\n".join(lines), namespace)
    make: Callable[..., _T] = namespace["make"]
    return make


def ptr(base: str, *tokens: str | int) -> str:
    """A JSON pointer below ``base`` (a hot path: escapes only tokens that need it)."""
    return base + "".join("/" + escape_token(token) for token in tokens)


def text(value: JSON) -> str:
    """A string field's value, or "" for anything else."""
    return value if isinstance(value, str) else ""
