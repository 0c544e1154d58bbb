"""Terminal text: everything either CLI prints passes here, so no document or server text drives the terminal.

Document text (titles, scheme names, descriptions, examples) and server text (error bodies, text
responses) reach the terminal through ``packc compile``/``plan``/``lint``/``commands``, ``connect``
and the pack's own CLI. A terminal obeys what it reads: ``ESC]52;c;...`` writes the clipboard,
``ESC[2J`` clears the screen, a CR overwrites a line, a bidi override reorders what the person
reads. :func:`terminal_text` writes each such character as a visible ``\\uXXXX`` escape instead.

That escape is also JSON's own: inside a JSON document a control character can only stand in a
string (where ``json.dumps`` already escaped C0), so cleaning JSON text leaves it valid and equal
in value. One layer therefore serves both human and ``--json`` output: :func:`for_terminal` wraps
the streams the CLIs write to.
"""

from __future__ import annotations

import re
from typing import IO, Any, cast

from packc_runtime.text.escaping import unseen

__all__ = ["for_terminal", "terminal_text"]

# What is escaped is escaping.unseen, the one definition of "invisible" (C0/C1 controls, DEL, every
# format character: bidi controls, zero-width spaces and joiners, the soft hyphen; separators,
# surrogates, private use, unassigned; variation selectors, Hangul fillers, the combining grapheme
# joiner, Mongolian and Khmer blanks), but TAB, LF and CR before LF. Zero-width joiners and
# variation selectors are escaped too although emoji use them: a run of them spells bytes a person
# never sees (a card showing ``Rex`` while the model reads an instruction), and the escape keeps
# JSON equal in value. Candidates are the characters outside printable ASCII (and a CR not before
# LF); the per-character judgement is escaping's.
_CANDIDATE = re.compile("[^\t\n\r\x20-\x7e]+|\r(?!\n)")


def _escape_char(ch: str) -> str:
    code = ord(ch)
    if code > 0xFFFF:  # a surrogate pair, as JSON writes it
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def _escape(match: re.Match[str]) -> str:
    run = match.group()
    if run == "\r":
        return "\\u000d"
    return "".join(_escape_char(ch) if unseen(ch) else ch for ch in run)


def terminal_text(text: str) -> str:
    """``text`` with every character that could drive a terminal written as a ``\\uXXXX`` escape.

    Newlines, tabs and CR-LF pairs stay. Idempotent; valid JSON stays valid and equal in value.
    """
    return _CANDIDATE.sub(_escape, text)


class _TerminalStream:
    """A text stream whose every write goes through :func:`terminal_text` first."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(terminal_text(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:  # flush, fileno, isatty, encoding...: the stream's own
        return getattr(self._stream, name)


def for_terminal(stream: IO[str]) -> IO[str]:
    """``stream`` wrapped so that everything written to it is terminal-safe (wrapping twice is a no-op)."""
    if isinstance(stream, _TerminalStream):
        return cast(IO[str], stream)
    return cast(IO[str], _TerminalStream(stream))
