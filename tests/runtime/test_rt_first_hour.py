"""What a user meets in the first hour (issue 12, item 7): `packc call --json`, the unknown-verb
message, connection_failed naming host and port, anyOf errors naming the field, --allow-outside."""

from __future__ import annotations

import io
import json
import socket
from pathlib import Path

import pytest

from packc.cli import main as packc_main
from packc_runtime.calling.args import validate_args
from packc_runtime.errors import InvalidArgument
from packc_runtime.faces.cli import pack_main
from servers import PACKS
from servers.echo_app import EchoApp

Server = tuple[EchoApp, str]


def test_packc_call_accepts_json(echo_server: Server, capsys: pytest.CaptureFixture[str]) -> None:
    _, url = echo_server
    code = packc_main(
        [
            "call",
            str(PACKS / "echo"),
            "items.get",
            "--args",
            '{"item_id": "3"}',
            "--json",
            "--server",
            url + "/api",
        ]
    )
    assert code == 0 and json.loads(capsys.readouterr().out)["ok"] is True


def test_unknown_verb_names_the_words_not_the_flags_and_suggests() -> None:
    err = io.StringIO()
    code = pack_main(
        PACKS / "echo",
        ["items", "gett", "42", "--server", "http://127.0.0.1:9/x", "--limit", "5"],
        stdout=io.StringIO(),
        stderr=err,
    )
    assert code == 2
    message = err.getvalue()
    assert (
        "no verb 'items gett'" in message
        and "42" not in message
        and "--server" not in message
        and "127.0.0.1" not in message
    )
    assert "Did you mean 'echo items get'?" in message
    out = io.StringIO()
    pack_main(PACKS / "echo", ["zebra", "--json"], stdout=out, stderr=io.StringIO())
    assert "Did you mean" not in json.loads(out.getvalue())["error"]["message"]


def test_connection_failed_names_host_and_port() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens there now
    out = io.StringIO()
    code = pack_main(
        PACKS / "echo",
        ["items", "get", "1", "--server", f"http://127.0.0.1:{port}/api", "--json"],
        stdout=out,
        stderr=io.StringIO(),
    )
    error = json.loads(out.getvalue())["error"]
    assert code != 0 and error["code"] == "connection_failed"
    assert (
        f"127.0.0.1 port {port}" in error["message"]
        and error["port"] == port
        and error["host"] == "127.0.0.1"
    )


def test_an_any_of_argument_error_names_the_wrong_field() -> None:
    address = {"type": "object", "properties": {"city": {"type": "string"}}, "additionalProperties": False}
    shipping = {
        "anyOf": [
            {
                "type": "object",
                "properties": {"name": {"type": "string"}, "address": address},
                "required": ["name"],
                "unevaluatedProperties": False,
            },
            {"type": "string", "enum": [""]},
        ]
    }
    schema = {"type": "object", "properties": {"shipping": shipping}}
    with pytest.raises(InvalidArgument) as info:
        validate_args("orders.create", schema, {"shipping": {"name": "x", "nmae": "y"}})
    assert "shipping: unknown field(s) 'nmae' (known: address, name)" in str(info.value)
    with pytest.raises(InvalidArgument) as info:
        validate_args("orders.create", schema, {"shipping": {"name": "x", "address": {"cty": "Oslo"}}})
    assert "shipping: unknown field(s) 'cty' at address (known: city)" in str(info.value)


def test_compile_has_the_allow_outside_flag_d022_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "pet.json").write_text(
        json.dumps({"type": "object", "properties": {"n": {"type": "string"}}})
    )
    (tmp_path / "api").mkdir()
    ok = {
        "200": {
            "description": "ok",
            "content": {"application/json": {"schema": {"$ref": "../shared/pet.json"}}},
        }
    }
    doc = {
        "openapi": "3.0.3",
        "info": {"title": "Pets", "version": "1"},
        "servers": [{"url": "https://p.example"}],
        "paths": {f"/p{i}": {"get": {"responses": ok}} for i in range(5)},
    }
    (tmp_path / "api" / "api.json").write_text(json.dumps(doc))
    packc_main(["compile", str(tmp_path / "api" / "api.json"), "-o", str(tmp_path / "a")])
    captured = capsys.readouterr()
    assert "D022" in captured.out + captured.err and "--allow-outside" in captured.out + captured.err
    code = packc_main(
        ["compile", str(tmp_path / "api" / "api.json"), "-o", str(tmp_path / "b"), "--allow-outside"]
    )
    captured = capsys.readouterr()
    assert code == 0 and "D022" not in captured.out + captured.err
