"""The conformance run's form check: what Prism accepted, decoded as Rack/Stripe do (issue 12, item 8)."""

from __future__ import annotations

from .conftest import load_tool

conformance = load_tool("conformance")
proxy = load_tool("conformance_proxy")

BINDING = {
    "args": {
        "amount": {"in": "body", "name": "amount"},
        "metadata": {"in": "body", "name": "metadata"},
        "expand": {"in": "body", "name": "expand"},
    }
}
ENCODING = {
    "metadata": {"style": "deepObject", "explode": True},
    "expand": {"style": "deepObject", "explode": True},
}
ARGS = {"amount": 2000, "metadata": {"order": "42"}, "expand": ["customer"]}


def _result(body: bytes) -> object:
    result = conformance.VerbResult("stripe-payment-intents", "payment_intents.create", "ok", args=ARGS)
    result.exchanges = [
        proxy.Exchange(
            "POST", "/v1/payment_intents", [], "application/x-www-form-urlencoded", body.decode(), raw=body
        )
    ]
    return result


def test_a_deep_object_body_is_intact() -> None:
    result = _result(b"amount=2000&metadata[order]=42&expand[0]=customer")
    conformance.check_form(result, BINDING, ENCODING)
    assert (result.outcome, result.form_check) == ("ok", "intact")


def test_json_text_where_stripe_wants_brackets_is_caught() -> None:
    # what Stripe packs sent before: Prism accepted it
    result = _result(b"amount=2000&metadata=%7B%22order%22%3A%2242%22%7D&expand=customer")
    conformance.check_form(result, BINDING, ENCODING)
    assert (result.outcome, result.reason, result.form_check) == ("rejected", "form_decoding", "mismatch")
    assert "metadata" in result.detail and "expand" in result.detail
