"""Rank: where an operation sits, the signals it earns, and a one-pack selection that finds the core."""

from __future__ import annotations

import json

import pytest

from packc.cli import main
from packc.overrides import Overrides
from packc.plan import plan
from packc.rank import rank_operations, select, shape, stem, words

from .helpers import make_api, op


@pytest.mark.parametrize(
    ("method", "path", "resource", "action"),
    [
        ("get", "/repos/{owner}/{repo}/issues", ("repos", "{}", "{}", "issues"), "list"),
        ("get", "/repos/{owner}/{repo}/issues/{issue_number}", ("repos", "{}", "{}", "issues"), "get"),
        ("get", "/repos/{owner}/{repo}/pulls/{pull_number}/merge", ("repos", "{}", "{}", "pulls", "{}", "merge"), "get"),
        ("post", "/repos/{owner}/{repo}/pulls/{pull_number}/merge", ("repos", "{}", "{}", "pulls"), "merge"),
        ("post", "/v1/payment_intents/{intent}/confirm", ("payment_intents",), "confirm"),
        ("get", "/v1/customers/search", ("customers",), "search"),
        ("post", "/chat.postMessage", ("chat",), "post"),
        ("get", "/conversations.history", ("conversations",), "list"),
        ("post", "/sendMessage", ("message",), "send"),
        ("post", "/2010-04-01/Accounts/{AccountSid}/Messages.json", ("Accounts", "{}", "Messages"), "create"),
        ("get", "/user", ("user",), "get"),
        ("get", "/search", (), "search"),
        ("delete", "/v2/droplets/{droplet_id}", ("droplets",), "delete"),
    ],
)
def test_shape_reads_resource_and_action_from_the_path(method: str, path: str, resource: tuple[str, ...],
                                                       action: str) -> None:
    s = shape(op(method, path))
    assert (s.resource, s.action) == (resource, action)


def test_words_and_stems_meet_other_forms() -> None:
    assert words("chat.postMessage") == ("chat", "post", "message")
    assert words("payment_intents") == ("payment", "intents")
    assert [stem(w) for w in ("issues", "replies", "merged", "merging", "addresses", "status")] == [
        "issue", "reply", "merge", "merge", "address", "status"]


def _doc_api() -> object:
    """An API whose core (notes) is buried among admin, enterprise and plumbing operations."""
    ops = [
        op("get", "/admin/audit/logs", summary="List audit logs"),
        op("post", "/admin/audit/logs", summary="Export audit logs"),
        op("get", "/enterprise/settings", summary="Get enterprise settings"),
        op("put", "/enterprise/settings", summary="Set enterprise settings"),
        op("get", "/webhooks", summary="List webhooks"),
        op("post", "/webhooks", summary="Create a webhook"),
        op("delete", "/webhooks/{id}", summary="Delete a webhook"),
        op("get", "/beta/experiments", summary="List experiments"),
        op("get", "/notes", summary="List notes"),
        op("post", "/notes", summary="Create a note"),
        op("get", "/notes/{id}", summary="Get a note"),
        op("patch", "/notes/{id}", summary="Update a note"),
        op("delete", "/notes/{id}", summary="Delete a note"),
        op("post", "/notes/{id}/share", summary="Share a note with someone"),
        op("get", "/notes/{id}/comments", summary="List comments on a note"),
        op("post", "/notes/{id}/comments", summary="Comment on a note"),
        op("get", "/notes/search", summary="Search notes"),
        op("get", "/me", summary="Get the authenticated user"),
        op("get", "/folders", summary="List folders of notes"),
        op("post", "/folders", summary="Create a folder"),
        op("get", "/legacy/notes", summary="List notes (old)", deprecated=True),
    ]
    return make_api(*ops)


def test_one_pack_keeps_the_core_and_leaves_admin_and_plumbing_out() -> None:
    result = plan(_doc_api(), Overrides())  # type: ignore[arg-type]
    kept = {v.op.key for v in result.packs[0].verbs}
    assert {"GET /notes", "POST /notes", "GET /notes/{id}", "GET /notes/search", "POST /notes/{id}/share",
            "GET /me"} <= kept
    assert not kept & {"GET /admin/audit/logs", "GET /enterprise/settings", "GET /legacy/notes",
                       "GET /beta/experiments"}
    assert len(kept) == 12


def test_signals_explain_the_score_and_penalties_show() -> None:
    api = _doc_api()
    ranking = rank_operations(api, api.operations)  # type: ignore[attr-defined]
    for r in ranking.values():
        assert r.score == sum(p for _, p in r.points)
    assert any(name.startswith("signature verb share") for name, _ in ranking["POST /notes/{id}/share"].points)
    assert any(name.startswith("entry point") for name, _ in ranking["GET /me"].points)
    assert ("deprecated", -100) in ranking["GET /legacy/notes"].points
    assert any(p < 0 and "admin" in name for name, p in ranking["GET /admin/audit/logs"].points)
    assert any(p < 0 and "plumbing" in name for name, p in ranking["GET /webhooks"].points)


def test_selection_spreads_over_resources_and_keeps_small_apis_whole() -> None:
    api = _doc_api()
    ranking = rank_operations(api, api.operations)  # type: ignore[attr-defined]
    ranked = sorted(ranking.items(), key=lambda kv: (-kv[1].score, kv[0]))
    # Six verbs: who am I, then the notes' list/get/create (one unit, never capped) and their signature acts.
    small = select(ranked, 6)
    assert {"GET /me", "GET /notes", "POST /notes", "GET /notes/{id}"} <= set(small)
    # Twelve: past the notes' list/get/create, every further note verb is charged, so folders get in.
    chosen = select(ranked, 12)
    per_resource = [ranking[k].shape.resource for k in chosen]
    assert per_resource.count(("notes",)) <= 5
    assert {"GET /folders", "POST /folders"} <= set(chosen)
    assert select(ranked[:5], 12) == [k for k, _ in ranked[:5]]


def test_plan_is_deterministic_and_shows_signals(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "specs/taskboard.yaml", "--json"]) == 0
    first = capsys.readouterr().out
    assert main(["plan", "specs/taskboard.yaml", "--json"]) == 0
    assert capsys.readouterr().out == first
    verbs = json.loads(first)["packs"][0]["verbs"]
    for v in verbs:
        assert v["score"] == sum(s["points"] for s in v["signals"])
        assert all(isinstance(s["signal"], str) and s["signal"] for s in v["signals"])
    assert main(["plan", "specs/taskboard.yaml"]) == 0
    text = capsys.readouterr().out
    assert "score" in text and "core list (+30)" in text
