"""Rebuild the golden packs under tests/golden/ (``make golden``); review the diff before committing."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent

# name -> (spec relative to the repository root, compile options)
CASES: dict[str, tuple[str, dict[str, bool]]] = {
    "clinic": ("specs/clinic.yaml", {}),
    "bookshop": ("specs/bookshop.swagger.json", {}),
    "taskboard": ("specs/taskboard.yaml", {}),
    "taskboard-split": ("specs/taskboard.yaml", {"split": True}),
}


def build(name: str, out: Path) -> None:
    """Compile case ``name`` into ``out`` (one directory per pack)."""
    from packc import compile

    spec, options = CASES[name]
    result = compile(ROOT / spec, out, lint=False, **options)
    if not result.ok:
        raise SystemExit(f"{name}: " + "; ".join(str(d) for d in result.diagnostics if d.level == "error"))


def main() -> int:
    for name in CASES:
        target = GOLDEN / name
        if target.exists():
            shutil.rmtree(target)
        build(name, target)
        print(f"rebuilt tests/golden/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
