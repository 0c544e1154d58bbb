"""Regression: a verb whose first word is one of the pack CLI's own words could not be called.

An API with a ``/help`` resource gets ``help.list`` and ``help.get``, and ``<cliBin> help list``
printed the verb list instead of calling ``help.list``. The CLI's own words are ``help``, ``-h``,
``--help`` (the verb list), ``connect`` and ``mcp`` (commands), and ``--`` (after a verb: the values
follow). The rule (``packc_runtime.faces.cli.read_command``, docs/runtime.md "Verbs and the CLI's own
commands"): a verb's words come first; the CLI's commands run when the words name no verb;
``<cliBin> -- VERB`` always calls a verb; a verb named exactly ``help``, ``connect`` or ``mcp``
(only a hand-edited pack has one) is reached only that way.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from packc import compile as compile_api
from packc.write.emit import COMMAND_WORDS
from packc_runtime.faces.cli import pack_main
from packc_runtime.faces.command_line import Command, read_command
from packc_runtime.format.identifiers import RESERVED_VERBS
from servers.echo_app import EchoApp

Server = tuple[EchoApp, str]

_OK = {"200": {"description": "ok"}}


def _op(operation_id: str, *params: str, **extra: Any) -> dict[str, Any]:
    parameters = [{"name": p, "in": "path", "required": True, "schema": {"type": "string"}} for p in params]
    return {
        "operationId": operation_id,
        "responses": _OK,
        **({"parameters": parameters} if params else {}),
        **extra,
    }


def _document(server: str) -> dict[str, Any]:
    """Operations whose verbs start with each of the CLI's command words, and one with a path value."""
    return {
        "openapi": "3.0.3",
        "info": {"title": "Words", "version": "1"},
        "servers": [{"url": server}],
        "paths": {
            "/help": {"get": _op("listHelp")},
            "/help/{topic}": {"get": _op("getHelp", "topic")},
            "/ask": {"get": _op("ask", **{"x-packc": {"verb": "help.me"}})},  # a verb named help...
            "/connect": {"get": _op("listConnections"), "post": _op("connect")},
            "/mcp/tools": {"get": _op("listTools")},
            "/notes/{text}": {"get": _op("getNote", "text")},
        },
    }


@pytest.fixture
def words_pack(tmp_path: Path, echo_server: Server) -> Path:
    _, url = echo_server
    source = tmp_path / "words.json"
    source.write_text(json.dumps(_document(url + "/api/echo")), "utf-8")
    directory = compile_api(source, tmp_path / "packs").packs[0].directory
    assert directory is not None
    verbs = json.loads((Path(directory) / "surface.json").read_text())["verbs"]
    assert sorted(verbs) == [
        "connect.create",
        "connect.list",
        "help.get",
        "help.list",
        "help.me",
        "mcp.tools.list",
        "notes.get",
    ]
    return Path(directory)


def _run(pack: Path, argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = pack_main(pack, argv, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


# --- the rule, on its own -----------------------------------------------------------------------

VERBS = {
    "help.list",
    "help.get",
    "connect.list",
    "connect.status",
    "mcp.tools.list",
    "pets.get",
    "pets.owner.get",
}


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        # a verb's words come first, whatever the first word
        (["help", "list"], Command("verb", "help.list", [])),
        (["help", "get", "intro", "--json"], Command("verb", "help.get", ["intro", "--json"])),
        (["connect", "status", "--json"], Command("verb", "connect.status", ["--json"])),
        (["mcp", "tools", "list"], Command("verb", "mcp.tools.list", [])),
        (["pets", "owner", "get", "1"], Command("verb", "pets.owner.get", ["1"])),  # the longest match
        # -- always means a verb
        (["--", "help", "list"], Command("verb", "help.list", [])),
        (["--", "pets", "get", "1"], Command("verb", "pets.get", ["1"])),
        (["--", "help"], Command("unknown", None, ["help"])),
        (["--", "connect", "--list"], Command("unknown", None, ["connect", "--list"])),
        (["--"], Command("missing", None, [])),
        # the verb list and one verb's form
        ([], Command("missing", None, [])),
        (["help"], Command("usage", None, [])),
        (["-h"], Command("usage", None, [])),
        (["--help", "pets"], Command("usage", None, ["pets"])),
        (["help", "--json"], Command("usage", None, ["--json"])),
        (["help", "pets", "get"], Command("help", "pets.get", [])),
        (["help", "help", "list"], Command("help", "help.list", [])),
        (["help", "list", "--help"], Command("help", "help.list", ["--help"])),
        (["pets", "get", "-h"], Command("help", "pets.get", ["-h"])),
        (
            ["pets", "get", "--", "--help"],
            Command("verb", "pets.get", ["--", "--help"]),
        ),  # a value, not a flag
        # the commands: flags only
        (["connect"], Command("connect", None, [])),
        (["connect", "--list", "--json"], Command("connect", None, ["--list", "--json"])),
        (["connect", "--server", "http://x"], Command("connect", None, ["--server", "http://x"])),
        (["mcp"], Command("mcp", None, [])),
        (["mcp", "--print-config", "cursor"], Command("mcp", None, ["--print-config", "cursor"])),
        # a word that names no verb, after a command word too
        (["help", "lst"], Command("unknown", None, ["help", "lst"])),
        (["connect", "lst"], Command("unknown", None, ["connect", "lst"])),
        (["mcp", "serve"], Command("unknown", None, ["mcp", "serve"])),
        (["pets", "nope"], Command("unknown", None, ["pets", "nope"])),
        (["--json", "pets", "get"], Command("unknown", None, ["--json", "pets", "get"])),
    ],
)
def test_read_command(argv: list[str], expected: Command) -> None:
    assert read_command(VERBS, argv) == expected


