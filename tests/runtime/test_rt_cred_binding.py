"""Credentials are bound to origins: a hostile document that names its slot like another API's gets nothing.

Issue 10, item 4. The documents are compiled by packc and served by the echo API on 127.0.0.1; the
user's environment holds GITHUB_TOKEN / OPENAI_API_KEY (for gh and the OpenAI SDK), and the
credentials file holds a GITHUB_TOKEN stored for https://api.github.com.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from packc import compile as compile_api
from packc_runtime import load_pack
from packc_runtime.credentials.store import approve_env, store_credentials
from packc_runtime.faces.cli import connect_main, pack_main
from servers.echo_app import CLIENT_ID, CLIENT_SECRET, EchoApp

pytestmark = pytest.mark.e2e
Server = tuple[EchoApp, str]
REAL = "ghp_real-user-token-0001"
OPENAI = "sk-real-openai-key-0002"


def _document(
    title: str, url: str, scheme: dict[str, Any], extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    ok = {"200": {"description": "ok"}}
    return {
        "openapi": "3.0.3",
        "info": {"title": title, "version": "1"},
        "servers": [{"url": url}],
        "security": [{"auth": []}],
        "components": {"securitySchemes": {"auth": scheme}},
        "paths": {
            f"/echo/{name}": {"get": {"operationId": name, "summary": f"Read {name}", "responses": ok}}
            for name in ("repos", "issues", "gists", "orgs", "teams")
        },
        **(extra or {}),
    }


def _compile(tmp_path: Path, document: dict[str, Any]) -> tuple[Path, str, str]:
    """The pack, its env variable and one of its verbs."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    source = tmp_path / "hostile.json"
    source.write_text(json.dumps(document), "utf-8")
    result = compile_api(source, tmp_path / "packs")
    directory = result.packs[0].directory
    assert directory is not None
    with load_pack(directory, environ={}) as pack:
        return directory, pack.slots[0].env, sorted(pack.verbs)[0]


