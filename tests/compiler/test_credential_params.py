"""Credentials declared as parameters (issue 24, item 1): the pack's credential, never an argument.

Slack's Web API takes its token as a ``token`` parameter (in the query, or a header), not as a
security scheme; ``SLACK_TOKEN`` set and approved still left every verb asking for ``--token``.
``packc/build/implied.py`` makes such a parameter an apiKey scheme in its place (C172); the
name rule is ``packc_runtime.credentials.redact.is_credential_parameter``.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest

from packc import compile as compile_api
from packc_runtime.credentials.redact import is_credential_parameter, is_secret_argument
from servers.echo_app import EchoApp
from servers.runner import serve

from .helpers import write_doc

OK = {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}}
SECRET = "xoxb-0000-secret-value"
TOKEN_QUERY = {
    "name": "token",
    "in": "query",
    "description": "Authentication token. Requires scope: `channels:read`",
    "schema": {"type": "string"},
}
TOKEN_HEADER = {
    "name": "token",
    "in": "header",
    "required": True,
    "description": "Authentication token. Requires scope: `chat:write`",
    "schema": {"type": "string"},
}


def _slackish(server: str = "https://slack.example.com") -> dict[str, Any]:
    """A Slack-like document: the token is a parameter on every operation, no security scheme."""

    def get(name: str, *more: dict[str, Any]) -> dict[str, Any]:
        return {
            "get": {
                "operationId": name,
                "summary": f"{name}.",
                "parameters": [TOKEN_QUERY, *more],
                "responses": OK,
            }
        }

    paths: dict[str, Any] = {
        "/api/echo/conversations.list": get(
            "conversations_list",
            {"name": "limit", "in": "query", "schema": {"type": "integer"}},
            {
                "name": "page_token",
                "in": "query",
                "description": "The next page.",
                "schema": {"type": "string"},
            },
        ),
        "/api/echo/conversations.history": get(
            "conversations_history",
            {"name": "channel", "in": "query", "required": True, "schema": {"type": "string"}},
        ),
        "/api/echo/users.list": get("users_list"),
        "/api/echo/objects/{key}": get(
            "objects_get",
            {
                "name": "key",
                "in": "path",
                "required": True,
                "description": "The key of the object.",
                "schema": {"type": "string"},
            },
        ),
        "/api/echo/chat.postMessage": {
            "post": {
                "operationId": "chat_postMessage",
                "summary": "Sends a message to a channel.",
                "parameters": [
                    TOKEN_HEADER,
                    {"name": "Idempotency-Key", "in": "header", "schema": {"type": "string"}},
                ],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/x-www-form-urlencoded": {
                            "schema": {
                                "type": "object",
                                "required": ["channel"],
                                "properties": {"channel": {"type": "string"}, "text": {"type": "string"}},
                            }
                        }
                    },
                },
                "responses": OK,
            }
        },
    }
    return {
        "openapi": "3.0.3",
        "info": {"title": "Slackish", "version": "1"},
        "servers": [{"url": server}],
        "paths": paths,
    }


def _compile(tmp_path: Path, document: dict[str, Any]) -> tuple[Any, Path]:
    result = compile_api(write_doc(tmp_path, document), tmp_path / "packs")
    assert result.ok, [str(d) for d in result.diagnostics]
    directory = result.packs[0].directory
    assert directory is not None
    return result, directory


def _args(directory: Path) -> dict[str, set[str]]:
    """Each verb's argument names, by the verb's name without its group (``echo.users.list`` -> ``users.list``)."""
    surface = json.loads((directory / "surface.json").read_text())
    return {
        verb.removeprefix("echo."): set(spec["args"].get("properties", {}))
        for verb, spec in surface["verbs"].items()
    }


def _command(spec: dict[str, Any]) -> list[str]:
    """A verb's command words: its cli line up to the first option or placeholder, without the cliBin."""
    words = []
    for word in spec["cli"][1:]:
        if word.startswith(("--", "{{")):
            break
        words.append(word)
    return words


