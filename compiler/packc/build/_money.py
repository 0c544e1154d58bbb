"""Money and whole emails on a card: which amounts are in a currency's smallest unit, which objects
hold an amount and its currency, and which arguments are a whole base64 email."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from packc.build._card_words import MONEY_ACTIONS, MONEY_THINGS, Arg
from packc.build._titles import find_arg
from packc.curate.plan import PlannedVerb
from packc.words import singular

__all__ = ["mime_args", "minor_amounts", "money_arg_pair", "money_objects", "money_verb", "whole_emails"]


def money_verb(pv: PlannedVerb, words: set[str]) -> str:
    """``''`` when the operation moves no money; else the money verb: create, refund, capture, ..."""
    if pv.action in ("update", "get", "list", "delete", "replace"):
        return ""  # an update of a payment object (its description, metadata) moves no money
    if pv.action in MONEY_ACTIONS or pv.action.split("_")[0] in MONEY_ACTIONS:
        return pv.action.split("_")[0]
    thing = singular(pv.resource[-1]) if pv.resource else ""
    if pv.action == "create" and (thing in MONEY_THINGS or thing.rpartition("_")[2] in MONEY_THINGS):
        return (
            "refund"
            if "refund" in thing
            else "transfer"
            if "transfer" in thing
            else "payout"
            if "payout" in thing
            else "capture"
            if "capture" in thing
            else "create"
        )
    if pv.action == "confirm" and words & {
        "payment",
        "payment_intent",
        "payment_intents",
        "charge",
        "charges",
    }:
        return "confirm"
    return ""


def money_arg_pair(args: Sequence[Arg]) -> tuple[Arg | None, Arg | None]:
    """The arguments that say how much (``amount``, ``price``, ``total_amount``) and in what currency."""
    return (
        find_arg(args, r"(body_)?(amount|price|total|sum|value)", r"(body_)?amount_\w+", r"\w*_amount"),
        find_arg(args, r"(body_)?currency(_code)?", r"\w*_currency"),
    )


# How a document says an amount is in the currency's smallest unit (Stripe: "A positive integer in cents
# representing how much to charge", "in the smallest currency unit").
_MINOR = re.compile(
    r"\bsmallest (currency )?(units?|denomination)\b|\bminor (currency )?units?\b|\bin cents\b", re.I
)
_MAJOR = re.compile(r"\b(dollars?|euros?|whole units?|major units?|decimal)\b", re.I)
_AMOUNT = re.compile(r"(\w+_)?amount(_\w+)?", re.I)
_CONVENTION: dict[int, tuple[Mapping[str, Any], int]] = {}


def minor_amounts(
    args: Sequence[Arg], document: Mapping[str, Any] | None = None, *, payment: bool = False
) -> dict[str, str]:
    """The binding's ``amounts``: an integer amount in the currency's smallest unit, with the argument
    that names its currency ("" when none does); the runtime shows 500 usd as 5.00 USD, and an amount
    without a currency as "500 (smallest currency unit)". The amount's own description says so ("in
    cents"), or, saying no other unit, its document does for at least three of its integer amounts
    (Stripe's payment amount says only "Amount intended to be collected"; 62 other amounts in its
    document say "in the smallest currency unit"), when a currency argument stands beside it or the
    verb moves money (``payment``: Stripe's refund takes the currency of the charge, and its card read
    "Refund 500 on charge ch_123", a bare number that looks like whole units)."""
    amount, currency = money_arg_pair(args)
    schema = getattr(amount, "schema", None)
    if amount is None or not isinstance(schema, Mapping) or schema.get("type") != "integer":
        return {}
    if _smallest_unit(schema, document if currency is not None or payment else None):
        return {amount.name: currency.name if currency else ""}
    return {}


def _smallest_unit(schema: Mapping[str, Any], document: Mapping[str, Any] | None) -> bool:
    """Whether an integer amount is in its currency's smallest unit: its description says so ("in
    cents"), or, naming no other unit, its ``document`` (given only when a currency stands beside the
    amount or the verb moves money) says so of at least three of its integer amounts."""
    text = str(schema.get("description", ""))
    return bool(_MINOR.search(text)) or (
        document is not None and not _MAJOR.search(text) and minor_convention(document) >= 3
    )


_RFC822 = re.compile(r"\bRFC ?(822|2822|5322)\b", re.I)


def whole_emails(args: Sequence[Arg]) -> list[Arg]:
    """Arguments that carry a whole email, base64-encoded (Gmail's ``raw``: "The entire email message
    in an RFC 2822 formatted and base64url encoded string")."""
    out = []
    for a in args:
        schema = getattr(a, "schema", None)
        text = str(schema.get("description", "")) if isinstance(schema, Mapping) else ""
        if a.location == "body" and _RFC822.search(text) and re.search(r"base64", text, re.I):
            out.append(a)
    return out


def mime_args(args: Sequence[Arg]) -> list[str]:
    """The binding's ``mime``: the names of :func:`whole_emails`; the runtime shows each one's To, Cc,
    Bcc and Subject on the card, which would otherwise show a blob."""
    return [a.name for a in whole_emails(args)]


def money_objects(
    args: Sequence[Arg], document: Mapping[str, Any] | None = None
) -> dict[str, dict[str, str]]:
    """The binding's ``moneyObjects``: an object argument holding an integer amount in the smallest unit
    and its currency (Square's ``amount_money`` {amount, currency}, Adyen's ``amount`` {value, currency}),
    by the keys that hold them; the runtime shows it as ``10.50 USD``. Smallest unit as for
    :func:`minor_amounts`."""
    out: dict[str, dict[str, str]] = {}
    for a in args:
        schema = getattr(a, "schema", None)
        props = schema.get("properties") if isinstance(schema, Mapping) else None
        if a.location != "body" or not isinstance(props, Mapping):
            continue
        amount = next(
            (
                k
                for k in ("amount", "value")
                if isinstance(props.get(k), Mapping) and props[k].get("type") == "integer"
            ),
            None,
        )
        currency = next(
            (k for k in ("currency", "currency_code", "currencyCode") if isinstance(props.get(k), Mapping)),
            None,
        )
        if amount is None or currency is None:
            continue
        if _smallest_unit(props[amount], document):
            out[a.name] = {"amount": amount, "currency": currency}
    return out


def minor_convention(document: Mapping[str, Any]) -> int:
    """How many integer amount properties (``amount``, ``amount_due``...) of the document say they are in
    the currency's smallest unit; walked once per document."""
    known = _CONVENTION.get(id(document))
    if known is not None and known[0] is document:
        return known[1]
    said = 0
    stack: list[Any] = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            props = node.get("properties")
            if isinstance(props, Mapping):
                said += sum(
                    1
                    for name, sch in props.items()
                    if isinstance(name, str)
                    and _AMOUNT.fullmatch(name)
                    and isinstance(sch, Mapping)
                    and sch.get("type") == "integer"
                    and _MINOR.search(str(sch.get("description", "")))
                )
            stack.extend(v for v in node.values() if isinstance(v, (Mapping, list)))
        elif isinstance(node, list):
            stack.extend(v for v in node if isinstance(v, (Mapping, list)))
    _CONVENTION.clear()  # one document at a time: a corpus run must not keep every document alive
    _CONVENTION[id(document)] = (document, said)
    return said
