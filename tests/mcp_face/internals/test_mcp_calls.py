"""The MCP face through the SDK's in-memory client: tools, reads, confirmation, errors, size cap."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import mcp_types as types
import pytest
from mcp import Client

from mcp_face.conftest import Asked

from .helpers import MODES, make_server, run


@pytest.mark.parametrize("mode", MODES)
def test_tools_list_sets_all_four_annotations_from_policy_and_binding(
    pack_dir: Path, env: dict[str, str], mode: str
) -> None:
    server = make_server(pack_dir, env)
    tools = {t.name: t for t in run(server, mode, lambda c: c.list_tools()).tools}
    policy = json.loads((pack_dir / "policy.json").read_text())["commands"]
    assert set(tools) == set(policy)
    for name, tool in tools.items():
        a = tool.annotations
        assert a is not None and None not in (
            a.read_only_hint,
            a.destructive_hint,
            a.idempotent_hint,
            a.open_world_hint,
        ), name
        assert a.read_only_hint is (policy[name]["access"] == "read")
        assert a.destructive_hint is bool(policy[name].get("destructive"))
        assert a.open_world_hint is True
        assert tool.title and tool.input_schema["type"] == "object"
    assert tools["pets.delete"].annotations.destructive_hint is True  # type: ignore[union-attr]
    assert tools["pets.get"].annotations.idempotent_hint is True  # type: ignore[union-attr]
    assert tools["pets.create"].annotations.idempotent_hint is False  # type: ignore[union-attr]
    assert tools["pets.get"].input_schema["required"] == ["pet_id"]
    assert tools["pets.get"].output_schema is not None


@pytest.mark.parametrize("mode", MODES)
def test_a_read_returns_the_envelope_as_structured_content_and_text(
    pack_dir: Path, env: dict[str, str], mode: str
) -> None:
    server = make_server(pack_dir, env)
    result = run(server, mode, lambda c: c.call_tool("pets.get", {"pet_id": 1}))
    assert not result.is_error
    envelope = result.structured_content
    assert envelope is not None and envelope["ok"] is True and envelope["status"] == 200
    assert envelope["body"]["name"] == "Mittens" and envelope["title"]
    text = result.content[0]
    assert isinstance(text, types.TextContent)
    assert text.text.startswith(f"{envelope['title']} (HTTP 200)") and "Mittens" in text.text


@pytest.mark.parametrize("mode", MODES)
def test_a_write_is_sent_only_after_the_person_accepts_the_preview(
    pack_dir: Path, env: dict[str, str], mode: str, pets_count: Any
) -> None:
    asked = Asked("accept")
    before = pets_count()
    result = run(
        make_server(pack_dir, env),
        mode,
        lambda c: c.call_tool("pets.create", {"name": "Rex", "species": "dog"}),
        elicit=asked,
    )
    assert not result.is_error and result.structured_content["status"] == 201  # type: ignore[index]
    assert pets_count() == before + 1
    [question] = asked.questions
    assert isinstance(question, types.ElicitRequestFormParams)
    assert "record: Create pet" in question.message and "name: Rex" in question.message
    assert "species: dog" in question.message and "Nothing is sent" in question.message
    assert question.requested_schema["required"] == ["approve"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("action", "approve", "said"),
    [("decline", True, "declined"), ("cancel", True, "dismissed"), ("accept", False, "declined")],
)
def test_decline_cancel_or_an_unticked_box_send_nothing_and_say_so(
    pack_dir: Path, env: dict[str, str], mode: str, action: str, approve: bool, said: str, pets_count: Any
) -> None:
    before = pets_count()
    result = run(
        make_server(pack_dir, env),
        mode,
        lambda c: c.call_tool("pets.delete", {"pet_id": 2}),
        elicit=Asked(action, approve),
    )
    assert result.is_error
    error = result.structured_content["error"]  # type: ignore[index]
    assert (
        error["code"] == "not_confirmed"
        and said in error["message"]
        and "nothing was sent" in error["message"]
    )
    assert error["preview"]["title"]
    assert pets_count() == before


@pytest.mark.parametrize("mode", MODES)
def test_a_client_without_elicitation_gets_the_preview_and_nothing_is_sent(
    pack_dir: Path, env: dict[str, str], mode: str, pets_count: Any
) -> None:
    before = pets_count()
    result = run(
        make_server(pack_dir, env),
        mode,
        lambda c: c.call_tool("pets.create", {"name": "Rex", "species": "dog"}),
    )
    assert result.is_error and pets_count() == before
    error = result.structured_content["error"]  # type: ignore[index]
    assert error["code"] == "not_confirmed" and "cannot ask a person" in error["message"]
    assert (
        error["preview"]
        == {"kind": "record", "title": "Create pet", "fields": {"name": "Rex", "species": "dog", "tag": ""}}
        or error["preview"]["kind"]
    )
    text = result.content[0].text  # type: ignore[union-attr]
    assert "Preview of what would be sent:" in text and "--host-confirms" in text
    assert f"packc call {pack_dir} pets.create --args" in text and "--confirm" in text


@pytest.mark.parametrize("mode", MODES)
def test_host_confirms_sends_writes_for_a_client_that_cannot_ask(
    pack_dir: Path, env: dict[str, str], mode: str, pets_count: Any
) -> None:
    before = pets_count()
    result = run(
        make_server(pack_dir, env, host_confirms=True),
        mode,
        lambda c: c.call_tool("pets.create", {"name": "Rex", "species": "dog"}),
    )
    assert not result.is_error and pets_count() == before + 1


@pytest.mark.parametrize("mode", MODES)
def test_host_confirms_still_asks_a_client_that_can(
    pack_dir: Path, env: dict[str, str], mode: str, pets_count: Any
) -> None:
    before = pets_count()
    result = run(
        make_server(pack_dir, env, host_confirms=True),
        mode,
        lambda c: c.call_tool("pets.delete", {"pet_id": 2}),
        elicit=Asked("decline"),
    )
    assert result.is_error and pets_count() == before


@pytest.mark.parametrize("mode", MODES)
def test_bad_arguments_are_a_tool_error_naming_each_one(
    pack_dir: Path, env: dict[str, str], mode: str
) -> None:
    asked = Asked()
    result = run(
        make_server(pack_dir, env),
        mode,
        lambda c: c.call_tool("pets.create", {"species": "whale", "colour": "red"}),
        elicit=asked,
    )
    assert result.is_error and not asked.questions  # refused before anyone is asked
    error = result.structured_content["error"]  # type: ignore[index]
    assert error["unknown"] == ["colour"] and error["missing"] == ["name"]
    assert [e["argument"] for e in error["invalid"]] == ["species"]
    text = result.content[0].text  # type: ignore[union-attr]
    for line in ("- unknown argument: colour", "- missing argument: name", "- invalid argument species:"):
        assert line in text


@pytest.mark.parametrize("mode", MODES)
def test_a_missing_credential_names_the_variable_and_the_connect_command(
    pack_dir: Path, mode: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PACKC_CREDENTIALS_FILE", str(tmp_path / "none.json"))
    monkeypatch.setenv("PACKC_KEYRING", "off")
    result = run(make_server(pack_dir, {}), mode, lambda c: c.call_tool("pets.get", {"pet_id": 1}))
    assert result.is_error
    error = result.structured_content["error"]  # type: ignore[index]
    assert error["code"] == "missing_credentials" and "PETSTORE_API_KEY" in error["fix"]
    assert "petstore connect" in error["fix"] and f"packc connect {pack_dir}" in error["fix"]
    assert "PETSTORE_API_KEY" in result.content[0].text  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", MODES)
def test_an_upstream_error_is_a_tool_error_with_the_status_and_body(
    pack_dir: Path, env: dict[str, str], mode: str
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(500, json={"code": "boom", "message": "database on fire"})

    server = make_server(pack_dir, env, transport=httpx.MockTransport(handler))
    result = run(server, mode, lambda c: c.call_tool("pets.get", {"pet_id": 1}))
    assert result.is_error
    envelope = result.structured_content
    assert envelope["status"] == 500 and envelope["error"]["code"] == "upstream_error"  # type: ignore[index]
    assert "database on fire" in result.content[0].text  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", MODES)
def test_a_huge_response_is_cut_with_a_marker_saying_how_to_get_the_rest(
    pack_dir: Path, env: dict[str, str], mode: str
) -> None:
    pets = [
        {"id": i, "name": f"pet {i} " + "x" * 200, "species": "dog", "status": "available"}
        for i in range(3000)
    ]

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=pets)

    server = make_server(pack_dir, env, transport=httpx.MockTransport(handler), max_result_bytes=50_000)
    result = run(server, mode, lambda c: c.call_tool("pets.list", {}))
    assert not result.is_error  # a cut success is still a success, and still matches the output schema
    envelope = result.structured_content
    assert envelope is not None and len(json.dumps(envelope).encode()) <= 50_000
    cut = envelope["truncated"]
    assert cut["limit"] == 50_000 and cut["bodyBytes"] > 600_000 and cut["keptBytes"] < 50_000
    assert "packc call" in cut["how"] and "pets.list" in cut["how"]
    kept = envelope["body"]
    assert (
        isinstance(kept, list) and 0 < len(kept) < 3000 and kept == pets[: len(kept)]
    )  # still JSON, a prefix
    assert cut["cut"] == [f"body: kept {len(kept)} of 3000 items"]
    text = result.content[0].text  # type: ignore[union-attr]
    assert len(text.encode()) <= 50_100 and "[packc: result cut to" in text and "pets.list --args" in text


@pytest.mark.parametrize("mode", MODES)
def test_an_unknown_tool_is_a_protocol_error(pack_dir: Path, env: dict[str, str], mode: str) -> None:
    async def body(client: Client) -> Any:
        with pytest.raises(Exception, match="Unknown tool"):
            await client.call_tool("pets.nope", {})
        return True

    assert run(make_server(pack_dir, env), mode, body)


@pytest.mark.parametrize("mode", MODES)
def test_a_client_that_fails_to_ask_sends_nothing(
    pack_dir: Path, env: dict[str, str], mode: str, pets_count: Any
) -> None:
    async def broken(ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        raise RuntimeError("the host's form crashed")

    async def body(client: Client) -> Any:
        try:
            return await client.call_tool("pets.delete", {"pet_id": 2})
        except Exception:  # the stateless era fails in the client itself, before any retry
            return None

    before = pets_count()
    result = run(make_server(pack_dir, env), mode, body, elicit=broken)
    assert pets_count() == before
    assert result is None or result.is_error  # handshake era: the server got an error answer, sent nothing


def test_the_sdk_tracing_middleware_runs_only_while_a_tracer_provider_is_installed(
    pack_dir: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import anyio
    from opentelemetry.trace import NoOpTracerProvider

    from packc_runtime.faces.mcp import _server as mcp_server

    server = make_server(pack_dir, env)
    traced = [m for m in server.server.middleware if isinstance(m, mcp_server._TracedWhenConfigured)]
    assert len(traced) == 1 and type(traced[0].inner).__name__ == "OpenTelemetryMiddleware"
    seen: list[str] = []

    async def inner(ctx: Any, call_next: Any) -> Any:
        seen.append("span")
        return await call_next(ctx)

    async def call_next(ctx: Any) -> dict[str, Any]:
        return {}

    traced[0].inner = inner  # type: ignore[assignment]
    anyio.run(traced[0], None, call_next)  # no provider installed: the proxy
    monkeypatch.setattr(mcp_server, "get_tracer_provider", NoOpTracerProvider)
    anyio.run(traced[0], None, call_next)
    assert seen == []
    monkeypatch.setattr(mcp_server, "get_tracer_provider", object)  # an SDK's provider
    anyio.run(traced[0], None, call_next)
    assert seen == ["span"]
    anyio.run(server.aclose)