@pytest.mark.parametrize("word", ["help", "connect", "mcp"])
def test_a_verb_named_exactly_like_a_command_is_reached_only_with_the_mark(word: str) -> None:
    verbs = VERBS | {word}
    assert read_command(verbs, [word]).action in ("usage", "connect", "mcp")
    assert read_command(verbs, ["--", word, "--json"]) == Command("verb", word, ["--json"])


# --- through the pack's CLI, against the echo server --------------------------------------------


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("argv", "verb", "path"),
    [
        (["help", "list", "--json"], "help.list", "/api/echo/help"),
        (["help", "get", "intro", "--json"], "help.get", "/api/echo/help/intro"),
        (["help", "me", "--json"], "help.me", "/api/echo/ask"),
        (["connect", "list", "--json"], "connect.list", "/api/echo/connect"),
        (["connect", "create", "--confirm", "--json"], "connect.create", "/api/echo/connect"),
        (["mcp", "tools", "list", "--json"], "mcp.tools.list", "/api/echo/mcp/tools"),
        (["--", "help", "list", "--json"], "help.list", "/api/echo/help"),
        (["--", "connect", "list", "--json"], "connect.list", "/api/echo/connect"),
        (["notes", "get", "--json", "--", "--help"], "notes.get", "/api/echo/notes/--help"),
        (["notes", "get", "--json", "--", "-h"], "notes.get", "/api/echo/notes/-h"),
    ],
)
def test_every_verb_is_called_by_its_words(words_pack: Path, argv: list[str], verb: str, path: str) -> None:
    code, out, err = _run(words_pack, argv)
    envelope = json.loads(out)
    assert (code, envelope["ok"], envelope["verb"]) == (0, True, verb), err
    assert envelope["body"]["path"] == path


@pytest.mark.e2e
def test_the_cli_commands_still_work_beside_those_verbs(words_pack: Path) -> None:
    for argv in (["help"], ["-h"], ["--help"]):
        code, out, _ = _run(words_pack, argv)
        assert (
            code == 0
            and out.startswith("usage: words VERB")
            and "  help list " in out
            and "  connect list " in out
        )
    code, out, _ = _run(words_pack, [])
    assert code == 2 and out.startswith("usage: words VERB")
    code, out, _ = _run(words_pack, ["help", "help", "get"])
    assert code == 0 and "<topic> (position 0)" in out
    code, out, _ = _run(words_pack, ["help", "get", "--help"])
    assert code == 0 and "<topic> (position 0)" in out
    code, out, _ = _run(words_pack, ["connect", "--list", "--json"])
    assert code == 0 and json.loads(out)["credentials"] == []
    code, out, _ = _run(words_pack, ["mcp", "--print-config", "claude-code"])
    assert code == 0 and json.loads(out)["mcpServers"]["words"]["args"][-1] == "mcp"


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("argv", "typed", "hint"),
    [
        (["help", "lst"], "help lst", "words help list"),
        (["connect", "lst"], "connect lst", "words connect list"),
        (["mcp", "tool", "list"], "mcp tool list", "words mcp tools list"),
        (["--", "hepl", "list"], "hepl list", "words help list"),
    ],
)
def test_an_unknown_verb_is_an_error_with_a_suggestion(
    words_pack: Path, argv: list[str], typed: str, hint: str
) -> None:
    code, out, _ = _run(words_pack, [*argv, "--json"])
    error = json.loads(out)["error"]
    assert code == 2 and error["code"] == "unknown_verb"
    assert f"no verb {typed!r}" in error["message"] and f"Did you mean '{hint}'?" in error["message"]


