"""Credentials: slot names, sources in order, the owner-only file, keyring safety, redaction."""

from __future__ import annotations

import io
import json
import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import keyring
import pytest

from packc_runtime import load_pack
from packc_runtime.calling.openapi.operations import load_document
from packc_runtime.credentials import slots as credentials
from packc_runtime.credentials import store as credstore
from packc_runtime.credentials.slots import CredentialSources, credential_slots
from packc_runtime.credentials.store import keyring_status, store_credentials
from packc_runtime.errors import CredentialStoreError
from packc_runtime.faces.cli import connect_main
from packc_runtime.format.manifest import read_manifest
from servers import FIXTURE_ORIGIN, PACKS
from servers.memory_keyring import MemoryKeyring

ORIGIN = FIXTURE_ORIGIN


class PlaintextKeyring(MemoryKeyring):
    pass


PlaintextKeyring.__module__ = "keyrings.alt.file"


@pytest.fixture()
def memory_keyring(monkeypatch: pytest.MonkeyPatch) -> Iterator[MemoryKeyring]:
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    monkeypatch.delenv("PACKC_KEYRING")
    monkeypatch.setattr(credstore, "_LOOKUP_BACKENDS", {})  # forget the process's backend lookup
    yield backend
    keyring.set_keyring(previous)


def test_slot_names_follow_the_contract() -> None:
    manifest, _ = read_manifest(PACKS / "authz")
    assert manifest is not None
    slots = credential_slots(manifest, load_document(PACKS / "authz" / "openapi.json"))
    assert [(s.env, s.scheme, s.kind) for s in slots] == [
        ("AUTHZ_USERNAME", "basic", "username"),
        ("AUTHZ_PASSWORD", "basic", "password"),
        ("AUTHZ_BEARER_TOKEN", "bearer", "token"),
        ("AUTHZ_KEY_COOKIE_API_KEY", "keyCookie", "api_key"),
        ("AUTHZ_KEY_HEADER_API_KEY", "keyHeader", "api_key"),
        ("AUTHZ_KEY_QUERY_API_KEY", "keyQuery", "api_key"),
        ("AUTHZ_CLIENT_ID", "oauthCC", "client_id"),
        ("AUTHZ_CLIENT_SECRET", "oauthCC", "client_secret"),
        ("AUTHZ_OAUTH_CODE_TOKEN", "oauthCode", "token"),
        ("AUTHZ_OIDC_TOKEN", "oidc", "token"),
    ]
    assert all(s.description for s in slots)


def test_single_scheme_gets_the_plain_name() -> None:
    doc = {
        "paths": {"/a": {"get": {"x-packc-binding": {"verb": "a", "args": {}}}}},
        "security": [{"k": []}],
        "components": {"securitySchemes": {"k": {"type": "apiKey", "in": "header", "name": "X-Key"}}},
    }

    class View:
        id = "pet-store"
        binding = None

    assert [s.env for s in credential_slots(View(), doc)] == ["PET_STORE_API_KEY"]


def _write_file(path: Path, data: dict[str, Any], mode: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))
    path.chmod(mode)


def test_sources_in_order_env_keyring_file(memory_keyring: MemoryKeyring, tmp_path: Path) -> None:
    file = Path(os.environ["PACKC_CREDENTIALS_FILE"])
    _write_file(
        file, {ORIGIN: {"A": "from-file", "B": "from-file", "C": "from-file"}, "E": "old-unbound"}, 0o600
    )
    memory_keyring.set_password("packc", f"A@{ORIGIN}", "from-keyring")
    memory_keyring.set_password("packc", f"B@{ORIGIN}", "from-keyring")
    memory_keyring.set_password("packc", "E", "old-unbound")
    credstore.approve_env(["A"], [ORIGIN])
    sources = CredentialSources({"A": "from-env", "E": "env-unapproved"})
    assert [sources.get(name, ORIGIN) for name in "ABCDE"] == [
        "from-env",
        "from-keyring",
        "from-file",
        None,
        None,
    ]
    # another origin gets nothing: not the environment (not approved there), nor what is stored for O
    assert [sources.get(name, "http://127.0.0.1:8") for name in "ABC"] == [None, None, None]


def test_credentials_file_readable_by_others_is_refused() -> None:
    file = Path(os.environ["PACKC_CREDENTIALS_FILE"])
    _write_file(file, {ORIGIN: {"A": "x"}}, 0o644)
    with pytest.raises(CredentialStoreError, match="is refused"):
        CredentialSources({}).get("A", ORIGIN)
    file.chmod(0o600)
    assert CredentialSources({}).get("A", ORIGIN) == "x"


def test_plaintext_or_failing_keyrings_are_refused_unless_opted_in(monkeypatch: pytest.MonkeyPatch) -> None:
    previous = keyring.get_keyring()
    try:
        monkeypatch.delenv("PACKC_KEYRING")
        keyring.set_keyring(PlaintextKeyring())
        backend, why = keyring_status()
        assert backend is None and "not a secure store" in why
        monkeypatch.setenv("PACKC_KEYRING", "allow-insecure")
        assert keyring_status()[0] is not None
        monkeypatch.setenv("PACKC_KEYRING", "off")
        assert keyring_status()[0] is None
    finally:
        keyring.set_keyring(previous)


