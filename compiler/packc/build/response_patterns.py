"""C162: a regex in a response schema that a host would run unguarded (issue 23, item 1).

The MCP face hands a verb's response schema to the host as its tool's ``outputSchema``, and the
official SDK client validates every result against it with its own regex engine: a document's
``^(a|a)*$`` hung a client for over 20 s on a 34-character answer. The face keeps only the patterns
``patterns.linear`` reads in linear time and drops the others (``faces/mcp/_tools.py``); compile
warns here, at each dropped pattern's JSON pointer, so the person compiling knows the host checks
less than the document says.

The walk starts at each packed operation's responses and follows the document's local ``$ref``s,
each target once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from packc.build.checks import capped
from packc.model import JSON, Api, Operation, resolve_pointer
from packc.text import shorten
from packc_runtime.diagnostics import Diagnostic, escape_token
from packc_runtime.text.escaping import visible
from packc_runtime.text.patterns import linear

__all__ = ["response_patterns"]

# Keywords whose keys are names, not keywords (a property called "pattern" is no pattern).
_NAME_MAPS = frozenset({"properties", "$defs", "definitions", "dependentSchemas", "content", "headers"})
# Keywords whose values are data, never schemas (a "pattern" key inside an enum value is no pattern).
_DATA = frozenset({"enum", "const", "default", "example", "examples", "x-example", "x-examples", "links"})


def response_patterns(api: Api, ops: Sequence[Operation]) -> list[Diagnostic]:
    """C162 for every ``pattern`` and ``patternProperties`` key under the packed operations'
    responses that ``patterns.linear`` does not accept; each pointer once, capped as other checks."""
    found: list[Diagnostic] = []
    seen: set[str] = set()
    stack: list[tuple[JSON, str, bool]] = []  # (node, its pointer, its keys are names)
    for op in reversed(ops):
        where = f"{op.pointer}/responses" if op.pointer else ""
        if where and where not in seen:
            seen.add(where)
            stack.append((resolve_pointer(api.document, where), where, True))
    while stack:
        node, where, names = stack.pop()
        if isinstance(node, list):
            stack.extend((child, f"{where}/{i}", False) for i, child in reversed(list(enumerate(node))))
            continue
        if not isinstance(node, Mapping):
            continue
        ref = node.get("$ref")
        if not names and isinstance(ref, str) and ref.startswith("#/") and ref not in seen:
            seen.add(ref)
            stack.append((resolve_pointer(api.document, ref), ref, False))
        for key, child in reversed(list(node.items())):
            here = f"{where}/{escape_token(str(key))}"
            if names:
                stack.append((child, here, False))
                continue
            if key == "pattern" and isinstance(child, str) and not linear(child):
                found.append(_finding(here, child))
            elif key == "patternProperties" and isinstance(child, Mapping):
                found.extend(
                    _finding(f"{here}/{escape_token(str(p))}", str(p)) for p in child if not linear(str(p))
                )
                stack.extend((sub, f"{here}/{escape_token(str(p))}", False) for p, sub in child.items())
            elif key not in _DATA:
                stack.append((child, here, key in _NAME_MAPS or key == "responses"))
    return capped(found)


def _finding(where: str, pattern: str) -> Diagnostic:
    return Diagnostic(
        "C162",
        "warning",
        where,
        f'The response pattern "{shorten(visible(pattern), 80)}" could take a host time that grows faster '
        "than the answer's length, and the MCP face hands response schemas to hosts that run them "
        "unguarded: it is left out of the tool's outputSchema, so the host does not check it.",
        "Nothing to do unless the check matters; an anchored pattern read one way only (^[a-z0-9-]+$) is kept.",
    )
