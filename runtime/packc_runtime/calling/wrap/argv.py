"""A wrap verb's argv: ``cli[]`` (or ``wrap.argv_template``) filled from the args, one value one element.

No shell ever reads the result: each argument value becomes exactly one argv element, whatever it
holds (``;``, ``$(...)``, a newline). What a shell would not protect against is an argument read as
a flag, so a value for a positional slot that begins with ``-`` is refused unless ``cli[]`` writes
``--`` before the slot (docs/runtime.md, "Run a pack that wraps a CLI").
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from packc_runtime.errors import InvalidArgument
from packc_runtime.format.templating import placeholders
from packc_runtime.rules import PLACEHOLDER

__all__ = ["END_OF_OPTIONS", "build_argv", "implied_args", "selects_json", "word"]

END_OF_OPTIONS = "--"
# A literal of cli[] that already asks the CLI for JSON: then no json_flag is appended.
_JSON_PAIRS = frozenset({"-o", "--format", "--output"})


def word(value: Any) -> str:
    """An argument value as the one argv element it becomes: text as it is, JSON for the rest."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def implied_args(cli: Sequence[str] | None, template: Sequence[str]) -> dict[str, Any]:
    """The args schema of a verb that declares none: each placeholder of its ``cli[]`` (else of
    ``wrap.argv_template``, ``{{verb}}`` aside) a required string, and nothing else (the
    reference's ledger ``connect``)."""
    tokens = cli[1:] if cli else template
    names = [
        n for n in dict.fromkeys(n for token in tokens for n in placeholders(token)) if cli or n != "verb"
    ]
    return {
        "type": "object",
        "properties": {name: {"type": "string"} for name in names},
        "required": names,
    }


def selects_json(argv: Sequence[str]) -> bool:
    """Whether an argv already asks for JSON: ``--json`` (``--json fields`` too), ``-o json``,
    ``--format json``, ``--output json``, or their ``=`` forms."""
    for i, token in enumerate(argv):
        if token == END_OF_OPTIONS:
            return False
        if token == "--json" or token.startswith("--json="):
            return True
        flag, eq, value = token.partition("=")
        if eq and flag in _JSON_PAIRS and value == "json":
            return True
        if token in _JSON_PAIRS and i + 1 < len(argv) and argv[i + 1] == "json":
            return True
    return False


def _fill(token: str, values: Mapping[str, Any]) -> str:
    return PLACEHOLDER.sub(lambda m: word(values[m.group(1)]), token)


def _is_flag(token: str) -> bool:
    return token.startswith("-") and token not in ("-", END_OF_OPTIONS)


def build_argv(
    bin_path: str,
    verb: str,
    cli: Sequence[str] | None,
    template: Sequence[str],
    json_flag: Sequence[str],
    args: Mapping[str, Any],
) -> list[str]:
    """The argv to execute: ``bin_path`` then the verb's tokens filled from ``args``, then ``json_flag``.

    Args:
        bin_path: the resolved ``wrap.bin``; it replaces ``cli[0]`` (the cliBin).
        verb: the verb name; ``{{verb}}`` in ``template`` is its command tail (``setup.status`` is
            the two words ``setup status``).
        cli: the verb's ``cli[]``, or None to use ``template`` (``wrap.argv_template``).
        template: ``wrap.argv_template``.
        json_flag: the verb's ``json_flag``, else ``wrap.json_flag``; left out when the filled argv
            already selects JSON. It goes before a ``--`` of the template, never after.
        args: validated arguments; a missing or null one drops its token, and the flag right
            before it when the token is a bare value.

    Raises:
        InvalidArgument: a value for a positional slot begins with ``-`` (no ``--`` before it), or
            a value holds a NUL.
    """
    tokens = list(cli[1:]) if cli else list(template)
    from_template = not cli
    out: list[str] = []
    literal: list[bool] = []  # out[i] is a token of the template as written
    end_at: int | None = None  # where the template's ``--`` landed in out
    for token in tokens:
        if from_template and token == "{{verb}}":
            out.extend(verb.split("."))
            literal.extend([True] * len(verb.split(".")))
            continue
        names = placeholders(token)
        if not names:
            if token == END_OF_OPTIONS and end_at is None:
                end_at = len(out)
            out.append(token)
            literal.append(True)
            continue
        after_flag = bool(out) and literal[-1] and _is_flag(out[-1]) and end_at is None
        values = {n: verb.replace(".", " ") if from_template and n == "verb" else args.get(n) for n in names}
        if any(v is None for v in values.values()):
            if token.startswith("{{") and after_flag:  # ``--memo {{memo}}``: drop the flag too
                out.pop()
                literal.pop()
            continue
        filled = _fill(token, values)
        if filled.startswith("-") and not token.startswith("-") and not after_flag and end_at is None:
            raise InvalidArgument(
                f"{verb}: a value that begins with '-' cannot stand where the command reads an "
                f"option ({', '.join(names)}); the CLI would take it as a flag.",
                argument=names[0],
            )
        if "\x00" in filled:  # no argv element can hold one: refused rather than cut short
            raise InvalidArgument(f"{verb}: a value holds a NUL character.", argument=names[0])
        out.append(filled)
        literal.append(False)
    if not selects_json(out):
        at = len(out) if end_at is None else end_at
        out[at:at] = list(json_flag)
    return [bin_path, *out]
