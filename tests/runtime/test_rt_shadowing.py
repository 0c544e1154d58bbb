"""Credentials win over arguments of the same name: ``?api_key=ATTACKER&api_key=REAL`` is never sent.

Issue 10, item 11 (first half). The compiler leaves such parameters out of args (C159); the runtime
refuses an argument that would be sent under a credential's name in the same place, for packs
written before or by hand (defence in depth).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from packc import compile as compile_api
from packc_runtime import load_pack
from servers import PACKS
from servers.echo_app import EchoApp

Server = tuple[EchoApp, str]
REAL = "real-key-0001"
ENV = {"AUTHZ_KEY_QUERY_API_KEY": REAL, "AUTHZ_KEY_COOKIE_API_KEY": REAL, "AUTHZ_KEY_HEADER_API_KEY": REAL}
# verb -> (scheme, where the argument goes, its schema)
SHADOWS: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "shadow.query": ("keyQuery", {"in": "query", "name": "api_key"}, {"type": "string"}),
    "shadow.cookie": ("keyCookie", {"in": "cookie", "name": "sid"}, {"type": "string"}),
    "shadow.header": ("keyHeader", {"in": "header", "name": "x-api-key"}, {"type": "string"}),
    "shadow.object": (
        "keyQuery",
        {"in": "query", "name": "filter"},
        {"type": "object"},
    ),  # form, explode: key=value
    # Red team: exact names only let ``?API_KEY=ATTACKER&api_key=REAL`` through; a server reading
    # query keys or cookies case-insensitively (ASP.NET) sees two values of the credential's key.
    "shadow.query_case": ("keyQuery", {"in": "query", "name": "API_KEY"}, {"type": "string"}),
    "shadow.cookie_case": ("keyCookie", {"in": "cookie", "name": "SID"}, {"type": "string"}),
    "shadow.header_case": ("keyHeader", {"in": "header", "name": "X-Api-KEY"}, {"type": "string"}),
}


@pytest.fixture()
def pack_dir(tmp_path: Path) -> Path:
    """The authz fixture pack plus verbs written as an older packc wrote them: the credential's
    parameter is also an argument."""
    target = tmp_path / "authz"
    shutil.copytree(PACKS / "authz", target)
    document = json.loads((target / "openapi.json").read_text())
    surface = json.loads((target / "surface.json").read_text())
    policy = json.loads((target / "policy.json").read_text())
    for verb, (scheme, where, schema) in SHADOWS.items():
        document["paths"][f"/secure/{verb.split('.')[1]}"] = {
            "get": {
                "operationId": verb.replace(".", "_"),
                "security": [{scheme: []}],
                "parameters": [{**where, "schema": schema}],
                "responses": {"200": {"description": "echo"}},
                "x-packc-binding": {"verb": verb, "args": {"value": where}},
            }
        }
        surface["verbs"][verb] = {
            "description": "Echo, with an argument where the credential goes.",
            "cli": ["authz", *verb.split(".")],
            "args": {"type": "object", "properties": {"value": schema}},
        }
        policy["commands"][verb] = {"access": "read"}
    for name, value in (("openapi.json", document), ("surface.json", surface), ("policy.json", policy)):
        (target / name).write_text(json.dumps(value, indent=2))
    return target


@pytest.mark.e2e
@pytest.mark.parametrize(
    "verb, value",
    [
        ("shadow.query", "ATTACKER"),
        ("shadow.cookie", "ATTACKER"),
        ("shadow.header", "ATTACKER"),
        ("shadow.object", {"api_key": "ATTACKER"}),
        ("shadow.query_case", "ATTACKER"),
        ("shadow.cookie_case", "ATTACKER"),
        ("shadow.header_case", "ATTACKER"),
        ("shadow.object", {"Api_Key": "ATTACKER"}),
    ],
)
def test_an_argument_named_like_the_credential_is_refused(
    pack_dir: Path, echo_server: Server, verb: str, value: Any
) -> None:
    app, url = echo_server
    before = len(app.log)
    with load_pack(pack_dir, environ={**ENV, "PACKC_TRUSTED_ORIGINS": url}) as pack:
        envelope = pack.call(verb, {"value": value}, server=url + "/api")
        assert envelope["error"]["code"] == "invalid_argument", envelope
        assert (
            envelope["error"]["argument"] == "value"
            and "credential always wins" in envelope["error"]["message"]
        )
        assert len(app.log) == before  # nothing sent, so no `?api_key=ATTACKER&api_key=REAL`
        assert pack.call(verb, {}, server=url + "/api")["ok"]  # without the argument: the credential alone
    sent = app.log[-1]
    assert sent.query.lower().count("api_key=") <= 1 and "ATTACKER" not in json.dumps(
        [sent.query, sent.headers]
    )


@pytest.mark.e2e
def test_the_compiler_leaves_the_credential_parameter_out_of_args(
    tmp_path: Path, echo_server: Server
) -> None:
    app, url = echo_server
    key = {"name": "api_key", "in": "query", "schema": {"type": "string"}}
    sid = {"name": "sid", "in": "cookie", "schema": {"type": "string"}}
    document = {
        "openapi": "3.0.3",
        "info": {"title": "Keyed", "version": "1"},
        "servers": [{"url": url + "/api"}],
        "security": [{"key": []}, {"cookie": []}],
        "components": {
            "securitySchemes": {
                "key": {"type": "apiKey", "in": "query", "name": "api_key"},
                "cookie": {"type": "apiKey", "in": "cookie", "name": "sid"},
            }
        },
        "paths": {
            f"/echo/{name}": {
                "get": {
                    "operationId": name,
                    "responses": {"200": {"description": "ok"}},
                    "parameters": [key, sid, {"name": "q", "in": "query", "schema": {"type": "string"}}],
                }
            }
            for name in ("a", "b", "c", "d", "e")
        },
    }
    source = tmp_path / "keyed.json"
    source.write_text(json.dumps(document))
    result = compile_api(source, tmp_path / "packs")
    c159 = [d for d in result.diagnostics if d.code == "C159"]
    assert len(c159) == 10 and "'api_key'" in c159[0].message and c159[0].pointer.endswith("/parameters/0")
    pack = result.packs[0].directory
    assert pack is not None
    surface = json.loads((pack / "surface.json").read_text())
    assert all(set(v["args"]["properties"]) == {"q"} for v in surface["verbs"].values())
    with load_pack(pack, environ={"KEYED_KEY_API_KEY": REAL, "PACKC_TRUSTED_ORIGINS": url}) as loaded:
        verb = sorted(loaded.verbs)[0]
        assert loaded.call(verb, {"q": "x"})["ok"]
        refused = loaded.call(verb, {"q": "x", "api_key": "ATTACKER"})
    assert refused["error"]["code"] == "unknown_argument"
    assert app.log[-1].query == f"q=x&api_key={REAL}"


def test_the_compiler_leaves_out_a_credential_parameter_of_another_case(tmp_path: Path) -> None:
    """``API_KEY`` in the query and ``SID`` as a cookie are where ``api_key``/``sid`` credentials go."""
    document = {
        "openapi": "3.0.3",
        "info": {"title": "Keyed", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9"}],
        "security": [{"key": [], "cookie": []}],
        "components": {
            "securitySchemes": {
                "key": {"type": "apiKey", "in": "query", "name": "api_key"},
                "cookie": {"type": "apiKey", "in": "cookie", "name": "sid"},
            }
        },
        "paths": {
            f"/echo/{name}": {
                "get": {
                    "operationId": name,
                    "responses": {"200": {"description": "ok"}},
                    "parameters": [
                        {"name": "API_KEY", "in": "query"},
                        {"name": "Sid", "in": "cookie"},
                        # another place; marked, since its name alone would make it a credential (C172)
                        {"name": "api_key", "in": "header", "x-packc": {"credential": False}},
                        {"name": "q", "in": "query"},
                    ],
                }
            }
            for name in ("a", "b", "c", "d", "e")
        },
    }
    source = tmp_path / "keyed.json"
    source.write_text(json.dumps(document))
    result = compile_api(source, tmp_path / "packs")
    assert sorted({d.pointer.rsplit("/", 1)[-1] for d in result.diagnostics if d.code == "C159"}) == [
        "0",
        "1",
    ]
    pack = result.packs[0].directory
    assert pack is not None
    surface = json.loads((pack / "surface.json").read_text())
    assert all(set(v["args"]["properties"]) == {"q", "api_key"} for v in surface["verbs"].values())
