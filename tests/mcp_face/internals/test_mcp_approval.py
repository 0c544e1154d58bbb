"""An approval is good for exactly the arguments it was shown with, once (the stateless protocol's
input_required round trip, driven by hand), and the pieces that make it so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp import Client
from mcp.shared.exceptions import MCPError

from mcp_face.conftest import Asked
from packc_runtime.faces.mcp._confirm import ApprovalLedger, args_digest, decision_of, form_schema

from .helpers import make_server, run

ACCEPT = {"confirm": types.ElicitResult(action="accept", content={"approve": True})}


async def _question(client: Client, args: dict[str, Any]) -> types.InputRequiredResult:
    first = await client.session.call_tool("pets.delete", args, allow_input_required=True)
    assert isinstance(first, types.InputRequiredResult) and first.request_state
    assert set(first.input_requests or {}) == {"confirm"}
    return first


def test_an_approval_cannot_be_replayed_for_other_arguments(
    pack_dir: Path, env: dict[str, str], pets_count: Any
) -> None:
    before = pets_count()

    async def body(client: Client) -> None:
        asked = await _question(client, {"pet_id": 2})
        with pytest.raises(MCPError, match="requestState"):  # the sealed state is bound to pet_id 2
            await client.session.call_tool(
                "pets.delete",
                {"pet_id": 1},
                input_responses=ACCEPT,
                request_state=asked.request_state,
                allow_input_required=True,
            )

    run(make_server(pack_dir, env), "2026-07-28", body, elicit=Asked())
    assert pets_count() == before


def test_an_approval_is_spent_once(pack_dir: Path, env: dict[str, str], pets_count: Any) -> None:
    before = pets_count()

    async def body(client: Client) -> Any:
        asked = await _question(client, {"pet_id": 2})
        done = await client.session.call_tool(
            "pets.delete",
            {"pet_id": 2},
            input_responses=ACCEPT,
            request_state=asked.request_state,
            allow_input_required=True,
        )
        assert isinstance(done, types.CallToolResult) and not done.is_error
        again = await client.session.call_tool(
            "pets.delete",
            {"pet_id": 2},
            input_responses=ACCEPT,
            request_state=asked.request_state,
            allow_input_required=True,
        )
        return again

    again = run(make_server(pack_dir, env), "2026-07-28", body, elicit=Asked())
    assert isinstance(again, types.InputRequiredResult)  # asked afresh, not sent twice
    assert pets_count() == before - 1


def test_an_answer_without_the_servers_state_is_asked_again(
    pack_dir: Path, env: dict[str, str], pets_count: Any
) -> None:
    before = pets_count()

    async def body(client: Client) -> Any:
        return await client.session.call_tool(
            "pets.delete", {"pet_id": 2}, input_responses=ACCEPT, allow_input_required=True
        )

    result = run(make_server(pack_dir, env), "2026-07-28", body, elicit=Asked())
    assert isinstance(result, types.InputRequiredResult) and pets_count() == before


def test_ledger_redeems_only_its_own_state_for_the_same_digest_once() -> None:
    ledger = ApprovalLedger()
    digest = args_digest("pets.delete", {"pet_id": 2})
    state = ledger.issue(digest)
    assert not ledger.redeem(state, args_digest("pets.delete", {"pet_id": 3}))
    state = ledger.issue(digest)
    assert ledger.redeem(state, digest) and not ledger.redeem(state, digest)
    assert not ledger.redeem(json.dumps({"n": "made-up", "d": digest}), digest)
    assert not ledger.redeem("not json", digest) and not ledger.redeem(None, digest)


def test_ledger_forgets_the_oldest_past_its_capacity() -> None:
    ledger = ApprovalLedger(capacity=2)
    states = [ledger.issue("d") for _ in range(3)]
    assert not ledger.redeem(states[0], "d") and ledger.redeem(states[2], "d")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=8,
)


@given(
    st.dictionaries(st.text(max_size=4), json_values, max_size=4),
    st.dictionaries(st.text(max_size=4), json_values, max_size=4),
)
def test_args_digest_tells_arguments_apart_and_ignores_key_order(
    a: dict[str, Any], b: dict[str, Any]
) -> None:
    assert args_digest("t", a) == args_digest("t", dict(reversed(list(a.items()))))
    if a != b:
        assert args_digest("t", a) != args_digest("t", b)
    assert args_digest("t", a) != args_digest("u", a)


def test_only_a_ticked_accept_is_an_approval() -> None:
    assert decision_of("accept", {"approve": True}) == "accept"
    assert decision_of("accept", {"approve": False}) == "decline"
    assert decision_of("accept", {"approve": "true"}) == "decline"
    assert decision_of("accept", None) == "decline"
    assert decision_of("decline", {"approve": True}) == "decline"
    assert decision_of("cancel", None) == "cancel"


def test_the_form_has_one_yes_no_field_and_no_editable_argument() -> None:
    schema = form_schema({"kind": "record", "title": "Create pet", "fields": {"name": "Rex"}})
    assert list(schema["properties"]) == ["approve"] and schema["properties"]["approve"]["type"] == "boolean"
    assert schema["properties"]["approve"]["default"] is False
