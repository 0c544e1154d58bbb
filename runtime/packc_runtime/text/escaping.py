"""One escaping function per output language: document text placed in Markdown, YAML, TOML or shell.

Every piece of text that comes from an OpenAPI document (or from anything else packc does not
write itself) passes through exactly one of these, chosen by where it lands:

| lands in | function | guarantee |
|---|---|---|
| a Markdown line (prose, list item, table cell) | :func:`md_text` | one line that renders as its own characters: no heading, list, quote, fence, HTML, link, emphasis or table cell of its own |
| a Markdown code span | :func:`md_code` | one code span holding exactly the text (control characters shown as ``\\xNN``) |
| a line inside a fenced code block | :func:`fenced_line` | one line that cannot close the fence |
| a YAML front-matter value | :func:`yaml_scalar` | one scalar that loads back as the same string |
| a TOML basic string | :func:`toml_string` | one string that ``tomllib`` loads back as the same string |
| a shell word | :func:`shell_word` | one word that bash and POSIX sh read back as exactly the value, on one line |

Tests check each over arbitrary strings with hypothesis (``tests/security/test_sec_escaping.py``).
"""

from __future__ import annotations

import json
import re
import unicodedata

__all__ = [
    "fenced_line",
    "invisible",
    "md_code",
    "md_text",
    "shell_line",
    "shell_word",
    "toml_string",
    "unseen",
    "visible",
    "yaml_scalar",
]

# Characters that must never reach a file or terminal as themselves: C0/C1 controls, DEL, format
# characters (bidi overrides, zero-width), line/paragraph separators, surrogates, private use.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def _hidden(ch: str) -> bool:
    if " " <= ch <= "~":  # printable ASCII: the common case, without a table look-up
        return False
    return unicodedata.category(ch) in _HIDDEN_CATEGORIES


def _show(ch: str) -> str:
    """A hidden character as visible text: ``\\x1b``, ``\\u202e``."""
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


# Characters that show as nothing although their category is not a hidden one: variation selectors
# (which can carry bytes unseen), the combining grapheme joiner, Mongolian free variation selectors,
# Khmer inherent vowels, Hangul fillers.
_BLANK_RANGES = (
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFFA0, 0xFFA0),
    (0xE0100, 0xE01EF),
)


def unseen(ch: str) -> bool:
    """True when the character ``ch`` is one a person does not see as itself: a hidden one (controls,
    format characters such as zero-width joiners and the soft hyphen, bidi controls, separators,
    surrogates, private use, unassigned) or one that shows as nothing (:data:`_BLANK_RANGES`).

    The one definition of "invisible": :func:`invisible`, :func:`visible`, every terminal line
    (``terminal.terminal_text``) and every approval card use it.
    """
    if " " <= ch <= "~":
        return False
    if _hidden(ch):
        return True
    code = ord(ch)
    return any(low <= code <= high for low, high in _BLANK_RANGES)


def invisible(text: str) -> bool:
    """True when ``text`` holds a character no one sees on screen (tab, line feed and CR are not counted).

    Tag characters (U+E0000–U+E007F, which spell ASCII unseen), zero-width and bidi controls,
    variation selectors, other controls: a person reviewing reads ``a`` while a model reads more.
    """
    return any(unseen(ch) and ch not in "\t\n\r" for ch in text)


def visible(text: str) -> str:
    """``text`` with every unseen character (see :func:`invisible`; tab and line breaks too) written
    ``\\u{XXXX}`` and every backslash doubled, so what a person reads names each character it holds."""
    return "".join("\\\\" if ch == "\\" else f"\\u{{{ord(ch):04X}}}" if unseen(ch) else ch for ch in text)


# --- Markdown --------------------------------------------------------------------------------------

# Inline punctuation with a meaning anywhere in a line (CommonMark + GFM): escapes, code spans,
# emphasis, links and images, raw HTML and autolinks, table cells, strikethrough.
_MD_INLINE = re.compile(r"([\\`*_\[\]<>|~])")
_MD_ENTITY = re.compile(r"&(?=#?[A-Za-z0-9]+;)")
# What can open a block at the start of a line: heading, quote, list, thematic break or setext
# underline, fence, table row, front matter, HTML block.
_MD_LINE_START = re.compile(r"^([#>+=\-:~`|])|^(\d{1,9})([.)])")


def md_text(text: str) -> str:
    """Text as one Markdown line that renders as its own characters and nothing more.

    Line breaks and other hidden characters become spaces, runs of white space one space, and
    every character with a Markdown meaning is backslash-escaped (at the start of the line also
    those that open a block: ``#``, ``-``, ``+``, ``=``, ``1.``).
    """
    out = "".join(" " if _hidden(ch) else ch for ch in text)
    out = " ".join(out.split())
    out = _MD_INLINE.sub(r"\\\1", out)
    out = _MD_ENTITY.sub(r"\\&", out)
    return _MD_LINE_START.sub(
        lambda m: "\\" + m.group(1) if m.group(1) else m.group(2) + "\\" + m.group(3), out
    )


