"""``{{placeholder}}`` templates of the pack format: find placeholders and fill a cli[] line."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from packc_runtime.rules import PLACEHOLDER
from packc_runtime.text.escaping import shell_line

__all__ = ["SHOWN_OPTIONAL", "example_line", "placeholders"]


def placeholders(template: str) -> list[str]:
    """The placeholder names in a template, in order (``result.x`` included as written)."""
    return PLACEHOLDER.findall(template)


def _as_word(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


SHOWN_OPTIONAL = 2  # the optional arguments a pack's example lines show at most (packc commands, HARNESS.md)
# Optional arguments that page through results: never the one an example needs to show.
_PAGING = frozenset(
    {
        "limit",
        "cursor",
        "page",
        "per_page",
        "perpage",
        "page_size",
        "pagesize",
        "offset",
        "after",
        "before",
        "starting_after",
        "ending_before",
        "page_token",
        "pagetoken",
        "next",
        "count",
    }
)


def _matters(name: str, prop: Any) -> bool:
    """An optional argument worth showing: one with a few named choices (``--status open``)."""
    return (
        isinstance(prop, Mapping)
        and isinstance(prop.get("enum"), list)
        and 1 < len(prop["enum"]) <= 20
        and name.lower() not in _PAGING
    )


def example_line(cli: Sequence[str], args: Mapping[str, Any] | None, *, optional: int | None = None) -> str:
    """A ready-to-run command line: each argument filled with its first example.

    A missing optional value drops its token and the flag right before it, as the reference says;
    a required argument without an example shows as ``'<name>'``. With ``optional=N``, only the
    required arguments and at most N optional ones that matter (a few named choices, not paging)
    are shown; the rest drop as if they had no example. Every word, the placeholder included, is
    one shell word (``escaping.shell_word``): pasted, the line runs the pack's own command with
    exactly these words, whatever the examples hold.
    """
    properties: Mapping[str, Any] = {}
    required: set[str] = set()
    if isinstance(args, Mapping):
        props = args.get("properties")
        properties = props if isinstance(props, Mapping) else {}
        req = args.get("required")
        required = {r for r in req if isinstance(r, str)} if isinstance(req, list) else set()
    shown: set[str] | None = None
    if optional is not None:
        named = dict.fromkeys(n for token in cli for n in placeholders(token))
        picks = [n for n in named if n not in required and _matters(n, properties.get(n))][: max(optional, 0)]
        shown = required | set(picks)

    def first_example(name: str) -> tuple[bool, Any]:
        prop = properties.get(name)
        if isinstance(prop, Mapping):
            examples = prop.get("examples")
            if isinstance(examples, list) and examples:
                return True, examples[0]
            if "default" in prop:
                return True, prop["default"]
        return False, None

    words: list[str] = []
    literal: list[bool] = []  # whether words[i] came from the template as written
    for token in cli:
        names = placeholders(token)
        if not names:
            words.append(token)
            literal.append(True)
            continue
        missing = False

        def fill(match: re.Match[str]) -> str:
            nonlocal missing
            name = match.group(1)
            if shown is not None and name not in shown and args is not None:
                missing = True
                return ""
            found, value = first_example(name)
            if found:
                return _as_word(value)
            if name in required or args is None:  # without args, placeholders are implied and required
                return f"<{name}>"
            missing = True
            return ""

        filled = PLACEHOLDER.sub(fill, token)
        if missing:
            # Drop the token, and the flag right before it when the token is a bare value.
            if token.startswith("{{") and words and literal[-1] and words[-1].startswith("-"):
                words.pop()
                literal.pop()
            continue
        words.append(filled)
        literal.append(False)
    return shell_line(words)
