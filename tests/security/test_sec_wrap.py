"""Red team for wrap packs: a hand-written pack around a real child process (tests/fixtures/wrap).

Hostile argument values stay one argv element each and never reach a shell; a positional value
cannot pose as a flag; the bin cannot leave the pack; a bin that hangs or floods is stopped and cut;
a write never runs unconfirmed; a hosted runtime refuses project commands (docs/runtime.md)."""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from packc_runtime import load_pack
from packc_runtime.calling.send import Limits

ECHO = Path(__file__).resolve().parents[1] / "fixtures" / "wrap" / "argv_echo.py"
HOSTILE = [
    "a; rm -rf ~",
    "$(touch pwned)",
    "`touch pwned`",
    "line\nsecond; touch pwned",
    "nul\x00byte",
    "'quoted' \"double\" \\ | & > out < in",
    "*",
    "~",
    "$HOME",
]


def _pack(
    tmp: Path,
    verbs: dict[str, Any],
    wrap: dict[str, Any] | None = None,
    *,
    rows: dict[str, str] | None = None,
) -> Path:
    pack = tmp / "echo"
    (pack / "bin").mkdir(parents=True)
    shutil.copy(ECHO, pack / "bin" / "echo.py")
    surface = {
        "id": "echo",
        "kind": "wrap",
        "cliBin": "echo",
        "transports": ["cli", "json_exec", "mcp"],
        "wrap": {"bin": "./bin/echo.py", "json_flag": [], **(wrap or {})},
        "verbs": verbs,
    }
    access = rows or {}
    policy = {"surface_id": "echo", "commands": {v: {"access": access.get(v, "read")} for v in verbs}}
    (pack / "surface.json").write_text(json.dumps(surface))
    (pack / "policy.json").write_text(json.dumps(policy))
    return pack


def _props(*names: str, required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {n: {"type": "string", "description": n} for n in names},
        "required": list(required),
    }


SAY = {
    "say": {
        "description": "Say it.",
        "cli": ["echo", "say", "{{word}}", "--tag", "{{tag}}", "--note={{note}}"],
        "args": _props("word", "tag", "note"),
    },
    "raw": {"description": "After --.", "cli": ["echo", "raw", "--", "{{word}}"], "args": _props("word")},
}


def _argv(envelope: dict[str, Any]) -> list[str]:
    assert envelope["ok"], envelope
    argv: list[str] = envelope["body"]["argv"]
    return argv


@pytest.mark.parametrize("value", HOSTILE)
def test_a_hostile_value_is_one_argv_element_and_runs_nothing(tmp_path: Path, value: str) -> None:
    pack = _pack(tmp_path, SAY)
    with load_pack(pack) as p:
        for args in ({"word": value}, {"word": "w", "tag": value}, {"word": "w", "note": value}):
            env = p.call("say", args)
            if "\x00" in value:  # no argv element can hold a NUL: refused, never cut short
                assert env["error"]["code"] == "invalid_argument"
                continue
            argv = _argv(env)
            assert value in argv or f"--note={value}" in argv
    assert not list(tmp_path.rglob("pwned")) and not (pack / "out").exists()


def test_a_positional_value_that_looks_like_a_flag_is_refused(tmp_path: Path) -> None:
    pack = _pack(tmp_path, SAY)
    with load_pack(pack) as p:
        refused = p.call("say", {"word": "--exec=evil"})
        assert refused["error"]["code"] == "invalid_argument" and refused["error"]["argument"] == "word"
        assert p.call("say", {"word": "-rf"})["error"]["code"] == "invalid_argument"
        # a flag's own value passes as it is, in both forms; after -- a value is only ever a value
        assert _argv(p.call("say", {"word": "w", "tag": "-x", "note": "--y"})) == [
            "say",
            "w",
            "--tag",
            "-x",
            "--note=--y",
        ]
        assert _argv(p.call("raw", {"word": "--exec=evil"})) == ["raw", "--", "--exec=evil"]


def test_a_missing_optional_drops_its_token_and_its_flag(tmp_path: Path) -> None:
    pack = _pack(tmp_path, SAY)
    with load_pack(pack) as p:
        assert _argv(p.call("say", {"word": "w"})) == ["say", "w"]
        assert _argv(p.call("say", {"word": "w", "tag": None})) == ["say", "w"]


