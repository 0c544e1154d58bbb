"""The load stage's bounds (nesting depth, expanded YAML size, repeated warnings) and the
diagnostics that report crossing them, shared by fetching and the JSON and YAML readers."""

from __future__ import annotations

from packc_runtime.diagnostics import Diagnostic

__all__ = ["MAX_DEPTH", "MAX_NODES", "MAX_REPEATS", "more", "too_deep", "too_large"]

# Nesting beyond this is refused; real documents stay far below (Microsoft Graph beta: 35) and the
# later stages may recurse once or twice per level without nearing Python's limit of 1,000.
MAX_DEPTH = 256
# Nodes after YAML aliases are expanded; the figure OpenAPI.NET uses, well above Graph beta's 1.53 M.
MAX_NODES = 5_000_000
# Diagnostics of one kind per document beyond this are summarised, so a noisy file cannot flood output.
MAX_REPEATS = 20


def too_deep(where: str) -> Diagnostic:
    """D004: nested more than MAX_DEPTH levels."""
    return Diagnostic(
        "D004",
        "error",
        where,
        f"The document is nested more than {MAX_DEPTH} levels deep.",
        "Flatten the document, e.g. move nested schemas into components and $ref them.",
    )


def too_large(location: str, max_bytes: int) -> Diagnostic:
    """D002: more bytes than the cap (read, or once inflated)."""
    return Diagnostic(
        "D002",
        "error",
        f"{location}#",
        f"The document is larger than the limit of {max_bytes} bytes.",
        "Raise the size limit if the document is trusted, or cut it down.",
    )


def more(code: str, where: str, count: int) -> Diagnostic:
    """The summary of ``count`` warnings of ``code`` beyond MAX_REPEATS."""
    return Diagnostic(
        code,
        "warning",
        where,
        f"{count} more warning(s) like the ones above are not listed.",
        "Fix the ones listed and read the document again.",
    )
