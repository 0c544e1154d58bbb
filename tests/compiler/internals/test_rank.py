"""Rank: where an operation sits, the signals it earns, and a one-pack selection that finds the core."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compiler.helpers import make_api, op
from packc.cli import main
from packc.curate._pick import select
from packc.curate._rank import ENTRY, rank_operations, shape, stem, words
from packc.curate._weights import WEIGHTS
from packc.curate.plan import plan
from packc.model import Parameter
from packc.read.overrides import Overrides


@pytest.mark.parametrize(
    ("method", "path", "resource", "action"),
    [
        ("get", "/repos/{owner}/{repo}/issues", ("repos", "{}", "{}", "issues"), "list"),
        ("get", "/repos/{owner}/{repo}/issues/{issue_number}", ("repos", "{}", "{}", "issues"), "get"),
        (
            "get",
            "/repos/{owner}/{repo}/pulls/{pull_number}/merge",
            ("repos", "{}", "{}", "pulls", "{}", "merge"),
            "get",
        ),
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
def test_shape_reads_resource_and_action_from_the_path(
    method: str, path: str, resource: tuple[str, ...], action: str
) -> None:
    s = shape(op(method, path))
    assert (s.resource, s.action) == (resource, action)


def test_words_and_stems_meet_other_forms() -> None:
    assert words("chat.postMessage") == ("chat", "post", "message")
    assert words("payment_intents") == ("payment", "intents")
    assert [stem(w) for w in ("issues", "replies", "merged", "merging", "addresses", "status")] == [
        "issue",
        "reply",
        "merge",
        "merge",
        "address",
        "status",
    ]
    # A noun in -ing meets its plural: /meetings is what "List meeting registrants" names.
    assert [stem(w) for w in ("meetings", "meeting", "greetings", "greeting")] == [
        "meeting",
        "meeting",
        "greet",
        "greet",
    ]
    # ... and a noun in -ing whose base is an everyday verb stays apart from it: "set a due date" is
    # not about /settings, "list" not about /listings.
    assert stem("settings") == stem("setting") != stem("set") and stem("listings") != stem("list")
    # Plurals whose singular the suffix rules would get wrong meet it too.
    for singular in ("movie", "cookie", "alias", "cache", "series", "policy", "category", "match"):
        plural = {"policy": "policies", "category": "categories", "series": "series"}.get(
            singular, singular + ("es" if singular.endswith(("s", "ch")) else "s")
        )
        assert stem(plural) == stem(singular), (plural, singular)


@given(st.from_regex(r"[a-z]{4,12}", fullmatch=True))
def test_a_plural_in_ings_stems_as_its_singular(base: str) -> None:
    assert stem(base + "ings") == stem(base + "ing")


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
    assert {
        "GET /notes",
        "POST /notes",
        "GET /notes/{id}",
        "GET /notes/search",
        "POST /notes/{id}/share",
        "GET /me",
    } <= kept
    assert not kept & {
        "GET /admin/audit/logs",
        "GET /enterprise/settings",
        "GET /legacy/notes",
        "GET /beta/experiments",
    }
    assert len(kept) == 12


def test_signals_explain_the_score_and_penalties_show() -> None:
    api = _doc_api()
    ranking = rank_operations(api, api.operations)  # type: ignore[attr-defined]
    for r in ranking.values():
        assert r.score == sum(p for _, p in r.points)
    assert any(
        name.startswith("signature verb share") for name, _ in ranking["POST /notes/{id}/share"].points
    )
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


def _points(ranking: dict[str, object], key: str) -> dict[str, int]:
    return dict(ranking[key].points)  # type: ignore[attr-defined]


def test_rpc_companions_are_told_apart_and_a_camel_case_noun_is_no_verb() -> None:
    assert shape(op("get", "/conversations.history")).verb == "history"
    assert shape(op("get", "/conversations.list")).verb == ""
    # /membersInvited names a resource; only a dotted name (/conversations.members) reads "members" as a verb.
    assert shape(op("get", "/boards/{id}/membersInvited")).resource == ("boards", "{}", "membersInvited")
    ops = [
        op("get", f"/conversations.{m}", summary=f"{m} of a conversation")
        for m in ("history", "replies", "list", "info")
    ]
    ops += [op("post", "/conversations.create", summary="Create a conversation")]
    ops += [op(m, f"/x{i}", summary="Filler") for i in range(8) for m in ("get", "post")]
    api = make_api(*ops)
    ranking = rank_operations(api, api.operations)
    ranked = sorted(ranking.items(), key=lambda kv: (-kv[1].score, kv[0]))
    # history and replies are lists too, but not list's companion: all five conversation calls fit in.
    assert {"GET /conversations.list", "GET /conversations.info", "GET /conversations.history"} <= set(
        select(ranked, 12)
    )


def test_actions_namespace_and_a_signature_act_come_with_their_resource() -> None:
    s = shape(op("post", "/campaigns/{campaign_id}/actions/send"))
    assert (s.resource, s.action, s.depth) == (("campaigns",), "send", 3)


def test_directory_management_and_a_container_of_the_whole_api_are_not_the_core() -> None:
    ops = [
        op("post", "/teams", summary="Create a team"),
        op("get", "/teams", summary="List teams"),
        op("post", "/tickets", summary="Create a ticket"),
        op("get", "/tickets", summary="List tickets"),
    ]
    api = make_api(*ops)
    ranking = rank_operations(api, api.operations)
    assert _points(ranking, "POST /teams")["create a team: directory management"] == -15
    assert not any("directory" in n for n in _points(ranking, "POST /tickets"))
    # Every call works inside /accounts/{sid}: listing or creating accounts is management; its items are the API.
    inside = [op(m, f"/accounts/{{sid}}/thing{i}", summary="Thing") for i in range(24) for m in ("get",)]
    api = make_api(
        op("get", "/accounts", summary="List accounts"),
        op("post", "/accounts", summary="Create an account"),
        op("get", "/accounts/{sid}", summary="Get an account"),
        *inside,
    )
    ranking = rank_operations(api, api.operations)
    assert any(p == -25 and "work inside one of its items" in n for n, p in ranking["GET /accounts"].points)
    assert not any("work inside" in n for n, _ in ranking["GET /accounts/{sid}"].points)


def test_plumbing_nouns_alphabetical_tags_and_the_most_described_operations() -> None:
    ops = [
        op("post", "/field", summary="Create a custom field"),
        op("get", "/things", summary="List things", description="x" * 4000),
    ]
    ops += [op("get", f"/other{i}", summary="Other", description=f"short {i}") for i in range(30)]
    api = make_api(*ops)
    ranking = rank_operations(api, api.operations)
    assert _points(ranking, "POST /field")["field: plumbing"] == -15
    assert _points(ranking, "GET /things")["among the document's most described operations"] == 12
    assert not any("most described" in n for n in _points(ranking, "GET /other1"))


def test_a_noun_listed_only_under_its_parent_earns_its_home_there() -> None:
    # No GET /cards: the cards of a list are how cards are listed; that listing earns the cards' fame.
    ops = [
        op("post", "/cards", summary="Create a card"),
        op("get", "/cards/{id}", summary="Get a card"),
        op("put", "/cards/{id}", summary="Update a card"),
        op("delete", "/cards/{id}", summary="Delete a card"),
        op("get", "/lists/{id}/cards", summary="Cards in a list"),
        op("get", "/lists/{id}", summary="Get a list"),
        op("post", "/labels", summary="Create a label"),
        op("get", "/labels", summary="List labels"),
        op("get", "/labels/{id}/cards", summary="Cards with a label (older)"),
        op("get", "/boards/{id}/stickers/{s}/cards", summary="Cards of a sticker"),
    ]
    api = make_api(*ops)
    ranking = rank_operations(api, api.operations)
    listing = _points(ranking, "GET /lists/{id}/cards")
    assert "4 operations under cards" in listing
    assert not any("not its home" in n for n in listing)
    assert any("not its home" in n for n in _points(ranking, "GET /boards/{id}/stickers/{s}/cards"))


def test_the_callers_own_listing_stands_in_for_a_home_that_cannot_list() -> None:
    # No GET /playlists: /me/playlists is how the caller lists playlists, and earns the playlists' fame.
    ops = [
        op("get", "/playlists/{id}", summary="Get a playlist"),
        op("put", "/playlists/{id}", summary="Change a playlist"),
        op("get", "/playlists/{id}/tracks", summary="Tracks of a playlist"),
        op("get", "/me/playlists", summary="My playlists"),
        op("get", "/me/shows", summary="My shows"),
        op("get", "/shows/{id}", summary="Get a show"),
        op("get", "/shows", summary="List shows"),
    ]
    api = make_api(*ops)
    ranking = rank_operations(api, api.operations)
    assert "3 operations under playlists" in _points(ranking, "GET /me/playlists")
    assert "1 operations under me/shows" in _points(ranking, "GET /me/shows")  # /shows lists: no stand-in


@pytest.mark.parametrize(
    ("method", "path", "summary", "resource", "action"),
    [
        # /actions/ only gathers an item's verbs: each is an act on the item, not a create of "actions".
        ("post", "/servers/{id}/actions/create_image", "", ("servers",), "create_image"),
        ("post", "/load_balancers/{id}/actions/add_target", "", ("load_balancers",), "add_target"),
        # A camel-case verb on an item is an act on it (add the task to a project), not a create.
        ("post", "/tasks/{task_gid}/addProject", "Add a project to a task", ("tasks",), "add_project"),
        # A create at a name the caller chooses; "Create or update" stays an update.
        (
            "post",
            "/repos/{owner}/{repo}/contents/{filepath}",
            "Create a file in a repository",
            ("repos", "{}", "{}", "contents"),
            "create",
        ),
        (
            "put",
            "/repos/{owner}/{repo}/contents/{path}",
            "Create or update file contents",
            ("repos", "{}", "{}", "contents"),
            "update",
        ),
        # The item in another form is not the item's get.
        (
            "get",
            "/repos/{owner}/{repo}/pulls/{index}.{diffType}",
            "Get a pull request diff or patch",
            ("repos", "{}", "{}", "pulls", "{}", "diffType"),
            "get",
        ),
    ],
)
def test_acts_on_an_item_creates_at_a_name_and_other_forms(
    method: str, path: str, summary: str, resource: tuple[str, ...], action: str
) -> None:
    s = shape(op(method, path, summary=summary))
    assert (s.resource, s.action) == (resource, action)


def test_tags_alphabetical_by_their_head_word_say_nothing() -> None:
    from packc.model import Tag

    ops = [
        op("get", "/certificates", summary="List certificates", tags=("Certificates",)),
        op("get", "/servers", summary="List servers", tags=("Servers",)),
    ]
    names = ("Actions", "Certificates", "Certificate Actions", "Servers", "Server Actions", "Volumes")
    api = make_api(*ops)
    object.__setattr__(api, "tags", tuple(Tag(name=n) for n in names))
    ranking = rank_operations(api, api.operations)
    assert not any(n.startswith("tag ") for n in _points(ranking, "GET /certificates"))
    reordered = ("Servers", "Volumes", "Actions", "Certificates")  # ordered by the authors: it counts
    object.__setattr__(api, "tags", tuple(Tag(name=n) for n in reordered))
    ranking = rank_operations(api, api.operations)
    assert any(n.startswith("tag 'Servers' is #1") for n in _points(ranking, "GET /servers"))


def test_a_create_brings_the_lists_that_give_its_required_values() -> None:
    body = {
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "required": ["name", "server_type", "image"],
                    "properties": {
                        "name": {"type": "string"},
                        "server_type": {"type": "string"},
                        "image": {"type": "string"},
                        "labels": {"type": "object"},
                    },
                }
            }
        }
    }
    document = {"paths": {"/servers": {"post": {"requestBody": body}}}}
    ops = [
        op("post", "/servers", summary="Create a server"),
        op("get", "/servers", summary="List servers"),
        op("get", "/servers/{id}", summary="Get a server"),
        op("delete", "/servers/{id}", summary="Delete a server"),
        op("get", "/server_types", summary="List server types"),
        op("get", "/images", summary="List images"),
        op("get", "/labels", summary="List labels"),
    ]
    ops += [
        op(m, f"/{noun}", summary=f"{m} {noun}")
        for noun in ("networks", "volumes", "firewalls", "certificates", "floating_ips")
        for m in ("get", "post")
    ]
    api = make_api(*ops, document=document)
    ranking = rank_operations(api, api.operations)
    assert ranking["POST /servers"].needs == {("name",), ("server", "type"), ("image",)}
    ranked = sorted(ranking.items(), key=lambda kv: (-kv[1].score, kv[0]))
    chosen = select(ranked, 8)
    assert {"POST /servers", "GET /server_types", "GET /images"} <= set(chosen)
    assert "GET /labels" not in chosen  # not a required field


def test_creating_a_refund_is_the_act_and_other_accounts_are_a_directory() -> None:
    ops = [
        op("post", "/v1/refunds", summary="Create a refund"),
        op("post", "/v1/notes", summary="Create a note"),
        op("get", "/v1/account", summary="Retrieve account"),
        op("get", "/v1/accounts", summary="List all accounts"),
        op("get", "/v1/accounts/{account}", summary="Retrieve an account"),
        op("get", "/v1/notes", summary="List notes"),
    ]
    api = make_api(*ops)
    ranking = rank_operations(api, api.operations)
    assert _points(ranking, "POST /v1/refunds")["creates a refund: the act itself"] == 18
    assert "everyday verb" in _points(ranking, "POST /v1/notes")
    assert _points(ranking, "GET /v1/accounts")["other accounts than the caller's own: a directory"] == -15
    assert not any("directory" in n for n in _points(ranking, "GET /v1/account"))


def test_a_create_under_a_parent_stands_in_for_a_home_that_cannot_create() -> None:
    # No POST /meetings: a user's meetings are where meetings are listed and created.
    ops = [
        op("get", "/meetings/{id}", summary="Get a meeting"),
        op("patch", "/meetings/{id}", summary="Update"),
        op("delete", "/meetings/{id}", summary="Delete a meeting"),
        op("get", "/meetings/{id}/registrants", summary="Registrants"),
        op("get", "/users/{userId}/meetings", summary="List meetings"),
        op("post", "/users/{userId}/meetings", summary="Create a meeting"),
        op("get", "/users/{userId}", summary="Get a user"),
        op("get", "/users", summary="List users"),
    ]
    api = make_api(*ops)
    ranking = rank_operations(api, api.operations)
    created = _points(ranking, "POST /users/{userId}/meetings")
    assert "4 operations under meetings" in created
    assert not any("not its home" in n for n in created)


def test_a_product_name_before_the_version_is_the_base_path() -> None:
    from packc.curate._shape import path_segments

    assert path_segments("/youtube/v3/search")[0] == ("search",)
    assert path_segments("/gmail/v1/users/{userId}/messages")[0] == ("users", "{}", "messages")
    assert path_segments("/v2/droplets")[0] == ("droplets",)
    assert path_segments("/repos/{o}/{r}/v1/x")[0] == (
        "repos",
        "{}",
        "{}",
        "v1",
        "x",
    )  # after a parameter: a name
    assert shape(op("get", "/youtube/v3/search")).resource == ()  # a search of the whole API


def test_an_item_path_keyed_by_another_resource_lists_and_rpc_posts_read() -> None:
    ops = [
        op("get", "/flags/{projectKey}", summary="List feature flags"),
        op("get", "/flags/{projectKey}/{featureFlagKey}", summary="Get a feature flag"),
        op("get", "/projects", summary="List projects"),
        op("get", "/projects/{projectKey}", summary="Get a project"),
        op("get", "/members/{memberId}", summary="Get a member"),
    ]
    api = make_api(*ops)
    ranking = rank_operations(api, api.operations)
    assert ranking["GET /flags/{projectKey}"].shape.action == "list"
    assert ranking["GET /flags/{projectKey}/{featureFlagKey}"].shape.action == "get"
    assert ranking["GET /projects/{projectKey}"].shape.action == "get"  # its own noun's key
    assert ranking["GET /members/{memberId}"].shape.action == "get"
    # Nearly every call a POST: a plural collection POSTed to lists unless its summary creates.
    rpc = [
        op("post", "/inbound/domains.json", summary="List the inbound domains"),
        op("post", "/templates/add.json", summary="Add a template"),
        op("post", "/webhooks.json", summary="Add a new webhook"),
        op("post", "/users/ping.json", description="Validate an API key and respond to a ping"),
    ]
    rpc += [op("post", f"/thing{i}/info.json", summary="Info") for i in range(8)]
    api = make_api(*rpc)
    ranking = rank_operations(api, api.operations)
    assert ranking["POST /inbound/domains.json"].shape.action == "list"
    assert ranking["POST /webhooks.json"].shape.action == "create"
    assert ranking["POST /templates/add.json"].shape.action == "add"  # its own verb, untouched
    assert any(n.startswith("entry point") for n in _points(ranking, "POST /users/ping.json"))
    # The same paths in an API of GETs and POSTs keep POST as a create.
    api = make_api(*rpc[:3], *[op("get", f"/thing{i}", summary="Get") for i in range(12)])
    assert rank_operations(api, api.operations)["POST /inbound/domains.json"].shape.action == "create"


def test_a_singular_collection_with_items_lists() -> None:
    ops = [
        op("get", "/api/v1/app/", summary="List applications"),
        op("get", "/api/v1/app/{app_id}/", summary="Get"),
        op("post", "/api/v1/app/", summary="Create"),
        op("get", "/user", summary="Get the authenticated user"),
        op("get", "/user/{account_id}", summary="Get a user using their ID"),
    ]
    api = make_api(*ops)
    ranking = rank_operations(api, api.operations)
    assert ranking["GET /api/v1/app/"].shape.action == "list"
    assert ranking["GET /api/v1/app/{app_id}/"].shape.action == "get"
    assert ranking["GET /user"].shape.action == "get"  # who am I, though users sit below it


def test_what_the_introduction_names_ranks_higher() -> None:
    # Two resources of the same shape; the document's own introduction says what it is for.
    ops = [
        op(m, p, summary=s)
        for m, p, s in (
            ("get", "/widgets", "List widgets"),
            ("post", "/widgets", "Create a widget"),
            ("get", "/gadgets", "List gadgets"),
            ("post", "/gadgets", "Create a gadget"),
        )
    ]
    api = make_api(*ops)
    plain = rank_operations(api, api.operations)
    told = replace(
        api, info=replace(api.info, description="The Zoo API lets you keep track of your gadgets.")
    )
    ranked = rank_operations(told, told.operations)
    for method in ("GET", "POST"):
        assert ranked[f"{method} /gadgets"].score - plain[f"{method} /gadgets"].score == WEIGHTS.intro
        assert ranked[f"{method} /widgets"].score == plain[f"{method} /widgets"].score
    assert any("introduction" in name for name, _ in ranked["GET /gadgets"].points)
    # Only the lead of the introduction counts: a word far down a long text is not its point.
    far = replace(api, info=replace(api.info, description="x " * WEIGHTS.intro_lead + "gadgets"))
    assert rank_operations(far, far.operations)["GET /gadgets"].score == plain["GET /gadgets"].score


def test_who_am_i_is_the_caller_not_the_callers_things_and_an_api_wide_argument_is_no_lookup() -> None:
    site = Parameter(name="site", location="query", required=True, schema={"type": "string"})
    api = make_api(
        op("get", "/articles/me", summary="Your articles"),
        op("get", "/users/me", summary="The user"),
        op("get", "/rooms/account_profile", summary="Get a room's account profile"),  # a room's, not mine
        op("get", "/articles", summary="Articles"),
        op("get", "/articles/{id}", summary="An article"),
    )
    ranked = rank_operations(api, api.operations)
    entries = {k for k, r in ranked.items() if any(name == ENTRY for name, _ in r.points)}
    assert entries == {"GET /users/me"}
    # Stack Exchange: every call takes ?site=, so GET /me?site=... is still "who am I"; a user lookup
    # by a required argument of its own is not.
    api = make_api(
        op("get", "/me", parameters=(site,)),
        op("get", "/user", parameters=(site, replace(site, name="id"))),
        op("get", "/questions", parameters=(site,)),
        op("get", "/answers", parameters=(site,)),
    )
    ranked = rank_operations(api, api.operations)
    entries = {k for k, r in ranked.items() if any(name == ENTRY for name, _ in r.points)}
    assert entries == {"GET /me"}


def test_a_compound_the_path_writes_as_one_word_is_named_by_texts_that_write_it_as_two() -> None:
    api = make_api(
        op("get", "/repositories/{w}/{r}/pullrequests", summary="List pull requests"),
        op("post", "/repositories/{w}/{r}/pullrequests", summary="Create a pull request"),
        op(
            "get",
            "/repositories/{w}/{r}/pullrequests/{id}/comments",
            summary="List comments on a pull request",
        ),
        op("post", "/repositories/{w}/{r}/pullrequests/{id}/approve", summary="Approve a pull request"),
        op("get", "/repositories/{w}/{r}/commits", summary="List commits of a pull request's source"),
    )
    points = dict(rank_operations(api, api.operations)["GET /repositories/{w}/{r}/pullrequests"].points)
    assert points.get("'pullrequest' named by 2 other operations")  # the comments and the commits
