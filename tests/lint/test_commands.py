"""``packc commands``: a ready-to-run line per verb, filled from the first example of each argument."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from packc.cli import main
from packc.commands import list_commands
from packc_runtime.format.templating import SHOWN_OPTIONAL, example_line

LEDGER = Path(__file__).parent.parent / "fixtures" / "ledger"


def test_ledger_lines() -> None:
    entries, diagnostics = list_commands(LEDGER)
    assert diagnostics == []
    lines = {e.verb: e.line for e in entries}
    # memo has no example and is optional: its token and the --memo flag before it are dropped.
    assert lines["transfer"] == "ledger transfer 2.80 --to demo-transit --confirm"
    assert lines["connect"] == "ledger connect '<provider>'"
    assert lines["setup.apply"] == "ledger setup all -y"
    assert [e.access for e in entries] == ["read", "write", "write", "read", "read", "write"]


def test_example_line_quotes_and_flags() -> None:
    args = {
        "type": "object",
        "properties": {
            "q": {"type": "string", "examples": ["two words"]},
            "n": {"type": "integer", "examples": [3]},
            "tags": {"type": "array", "examples": [["a", "b"]]},
            "flag": {"type": "string"},
            "need": {"type": "string"},
        },
        "required": ["need"],
    }
    line = example_line(
        ["x", "find", "{{q}}", "--n={{n}}", "--tags", "{{tags}}", "--flag", "{{flag}}", "--need", "{{need}}"],
        args,
    )
    assert line == "x find 'two words' --n=3 --tags '[\"a\",\"b\"]' --need '<need>'"


def test_example_lines_show_required_arguments_and_a_few_choices() -> None:
    args = {
        "type": "object",
        "required": ["id"],
        "properties": {
            "id": {"type": "integer", "examples": [1]},
            "body": {"type": "object", "examples": [{}]},
            "limit": {"type": "integer", "enum": [10, 50], "examples": [10]},
            "cursor": {"type": "string", "examples": ["c1"]},
            "status": {"type": "string", "enum": ["open", "closed"], "examples": ["open"]},
            "sort": {"type": "string", "enum": ["new", "old"], "examples": ["new"]},
            "order": {"type": "string", "enum": ["asc", "desc"], "examples": ["asc"]},
        },
    }
    cli = [
        "x",
        "get",
        "{{id}}",
        "--body",
        "{{body}}",
        "--limit",
        "{{limit}}",
        "--cursor",
        "{{cursor}}",
        "--status",
        "{{status}}",
        "--sort",
        "{{sort}}",
        "--order",
        "{{order}}",
    ]
    # No --body '{}', no paging: the required id and the first two optional choices.
    assert example_line(cli, args, optional=SHOWN_OPTIONAL) == "x get 1 --status open --sort new"
    assert example_line(cli, args, optional=0) == "x get 1"
    assert example_line(cli, args).count("--") == 6  # without optional=, every argument with an example


def test_cli_commands(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["commands", str(LEDGER), "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert listing[0] == {
        "verb": "setup.status",
        "access": "read",
        "line": "ledger setup status",
        "description": "Report whether the local ledger store is set up. Idempotent.",
    }
    assert main(["commands", str(tmp_path)]) == 1  # no surface.json: a diagnostic, not a traceback
    assert "M001" in capsys.readouterr().err