def test_store_falls_back_to_an_owner_only_file() -> None:
    where = store_credentials({"X_TOKEN": "tok-value"}, ["HTTPS://API.Example.com:443/v1"])
    path = Path(where)
    assert path == Path(os.environ["PACKC_CREDENTIALS_FILE"])
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text()) == {"https://api.example.com": {"X_TOKEN": "tok-value"}}
    store_credentials({"Y_TOKEN": "second"}, ["https://api.example.com"])
    assert json.loads(path.read_text()) == {
        "https://api.example.com": {"X_TOKEN": "tok-value", "Y_TOKEN": "second"}
    }
    with pytest.raises(CredentialStoreError):
        store_credentials({"Z": "v"}, ["https://api.example.com"], target="keyring")
    with pytest.raises(CredentialStoreError, match="no http"):  # never stored unbound
        store_credentials({"Z": "v"}, [])


def test_store_uses_a_secure_keyring(memory_keyring: MemoryKeyring) -> None:
    assert store_credentials({"X_TOKEN": "in-keyring"}, ["https://api.example.com"]) == "keyring"
    assert memory_keyring.store == {("packc", "X_TOKEN@https://api.example.com"): "in-keyring"}


def test_connect_lists_and_stores_without_echo() -> None:
    out = io.StringIO()
    assert connect_main(PACKS / "authz", list_only=True, as_json=True, stdout=out) == 0
    listing = json.loads(out.getvalue())
    assert listing["pack"] == "authz"
    assert {
        "env": "AUTHZ_BEARER_TOKEN",
        "scheme": "bearer",
        "kind": "token",
        "origins": [ORIGIN],
    }.items() <= listing["credentials"][2].items()
    answers = {"AUTHZ_BEARER_TOKEN": "bearer-typed-secret"}
    out = io.StringIO()
    code = connect_main(PACKS / "authz", stdout=out, prompt=lambda text: answers.get(text.split(" ")[0], ""))
    assert code == 0
    assert "bearer-typed-secret" not in out.getvalue() and "AUTHZ_BEARER_TOKEN" in out.getvalue()
    assert json.loads(Path(os.environ["PACKC_CREDENTIALS_FILE"]).read_text()) == {ORIGIN: answers}


def _echo_transport() -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"url": str(request.url), "headers": dict(request.headers)})

    return httpx.MockTransport(handler)


def test_secrets_are_redacted_from_envelopes_logs_and_reprs(caplog: pytest.LogCaptureFixture) -> None:
    env = {
        "AUTHZ_KEY_QUERY_API_KEY": "query-secret-777",
        "AUTHZ_KEY_HEADER_API_KEY": "header-secret-888",
        "AUTHZ_USERNAME": "alice",
        "AUTHZ_PASSWORD": "pw-secret-999",
    }
    caplog.set_level(logging.INFO, logger="httpx")
    with load_pack(PACKS / "authz", transport=_echo_transport(), environ=env) as pack:
        results = [pack.call(v, {}) for v in ("whoami.query", "whoami.header", "whoami.basic")]
        text = json.dumps(results) + caplog.text + repr(pack) + repr(pack._auth)
    assert all(r["ok"] for r in results)
    assert "api_key=***" in results[0]["body"]["url"]
    assert results[1]["body"]["headers"]["x-api-key"] == "***"
    assert results[2]["body"]["headers"]["authorization"] == "Basic ***"
    for secret in env.values():
        if secret != "alice":  # short, non-secret usernames stay readable
            assert secret not in text
    assert "query-secret" not in caplog.text and "HTTP Request" in caplog.text


def test_missing_credentials_name_the_variables() -> None:
    seen: list[httpx.Request] = []
    transport = httpx.MockTransport(lambda r: seen.append(r) or httpx.Response(200))  # type: ignore[func-returns-value]
    with load_pack(PACKS / "authz", transport=transport, environ={}) as pack:
        envelope = pack.call("whoami.either", {})
    assert envelope["error"]["code"] == "missing_credentials"
    assert envelope["error"]["env"] == [
        "AUTHZ_BEARER_TOKEN",
        "AUTHZ_KEY_HEADER_API_KEY",
        "AUTHZ_PASSWORD",
        "AUTHZ_USERNAME",
    ]
    assert seen == []


def test_first_satisfiable_requirement_wins() -> None:
    with load_pack(
        PACKS / "authz", transport=_echo_transport(), environ={"AUTHZ_BEARER_TOKEN": "bt-secret-1"}
    ) as p:
        headers: dict[str, Any] = p.call("whoami.either", {})["body"]["headers"]
    assert headers["authorization"] == "Bearer ***" and "x-api-key" not in headers
    env = {
        "AUTHZ_BEARER_TOKEN": "bt-secret-1",
        "AUTHZ_KEY_HEADER_API_KEY": "kh-secret-2",
        "AUTHZ_USERNAME": "bob",
        "AUTHZ_PASSWORD": "pw-secret-3",
    }
    with load_pack(PACKS / "authz", transport=_echo_transport(), environ=env) as p:
        headers = p.call("whoami.either", {})["body"]["headers"]
    assert headers["x-api-key"] == "***" and headers["authorization"] == "Basic ***"


