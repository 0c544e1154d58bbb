"""Reading a task as clauses (packc.curate._task) and what goal-directed packs bring for each clause."""

from __future__ import annotations

import pytest

from compiler.helpers import make_api, op, path_param
from packc.curate._rank import common_arguments, rank_operations, shape
from packc.curate._task import (
    Clause,
    body_refs,
    clause_fit,
    item_aliases,
    op_words,
    param_nouns,
    read_task,
)
from packc.curate.goal import select_for_goal
from packc.model import MediaType, Parameter, RequestBody

NOUNS = {
    "issue",
    "pull",
    "card",
    "list",
    "payment",
    "refund",
    "channel",
    "message",
    "topic",
    "post",
    "request",
}


@pytest.mark.parametrize(
    ("goal", "clauses"),
    [
        (
            "triage issues and review pull requests",
            [Clause(("triage",), (("issue",),), ()), Clause(("review",), (("pull", "request"),), ())],
        ),
        # a pronoun stands for the clause before's thing; a place follows a preposition
        (
            "move a card to another list and comment on it",
            [Clause(("move",), (("card",),), ("list",)), Clause(("comment",), (), ("card",))],
        ),
        # a clause's first word before an article is its verb, even when it names a resource
        ("refund a customer's payment", [Clause(("refund",), (("payment",),), ("customer",))]),
        # verbs with no thing of their own wait for the next clause's
        ("review and merge a merge request", [Clause(("review", "merge"), (("merge", "request"),), ())]),
        # a clause with no verb does what the one before did; with no thing, acts on the one before's
        (
            "search code and repositories",
            [Clause(("search",), (("code",),), ()), Clause(("search",), (("repository",),), ())],
        ),
        (
            "pause playback, skip to the next track and resume",
            [
                Clause(("pause",), (("playback",),), ()),
                Clause(("skip",), (), ("track",)),
                Clause(("resume",), (("playback",),), ()),
            ],
        ),
        # "with": made too, not a place
        ("create a project with sections", [Clause(("create",), (("project",), ("section",)), ())]),
    ],
)
def test_a_task_reads_as_verbs_things_and_places(goal: str, clauses: list[Clause]) -> None:
    assert list(read_task(goal, NOUNS)) == clauses


def test_a_clause_with_two_verbs_or_things_is_done_part_by_part() -> None:
    clause = read_task("review and merge a merge request", NOUNS)[0]
    assert [(c.verbs, c.phrases) for c in clause.parts()] == [
        (("review",), (("merge", "request"),)),
        (("merge",), (("merge", "request"),)),
    ]


def test_an_operation_fits_a_clause_by_its_verb_and_its_noun() -> None:
    ops = {
        o.key: o
        for o in (
            op("patch", "/issues/{issue_number}", summary="Update an issue"),
            op("post", "/pulls/{pull_number}/reviews", summary="Create a review for a pull request"),
            op("put", "/pulls/{pull_number}/merge", summary="Merge a pull request"),
            op("get", "/conversations.list", summary="Lists all channels in a workspace"),
            op("post", "/issuetypes"),
        )
    }
    said = {k: op_words(o, shape(o)) for k, o in ops.items()}
    vocabulary = {"issue", "type", "pull", "request", "channel"}
    triage, review = read_task("triage issues and review pull requests", NOUNS)
    assert clause_fit(triage, said["PATCH /issues/{issue_number}"], vocabulary) == 4  # same kind, its noun
    assert (
        clause_fit(review, said["POST /pulls/{pull_number}/reviews"], vocabulary) == 5
    )  # a review of a pull
    merge = Clause(("merge",), (("pull", "request"),), ())
    assert clause_fit(merge, said["PUT /pulls/{pull_number}/merge"], vocabulary) == 6  # its own verb
    find = Clause(("find",), (("channel",),), ())
    assert clause_fit(find, said["GET /conversations.list"], vocabulary) == 4  # "Lists all channels"
    # issue is not issuetype when the document spells "type" as a word of its own
    assert clause_fit(Clause(("create",), (("issue",),), ()), said["POST /issuetypes"], vocabulary) < 4


