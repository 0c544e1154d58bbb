"""``{{placeholder}}`` templates of the pack format: find placeholders and fill a cli[] line."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from .escaping import shell_line

__all__ = ["PLACEHOLDER", "example_line", "placeholders"]

# {{name}} or {{result.a.b}}; whitespace inside the braces is tolerated.
PLACEHOLDER = re.compile(r"\{\{\s*([^{}\s]*)\s*\}\}")


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


def example_line(cli: Sequence[str], args: Mapping[str, Any] | None) -> str:
    """A ready-to-run command line: each argument filled with its first example.

    A missing optional value drops its token and the flag right before it, as the reference says;
    a required argument without an example shows as ``'<name>'``. Every word, the placeholder
    included, is one shell word (``escaping.shell_word``): pasted, the line runs the pack's own
    command with exactly these words, whatever the examples hold.
    """
    properties: Mapping[str, Any] = {}
    required: set[str] = set()
    if isinstance(args, Mapping):
        props = args.get("properties")
        properties = props if isinstance(props, Mapping) else {}
        req = args.get("required")
        required = {r for r in req if isinstance(r, str)} if isinstance(req, list) else set()

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
