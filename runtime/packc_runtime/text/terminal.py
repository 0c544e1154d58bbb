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

__all__ = ["for_terminal", "terminal_text"]

# C0 controls but TAB and LF (CR only before LF), DEL and C1; the Arabic letter mark; zero-width
# space; the LRM/RLM marks; line and paragraph separators; bidi embeddings, overrides and isolates;
# invisible operators; deprecated format controls; BOM; interlinear annotations; lone surrogates;
# tag characters (invisible text). ZWJ/ZWNJ stay: emoji and scripts need them, and they move nothing.
_UNSAFE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u2028-\u202e\u2060-\u206f\ufeff"
    "\ufff9-\ufffb\ud800-\udfff\U000e0000-\U000e007f]|\r(?!\n)"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code > 0xFFFF:  # a surrogate pair, as JSON writes it
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def terminal_text(text: str) -> str:
    """``text`` with every character that could drive a terminal written as a ``\\uXXXX`` escape.

    Newlines, tabs and CR-LF pairs stay. Idempotent; valid JSON stays valid and equal in value.
    """
    return _UNSAFE.sub(_escape, text)


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
