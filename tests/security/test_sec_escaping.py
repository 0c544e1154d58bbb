"""Issue 10 items 2-3: each escaping layer, over arbitrary strings (hypothesis).

Markdown is checked by parsing it (markdown-it-py, CommonMark plus GFM tables): escaped text is one
paragraph of plain text, a code span one code span. Shell lines are run by bash with a PATH that
holds only a stub of the pack's command, which records its argv: anything else a line tried to run
would fail or print.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sec_ident_hostile import MD_BREAKOUT, SHELL_BREAKOUT

from packc_runtime.format.templating import SHOWN_OPTIONAL, example_line
from packc_runtime.text.escaping import (
    fenced_line,
    invisible,
    md_code,
    md_text,
    shell_line,
    shell_word,
    toml_string,
    yaml_scalar,
)

markdown_it = pytest.importorskip("markdown_it")
MD = markdown_it.MarkdownIt("commonmark").enable("table").enable("strikethrough")

# Text with the characters that matter most, often: Markdown and shell punctuation, line breaks,
# escapes, bidi overrides; and any text at all.
NASTY = st.text(
    st.sampled_from(list("#>-+=*_`~|[]()<>!&;$\\'\" \n\r\t\x1b\x7f\u202e\u2028.:1a")), max_size=30
)
ANY = st.one_of(NASTY, st.text(max_size=40))


def _plain(text: str) -> str:
    """What md_text keeps of ``text``: hidden characters as spaces, white space collapsed."""
    shown = "".join(" " if md_hidden(ch) else ch for ch in text)
    return " ".join(shown.split())


def md_hidden(ch: str) -> bool:
    import unicodedata

    return not (" " <= ch <= "~") and unicodedata.category(ch) in {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


def _inline_children(source: str) -> list[Any]:
    tokens = MD.parse(source)
    if not source.strip():
        assert tokens == []
        return []
    assert [t.type for t in tokens] == ["paragraph_open", "inline", "paragraph_close"], source
    return list(tokens[1].children or [])


@given(ANY)
@settings(max_examples=400)
def test_md_text_is_one_paragraph_of_its_own_characters(text: str) -> None:
    line = md_text(text)
    assert "\n" not in line and "\r" not in line
    children = _inline_children(line)
    assert all(c.type == "text" for c in children), [c.type for c in children]
    assert "".join(c.content for c in children) == _plain(text)


@given(ANY)
@settings(max_examples=200)
def test_md_text_stays_in_its_table_cell(text: str) -> None:
    tokens = MD.parse(f"| a | b |\n|---|---|\n| x | {md_text(text)} |\n")
    cells = [t for t in tokens if t.type == "inline"]
    assert len(cells) == 4  # two header cells, two body cells: no cell was added or lost
    assert all(c.type == "text" for c in cells[3].children or [])
    assert "".join(c.content for c in cells[3].children or []) == _plain(text)


@given(ANY.filter(bool))
@settings(max_examples=300)
def test_md_code_is_one_code_span_of_the_text(text: str) -> None:
    shown = "".join(
        ch
        if not md_hidden(ch)
        else (
            f"\\x{ord(ch):02x}"
            if ord(ch) < 0x100
            else f"\\u{ord(ch):04x}"
            if ord(ch) < 0x10000
            else f"\\U{ord(ch):08x}"
        )
        for ch in text
    )
    children = _inline_children(md_code(text))
    assert [c.type for c in children] == ["code_inline"]
    assert children[0].content == shown


@given(ANY.filter(bool))
@settings(max_examples=200)
def test_md_code_in_a_table_cell_keeps_the_row(text: str) -> None:
    tokens = MD.parse(f"| a | b |\n|---|---|\n| x | {md_code(text, in_table=True)} |\n")
    cells = [t for t in tokens if t.type == "inline"]
    assert len(cells) == 4
    assert [c.type for c in cells[3].children or []] == ["code_inline"]


@given(ANY)
@settings(max_examples=300)
def test_yaml_scalar_loads_back_and_keeps_the_front_matter(text: str) -> None:
    value = yaml_scalar(text)
    assert "\n" not in value and "\r" not in value
    front = yaml.safe_load(f"name: zoo\ndescription: {value}\nlast: 1\n")
    assert front == {"name": "zoo", "description": text, "last": 1}


@given(ANY)
@settings(max_examples=300)
def test_toml_string_loads_back(text: str) -> None:
    value = toml_string(text)
    assert "\n" not in value and "\x7f" not in value
    assert tomllib.loads(f"x = {value}\ny = 1\n") == {"x": text, "y": 1}


def test_toml_string_escapes_del_the_json_way_did_not() -> None:
    assert toml_string("a\x7fb") == '"a\\u007Fb"'
    assert tomllib.loads(f"name = {toml_string('Zoo' + chr(0x7F))}") == {"name": "Zoo\x7f"}


# --- shell -------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def stub_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding only ``zoo``, a stub of the pack's command that prints its argv."""
    folder = tmp_path_factory.mktemp("stubbin")
    stub = folder / "zoo"
    stub.write_text("#!/bin/bash\nprintf 'ARGV'\nfor a in \"$@\"; do printf '\\0%s' \"$a\"; done\n")
    stub.chmod(0o755)
    return folder


