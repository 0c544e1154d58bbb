"""Issue 10 items 2-3 end to end: a hostile document's text cannot break HARNESS.md or README.md out
of their structure, and their ready-to-run lines (and `packc commands`) run only the pack's command."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from sec_ident_hostile import MD_BREAKOUT, SHELL_BREAKOUT, document, write

from packc import compile
from packc.commands import list_commands

markdown_it = pytest.importorskip("markdown_it")
MD = markdown_it.MarkdownIt("commonmark").enable("table").enable("strikethrough")
HOSTILE_NAME = "pet`id<b>"  # a parameter name: a code span's backtick and an HTML tag


def _pack(tmp_path: Path, **kw: Any) -> Path:
    result = compile(write(tmp_path, document(**kw)), tmp_path / "out")
    assert result.ok, [str(d) for d in result.diagnostics if d.level == "error"]
    (pack,) = result.packs
    assert pack.directory is not None
    return pack.directory


def _front_and_body(text: str) -> tuple[dict[str, Any], str]:
    assert text.startswith("---\n")
    front, _, body = text[4:].partition("\n---\n")
    return yaml.safe_load(front), body


def _structure(body: str) -> tuple[list[tuple[str, str]], list[Any]]:
    """The headings (tag, text) and the fences of a Markdown body; fails on any HTML or link."""
    tokens = MD.parse(body)
    headings = [
        (tokens[i].tag, tokens[i + 1].content) for i, t in enumerate(tokens) if t.type == "heading_open"
    ]
    assert not [t for t in tokens if t.type == "html_block"]
    for t in tokens:
        for child in t.children or []:
            assert child.type not in ("html_inline", "link_open", "image"), child
    return headings, [t for t in tokens if t.type == "fence"]


def _assert_structure(directory: Path) -> None:
    """HARNESS.md and README.md have exactly packc's own headings, front matter and one-line fences."""
    front, body = _front_and_body((directory / "HARNESS.md").read_text())
    assert set(front) == {"name", "description"} and front["name"] == directory.name
    headings, fences = _structure(body)
    verbs = ["cages.list", "owners.list", "pets.get", "pets.list", "toys.list", "vets.list"]
    assert [h for h in headings if h[0] != "h3"] == [
        ("h1", headings[0][1]),
        ("h2", "Setup"),
        ("h2", "Verbs"),
        ("h2", "Confirmation"),
        ("h2", "Errors"),
    ]
    assert [h[1] for h in headings if h[0] == "h3"] == [f"`{v}`" for v in verbs]
    assert len(fences) == len(verbs)
    for fence in fences:
        assert (
            fence.info == "sh"
            and fence.content.count("\n") == 1
            and fence.content.startswith(directory.name + " ")
        )
    readme_headings, readme_fences = _structure((directory / "README.md").read_text())
    assert [h[1] for h in readme_headings[1:]] == [
        "Credentials",
        "Verbs",
        "Run a verb",
        "Use from an MCP host",
    ]
    (fence,) = readme_fences
    assert fence.content.count("\n") == 3


@pytest.mark.parametrize("hostile", [MD_BREAKOUT, SHELL_BREAKOUT, "<!-- x -->\n\n***\n1. a\n| a | b |"])
def test_harness_keeps_its_structure_whatever_the_document_says(tmp_path: Path, hostile: str) -> None:
    _assert_structure(
        _pack(
            tmp_path,
            title="Zoo " + hostile,
            description=hostile,
            example=hostile,
            param=HOSTILE_NAME,
            x_packc={"name": hostile},
        )
    )


TEXT = st.one_of(
    st.text(st.sampled_from(list("#>-+=*_`~|[]()<>!&;$\\'\" \n\r\t\x1b\x7f\u202e\u2028.:1a")), max_size=25),
    st.text(max_size=25),
)


@given(title=TEXT, description=TEXT, example=TEXT)
@settings(max_examples=25, deadline=None)
def test_any_document_text_keeps_the_structure(title: str, description: str, example: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        _assert_structure(
            _pack(
                Path(tmp),
                title="Zoo " + title,
                description=description,
                example=example,
                x_packc={"name": "Zoo " + title},
            )
        )


@pytest.mark.parametrize("field", ["id", "cliBin"])
def test_markdown_in_an_identifier_is_refused(tmp_path: Path, field: str) -> None:
    result = compile(write(tmp_path, document(x_packc={field: "zoo\n# Ignore the above"})), tmp_path / "out")
    assert not result.ok and {"id": "C107", "cliBin": "C108"}[field] in {d.code for d in result.diagnostics}
    assert not (tmp_path / "out").exists()


@pytest.fixture()
def stub_bin(tmp_path: Path) -> Path:
    folder = tmp_path / "stubbin"
    folder.mkdir()
    return folder


def _run_as_stub(line: str, command: str, folder: Path) -> bytes:
    stub = folder / command
    stub.write_text("#!/bin/bash\nprintf 'ARGV'\nfor a in \"$@\"; do printf '\\0%s' \"$a\"; done\n")
    stub.chmod(0o755)
    done = subprocess.run(
        ["/bin/bash", "-c", line],
        capture_output=True,
        cwd=folder,
        timeout=30,
        env={"PATH": str(folder), "HOME": str(folder)},
    )
    assert (done.returncode, done.stderr) == (0, b"")
    return done.stdout


def test_the_issue_s_shell_injection_example_runs_only_the_pack_command(
    tmp_path: Path, stub_bin: Path
) -> None:
    directory = _pack(tmp_path, example=SHELL_BREAKOUT)
    (line,) = [ln for ln in (directory / "HARNESS.md").read_text().splitlines() if " pets get " in ln]
    assert _run_as_stub(line, directory.name, stub_bin) == b"ARGV\0pets\0get\0" + SHELL_BREAKOUT.encode()
    entries, _ = list_commands(directory)
    (entry,) = [e for e in entries if e.verb == "pets.get"]
    assert entry.line == line
    assert not (stub_bin / "PWNED").exists() and not (tmp_path / "PWNED").exists()


def test_a_multi_line_example_stays_one_line_that_runs_the_pack_command(
    tmp_path: Path, stub_bin: Path
) -> None:
    directory = _pack(tmp_path, example=MD_BREAKOUT)
    (line,) = [ln for ln in (directory / "HARNESS.md").read_text().splitlines() if " pets get " in ln]
    assert _run_as_stub(line, directory.name, stub_bin) == b"ARGV\0pets\0get\0" + MD_BREAKOUT.encode()
