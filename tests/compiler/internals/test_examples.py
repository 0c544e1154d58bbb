"""Examples a ready-to-run line shows are values a person could send (issue 24, item 5)."""

from __future__ import annotations

from typing import Any

from packc.build._examples import enum_order, example_for, is_placeholder, name_hints, with_example
from packc_runtime.diagnostics import Diagnostic


def test_an_enum_example_is_the_value_its_description_names_and_never_the_empty_text() -> None:
    # Twilio: the enum starts with HEAD, the description says GET or POST.
    method = {
        "type": "string",
        "enum": ["HEAD", "GET", "POST", "PATCH", "PUT", "DELETE"],
        "description": "The HTTP method we should use to call `fallback_url`. Can be: `GET` or `POST`.",
    }
    assert example_for(method) == (True, "GET")
    # Stripe: "" (unset) first.
    tax = {"type": "string", "enum": ["", "exempt", "none", "reverse"]}
    assert example_for(tax) == (True, "exempt")
    assert enum_order({**tax, "description": "One of 'none', 'exempt', or 'reverse'."})[:2] == [
        "none",
        "exempt",
    ]
    assert example_for({"type": "string", "enum": [""]}) == (True, "")  # the only value is the value


def test_a_format_without_a_known_value_gets_no_placeholder_example() -> None:
    assert example_for({"type": "string", "format": "x-account-ref"}) == (False, None)
    assert example_for({"type": "string", "format": "currency"}) == (True, "USD")
    assert example_for({"type": "string", "format": "string"}) == (True, "example")  # says only "text"
    assert example_for({"type": "string", "format": "password"}) == (False, None)  # no made-up secret
    assert example_for({"type": "string", "format": "date"}) == (True, "2024-01-15")
    assert example_for({"type": "string"}) == (True, "example")  # nothing says what it holds


def test_a_documents_placeholder_example_is_replaced() -> None:
    diags: list[Diagnostic] = []
    when = with_example({"type": "string", "format": "date-time"}, ["string"], "#/x", diags)
    assert when["examples"] == ["2024-01-15T09:30:00Z"]
    state = with_example({"type": "string", "enum": ["", "open"]}, [""], "#/x", diags)
    assert state["examples"] == ["open"]
    assert is_placeholder({"format": "uuid"}, "example") and not is_placeholder({}, "example")
    assert not diags


def test_a_value_the_document_wrote_percent_encoded_is_decoded_where_the_runtime_encodes() -> None:
    diags: list[Diagnostic] = []
    q: dict[str, Any] = {"type": "string"}
    given = ["remaster%20track:Doxy%20artist:Miles%20Davis"]
    assert with_example(q, given, "#/q", diags, decode=True)["examples"] == [
        "remaster track:Doxy artist:Miles Davis"
    ]
    assert with_example(q, given, "#/q", diags)["examples"] == given  # a JSON body: as written
    url = ["https://example.com/a%20b"]
    assert with_example(q, url, "#/q", diags, decode=True)["examples"] == url  # a URL keeps its escapes


def test_a_currency_is_a_three_letter_code() -> None:
    diags: list[Diagnostic] = []
    lower = {"type": "string", "description": "Three-letter ISO currency code, in lowercase."}
    assert with_example(lower, [], "#/c", diags, hints=name_hints("currency", lower))["examples"] == ["usd"]
    code = {"type": "string"}
    assert name_hints("currency_code", code) == ["USD"] and name_hints("amount", code) == []
    assert with_example(code, ["EUR"], "#/c", diags, hints=name_hints("currency", code))["examples"] == [
        "EUR"
    ]


def test_a_password_shows_no_example_not_even_the_documents() -> None:
    diags: list[Diagnostic] = []
    secret = with_example({"type": "string", "format": "password"}, ["hunter2"], "#/p", diags, required=True)
    assert "examples" not in secret and not diags