def _run(line: str, stub_path: Path, shell: str = "/bin/bash") -> subprocess.CompletedProcess[bytes]:
    env = {"PATH": str(stub_path), "HOME": str(stub_path), "LC_ALL": "C.UTF-8"}
    return subprocess.run([shell, "-c", line], capture_output=True, env=env, cwd=stub_path, timeout=30)


def _argv(words: list[str]) -> bytes:
    return b"ARGV" + b"".join(b"\0" + w.encode("utf-8", "surrogateescape") for w in words)


@given(words=st.lists(ANY.filter(lambda s: "\x00" not in s), max_size=4))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_shell_line_runs_only_the_pack_command_with_exactly_its_words(
    words: list[str], stub_path: Path
) -> None:
    line = shell_line(["zoo", *words])
    assert "\n" not in line and "\r" not in line and fenced_line(line) == line
    done = _run(line, stub_path)
    assert (done.returncode, done.stderr, done.stdout) == (0, b"", _argv(["zoo", *words][1:]))


# Words shell_word writes plainly: nothing hidden, nothing that shows as nothing (variation
# selectors, which it writes as $'\xHH' bytes for a person to see, and shlex cannot read back).
@given(ANY.filter(lambda s: not invisible(s) and not any(md_hidden(ch) for ch in s)))
@settings(max_examples=300)
def test_a_printable_word_splits_back_as_itself(text: str) -> None:
    assert shlex.split(shell_word(text)) == [text]


@given(words=st.lists(ANY, max_size=4))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_under_dash_a_line_still_runs_only_the_pack_command(words: list[str], stub_path: Path) -> None:
    # dash has no $'...': a word with a hidden character arrives as other text, but it is one word
    # of the one command all the same.
    if not os.path.exists("/bin/dash"):
        pytest.skip("no dash")
    done = _run(shell_line(["zoo", *words]), stub_path, "/bin/dash")
    assert done.returncode == 0 and done.stderr == b""
    assert done.stdout.startswith(b"ARGV") and done.stdout.count(b"\0") == len(words)


def _example(value: Any, name: str = "q") -> str:
    args = {
        "type": "object",
        "properties": {name: {"type": "string", "examples": [value]}},
        "required": [name],
    }
    return example_line(["zoo", "pets", "find", "--" + name.replace("_", "-"), "{{" + name + "}}"], args)


@pytest.mark.parametrize(
    "value", [SHELL_BREAKOUT, MD_BREAKOUT, "$(touch PWNED)", "`touch PWNED`", "a'b", "\x1b]52;c;"]
)
def test_issue_examples_run_only_the_pack_command(value: str, stub_path: Path) -> None:
    line = _example(value)
    assert "\n" not in line
    done = _run(line, stub_path)
    assert (done.returncode, done.stderr, done.stdout) == (0, b"", _argv(["pets", "find", "--q", value]))
    assert not (stub_path / "PWNED").exists()


def test_a_missing_example_placeholder_is_quoted_too(stub_path: Path) -> None:
    name = "a;touch>PWNED;#"  # unquoted, as before, it would run touch and create PWNED
    args = {"type": "object", "properties": {name: {"type": "string"}}, "required": [name]}
    line = example_line(["zoo", "get", "{{" + name + "}}"], args)
    done = _run(line, stub_path)
    assert (done.returncode, done.stdout) == (0, _argv(["get", f"<{name}>"]))
    assert not (stub_path / "PWNED").exists()


@given(ANY)
@settings(max_examples=200)
def test_any_example_is_one_line_inside_its_fence(value: str) -> None:
    line = _example(value)
    tokens = MD.parse(f"```sh\n{fenced_line(line)}\n```\n")
    assert [t.type for t in tokens] == ["fence"] and tokens[0].content == line + "\n"


@given(ANY, ANY)
@settings(max_examples=100)
def test_an_example_line_with_its_optional_choice_keeps_every_word_quoted(value: str, choice: str) -> None:
    # packc commands and HARNESS.md show the required arguments and the optional ones with a few choices
    # (SHOWN_OPTIONAL); the chosen words still go through shell_word, hostile enum values included.
    args = {
        "type": "object",
        "required": ["q"],
        "properties": {
            "q": {"type": "string", "examples": [value]},
            "status": {"type": "string", "enum": [choice, "other"], "examples": [choice]},
            "limit": {"type": "integer", "enum": [10, 50], "examples": [10]},
            "note": {"type": "string", "examples": ["dropped"]},
        },
    }
    line = example_line(
        [
            "zoo",
            "find",
            "--q",
            "{{q}}",
            "--limit",
            "{{limit}}",
            "--note",
            "{{note}}",
            "--status",
            "{{status}}",
        ],
        args,
        optional=SHOWN_OPTIONAL,
    )
    assert line == shell_line(["zoo", "find", "--q", value, "--status", choice])
    tokens = MD.parse(f"```sh\n{fenced_line(line)}\n```\n")
    assert [t.type for t in tokens] == ["fence"] and tokens[0].content == line + "\n"


def test_an_optional_choice_runs_only_the_pack_command(stub_path: Path) -> None:
    args = {
        "type": "object",
        "properties": {
            "status": {"type": "string", "enum": [SHELL_BREAKOUT, "b"], "examples": [SHELL_BREAKOUT]}
        },
    }
    line = example_line(["zoo", "list", "--status", "{{status}}"], args, optional=SHOWN_OPTIONAL)
    done = _run(line, stub_path)
    assert (done.returncode, done.stdout) == (0, _argv(["list", "--status", SHELL_BREAKOUT]))