def md_code(text: str, *, in_table: bool = False) -> str:
    """``text`` as one complete Markdown code span (backticks included).

    Hidden characters are shown as ``\\xNN``/``\\uNNNN``; the fence is one backtick longer than any
    run inside. ``in_table`` escapes ``|`` too, which GFM splits table cells at even in a code span.
    """
    body = "".join(_show(ch) if _hidden(ch) else ch for ch in text)
    if in_table:
        body = body.replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * (longest + 1)
    if not body:
        return "` `"  # CommonMark has no empty code span; one space is the nearest
    if body.strip(" ") and (body[0] in "` " or body[-1] in "` "):
        body = f" {body} "  # CommonMark strips one space from each side when both are there (and not only spaces)
    return f"{fence}{body}{fence}"


def fenced_line(text: str) -> str:
    """``text`` checked to be one line inside a fenced code block that cannot close the fence.

    Callers give lines built by :func:`shell_line`; anything else is a bug, so this raises.

    Raises:
        ValueError: when ``text`` holds a hidden character or starts like a fence.
    """
    if any(_hidden(ch) for ch in text):
        raise ValueError("a fenced line must not hold line breaks or other hidden characters")
    if text.lstrip(" ")[:3] in ("```", "~~~"):
        raise ValueError("a fenced line must not start like a fence")
    return text


# --- YAML and TOML ------------------------------------------------------------------------------------

_YAML_PLAIN = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
_YAML_RESERVED = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf"})


def _json_escaped(text: str) -> str:
    """A JSON string literal that also escapes DEL and every hidden character.

    YAML's double-quoted scalar has JSON's escapes plus ``\\UXXXXXXXX``, used for a hidden character
    beyond the BMP (PyYAML would read a surrogate pair as two characters).
    """
    out = json.dumps(text, ensure_ascii=False)
    return "".join(
        (f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else f"\\U{ord(ch):08x}") if _hidden(ch) else ch
        for ch in out
    )


def yaml_scalar(text: str) -> str:
    """``text`` as one YAML scalar: plain for a simple lower-case name, else double-quoted."""
    if _YAML_PLAIN.fullmatch(text) and text not in _YAML_RESERVED:
        return text
    return _json_escaped(text)  # a JSON string is a YAML double-quoted scalar with the same escapes


def toml_string(text: str) -> str:
    """``text`` as one TOML basic string (``"..."``): quotes, backslashes and every control escaped.

    TOML forbids raw control characters other than tab in a basic string, DEL included (a JSON
    string leaves DEL raw, which made a name with DEL an invalid ``pyproject.toml``).

    Raises:
        ValueError: for a lone surrogate, which no TOML document can hold.
    """
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in text):
        raise ValueError("a TOML string cannot hold a lone surrogate")
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif code < 0x20 or code == 0x7F or _hidden(ch):
            out.append(f"\\u{code:04X}" if code < 0x10000 else f"\\U{code:08X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


# --- shell ------------------------------------------------------------------------------------------

_SHELL_SAFE = re.compile(r"[A-Za-z0-9_@%+=:,./-]+")


def shell_word(value: str) -> str:
    """``value`` as one shell word that bash, zsh, ksh and POSIX.1-2024 sh read back as exactly ``value``.

    A word of safe characters stays as it is; other printable text is single-quoted; text with a
    hidden character (a line break, an escape, a bidi override, a tag character or variation
    selector) uses ``$'...'`` with every unseen character's bytes written as ``\\xHH``, so the word
    is always one visible line that names every character. A shell without ``$'...'`` (dash) reads that word as other text, but still as one word of the same command.
    """
    if _SHELL_SAFE.fullmatch(value):
        return value
    if not any(unseen(ch) for ch in value):
        return "'" + value.replace("'", "'\"'\"'") + "'"
    # Inside $'...' a quote is written \x27, never \': a shell without $'...' (dash) reads the word
    # as $ followed by an ordinary single-quoted string, which then holds no quote that could end it.
    out = ["$'"]
    for ch in value:
        if ch == "\\":
            out.append("\\\\")
        elif ch in "'!":  # and ! is never left for an interactive shell's history expansion
            out.append(f"\\x{ord(ch):02x}")
        elif unseen(ch):
            raw = (ch if not 0xD800 <= ord(ch) <= 0xDFFF else "\ufffd").encode()  # lone surrogate: U+FFFD
            out.append("".join(f"\\x{b:02x}" for b in raw))
        else:
            out.append(ch)
    out.append("'")
    return "".join(out)


def shell_line(words: list[str] | tuple[str, ...]) -> str:
    """Words joined into one command line, each through :func:`shell_word`."""
    return " ".join(shell_word(w) for w in words)
