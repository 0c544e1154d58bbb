"""Packs of one family share one consent: connecting a second pack adds its scopes to the family's
token set, and every pack of the family calls with it (a real authlib server on 127.0.0.1)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from oauth_server import TestAuthServer, connect, document, secrets_of, stored

from packc_runtime import load_pack
from packc_runtime.credentials.oauth_tokens import parse_token_set

pytestmark = pytest.mark.e2e


def _admin_document(url: str) -> dict[str, Any]:
    """The same API (and family) as ``document``: an admin verb that needs the ``admin`` scope."""
    doc = document(url)
    doc["paths"] = {
        "/v1/admin": {
            "get": {
                "operationId": "getAdmin",
                "summary": "Read the admin settings",
                "security": [{"oauth": ["admin"]}],
                "responses": {"200": {"description": "ok"}},
            }
        }
    }
    return doc


def _authorize_scopes(server: TestAuthServer) -> list[str]:
    from urllib.parse import parse_qs, urlsplit

    return [
        parse_qs(urlsplit(line.split()[1]).query)["scope"][0]
        for line in server.log
        if line.startswith("GET /authorize")
    ]


def _call(pack_dir: Path, verb: str) -> dict[str, Any]:
    with load_pack(pack_dir) as pack:
        return dict(pack.call(verb, {}))


def test_a_second_pack_adds_its_scopes_and_both_use_one_token_set(
    compile_doc: Callable[..., Path], auth_server: TestAuthServer
) -> None:
    tasks = compile_doc(document(auth_server.url), "tasks")
    admin = compile_doc(_admin_document(auth_server.url), "admin")
    with load_pack(tasks) as a, load_pack(admin) as b:
        assert [s.env for s in a.slots] == [s.env for s in b.slots] == ["TASKS_TOKEN"]
        reader = next(v for v in a.verbs if not a.is_write(v))
        admin_verb = next(iter(b.verbs))

    code, text = connect(tasks)
    assert code == 0, text
    assert _call(tasks, reader)["ok"]
    # The family's token is what the admin pack sends; it lacks the admin scope until that pack connects.
    before = _call(admin, admin_verb)
    assert before["ok"] is False and before["status"] == 403

    code, text = connect(admin)
    assert code == 0, text
    assert "holds read write; this pack adds admin" in text
    assert _authorize_scopes(auth_server) == ["read write", "read write admin"]
    tokens = parse_token_set(stored()[auth_server.url]["TASKS_TOKEN"])
    assert tokens is not None and set(tokens.scopes) == {"read", "write", "admin"}

    assert _call(admin, admin_verb)["ok"]
    assert _call(tasks, reader)["ok"]
    assert auth_server.seen[-1] == auth_server.seen[-2] == f"Bearer {tokens.access_token}"

    # Connecting the first pack again asks for nothing: the family's grant covers it and still works.
    code, text = connect(tasks)
    assert code == 0 and "nothing to ask" in text, text
    assert len(_authorize_scopes(auth_server)) == 2
    assert not any(secret in text for secret in secrets_of(auth_server))


def test_a_dead_family_grant_is_signed_in_again_with_every_scope(
    compile_doc: Callable[..., Path], auth_server: TestAuthServer
) -> None:
    tasks = compile_doc(document(auth_server.url), "tasks")
    admin = compile_doc(_admin_document(auth_server.url), "admin")
    assert connect(tasks)[0] == 0 and connect(admin)[0] == 0
    auth_server.refresh_tokens.clear()  # the person revoked the app at the provider
    code, text = connect(tasks)
    assert code == 0 and "that grant no longer works" in text, text
    assert _authorize_scopes(auth_server)[-1] == "read write admin"  # the admin pack keeps working
    tokens = parse_token_set(stored()[auth_server.url]["TASKS_TOKEN"])
    assert tokens is not None and set(tokens.scopes) == {"read", "write", "admin"}
    with load_pack(admin) as pack:
        assert pack.call(next(iter(pack.verbs)), {})["ok"]
    assert json.dumps(stored()).count("TASKS_TOKEN") == 1
