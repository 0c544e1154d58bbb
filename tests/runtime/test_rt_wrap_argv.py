"""Hypothesis: a wrap verb's argv holds each argument value as exactly one element, whatever it
holds, keeps every literal of cli[] as written, and never lets a positional value pose as a flag."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from packc_runtime.calling.wrap.argv import build_argv, selects_json
from packc_runtime.errors import InvalidArgument

VALUES = st.text(min_size=1, max_size=40).filter(lambda v: "\x00" not in v)
CLI = ["tool", "do", "{{pos}}", "--flag", "{{opt}}", "--eq={{eq}}", "--confirm"]


@given(pos=VALUES, opt=st.none() | VALUES, eq=st.none() | VALUES, json_flag=st.sampled_from([[], ["--json"]]))
def test_each_value_is_one_element(pos: str, opt: str | None, eq: str | None, json_flag: list[str]) -> None:
    args: dict[str, Any] = {"pos": pos, "opt": opt, "eq": eq}
    try:
        argv = build_argv("/pack/bin/tool", "do", CLI, ["{{verb}}"], json_flag, args)
    except InvalidArgument:
        assert pos.startswith("-")  # the one refusal: a positional value that reads as a flag
        return
    expected = ["/pack/bin/tool", "do", pos]
    if opt is not None:
        expected += ["--flag", opt]
    if eq is not None:
        expected.append(f"--eq={eq}")
    expected.append("--confirm")  # the wrapped CLI's own token, as written
    if not selects_json(expected):
        expected += json_flag
    assert argv == expected


@given(value=VALUES)
def test_after_double_dash_any_value_is_a_value(value: str) -> None:
    argv = build_argv("b", "v", ["b", "v", "--", "{{x}}"], [], ["--json"], {"x": value})
    assert argv == ["b", "v", "--json", "--", value]


@pytest.mark.parametrize(
    ("cli", "selected"),
    [
        (["--json"], True),
        (["--json", "name,id"], True),
        (["-o", "json"], True),
        (["--format", "json"], True),
        (["--output=json"], True),
        (["--format", "yaml"], False),
        (["--", "--json"], False),
    ],
)
def test_what_selects_json(cli: list[str], selected: bool) -> None:
    assert selects_json(cli) is selected