def test_credential_with_newline_is_refused() -> None:
    with load_pack(
        PACKS / "authz", transport=_echo_transport(), environ={"AUTHZ_BEARER_TOKEN": "a\r\nX: y"}
    ) as p:
        envelope = p.call("whoami.bearer", {})
    assert envelope["error"]["code"] == "missing_credentials"
    assert "X: y" not in json.dumps(envelope)


def test_server_override_to_a_foreign_origin_gets_no_credentials() -> None:
    seen: list[httpx.Request] = []
    transport = httpx.MockTransport(lambda r: seen.append(r) or httpx.Response(200, json={}))  # type: ignore[func-returns-value]
    env = {
        "AUTHZ_BEARER_TOKEN": "bt-secret-1",
        "AUTHZ_CLIENT_ID": "cid-1",
        "AUTHZ_CLIENT_SECRET": "cs-secret-2",
    }
    with load_pack(PACKS / "authz", transport=transport, environ=env) as pack:
        for verb in ("whoami.bearer", "whoami.oauth"):
            envelope = pack.call(verb, {}, server="https://evil.example/api")
            assert envelope["error"]["code"] == "untrusted_server"
        assert seen == []  # not even the token request
        # loopback is not trusted as such: another local user may listen there
        refused = pack.call("whoami.bearer", {}, server="http://localhost:8080/api")
        assert refused["error"]["code"] == "untrusted_server" and seen == []
        assert "--approve-env --server http://localhost:8080" in refused["error"]["message"]
        assert pack.call("whoami.bearer", {}, server="http://127.0.0.1:9/other")[
            "ok"
        ]  # the document's origin
    credstore.approve_env(["AUTHZ_BEARER_TOKEN"], ["http://localhost:8080"])  # connect --approve-env --server
    with load_pack(PACKS / "authz", transport=transport, environ=env) as pack:
        assert pack.call("whoami.bearer", {}, server="http://localhost:8080/api")["ok"]
    trusted = {**env, "PACKC_TRUSTED_ORIGINS": "https://staging.example, https://evil.example:443"}
    with load_pack(PACKS / "authz", transport=transport, environ=trusted) as pack:
        assert pack.call("whoami.bearer", {}, server="https://evil.example/api")["ok"]
        assert (
            pack.call("whoami.bearer", {}, server="https://evil.example:8443/api")["error"]["code"]
            == "untrusted_server"
        )
    assert seen[-1].url.host == "evil.example" and seen[-1].headers["Authorization"] == "Bearer bt-secret-1"


def test_keyring_is_never_imported_when_switched_off() -> None:
    import subprocess
    import sys

    code = (
        "import sys, httpx; from packc_runtime import load_pack\n"
        "t = httpx.MockTransport(lambda r: httpx.Response(200, json={}))\n"
        f"with load_pack({str(PACKS / 'authz')!r}, transport=t) as p:\n"
        "    e = p.call('whoami.bearer', {})\n"
        "assert e['error']['code'] == 'missing_credentials', e\n"
        "print('keyring' in sys.modules)\n"
    )
    env = {**os.environ, "PACKC_KEYRING": "off"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert done.stdout.strip() == "False", done.stderr


def test_keyring_backend_is_looked_up_once_per_process_and_each_name_once(
    memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    lookups: list[str] = []
    real_status = credstore.keyring_status
    monkeypatch.setattr(credstore, "keyring_status", lambda: lookups.append("status") or real_status())
    asked: list[str] = []
    real_get = memory_keyring.get_password
    monkeypatch.setattr(memory_keyring, "get_password", lambda s, n: asked.append(n) or real_get(s, n))
    memory_keyring.set_password("packc", f"A@{ORIGIN}", "from-keyring")
    first, second = CredentialSources({}), CredentialSources({})
    assert [
        first.get("A", ORIGIN),
        first.get("A", ORIGIN),
        first.get("B", ORIGIN),
        second.get("A", ORIGIN),
    ] == ["from-keyring"] * 2 + [None] + ["from-keyring"]
    assert lookups == ["status"]  # one backend lookup for the process
    assert asked == [
        f"A@{ORIGIN}",
        f"B@{ORIGIN}",
        f"A@{ORIGIN}",
    ]  # one keyring read per name, origin and pack


def test_requirement_met_by_the_environment_does_not_touch_the_keyring(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_keyring() -> None:
        raise AssertionError("the keyring was consulted")

    monkeypatch.delenv("PACKC_KEYRING")
    monkeypatch.setattr(credentials, "lookup_backend", no_keyring)
    # whoami.either: [key header AND basic] OR [bearer]; only the second is in the environment
    with load_pack(
        PACKS / "authz", transport=_echo_transport(), environ={"AUTHZ_BEARER_TOKEN": "bt-secret-1"}
    ) as p:
        envelope = p.call("whoami.either", {})
    assert envelope["ok"], envelope
    assert envelope["body"]["headers"]["authorization"] == "Bearer ***"