def test_json_flag_default_own_empty_and_skipped(tmp_path: Path) -> None:
    verbs = {
        "plain": {"description": "Default flag.", "cli": ["echo", "plain"]},
        "own": {"description": "Own flag.", "cli": ["echo", "own"], "json_flag": ["--format", "json"]},
        "none": {"description": "No flag.", "cli": ["echo", "none"], "json_flag": []},
        "picks": {"description": "Selects JSON.", "cli": ["echo", "picks", "-o", "json"]},
        "sep": {"description": "Before --.", "cli": ["echo", "sep", "--", "{{x}}"], "args": _props("x")},
    }
    pack = _pack(tmp_path, verbs, {"json_flag": None})
    surface = json.loads((pack / "surface.json").read_text())
    del surface["wrap"]["json_flag"]  # the default, ['--json']
    (pack / "surface.json").write_text(json.dumps(surface))
    with load_pack(pack) as p:
        assert _argv(p.call("plain")) == ["plain", "--json"]
        assert _argv(p.call("own")) == ["own", "--format", "json"]
        assert _argv(p.call("none")) == ["none"]
        assert _argv(p.call("picks")) == ["picks", "-o", "json"]
        assert _argv(p.call("sep", {"x": "v"})) == ["sep", "--json", "--", "v"]


def test_argv_template_expands_the_verb_tail(tmp_path: Path) -> None:
    verbs = {
        "setup.status": {"description": "Tail.", "args": _props()},
        "find": {"description": "With a value."},  # no args: its placeholders are required strings
    }
    pack = _pack(tmp_path, verbs, {"argv_template": ["{{verb}}", "--q={{q}}"]})
    with load_pack(pack) as p:
        assert p.call("find")["error"]["missing"] == ["q"]
        assert _argv(p.call("setup.status")) == ["setup", "status"]
        assert _argv(p.call("find", {"q": "$(x)"})) == ["find", "--q=$(x)"]


def test_a_bin_outside_the_pack_is_refused(tmp_path: Path) -> None:
    for outside in ("/bin/sh", "../outside.py", "./bin/../../outside.py"):
        pack = _pack(tmp_path / outside.replace("/", "_"), SAY, {"bin": outside})
        shutil.copy(ECHO, pack.parent / "outside.py")
        with load_pack(pack) as p:
            env = p.call("say", {"word": "w"})
        assert env["error"]["code"] == "invalid_pack" and "outside" in env["error"]["message"], outside


def test_a_symlink_out_of_the_pack_is_refused(tmp_path: Path) -> None:
    pack = _pack(tmp_path, SAY)
    (pack / "bin" / "echo.py").unlink()
    shutil.copy(ECHO, tmp_path / "elsewhere.py")
    os.symlink(tmp_path / "elsewhere.py", pack / "bin" / "echo.py")
    with load_pack(pack) as p:
        env = p.call("say", {"word": "w"})
    assert env["error"]["code"] == "invalid_pack" and "outside" in env["error"]["message"]
    os.unlink(pack / "bin" / "echo.py")  # a link that stays inside the pack is fine
    shutil.copy(ECHO, pack / "bin" / "real.py")
    os.symlink("real.py", pack / "bin" / "echo.py")
    with load_pack(pack) as p:
        assert _argv(p.call("say", {"word": "w"})) == ["say", "w"]


def test_a_bin_that_hangs_is_killed_at_the_deadline(tmp_path: Path) -> None:
    pack = _pack(tmp_path, {"hang": {"description": "Hangs.", "cli": ["echo", "hang"]}})
    started = time.monotonic()
    with load_pack(pack, limits=Limits(deadline=1.5)) as p:
        env = p.call("hang")
    assert env["error"]["code"] == "timeout" and time.monotonic() - started < 10


def test_a_bin_that_prints_50_mb_is_cut(tmp_path: Path) -> None:
    pack = _pack(tmp_path, {"flood": {"description": "Floods.", "cli": ["echo", "flood"]}})
    with load_pack(pack, limits=Limits(max_response_bytes=1 << 20)) as p:
        env = p.call("flood")
    assert env["ok"] and env["truncated"] == {"limit": 1 << 20}
    assert len(env["body"]) < (1 << 20) + 200 and env["body"].endswith("bytes]")


def test_a_failure_returns_the_end_of_stderr_redacted(tmp_path: Path) -> None:
    pack = _pack(tmp_path, {"fail": {"description": "Fails.", "cli": ["echo", "fail"]}})
    with load_pack(pack, environ={**os.environ, "ECHO_API_TOKEN": "s3cr3t-t0ken"}) as p:
        env = p.call("fail")
    error = env["error"]
    assert error["code"] == "command_failed" and error["exit_status"] == 3
    assert error["stderr"].endswith("the end\n") and len(error["stderr"]) <= 2000
    assert "s3cr3t-t0ken" not in json.dumps(env)


