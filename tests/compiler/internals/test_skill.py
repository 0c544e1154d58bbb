"""HARNESS.md says what an agent needs (issue 11, item 8): each argument's allowed values (the first
few, then a count) and credential alternatives as alternatives."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from packc import compile as packc_compile
from packc.write._skill import allowed_values, credential_lines
from packc_runtime.credentials.slots import CredentialSlot
from packc_runtime.text.escaping import invisible

markdown_it = pytest.importorskip("markdown_it")
MD = markdown_it.MarkdownIt("commonmark").enable("table").enable("strikethrough")

ROOT = Path(__file__).resolve().parents[3]


def test_allowed_values_show_the_first_few_then_a_count() -> None:
    assert (
        allowed_values({"type": "string", "enum": ["open", "closed", "all"]}) == "One of: open, closed, all."
    )
    many = allowed_values({"enum": [f"v{i}" for i in range(12)]})
    assert many == "One of: v0, v1, v2, v3, v4, and 7 more (12 values)."
    assert allowed_values({"type": "array", "items": {"enum": [1, 2]}}) == "One of: 1, 2."
    assert allowed_values({"anyOf": [{"const": "a"}, {"const": "b"}]}) == "One of: a, b."
    assert allowed_values({"type": "string"}) == "" and allowed_values(True) == ""


@given(st.lists(st.text(max_size=60), min_size=1, max_size=8))
def test_enum_text_cannot_break_the_markdown_line(values: list[str]) -> None:
    out = allowed_values({"enum": values})
    assert "\n" not in out
    # One paragraph of plain text and code spans (a value with invisible characters is shown in a
    # code span, escaped: C160), never HTML, a link or a block of its own.
    tokens = MD.parse(out)
    assert [t.type for t in tokens] == ["paragraph_open", "inline", "paragraph_close"]
    kinds = {child.type for child in tokens[1].children or []}
    assert kinds <= {"text", "code_inline"}, out
    if not any(invisible(v) for v in values):
        assert "```" not in out and "<" not in out.replace("\\<", "")


def _slot(env: str, scheme: str, kind: Any) -> CredentialSlot:
    return CredentialSlot(env, scheme, kind, f"{kind.replace('_', ' ')} for {scheme}")


def _doc(*security: dict[str, list[str]]) -> dict[str, Any]:
    return {"security": list(security), "paths": {"/a": {"get": {"x-packc-binding": {"verb": "a.list"}}}}}


def test_credential_alternatives_read_as_alternatives() -> None:
    slots = [
        _slot("X_TOKEN", "bearer", "token"),
        _slot("X_USERNAME", "basic", "username"),
        _slot("X_PASSWORD", "basic", "password"),
    ]
    lines = credential_lines(slots, _doc({"bearer": []}, {"basic": []}))
    assert lines[0] == "Any one of these is enough (a token, or a username and password):"
    assert "- `X_TOKEN` (a token)" in lines
    assert "- `X_USERNAME` and `X_PASSWORD` (a username and password)" in lines
    assert "- `X_TOKEN`: token for bearer" in lines


def test_one_requirement_lists_what_is_needed_and_empty_means_optional() -> None:
    slots = [_slot("X_API_KEY", "key", "api_key")]
    assert credential_lines(slots, _doc({"key": []})) == ["- `X_API_KEY`: api key for key", ""]
    both = [_slot("X_API_KEY", "key", "api_key"), _slot("X_TOKEN", "bearer", "token")]
    lines = credential_lines(both, _doc({"key": []}, {"bearer": []}, {}))
    assert "- none: some verbs also work without credentials" in lines


def test_bookshop_harness_offers_basic_or_api_key(tmp_path: Path) -> None:
    result = packc_compile(ROOT / "specs" / "bookshop.swagger.json", tmp_path)
    text = (tmp_path / result.packs[0].id / "HARNESS.md").read_text()
    assert "Any one of these is enough (a username and password, or an API key):" in text
