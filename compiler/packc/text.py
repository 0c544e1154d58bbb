"""Spec text is data: clean descriptions and titles before they reach a pack's files."""

from __future__ import annotations

import functools
import html
import re
import unicodedata

from packc_runtime.text.escaping import md_text

__all__ = ["clean", "inline_md", "sentence", "shorten", "slug", "snake"]

# Bidi embeddings/overrides/isolates, marks, zero-width characters, BOM, word joiner.
_INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\u061c\ufeff\u00ad\u180e]")
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)|!\[[^\]]*\]\[[^\]]*\]")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_TAG = re.compile(r"<[^<>]{0,2000}>")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_WS = re.compile(r"\s+")
_SPACE_PUNCT = re.compile(r"(?<=\w) +([,.;:!?])(?=\s|$)")
_ASCII_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# A terminal's escape sequences (CSI, OSC, two-byte ESC, and their C1 forms), removed whole: blanking
# the ESC alone would leave "[1;31m" as text.
_ESCAPE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[@-Z\\-_]?"
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\"'])")


def clean(text: object) -> str:
    """Plain single-line text: no terminal escapes, control/bidi/zero-width chars, HTML, images or markup."""
    if not isinstance(text, str):
        return ""
    return _clean(text)


# Cached: a family of packs from one large document cleans the same descriptions again and again
# (the shared schemas' properties in every verb's args).
@functools.lru_cache(maxsize=1 << 15)
def _clean(text: str) -> str:
    out = _ESCAPE.sub(" ", text) if "\x1b" in text or "\x9b" in text or "\x9d" in text else text
    out = _COMMENT.sub(" ", out)
    out = _IMAGE.sub(" ", out)
    out = _LINK.sub(r"\1", out)
    out = _TAG.sub(" ", out)
    out = html.unescape(out)
    out = _TAG.sub(" ", out)  # tags that were entity-escaped
    out = _INVISIBLE.sub("", out)
    if out.isascii():
        out = _ASCII_CONTROL.sub(" ", out)
    else:
        out = "".join(
            " " if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp", "Co", "Cs") else ch for ch in out
        )
    # Markup that could act on its own: fences, headings, emphasis runs, table pipes.
    out = out.replace("```", "'").replace("`", "'").replace("|", "/")
    out = re.sub(r"[*_~]{2,}", "", out)
    out = re.sub(r"(^|\s)#+(?=\s)", " ", out)
    out = _WS.sub(" ", out).strip()
    return _SPACE_PUNCT.sub(r"\1", out)  # "<a>Connect</a>, you" left "Connect , you"


def shorten(text: str, limit: int) -> str:
    """Cut ``text`` at a word boundary to at most ``limit`` characters, with an ellipsis."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:-") + "…"


def sentence(text: object, limit: int = 200) -> str:
    """The first sentence of ``text``, cleaned, ending in a full stop; empty when there is none."""
    plain = clean(text)
    if not plain:
        return ""
    first = _SENTENCE_END.split(plain, maxsplit=1)[0]
    first = shorten(first, limit)
    if first and first[-1] not in ".!?…":
        first += "."
    return first[0].upper() + first[1:]


def inline_md(text: str) -> str:
    """Spec text as one Markdown line: ``clean`` (plain text), then ``escaping.md_text`` (the one
    Markdown escaping layer): it cannot start a heading, list, quote, fence, HTML, link or table cell."""
    return md_text(clean(text))


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


@functools.lru_cache(maxsize=1 << 15)
def snake(name: str) -> str:
    """A snake_case identifier ``^[a-z][a-z0-9_]*$`` from any name; empty when nothing is left."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    words = _CAMEL.sub("_", ascii_name)
    out = re.sub(r"[^A-Za-z0-9]+", "_", words).strip("_").lower()
    out = re.sub(r"_+", "_", out)
    if out and out[0].isdigit():
        out = "n" + out
    return out


def slug(name: str, limit: int = 40) -> str:
    """A lower-case id ``^[a-z][a-z0-9-]*$`` (hyphens) from any name; empty when nothing is left."""
    out = snake(name).replace("_", "-")[:limit].strip("-")
    return out