def test_text_on_stdout_is_returned_as_text(tmp_path: Path) -> None:
    pack = _pack(tmp_path, {"text": {"description": "Text.", "cli": ["echo", "text"]}})
    with load_pack(pack) as p:
        assert p.call("text")["body"] == "plain words"


def test_a_write_without_confirmation_runs_nothing(tmp_path: Path) -> None:
    verbs = {
        "touch": {
            "description": "Writes.",
            "cli": ["echo", "{{word}}"],
            "args": _props("word"),
            "preview": {"kind": "record", "title": "Touch {{word}}"},
        }
    }
    pack = _pack(tmp_path, verbs, {"bin": "touch", "workspace": {"mode": "project"}}, rows={"touch": "write"})
    with load_pack(pack, project=tmp_path) as p:
        card = p.call("touch", {"word": "made"})
        assert card["error"]["code"] == "not_confirmed" and card["error"]["preview"]["title"] == "Touch made"
        assert not (tmp_path / "made").exists()
        assert p.call("touch", {"word": "made"}, confirm=True)["ok"]
    assert (tmp_path / "made").exists()  # a bare name on PATH, run in the project


def test_workspace_modes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    verbs = {"where": {"description": "Where.", "cli": ["echo", "where"]}}
    pack = _pack(tmp_path, verbs, {"agent_env": {"ECHO_MODE": "pack", "ECHO_LEVEL": "2"}})
    surface_path = pack / "surface.json"

    def where(mode: str, **kw: Any) -> dict[str, Any]:
        surface = json.loads(surface_path.read_text())
        surface["wrap"]["workspace"] = {"mode": mode}
        surface_path.write_text(json.dumps(surface))
        with load_pack(pack, **kw) as p:
            env = p.call("where")
        return env

    base = {**os.environ, "PACKC_WORKSPACES": str(tmp_path / "ws"), "ECHO_LEVEL": "caller"}
    base.pop("HCP_PROJECT_DIR", None)
    body = where("none", environ=base)["body"]
    assert body["cwd"] == str(pack.resolve()) and body["env"]["ECHO_MODE"] == "pack"
    assert body["env"]["ECHO_LEVEL"] == "caller"  # agent_env fills only what is unset
    project = tmp_path / "proj"
    project.mkdir()
    assert where("project", environ=base, project=project)["body"]["cwd"] == str(project.resolve())
    assert where("project", environ={**base, "HCP_PROJECT_DIR": str(pack)}, project=project)["body"][
        "cwd"
    ] == str(pack.resolve())
    assert where("project", environ=base, project=False)["error"]["code"] == "no_project"
    first = where("workspace", environ=base)["body"]
    assert first["cwd"] == first["env"]["HOME"] == str(tmp_path / "ws" / "echo")
    assert oct(os.stat(first["cwd"]).st_mode & 0o777) == "0o700"
    assert where("workspace", environ=base)["body"]["cwd"] == first["cwd"]  # kept between commands
    one, two = where("ephemeral", environ=base)["body"], where("ephemeral", environ=base)["body"]
    assert one["cwd"] != two["cwd"] and not Path(one["cwd"]).exists()  # fresh, and removed after


@pytest.mark.parametrize("name", ["LD_PRELOAD", "DYLD_INSERT_LIBRARIES", "PATH", "HOME", "BAD NAME"])
def test_agent_env_cannot_set_what_the_runtime_decides(tmp_path: Path, name: str) -> None:
    pack = _pack(
        tmp_path, {"where": {"description": "Where.", "cli": ["echo", "where"]}}, {"agent_env": {name: "x"}}
    )
    with load_pack(pack) as p:
        assert p.call("where")["error"]["code"] == "invalid_pack"


def test_composite_and_sense_only_are_refused_with_a_message_that_says_so(tmp_path: Path) -> None:
    from packc_runtime.errors import InvalidPack

    for kind in ("composite", "sense_only"):
        pack = _pack(tmp_path / kind, SAY)
        surface = json.loads((pack / "surface.json").read_text())
        surface["kind"] = kind
        (pack / "surface.json").write_text(json.dumps(surface))
        with pytest.raises(InvalidPack, match=f"does not run {kind} packs"):
            load_pack(pack)


def test_acall_runs_a_wrap_verb(tmp_path: Path) -> None:
    import asyncio

    pack = _pack(tmp_path, SAY)

    async def go() -> dict[str, Any]:
        async with load_pack(pack) as p:
            return dict(await p.acall("say", {"word": "async"}))

    assert asyncio.run(go())["body"]["argv"] == ["say", "async"]


assert sys.executable  # the fixture bin runs on the python3 of PATH