def test_a_token_parameter_is_the_packs_credential_not_an_argument(tmp_path: Path) -> None:
    document = _slackish()
    before = copy.deepcopy(document)
    result, directory = _compile(tmp_path, document)
    assert document == before  # the document read is not changed
    args = _args(directory)
    assert all("token" not in names for names in args.values()), args
    # false positives stay arguments: a page token, a path key, an idempotency key
    assert "page_token" in args["conversations.list"]
    assert args["objects.get"] == {"key"}
    assert "idempotency_key" in args["chat.post_message"]
    recognised = [d for d in result.diagnostics if d.code == "C172"]
    assert len(recognised) == 5 and all(d.pointer.endswith("/parameters/0") for d in recognised)
    assert not [d for d in result.diagnostics if d.code in ("C159", "C121")]
    cut = json.loads((directory / "openapi.json").read_text())
    schemes = cut["components"]["securitySchemes"]
    assert {(s["in"], s["name"]) for s in schemes.values()} == {("query", "token"), ("header", "token")}
    listed = cut["paths"]["/api/echo/conversations.list"]["get"]["security"]
    assert listed[-1] == {}  # optional in the document: the call may go without it
    posted = cut["paths"]["/api/echo/chat.postMessage"]["post"]["security"]
    assert posted == [{next(k for k, s in schemes.items() if s["in"] == "header"): []}]  # required
    text = (directory / "HARNESS.md").read_text() + (directory / "README.md").read_text()
    assert "--token" not in text and "token example" not in text
    surface = json.loads((directory / "surface.json").read_text())
    assert all(
        "--token" not in spec["cli"] and "{{token}}" not in spec["cli"] for spec in surface["verbs"].values()
    )


def test_x_packc_credential_false_keeps_the_parameter_an_argument(tmp_path: Path) -> None:
    document = _slackish()
    mine = {**TOKEN_QUERY, "x-packc": {"credential": False}}
    document["paths"]["/api/echo/users.list"]["get"]["parameters"] = [mine]
    result, directory = _compile(tmp_path, document)
    assert "token" in _args(directory)["users.list"]
    assert not [d for d in result.diagnostics if d.code == "C172" and "users.list" in d.pointer]


def test_x_packc_credential_true_makes_any_name_the_credential(tmp_path: Path) -> None:
    document = _slackish()
    sid = {
        "name": "sid",
        "in": "cookie",
        "required": True,
        "schema": {"type": "string"},
        "x-packc": {"credential": True},
    }
    document["paths"]["/api/echo/users.list"]["get"]["parameters"] = [sid]
    result, directory = _compile(tmp_path, document)
    assert "sid" not in _args(directory)["users.list"]
    said = [d for d in result.diagnostics if d.code == "C172" and "users.list" in d.pointer]
    assert said and "x-packc credential: true" in said[0].message


def test_a_malformed_x_packc_on_a_parameter_is_ignored_with_c102(tmp_path: Path) -> None:
    document = _slackish()
    odd = {**TOKEN_QUERY, "x-packc": {"credential": "no", "other": 1}}
    document["paths"]["/api/echo/users.list"]["get"]["parameters"] = [odd]
    result, directory = _compile(tmp_path, document)
    assert [d for d in result.diagnostics if d.code == "C102" and d.pointer.endswith("/x-packc")]
    assert "token" not in _args(directory)["users.list"]  # the name decides, as if unmarked


def test_required_credential_parameters_are_needed_together(tmp_path: Path) -> None:
    """BBC: a required Authorization header (C156) and X-API-Key; Trello-like: key and token."""
    document = _slackish()
    key = {"name": "X-API-Key", "in": "header", "required": True, "schema": {"type": "string"}}
    auth = {"name": "Authorization", "in": "header", "required": True, "schema": {"type": "string"}}
    document["paths"]["/api/echo/users.list"]["get"]["parameters"] = [
        auth,
        key,
        {**TOKEN_QUERY, "required": True},
    ]
    # no description, no security: a bare key is the API's key (visualcrossing's ?key=)
    document["paths"]["/api/echo/conversations.history"]["get"]["parameters"].append(
        {"name": "key", "in": "query", "schema": {"type": "string"}}
    )
    result, directory = _compile(tmp_path, document)
    cut = json.loads((directory / "openapi.json").read_text())
    schemes = cut["components"]["securitySchemes"]
    [needed] = cut["paths"]["/api/echo/users.list"]["get"]["security"]
    assert sorted((schemes[k]["in"], schemes[k]["name"]) for k in needed) == [
        ("header", "Authorization"),
        ("header", "X-API-Key"),
        ("query", "token"),
    ]
    assert [d for d in result.diagnostics if d.code == "C156" and "users.list" in d.pointer]
    history = cut["paths"]["/api/echo/conversations.history"]["get"]["security"]
    assert len(history) == 3 and history[-1] == {}  # token, or key, or neither: both optional
    args = _args(directory)
    assert args["users.list"] == set() and args["conversations.history"] == {"channel"}


def test_a_declared_scheme_stays_first_and_the_parameter_is_another_way(tmp_path: Path) -> None:
    """Slack's own document names an OAuth2 scheme too: SLACK_TOKEN fills it; the parameter is an alternative."""
    document = _slackish()
    document["components"] = {
        "securitySchemes": {
            "slackAuth": {
                "type": "oauth2",
                "flows": {
                    "authorizationCode": {
                        "authorizationUrl": "https://slack.example.com/oauth",
                        "tokenUrl": "https://slack.example.com/token",
                        "scopes": {},
                    }
                },
            }
        }
    }
    document["security"] = [{"slackAuth": []}]
    _result, directory = _compile(tmp_path, document)
    cut = json.loads((directory / "openapi.json").read_text())
    security = cut["paths"]["/api/echo/conversations.list"]["get"]["security"]
    assert security[0] == {"slackAuth": []} and len(security) == 2 and {} not in security
    assert all("token" not in names for names in _args(directory).values())


