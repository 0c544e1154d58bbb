"""What the command-line faces write: JSON text the way they print it, and the success exit code.

Its own module so that ``cli.py`` and ``_connect_cli.py`` (which cli.py imports only when connect
runs) share it without importing each other.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["EXIT_OK", "dump", "line"]

EXIT_OK = 0


def dump(data: Any, *, compact: bool = False) -> str:
    """JSON text with UTF-8 kept: indented for a person, one line (``compact``) for json_exec."""
    if compact:
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return json.dumps(data, ensure_ascii=False, indent=2)


def line(envelope: Any) -> str:
    """An envelope as every face prints it: one line of JSON (a reader takes a line per call)."""
    return dump(envelope, compact=True)