def test_paths_and_bodies_say_what_an_operation_needs() -> None:
    assert param_nouns("/boards/{idBoard}/lists/{list_id}/cards/{id}") == ["board", "list", "card"]
    assert param_nouns("/rest/issue/{issueIdOrKey}") == ["issue"]
    body = RequestBody(
        content=(
            MediaType(
                "application/json",
                {
                    "properties": {
                        "payment_intent": {"type": "string"},
                        "amount": {"type": "integer"},
                        "template_id": {"type": "string"},
                        "recipients": {
                            "type": "object",
                            "properties": {"list_id": {"type": "string"}},
                            "required": ["list_id"],
                        },
                    }
                },
            ),
        )
    )
    refs = body_refs(op("post", "/refunds", request_body=body))
    assert (
        (("payment", "intent"), False) in refs and (("list",), True) in refs and (("amount",), False) in refs
    )
    assert (("template",), False) in refs  # an optional id: nothing the call needs found first
    members = [
        op("get", "/lists/{list_id}/members/{subscriber_hash}"),
        op("post", "/lists/{list_id}/members"),
    ]
    shapes = {o.key: shape(o) for o in members}
    assert item_aliases(members, shapes) == {("lists", "{}", "members"): {"subscriber"}}
    key = Parameter(name="key", location="query", required=True)
    ids = Parameter(name="ids", location="query", required=True)
    many = [op("get", "/boards", parameters=(key,)), op("get", "/artists", parameters=(key, ids))]
    assert common_arguments(many) == {"key"}  # every call's credential, not a lookup


def _pick(goal: str, *ops: object) -> list[str]:
    api = make_api(*ops)  # type: ignore[arg-type]
    chosen, _ = select_for_goal(goal, api.operations, rank_operations(api, api.operations), 12, 1)
    return chosen


def test_a_place_the_task_names_brings_its_list_even_under_another_name() -> None:
    chosen = _pick(
        "post a message to a channel",
        op("post", "/chat.postMessage", summary="Sends a message to a channel"),
        op("get", "/conversations.list", summary="Lists all channels in a workspace"),
        op("get", "/conversations.history", summary="Fetches a conversation's history of messages"),
        op("get", "/users.list", summary="Lists all users"),
        op("get", "/emoji.list", summary="Lists custom emoji"),
    )
    assert chosen[:2] == ["POST /chat.postMessage", "GET /conversations.list"]


def test_a_body_field_names_what_to_find_and_a_user_path_brings_the_current_user() -> None:
    refund = RequestBody(
        content=(
            MediaType(
                "application/json",
                {"properties": {"payment_intent": {"type": "string"}, "amount": {"type": "integer"}}},
            ),
        )
    )
    chosen = _pick(
        "refund a payment",
        op(
            "post",
            "/refunds",
            summary="Create a refund",
            description="Refund a charge or a payment intent.",
            request_body=refund,
        ),
        op("get", "/payment_methods", summary="List payment methods"),
        op("get", "/payment_intents", summary="List payment intents"),
        op(
            "get",
            "/payment_intents/{intent}",
            summary="Retrieve a payment intent",
            parameters=(path_param("intent"),),
        ),
        op("get", "/customers", summary="List customers"),
    )
    assert chosen[0] == "POST /refunds" and "GET /payment_intents" in chosen
    assert (
        chosen.index("GET /payment_intents") < chosen.index("GET /payment_methods")
        if "GET /payment_methods" in chosen
        else True
    )
    chosen = _pick(
        "make a playlist",
        op(
            "post",
            "/users/{user_id}/playlists",
            summary="Create a playlist",
            parameters=(path_param("user_id"),),
        ),
        op("get", "/me", summary="Get the current user's profile"),
        op("get", "/browse/categories", summary="Get several browse categories"),
    )
    assert chosen[:2] == ["POST /users/{user_id}/playlists", "GET /me"]


def test_an_act_named_by_its_verb_does_what_the_verb_says() -> None:
    from packc.curate._rank import shape as shape_of
    from packc.curate._task import op_words

    added = op("post", "/tasks/{task_gid}/addDependencies", summary="Set dependencies for a task")
    assert op_words(added, shape_of(added), (), frozenset()).intent == "create"
    moved = op("post", "/cards/{id}/archive", summary="Archive a card")
    assert op_words(moved, shape_of(moved), (), frozenset()).intent == "update"
