"""Every compile (C…) and document (D…) diagnostic code has one row in its docs table, and every row
names a code the source raises: a newcomer's trial added a code that passed every check unseen."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CODE = re.compile(r"""["']([CD]\d{3})["']""")
ROW = re.compile(r"^\| `?([CD]\d{3})`? \|", re.M)
TABLES = {"C": ROOT / "docs" / "compile.md", "D": ROOT / "docs" / "frontend.md"}


def raised() -> set[str]:
    return {
        code
        for base in ("compiler/packc", "runtime/packc_runtime")
        for path in (ROOT / base).rglob("*.py")
        for code in CODE.findall(path.read_text(encoding="utf-8"))
    }


def documented(kind: str) -> list[str]:
    return [code for code in ROW.findall(TABLES[kind].read_text(encoding="utf-8")) if code.startswith(kind)]


def test_every_code_has_one_row_and_every_row_a_code() -> None:
    codes = raised()
    for kind in TABLES:
        rows = documented(kind)
        assert sorted(c for c in set(rows) if rows.count(c) > 1) == [], f"{TABLES[kind].name}: a code twice"
        assert sorted({c for c in codes if c.startswith(kind)} - set(rows)) == [], (
            f"codes raised but not in {TABLES[kind].name}'s table: add a row (level, what it means, what to do)"
        )
        assert sorted(set(rows) - codes) == [], f"rows in {TABLES[kind].name} that no code raises"


def test_the_finder_sees_a_code_in_source_and_a_row() -> None:
    assert CODE.findall('Diagnostic(\n    "C999", "warning", ...)') == ["C999"]
    assert ROW.findall("| C101 | error | x |\n| `D002` | warning | y |\n| M001 | z |") == ["C101", "D002"]
