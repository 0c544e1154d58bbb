"""Arguments: refused before anything is sent, each problem named; CLI strings coerced by schema."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from packc_runtime import load_pack
from packc_runtime.calling.args import coerce_cli_value, validate_args
from packc_runtime.errors import InvalidArgument, MissingArgument, UnknownArgument
from servers import PACKS

SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "minLength": 1},
        "n": {"type": "integer", "minimum": 1, "maximum": 10},
        "mode": {"type": "string", "enum": ["a", "b"]},
        "tags": {"type": "array", "items": {"type": "string"}},
        "ratio": {"type": "number"},
        "on": {"type": "boolean"},
        "code": {"type": "string", "pattern": "^[A-Z]{2}$"},
    },
    "required": ["id"],
}


def test_valid_args_pass_unchanged() -> None:
    args = {"id": "x", "n": 3, "mode": "a", "tags": ["t"], "ratio": 0.5, "on": True, "code": "FR"}
    assert validate_args("v", SCHEMA, args) == args


def test_each_unknown_missing_and_invalid_argument_is_named() -> None:
    with pytest.raises(UnknownArgument) as info:
        validate_args("v", SCHEMA, {"zz": 1, "yy": 2, "n": "three"})
    error = info.value
    assert error.details["unknown"] == ["yy", "zz"]
    assert error.details["missing"] == ["id"]
    assert error.details["invalid"] == [{"argument": "n", "message": "\"three\" is not of type 'integer'"}]
    assert "yy, zz" in error.message and "id" in error.message and error.exit_code == 2


@pytest.mark.parametrize(
    "args, fragment",
    [
        ({"id": "x", "n": 0}, "less than the minimum"),
        ({"id": "x", "n": 11}, "greater than the maximum"),
        ({"id": "x", "n": True}, "not of type"),
        ({"id": "x", "mode": "c"}, "is not one of"),
        ({"id": "x", "tags": ["a", 1]}, "item 1"),
        ({"id": "x", "code": "fr"}, "does not match"),
        ({"id": ""}, "shorter than"),
        ({"id": "x", "ratio": "1.5"}, "not of type"),
    ],
)
def test_invalid_values(args: dict[str, Any], fragment: str) -> None:
    with pytest.raises(InvalidArgument, match=fragment):
        validate_args("v", SCHEMA, args)


def test_missing_only() -> None:
    with pytest.raises(MissingArgument, match="missing required argument"):
        validate_args("v", SCHEMA, {})


def test_schemas_beyond_the_subset_use_jsonschema_with_defs() -> None:
    schema = {
        "type": "object",
        "$defs": {"P": {"type": "object", "required": ["x"]}},
        "properties": {"p": {"$ref": "#/$defs/P"}, "o": {"oneOf": [{"type": "string"}, {"type": "integer"}]}},
    }
    assert validate_args("v", schema, {"p": {"x": 1}, "o": 3})
    with pytest.raises(InvalidArgument) as info:
        validate_args("v", schema, {"p": {}, "o": 1.5})
    assert [e["argument"] for e in info.value.details["invalid"]] == ["p", "o"]


def test_nothing_is_sent_when_args_are_wrong() -> None:
    seen: list[httpx.Request] = []
    transport = httpx.MockTransport(lambda r: seen.append(r) or httpx.Response(200))  # type: ignore[func-returns-value]
    with load_pack(PACKS / "echo", transport=transport) as pack:
        envelope = pack.call("items.get", {"item_id": "1", "bogus": True}, server="http://x.test")
        assert envelope["error"]["code"] == "unknown_argument"
        assert envelope["error"]["unknown"] == ["bogus"]
        assert pack.call("items.get", {}, server="http://x.test")["error"]["code"] == "missing_argument"
        assert pack.call("nope.verb", {})["error"]["code"] == "unknown_verb"
    assert seen == []


def test_cli_coercion_by_schema_type() -> None:
    assert coerce_cli_value("n", {"type": "integer"}, ["42"]) == 42
    assert coerce_cli_value("n", {"type": "integer"}, ["4x"]) == "4x"  # left for validation to name
    assert coerce_cli_value("r", {"type": "number"}, ["2.5"]) == 2.5
    assert coerce_cli_value("r", {"type": "number"}, ["nan"]) == "nan"
    assert coerce_cli_value("b", {"type": "boolean"}, ["false"]) is False
    assert coerce_cli_value("b", {"type": "boolean"}, ["yes"]) is True
    assert coerce_cli_value("t", {"type": "array", "items": {"type": "integer"}}, ["1", "2"]) == [1, 2]
    assert coerce_cli_value("t", {"type": "array"}, ['["a", 1]']) == ["a", 1]
    assert coerce_cli_value("o", {"type": "object"}, ['{"k": 1}']) == {"k": 1}
    assert coerce_cli_value("s", {"type": "string"}, ["007"]) == "007"
    assert coerce_cli_value("s", {}, ["a", "b"]) == "b"


def test_unconfirmed_write_returns_the_filled_preview_leaving_unset_optionals_out() -> None:
    seen: list[httpx.Request] = []
    transport = httpx.MockTransport(lambda r: seen.append(r) or httpx.Response(200))  # type: ignore[func-returns-value]
    with load_pack(PACKS / "echo", transport=transport) as pack:
        envelope = pack.call("items.create", {"name": "lamp", "tags": ["a", "b"]}, server="http://x.test")
    assert envelope["error"]["code"] == "not_confirmed" and envelope["status"] is None
    assert envelope["error"]["preview"] == {
        "kind": "record",
        "title": "Create lamp",
        "fields": {"name": "lamp", "tags": '["a", "b"]'},
    }
    assert seen == []


def test_non_object_args_are_an_envelope_not_a_traceback() -> None:
    with load_pack(PACKS / "echo", transport=httpx.MockTransport(lambda r: httpx.Response(200))) as pack:
        for bad in ([1, 2], "id=1", 5):
            envelope = pack.call("items.get", bad)  # type: ignore[arg-type]
            assert envelope["error"]["code"] == "invalid_argument"


def test_a_preview_title_with_an_unset_optional_leaves_no_gap() -> None:
    from packc_runtime.calling.results import preview_card

    verb = {
        "preview": {
            "kind": "payment",
            "title": "Refund {{amount}} {{currency}} on charge {{charge}}",
            "fields": {
                "amount": "{{amount}}",
                "currency": "{{currency}}",
                "charge": "{{charge}}",
                "memo": "EUR {{amount}}",
                "fixed": "EUR",
            },
        }
    }
    card = preview_card("charges.refunds.create", verb, {"charge": "ch_1"})
    assert card == {
        "kind": "payment",
        "title": "Refund on charge ch_1",
        "fields": {"charge": "ch_1", "fixed": "EUR"},
    }
    full = preview_card("charges.refunds.create", verb, {"charge": "ch_1", "amount": 500, "currency": "usd"})
    assert full["title"] == "Refund 500 usd on charge ch_1" and full["fields"]["memo"] == "EUR 500"


def test_an_amount_in_the_smallest_unit_reads_as_money_and_shows_what_is_sent() -> None:
    from packc_runtime.calling.results import preview_card

    verb = {
        "preview": {
            "kind": "payment",
            "title": "Refund {{amount}} {{currency}} on {{charge}}",
            "fields": {
                "amount": "{{amount}}",
                "currency": "{{currency}}",
                "charge": "{{charge}}",
                "payment_intent": "{{payment_intent}}",
            },
        }
    }
    amounts = {"amount": "currency"}
    card = preview_card(
        "refunds.create", verb, {"payment_intent": "pi_1", "amount": 500, "currency": "usd"}, amounts
    )
    # No charge: the title drops "on" with it, and the payment intent is in the fields.
    assert card == {
        "kind": "payment",
        "title": "Refund 5.00 USD",
        "fields": {"amount": "5.00", "currency": "USD", "payment_intent": "pi_1", "amount as sent": "500"},
    }
    assert (
        preview_card("r", verb, {"charge": "ch_1", "amount": 500, "currency": "jpy"}, amounts)["title"]
        == "Refund 500 JPY on ch_1"
    )
    assert (
        preview_card("r", verb, {"charge": "ch_1", "amount": 5000, "currency": "KWD"}, amounts)["title"]
        == "Refund 5.000 KWD on ch_1"
    )
    assert preview_card("r", verb, {"amount": 500}, amounts)["title"] == "Refund 500 (smallest currency unit)"
    # Not a whole number, or not a currency code: shown as given.
    assert preview_card("r", verb, {"amount": "5", "currency": "usd"}, amounts)["title"] == "Refund 5 usd"
    assert (
        preview_card("r", verb, {"amount": True, "currency": "dollars"}, amounts)["title"]
        == "Refund true dollars"
    )
    # Without the binding's amounts, nothing is read into the value.
    assert preview_card("r", verb, {"amount": 500, "currency": "usd"})["title"] == "Refund 500 usd"


@given(st.integers(min_value=-(10**30), max_value=10**30), st.text(max_size=6))
def test_money_args_keep_the_value_sent_and_never_fail(value: int, currency: str) -> None:
    from decimal import Decimal

    from packc_runtime.calling.results import money_args

    shown, sent = money_args({"amount": value, "currency": currency}, {"amount": "currency"})
    if sent:  # a three-letter code: read in its smallest unit, and the value sent kept beside it
        decimals = len(shown["amount"].partition(".")[2])
        assert decimals in (0, 2, 3) and Decimal(shown["amount"]).scaleb(decimals) == value
        assert sent == {"amount": str(value)} and shown["currency"] == currency.upper() and len(currency) == 3
    else:
        assert shown["amount"] == f"{value} (smallest currency unit)" and shown["currency"] == currency


def test_a_32_digit_amount_reads_as_itself_on_the_card() -> None:
    """Issue 23: 99999999999999999999999999999999 cents showed as 1000000000000000000000000000000.00
    USD (Decimal's 28-digit context rounded it)."""
    from packc_runtime.calling.results import preview_card

    verb = {"preview": {"kind": "payment", "title": "Pay {{amount}} {{currency}}", "fields": {}}}
    value = 99999999999999999999999999999999
    card = preview_card("payments.create", verb, {"amount": value, "currency": "usd"}, {"amount": "currency"})
    assert card is not None and card["title"] == "Pay 999999999999999999999999999999.99 USD"


@given(st.integers(min_value=-(10**80), max_value=10**80), st.sampled_from(["usd", "jpy", "kwd", "eur"]))
def test_an_amount_reads_exactly_whatever_its_size(value: int, currency: str) -> None:
    from packc_runtime.calling.results import money_args

    shown, _sent = money_args({"amount": value, "currency": currency}, {"amount": "currency"})
    whole, _, fraction = shown["amount"].partition(".")
    assert len(fraction) == {"usd": 2, "jpy": 0, "kwd": 3, "eur": 2}[currency]
    assert int(whole + fraction) == value and whole.lstrip("-") == (whole.lstrip("-").lstrip("0") or "0")


def test_a_binding_amounts_must_name_its_own_arguments() -> None:
    from packc_runtime.calling.openapi.operations import read_operations
    from packc_runtime.errors import InvalidPack

    def doc(amounts: object) -> dict[str, object]:
        return {
            "openapi": "3.0.3",
            "paths": {
                "/r": {
                    "post": {
                        "x-packc-binding": {
                            "verb": "r.create",
                            "args": {"amount": {"in": "query", "name": "amount"}},
                            "amounts": amounts,
                        }
                    }
                }
            },
        }

    assert read_operations(doc({"amount": ""}))["r.create"].amounts == {"amount": ""}
    for bad in (["amount"], {"amount": "currency"}, {"total": ""}, {"amount": 3}):
        with pytest.raises(InvalidPack, match="amounts"):
            read_operations(doc(bad))


def test_a_money_object_reads_as_money_and_shows_what_is_sent() -> None:
    from packc_runtime.calling.results import preview_card

    verb = {
        "preview": {
            "kind": "payment",
            "title": "Pay {{amount_money}}",
            "fields": {"amount": "{{amount_money}}"},
        }
    }
    objects = {"amount_money": {"amount": "amount", "currency": "currency"}}
    card = preview_card(
        "payments.create", verb, {"amount_money": {"amount": 1050, "currency": "usd"}}, None, objects
    )
    assert card == {
        "kind": "payment",
        "title": "Pay 10.50 USD",
        "fields": {"amount": "10.50 USD", "amount_money as sent": '{"amount": 1050, "currency": "usd"}'},
    }
    assert (
        preview_card("p", verb, {"amount_money": {"amount": 1050}}, None, objects)["title"]
        == "Pay 1050 (smallest currency unit)"
    )
    assert preview_card("p", verb, {"amount_money": "lots"}, None, objects)["title"] == "Pay lots"


def test_a_binding_money_objects_must_name_amount_and_currency_keys() -> None:
    from packc_runtime.calling.openapi.operations import read_operations
    from packc_runtime.errors import InvalidPack

    def doc(money: object) -> dict[str, object]:
        return {
            "openapi": "3.0.3",
            "paths": {
                "/p": {
                    "post": {
                        "x-packc-binding": {
                            "verb": "p.create",
                            "args": {"amount_money": {"in": "body", "name": "amount_money"}},
                            "moneyObjects": money,
                        }
                    }
                }
            },
        }

    ok = {"amount_money": {"amount": "amount", "currency": "currency"}}
    assert read_operations(doc(ok))["p.create"].money_objects == ok
    for bad in (
        {"other": ok["amount_money"]},
        {"amount_money": {"amount": "amount"}},
        {"amount_money": "x"},
        [],
    ):
        with pytest.raises(InvalidPack, match="moneyObjects"):
            read_operations(doc(bad))


def test_a_whole_email_argument_shows_who_it_goes_to() -> None:
    import base64

    from packc_runtime.calling.results import email_headers, preview_card

    raw = base64.urlsafe_b64encode(
        b"To: boss@corp.com\r\nCc: hr@corp.com\r\nSubject: =?utf-8?q?I_quit?=\r\n\r\nBye"
    )
    verb = {"preview": {"kind": "message", "title": "Send message", "fields": {"message": "{{raw}}"}}}
    card = preview_card("users.messages.send", verb, {"raw": raw.decode().rstrip("=")}, mime=["raw"])
    assert card["fields"] == {
        "message": "an email of 94 characters (base64)",
        "email to": "boss@corp.com",
        "email cc": "hr@corp.com",
        "email subject": "I quit",
    }
    assert email_headers("") is None and email_headers(5) is None
    # Not an email: shown as given, nothing read into it.
    assert preview_card("s", verb, {"raw": "hello"}, mime=["raw"])["fields"] == {"message": "hello"}


def test_every_recipient_header_of_an_email_is_on_the_card() -> None:
    """Issue 23: a whole email with two Bcc headers showed only the first on the card."""
    import base64

    from packc_runtime.calling.results import preview_card

    raw = base64.urlsafe_b64encode(
        b"To: friend@example.com\r\nBcc: me@example.com\r\nBcc: thief@attacker.example\r\n"
        b"Resent-Bcc: second@attacker.example\r\nSubject: hi\r\n\r\nBody"
    ).decode()
    verb = {"preview": {"kind": "message", "title": "Send message", "fields": {"message": "{{raw}}"}}}
    fields = preview_card("users.messages.send", verb, {"raw": raw}, mime=["raw"])["fields"]
    assert fields["email bcc"] == "me@example.com; thief@attacker.example"
    assert fields["email resent-bcc"] == "second@attacker.example"


@pytest.mark.parametrize(
    "head",
    [
        b"To: a@example.com\r\nnot a header\r\nBcc: thief@attacker.example\r\n",  # the parser stops early
        b"not a header\r\nBcc: thief@attacker.example\r\n",  # no header read at all
        b"To: a@example.com\r\n Bcc: thief@attacker.example\r\n",  # a folded line some services split
        b"To : a@example.com\r\n",  # a space before the colon (obsolete syntax a service may accept)
    ],
)
def test_an_email_whose_recipients_cannot_all_be_shown_is_refused(head: bytes) -> None:
    import base64

    from packc_runtime.calling.results import preview_card
    from packc_runtime.errors import InvalidArgument

    raw = base64.urlsafe_b64encode(head + b"\r\nBody").decode()
    verb = {"preview": {"kind": "message", "title": "Send message", "fields": {"message": "{{raw}}"}}}
    with pytest.raises(InvalidArgument, match="recipients cannot all be shown"):
        preview_card("users.messages.send", verb, {"raw": raw}, mime=["raw"])


@given(st.text(max_size=300))
def test_email_headers_never_fail_and_read_one_line_each(text: str) -> None:
    import base64

    from packc_runtime.calling.results import email_headers
    from packc_runtime.errors import InvalidArgument

    for value in (text, base64.urlsafe_b64encode(text.encode("utf-8", "surrogatepass")).decode()):
        try:
            headers = email_headers(value)
        except InvalidArgument:  # refused whole: never shown in part
            continue
        assert headers is None or all(
            isinstance(v, str) and "\n" not in v and "\r" not in v for v in headers.values()
        )


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["To", "Cc", "Bcc", "bcc", "Resent-To", "From", "Subject", "X-Other"]),
            st.from_regex(r"\A[a-z]{1,8}@[a-z]{1,8}\.example\Z"),
        ),
        max_size=8,
    )
)
def test_every_recipient_an_email_names_is_shown(headers: list[tuple[str, str]]) -> None:
    import base64

    from packc_runtime.calling.results import email_headers

    data = "".join(f"{name}: {value}\r\n" for name, value in headers).encode() + b"\r\nbody"
    shown = email_headers(base64.urlsafe_b64encode(data).decode()) or {}
    for name, value in headers:
        if name.lower() in ("to", "cc", "bcc", "resent-to"):
            assert value in shown[name.lower()].split("; ")


def test_a_binding_mime_must_list_its_arguments() -> None:
    from packc_runtime.calling.openapi.operations import read_operations
    from packc_runtime.errors import InvalidPack

    def doc(mime: object) -> dict[str, object]:
        return {
            "openapi": "3.0.3",
            "paths": {
                "/m": {
                    "post": {
                        "x-packc-binding": {
                            "verb": "m.send",
                            "args": {"raw": {"in": "body", "name": "raw"}},
                            "mime": mime,
                        }
                    }
                }
            },
        }

    assert read_operations(doc(["raw"]))["m.send"].mime == ("raw",)
    for bad in (["other"], "raw", [1]):
        with pytest.raises(InvalidPack, match="mime"):
            read_operations(doc(bad))