@pytest.mark.e2e
def test_the_packs_docs_say_so(words_pack: Path) -> None:
    assert set(COMMAND_WORDS) == RESERVED_VERBS
    line = (
        "`words connect create` calls `connect.create`: a verb's words come first, and `words connect` alone "
        "stores credentials (`words -- <verb words>` always calls a verb)."
    )
    assert line in (words_pack / "HARNESS.md").read_text() and line in (words_pack / "README.md").read_text()


@pytest.mark.e2e
def test_the_launcher_calls_a_help_verb(words_pack: Path) -> None:
    launcher = words_pack / "bin" / "words"
    result = subprocess.run(
        [sys.executable, str(launcher), "help", "get", "intro", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["body"]["path"] == "/api/echo/help/intro"


@pytest.mark.e2e
@pytest.mark.parametrize("word", ["help", "connect", "mcp"])
def test_a_hand_edited_verb_named_like_a_command_needs_the_mark(words_pack: Path, word: str) -> None:
    surface = words_pack / "surface.json"  # a hand-edited (or shared) pack names a verb exactly so
    data = json.loads(surface.read_text())
    data["verbs"][word] = data["verbs"].pop("notes.get")
    data["verbs"][word]["cli"] = ["words", word, "{{text}}"]
    surface.write_text(json.dumps(data))
    document = words_pack / "openapi.json"
    openapi = json.loads(document.read_text())
    openapi["paths"]["/notes/{text}"]["get"]["x-packc-binding"]["verb"] = word
    document.write_text(json.dumps(openapi))
    code, out, _ = _run(words_pack, ["--", word, "hi", "--json"])
    assert code == 0 and json.loads(out)["body"]["path"] == "/api/echo/notes/hi"
    code, out, _ = _run(words_pack, ["--help"])
    assert code == 0 and f"  -- {word} " in out  # the list shows how to call it
    code, out, _ = _run(words_pack, [word, "hi", "--json"])  # the command's word, never the verb
    assert code == 2 and json.loads(out)["error"]["code"] == "unknown_verb"
    assert f"Did you mean 'words -- {word}'?" in json.loads(out)["error"]["message"]
    code, out, _ = _run(words_pack, ["connect", "--list", "--json"])
    assert code == 0 and "credentials" in json.loads(out)


def test_connect_help_shows_its_flags_and_an_unknown_flag_is_refused(words_pack: Path) -> None:
    # `connect --help` once ran connect itself (a prompt for secrets); a mistyped flag was ignored.
    for flag in ("--help", "-h"):
        code, out, _ = _run(words_pack, ["connect", flag])
        assert code == 0 and out.startswith("usage: words connect [--list]") and "--approve-env" in out
    for argv, named in (
        (["connect", "--lst"], "'--lst'"),
        (["connect", "--list", "--jsn"], "'--jsn'"),
        (["connect", "--list", "extra"], "'extra'"),
        (["connect", "--server"], "--server takes"),
    ):
        code, out, _ = _run(words_pack, argv)
        assert code != 0 and out.startswith("error invalid_argument:") and named in out, (argv, out)
    code, out, _ = _run(words_pack, ["connect", "--list", "--json", "--server=http://127.0.0.1:9"])
    assert code == 0 and json.loads(out)["credentials"] == []


@given(st.lists(st.text(min_size=1, max_size=12), max_size=4))
def test_connect_options_take_only_known_flags(argv: list[str]) -> None:
    from packc_runtime.errors import PackRuntimeError
    from packc_runtime.faces._connect_cli import CONNECT_FLAGS, connect_options

    try:
        connect_options(argv)
    except PackRuntimeError:
        return
    # Accepted: every token is a known flag, or the value right after one that takes a value.
    i = 0
    while i < len(argv):
        flag, eq, _ = argv[i].partition("=")
        assert flag in CONNECT_FLAGS
        i += 2 if CONNECT_FLAGS[flag] and not eq else 1
