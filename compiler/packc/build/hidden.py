"""C160: document values that hold characters a person cannot see (issue 10).

An ``enum`` member, a ``const``, a ``default`` or an example is sent as the server expects it, so
it reaches surface.json, the MCP tools' input schemas and the ready-to-run lines as it is. Text no
one sees on screen (tag characters U+E0000–U+E007F, zero-width and bidi controls, variation
selectors, Hangul fillers) would let a person reviewing a pack read ``a`` while a model reads a
hidden instruction. The value stays what it is (changing it would break the call); compile warns
here, at the value's JSON pointer, and HARNESS.md shows it escaped (``escaping.visible``), as the
ready-to-run lines do (``escaping.shell_word``).

The walk starts at each packed operation (and its path item's parameters) and follows the
document's local ``$ref``s, each target once; responses are not walked (nothing there is sent).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from packc.build.checks import capped
from packc.model import JSON, Api, Operation, resolve_pointer
from packc.text import shorten
from packc_runtime.diagnostics import Diagnostic, escape_token
from packc_runtime.text.escaping import invisible, visible

__all__ = ["hidden_values"]

# Keywords whose values are data sent to (or shown as sent to) the server.
_VALUE_KEYS = frozenset({"enum", "const", "default", "example", "examples", "x-example", "x-examples"})
# Keywords whose keys are names (a property called "example" is not the example keyword).
_NAME_MAPS = frozenset(
    {
        "properties",
        "patternProperties",
        "$defs",
        "definitions",
        "dependentSchemas",
        "content",
        "encoding",
        "headers",
    }
)
_NOT_SENT = frozenset({"responses", "callbacks", "links"})


def hidden_values(api: Api, ops: Sequence[Operation]) -> list[Diagnostic]:
    """C160 for every string (or object key) under a value keyword of the packed operations that
    holds an invisible character; each pointer once, at most ``checks.MAX_LISTED`` listed."""
    found: list[Diagnostic] = []
    seen: set[str] = set()
    # (node, its pointer, inside a value keyword, its keys are names)
    stack: list[tuple[JSON, str, bool, bool]] = []
    for op in reversed(ops):
        if not op.pointer:
            continue
        shared = op.pointer.rpartition("/")[0] + "/parameters"
        for where in (shared, op.pointer):
            if where not in seen:
                seen.add(where)
                stack.append((resolve_pointer(api.document, where), where, False, False))
    while stack:
        node, where, in_value, names = stack.pop()
        if isinstance(node, str):
            if in_value and invisible(node):
                found.append(_finding(where, node))
            continue
        if isinstance(node, list):
            stack.extend(
                (child, f"{where}/{i}", in_value, False) for i, child in reversed(list(enumerate(node)))
            )
            continue
        if not isinstance(node, Mapping):
            continue
        ref = node.get("$ref")
        if not in_value and isinstance(ref, str) and ref.startswith("#/") and ref not in seen:
            seen.add(ref)
            stack.append((resolve_pointer(api.document, ref), ref, False, False))
        for key, child in reversed(list(node.items())):
            here = f"{where}/{escape_token(str(key))}"
            if in_value and invisible(str(key)):
                found.append(_finding(here, str(key), key=True))
            if not in_value and not names and key in _NOT_SENT:
                continue
            keyword = not names and not in_value
            stack.append(
                (child, here, in_value or (keyword and key in _VALUE_KEYS), keyword and key in _NAME_MAPS)
            )
    return capped(found)


def _finding(where: str, text: str, *, key: bool = False) -> Diagnostic:
    shown = shorten(visible(text), 80)
    return Diagnostic(
        "C160",
        "warning",
        where,
        f'The {"key" if key else "value"} "{shown}" holds characters no one sees on screen (written here as '
        "\\u{...}): it is kept as the server expects it, so surface.json and the MCP tools' input schemas carry "
        "it, and a model reads what a person reviewing the pack cannot. HARNESS.md shows it escaped.",
        "Remove the invisible characters (in the document or an --overlay) unless the server really needs them.",
    )
