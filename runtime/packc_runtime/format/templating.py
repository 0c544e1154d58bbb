"""``{{placeholder}}`` templates of the pack format: find placeholders and fill a cli[] line."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from packc_runtime.rules import PLACEHOLDER
from packc_runtime.text.escaping import shell_line

__all__ = [
    "SHOWN_OPTIONAL",
    "CliGrammar",
    "cli_grammar",
    "example_args",
    "example_line",
    "placeholders",
]


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


def _qualifies(name: str, others: Sequence[str]) -> bool:
    """Whether ``name`` is another argument's name and a qualifier (``state_reason``, ``state``), or
    the other way round."""
    return any(name.startswith(f"{o}_") or o.startswith(f"{name}_") for o in others if o != name)


def example_args(
    cli: Sequence[str], args: Mapping[str, Any] | None, *, optional: int | None = None
) -> dict[str, Any]:
    """The arguments a ready-to-run line shows (:func:`example_line`), by name: each placeholder's
    first example (or default); a required one without an example as the text ``<name>``. With
    ``optional=N``, only the required arguments and at most N optional ones that matter (a few named
    choices, not paging); the rest are left out as if they had no example."""
    properties: Mapping[str, Any] = {}
    required: set[str] = set()
    if isinstance(args, Mapping):
        props = args.get("properties")
        properties = props if isinstance(props, Mapping) else {}
        req = args.get("required")
        required = {r for r in req if isinstance(r, str)} if isinstance(req, list) else set()
    named = dict.fromkeys(n for token in cli for n in placeholders(token))
    shown: set[str] | None = None
    if optional is not None:
        picks: list[str] = []
        for n in named:
            if len(picks) >= max(optional, 0):
                break
            # A field named after another (``state_reason`` after ``state``) qualifies it: their
            # examples, each chosen alone, can contradict (``--state open --state_reason
            # not_planned``), so a line shows one of them.
            if (
                n not in required
                and _matters(n, properties.get(n))
                and not _qualifies(n, [*required, *picks])
            ):
                picks.append(n)
        shown = required | set(picks)
    values: dict[str, Any] = {}
    for name in named:
        if shown is not None and name not in shown and args is not None:
            continue
        prop = properties.get(name)
        if isinstance(prop, Mapping):
            examples = prop.get("examples")
            if isinstance(examples, list) and examples:
                values[name] = examples[0]
                continue
            if "default" in prop:
                values[name] = prop["default"]
                continue
        if name in required or args is None:  # without args, placeholders are implied and required
            values[name] = f"<{name}>"
    return values


def example_line(cli: Sequence[str], args: Mapping[str, Any] | None, *, optional: int | None = None) -> str:
    """A ready-to-run command line: ``cli[]`` filled with :func:`example_args`.

    A missing optional value drops its token and the flag right before it, as the reference says.
    A positional value that begins with ``-``, or that follows a positional value left out, is
    written ``--name=value``, so it cannot read as a flag or fill the wrong slot. Every word, the placeholder included, is one shell word (``escaping.shell_word``): pasted,
    the line runs the pack's own command with exactly these words, whatever the examples hold; and
    the pack CLI reads it back into the same arguments (:func:`cli_grammar`).
    """
    values = example_args(cli, args, optional=optional)
    words: list[str] = []
    literal: list[bool] = []  # whether words[i] came from the template as written
    shifted = False  # a positional value was left out: the ones after it would fill its slot
    for token in cli:
        names = placeholders(token)
        if not names:
            words.append(token)
            literal.append(True)
            continue
        after_flag = bool(words) and literal[-1] and words[-1].startswith("-")
        whole = _WHOLE.fullmatch(token)
        if any(name not in values for name in names):
            # Drop the token, and the flag right before it when the token is a bare value.
            if token.startswith("{{") and after_flag:
                words.pop()
                literal.pop()
            elif whole:
                shifted = True
            continue
        filled = PLACEHOLDER.sub(lambda m: _as_word(values[m.group(1)]), token)
        if whole and not after_flag and (shifted or filled.startswith("-")):
            filled = f"--{whole.group(1)}={filled}"
        words.append(filled)
        literal.append(False)
    return shell_line(words)


class CliGrammar(NamedTuple):
    """A verb's command line as its ``cli[]`` writes it, read back (:func:`cli_grammar`).

    ``words``: the command words after the bin (``issues create``); ``positional``: the arguments of
    bare ``{{name}}`` tokens, in order; ``flags``: each ``--flag {{name}}`` or ``--flag={{name}}`` flag
    and the argument it fills; ``literals``: the other tokens the template writes as they are (``-y``).
    """

    words: tuple[str, ...]
    positional: tuple[str, ...]
    flags: Mapping[str, str]
    literals: tuple[str, ...]


# A token that is one placeholder (``{{owner}}``), and one that is a flag joined to one (``--owner={{id}}``).
_WHOLE = PLACEHOLDER
_FLAG_EQ = re.compile(r"(--?[A-Za-z0-9][A-Za-z0-9_.-]*)=" + PLACEHOLDER.pattern)


def cli_grammar(cli: Sequence[str]) -> CliGrammar:
    """How a command line written by ``cli[]`` (first token the bin) reads back into arguments: the
    pack CLI parses by it, so every ready-to-run line :func:`example_line` writes parses to the same
    arguments. A token that mixes a placeholder with other text (``{{owner}}/{{repo}}``) fills no
    argument here: its arguments are given as ``--name value``."""
    tokens = list(cli[1:])
    words: list[str] = []
    while tokens and not tokens[0].startswith("-") and not placeholders(tokens[0]):
        words.append(tokens.pop(0))
    positional: list[str] = []
    flags: dict[str, str] = {}
    literals: list[str] = []
    for i, token in enumerate(tokens):
        whole = _WHOLE.fullmatch(token)
        if whole:
            before = tokens[i - 1] if i else ""
            if before.startswith("-") and not placeholders(before):
                flags[before] = whole.group(1)
                literals.remove(before)
            else:
                positional.append(whole.group(1))
            continue
        eq = _FLAG_EQ.fullmatch(token)
        if eq:
            flags[eq.group(1)] = eq.group(2)
        elif not placeholders(token):
            literals.append(token)
    return CliGrammar(tuple(words), tuple(positional), flags, tuple(literals))