@pytest.mark.parametrize(
    "name, description",
    [
        ("page_token", ""),
        ("next_token", ""),
        ("pageToken", ""),
        ("Idempotency-Key", ""),
        ("X-Idempotency-Key", ""),
        ("token_type", ""),
        ("refresh_token", ""),
        ("device_token", ""),
        ("key", "The key of the record."),
        ("token", "The invitation token from the email."),
        ("password", ""),
        ("x-amz-client-token", "Unique identifier to ensure idempotency."),
        ("x-amz-server-side-encryption-customer-key", ""),
        ("x-fapi-auth-date", ""),
        ("public_key", ""),
        ("token", "The NextToken string that specifies which page of results to return."),
        ("key", "The key of the property being added."),
        ("x-apideck-downstream-authorization", ""),
    ],
)
def test_names_that_are_no_credential_of_the_caller(name: str, description: str) -> None:
    assert not is_credential_parameter(name, description)


@pytest.mark.parametrize(
    "name, description",
    [
        ("token", "Authentication token. Requires scope: `chat:write`"),
        ("key", "API key. Your API key identifies your project."),
        ("api_key", ""),
        ("apiKey", ""),
        ("X-API-Key", ""),
        ("access_token", ""),
        ("X-Postmark-Server-Token", ""),
        ("X-Auth-Token", ""),
        ("X-Amz-Security-Token", ""),
        ("trakt-api-key", ""),
        ("key", "an application key."),
        ("apiSecret", ""),
        ("x-tyk-authorization", ""),
    ],
)
def test_names_that_are_the_callers_credential(name: str, description: str) -> None:
    assert is_credential_parameter(name, description)
    assert is_secret_argument(name.replace("-", "_").lower()) or name in ("apiKey", "apiSecret")


@pytest.fixture()
def echo() -> Iterator[tuple[EchoApp, str]]:
    app = EchoApp()
    with serve(app) as url:
        yield app, url


@pytest.mark.e2e
def test_the_pack_cli_sends_the_token_from_the_environment(echo: tuple[EchoApp, str], tmp_path: Path) -> None:
    app, url = echo
    _result, directory = _compile(tmp_path, _slackish(url))
    surface = json.loads((directory / "surface.json").read_text())
    words = {verb.removeprefix("echo."): _command(spec) for verb, spec in surface["verbs"].items()}
    listed_env = subprocess.run(
        [str(directory / "bin" / surface["cliBin"]), "connect", "--list", "--json"],
        capture_output=True,
        text=True,
        env=_env(tmp_path, url, {}),
        timeout=60,
        check=False,
    )
    slots = json.loads(listed_env.stdout)
    # one slot: the same token is sent in the query of some operations and a header of another
    assert [c["env"] for c in slots["credentials"]] == ["SLACKISH_API_KEY"], listed_env.stdout
    assert slots["credentials"][0]["origins"] == [url]
    env = _env(tmp_path, url, {"SLACKISH_API_KEY": SECRET})

    def run(*line: str) -> dict[str, Any]:
        proc = subprocess.run(
            [str(directory / "bin" / surface["cliBin"]), *line, "--json"],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )
        assert SECRET not in proc.stdout + proc.stderr  # redacted wherever it shows
        return dict(json.loads(proc.stdout))

    listed = run(*words["conversations.list"], "--limit", "2")
    assert listed["ok"], listed
    seen = app.log[-1]
    assert parse_qs(seen.query)["token"] == [SECRET] and parse_qs(seen.query)["limit"] == ["2"]
    sent = run(*words["chat.post_message"], "--channel", "C1", "--text", "hi", "--confirm")
    assert sent["ok"], sent
    seen = app.log[-1]
    assert seen.headers["token"] == SECRET and "token" not in parse_qs(seen.query)
    assert parse_qs(seen.body.decode()) == {"channel": ["C1"], "text": ["hi"]}


def _env(tmp_path: Path, url: str, values: dict[str, str]) -> dict[str, str]:
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("SLACKISH_")},
        **values,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "PACKC_TRUSTED_ORIGINS": url,  # the variables go to the server's origin because it is named here
        "PACKC_CREDENTIALS_FILE": str(tmp_path / "creds" / "credentials.json"),
        "PACKC_KEYRING": "off",
    }
