"""Task packs take no risk the task did not ask for: destroying, moving money, changing an owner,
writing as an admin (issue 24, item 3)."""

from __future__ import annotations

import pytest

from compiler.helpers import make_api, op
from packc.curate._risk import risk_of
from packc.curate._shape import shape
from packc.curate.plan import plan
from packc.read.overrides import Overrides


def _api() -> object:
    return make_api(
        op("get", "/customers", summary="List customers"),
        op("get", "/customers/{id}", summary="Get a customer"),
        op("post", "/customers", summary="Create a customer"),
        op("get", "/payments", summary="List payments"),
        op("get", "/payments/{id}", summary="Get a payment"),
        op("post", "/payments", summary="Create a payment"),
        op("post", "/outbound_payments", summary="Create an outbound payment to a customer"),
        op("post", "/refunds", summary="Refund a payment"),
        op("get", "/refunds", summary="List refunds"),
        op("delete", "/customers/{id}", summary="Delete a customer"),
        op("post", "/repos/{id}/transfer", summary="Transfer a repository to a new owner"),
        op("get", "/repos/{id}", summary="Get a repository"),
        op("post", "/admin/conversations/disconnect", summary="Disconnect a shared channel"),
        op("post", "/messages", summary="Post a message to a channel"),
        op("get", "/channels", summary="List channels"),
    )


def _plan(goal: str) -> tuple[set[str], dict[str, str]]:
    result = plan(_api(), Overrides(), goal=goal)  # type: ignore[arg-type]
    return {v.op.key for v in result.packs[0].verbs}, {lo.op.key: lo.reason for lo in result.left_out}


@pytest.mark.parametrize(
    ("method", "path", "kind"),
    [
        ("delete", "/customers/{id}", "destructive"),
        ("post", "/tokens/{id}/revoke", "destructive"),
        ("post", "/outbound_payments", "money"),
        ("post", "/charges/{id}/refunds", "money"),
        ("post", "/repos/{id}/transfer", "ownership"),
        ("patch", "/projects/{id}/owner", "ownership"),
        ("post", "/admin.conversations.disconnectShared", "admin"),
        ("post", "/messages", None),
        ("get", "/admin/users", None),  # reading as an admin changes nothing
    ],
)
def test_what_an_operation_risks(method: str, path: str, kind: str | None) -> None:
    o = op(method, path)
    found = risk_of(o, shape(o))
    assert (found.kind if found else None) == kind


def test_a_refund_task_holds_no_payment_out() -> None:
    kept, why = _plan("refund a customer's last payment")
    assert "POST /refunds" in kept
    assert not kept & {"POST /outbound_payments", "POST /payments", "DELETE /customers/{id}"}
    assert "moves money (a pay)" in why["POST /outbound_payments"]
    assert why["POST /outbound_payments"].endswith("say it in the task, or --include it")


def test_a_task_that_asks_for_the_act_gets_it() -> None:
    assert "POST /payments" in _plan("charge a customer")[0]
    assert "DELETE /customers/{id}" in _plan("delete a customer")[0]
    assert "POST /repos/{id}/transfer" in _plan("transfer a repository to another owner")[0]
    assert "POST /admin/conversations/disconnect" in _plan("as an admin, disconnect a shared channel")[0]


def test_a_posting_task_holds_no_admin_write_nor_transfer() -> None:
    kept, why = _plan("post a daily summary to a channel")
    assert "POST /messages" in kept
    assert not kept & {"POST /admin/conversations/disconnect", "POST /repos/{id}/transfer"}
    assert "admin write" in why["POST /admin/conversations/disconnect"]
    assert "who owns" in why["POST /repos/{id}/transfer"]


def test_include_keeps_a_risky_verb_the_task_does_not_ask_for() -> None:
    result = plan(_api(), Overrides(), goal="post a daily summary", include=["POST /repos/{id}/transfer"])  # type: ignore[arg-type]
    assert "POST /repos/{id}/transfer" in {v.op.key for v in result.packs[0].verbs}