def _user_setup(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a user of gh and the OpenAI SDK has: ambient variables and a token stored for GitHub."""
    monkeypatch.setenv("GITHUB_TOKEN", REAL)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI)
    store_credentials({"GITHUB_TOKEN": REAL}, ["https://api.github.com"])
    credentials = Path(os.environ["PACKC_CREDENTIALS_FILE"])
    legacy = json.loads(credentials.read_text())
    credentials.write_text(
        json.dumps({**legacy, "GITHUB_TOKEN": REAL, "OPENAI_API_KEY": OPENAI})
    )  # old, unbound


def _leaked(app: EchoApp, before: int) -> list[str]:
    text = json.dumps([[s.raw_path, s.query, s.headers] for s in app.log[before:]])
    return [secret for secret in (REAL, OPENAI, CLIENT_SECRET) if secret in text]


@pytest.mark.parametrize(
    "title, extra, scheme, expected",
    [
        (
            "Repo tools",
            {"x-packc": {"family": "github"}},
            {"type": "http", "scheme": "bearer"},
            "GITHUB_TOKEN",
        ),
        ("OpenAI", None, {"type": "apiKey", "in": "header", "name": "Authorization"}, "OPENAI_API_KEY"),
    ],
)
def test_a_hostile_document_naming_another_apis_slot_gets_nothing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    echo_server: Server,
    title: str,
    extra: dict[str, Any] | None,
    scheme: dict[str, Any],
    expected: str,
) -> None:
    app, url = echo_server
    _user_setup(monkeypatch)
    pack, env, verb = _compile(tmp_path, _document(title, url + "/api", scheme, extra))
    assert env == expected  # the document chose the name: it must not matter
    before = len(app.log)
    with load_pack(pack) as loaded:
        envelope = loaded.call(verb, {})
    assert envelope["error"]["code"] == "unapproved_credentials", envelope
    assert envelope["error"]["origins"] == [url] and "connect --approve-env" in envelope["error"]["message"]
    out, err = io.StringIO(), io.StringIO()  # the pack's own CLI, nobody at a terminal to answer
    code = pack_main(pack, [*verb.split("."), "--json"], stdout=out, stderr=err)
    assert code == 5 and json.loads(out.getvalue())["error"]["code"] == "unapproved_credentials"
    declined = pack_main(pack, verb.split("."), stdout=io.StringIO(), stderr=err, ask=lambda question: "n")
    assert declined == 5
    assert len(app.log) == before and _leaked(app, before) == []  # nothing reached the hostile server


def test_a_stored_credential_serves_only_the_origin_it_was_connected_for(
    tmp_path: Path, echo_server: Server, other_server: Server
) -> None:
    app, url = echo_server
    other_app, other_url = other_server
    scheme = {"type": "http", "scheme": "bearer"}
    real, env, verb = _compile(
        tmp_path / "real", _document("Repo tools", url + "/api", scheme, {"x-packc": {"family": "github"}})
    )
    answers = iter([REAL])
    assert connect_main(real, stdout=io.StringIO(), prompt=lambda text: next(answers)) == 0
    with load_pack(real, environ={}) as loaded:
        assert loaded.call(verb, {})["ok"]
    assert app.log[-1].headers["authorization"] == f"Bearer {REAL}"
    hostile, hostile_env, hostile_verb = _compile(
        tmp_path / "hostile", _document("Evil", other_url + "/api", scheme, {"x-packc": {"family": "github"}})
    )
    assert hostile_env == env
    before = len(other_app.log)
    with load_pack(hostile, environ={}) as loaded:
        envelope = loaded.call(hostile_verb, {})
    assert envelope["error"]["code"] == "missing_credentials" and other_url in envelope["error"]["message"]
    assert len(other_app.log) == before


def test_an_environment_variable_goes_where_the_user_approved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, echo_server: Server
) -> None:
    app, url = echo_server
    monkeypatch.setenv("GITHUB_TOKEN", REAL)
    pack, _, verb = _compile(
        tmp_path,
        _document(
            "Repo tools",
            url + "/api",
            {"type": "http", "scheme": "bearer"},
            {"x-packc": {"family": "github"}},
        ),
    )
    listing = io.StringIO()
    assert connect_main(pack, list_only=True, stdout=listing) == 0
    assert f"for {url}" in listing.getvalue()  # connect --list says which origin the slot is for
    questions: list[str] = []
    out, err = io.StringIO(), io.StringIO()
    code = pack_main(
        pack,
        [*verb.split("."), "--json"],
        stdout=out,
        stderr=err,
        ask=lambda question: questions.append(question) or "y",
    )  # type: ignore[func-returns-value]
    assert code == 0, out.getvalue()
    assert questions and "GITHUB_TOKEN" in questions[0] and url in questions[0]
    assert app.log[-1].headers["authorization"] == f"Bearer {REAL}"
    with load_pack(pack) as loaded:  # remembered, like a known host
        assert loaded.call(verb, {})["ok"]


def test_approve_env_and_trusted_origins_are_the_non_interactive_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, echo_server: Server
) -> None:
    _, url = echo_server
    pack, env, verb = _compile(
        tmp_path, _document("Stripe", url + "/api", {"type": "http", "scheme": "bearer"})
    )
    assert env == "STRIPE_TOKEN"
    with load_pack(pack, environ={env: "sk_test_1", "PACKC_TRUSTED_ORIGINS": url}) as loaded:
        assert loaded.call(verb, {})["ok"]  # CI: the origin named explicitly
    with load_pack(pack, environ={env: "sk_test_1"}) as loaded:
        refused = loaded.call(verb, {})
    assert refused["error"]["code"] == "unapproved_credentials"
    command = refused["error"]["command"]
    assert command.endswith(" connect --approve-env") and str(pack / "bin") in command
    out = io.StringIO()
    assert connect_main(pack, approve_env=True, stdout=out) == 0
    assert f"Approved STRIPE_TOKEN from your environment for {url}" in out.getvalue()
    with load_pack(pack, environ={env: "sk_test_1"}) as loaded:
        assert loaded.call(verb, {})["ok"]


def test_client_credentials_never_reach_a_token_url_on_another_origin(
    tmp_path: Path, echo_server: Server, other_server: Server
) -> None:
    app, url = echo_server
    other_app, other_url = other_server
    scheme = {
        "type": "oauth2",
        "flows": {"clientCredentials": {"tokenUrl": other_url + "/oauth/token", "scopes": {}}},
    }
    pack, env, verb = _compile(
        tmp_path, _document("Repo tools", url + "/api", scheme, {"x-packc": {"family": "github"}})
    )
    assert env == "GITHUB_CLIENT_ID"
    approve_env(
        ["GITHUB_CLIENT_ID", "GITHUB_CLIENT_SECRET"], [url]
    )  # approved for the API, not the token URL
    before, other_before = len(app.log), len(other_app.log)
    with load_pack(
        pack, environ={"GITHUB_CLIENT_ID": CLIENT_ID, "GITHUB_CLIENT_SECRET": CLIENT_SECRET}
    ) as loaded:
        envelope = loaded.call(verb, {})
        assert envelope["error"]["code"] == "unapproved_credentials" and envelope["error"]["origins"] == [
            other_url
        ]
        assert loaded.slot_origins()["GITHUB_CLIENT_SECRET"] == (url, other_url)  # what connect binds
    assert len(other_app.log) == other_before and len(app.log) == before


def test_connect_server_binds_to_a_mock_origin_only(
    tmp_path: Path, echo_server: Server, other_server: Server
) -> None:
    app, url = echo_server
    _, mock = other_server
    pack, env, verb = _compile(
        tmp_path, _document("Stripe", "https://api.stripe.example/v1", {"type": "http", "scheme": "bearer"})
    )
    out = (
        io.StringIO()
    )  # the pack's own CLI: approve the variable for the local mock, not the document's server
    assert pack_main(pack, ["connect", "--approve-env", "--server", url + "/api"], stdout=out) == 0
    assert f"for {url} " in out.getvalue()
    with load_pack(pack, environ={env: "sk_test_mock"}) as loaded:
        assert loaded.call(verb, {}, server=url + "/api")["ok"]
        assert app.log[-1].headers["authorization"] == "Bearer sk_test_mock"
        elsewhere = loaded.call(verb, {}, server=mock + "/api")  # another local port: not bound
        assert elsewhere["error"]["code"] == "untrusted_server"
        assert (
            loaded.call(verb, {})["error"]["code"] == "unapproved_credentials"
        )  # the real origin: not approved
    answers = iter(["sk_test_stored"])
    assert (
        connect_main(pack, server=mock + "/api", stdout=io.StringIO(), prompt=lambda text: next(answers)) == 0
    )
    stored = json.loads(Path(os.environ["PACKC_CREDENTIALS_FILE"]).read_text())
    assert stored == {mock: {env: "sk_test_stored"}}
