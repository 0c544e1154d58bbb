"""The result envelope: decode the body, render titles and preview cards, map statuses to errors."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Required, TypedDict

from packc_runtime.calling.send import Received, parse_retry_after
from packc_runtime.errors import (
    Forbidden,
    InvalidArgument,
    InvalidResponse,
    NotFound,
    PackRuntimeError,
    RateLimited,
    RequestRejected,
    Unauthorized,
    UpstreamError,
)
from packc_runtime.format.templating import placeholders
from packc_runtime.format.view import VerbView
from packc_runtime.rules import PLACEHOLDER, PLACEHOLDER_NAME

__all__ = [
    "TRUNCATION_MARKER",
    "Envelope",
    "decode_body",
    "done_title",
    "error_for_status",
    "failure",
    "live_title",
    "money_args",
    "preview_card",
    "render",
    "sent_with",
    "success",
]

TRUNCATION_MARKER = "[packc: response cut at {limit} bytes]"
_TEXT_TYPES = (
    "text/",
    "application/xml",
    "application/javascript",
    "application/x-www-form-urlencoded",
    "application/yaml",
    "application/x-yaml",
)


class Envelope(TypedDict, total=False):
    """What a call returns, as one JSON object (docs/runtime.md, "The envelope"): ``ok``, the final HTTP
    ``status`` (None when nothing was answered) and the ``verb``; then ``title`` and ``body`` when ok, and
    ``truncated`` when the body was cut, ``mock`` when a mock pack answered; ``error`` (``PackRuntimeError.to_json()``) when not ok. A plain
    dict at run time, so callers and JSON output see exactly the keys set."""

    ok: Required[bool]
    status: Required[int | None]
    verb: Required[str | None]
    title: str | None
    body: Any
    error: dict[str, Any]
    truncated: dict[str, Any]
    mock: bool  # True: binding.mode mock answered from the document; nothing was sent


def _verb_view(verb: VerbView | Mapping[str, Any]) -> VerbView:
    return verb if isinstance(verb, VerbView) else VerbView.read(verb)


def _lookup(name: str, args: Mapping[str, Any], result: Any) -> Any:
    if name == "result" or name.startswith("result."):
        value = result
        for part in name.split(".")[1:]:
            if isinstance(value, Mapping) and part in value:
                value = value[part]
            elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
                value = value[int(part)]
            else:
                return None
        return value
    return args.get(name)


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)


def render(template: str, args: Mapping[str, Any], result: Any = None, *, strict: bool = False) -> str | None:
    """Fill ``{{name}}`` and ``{{result.a.b}}``; missing values render empty (None when ``strict``)."""
    missing = False

    def fill(match: re.Match[str]) -> str:
        nonlocal missing
        if not PLACEHOLDER_NAME.fullmatch(match.group(1)):
            return match.group(0)  # not a name a title can hold: left as written
        value = _lookup(match.group(1), args, result)
        if value is None:
            missing = True
        return _text(value)

    out = PLACEHOLDER.sub(fill, template)
    return None if strict and missing else out


def done_title(verb: VerbView | Mapping[str, Any], args: Mapping[str, Any], result: Any) -> str | None:
    """The first ``title.done`` template whose placeholders all resolve (the last one, else).

    ``verb``: the verb as the pack declares it (its view, or its surface.json object)."""
    title = _verb_view(verb).title
    return _first_title(title.done if title is not None else None, args, result)


def live_title(verb: VerbView | Mapping[str, Any], args: Mapping[str, Any]) -> str | None:
    """The first ``title.live`` template whose placeholders all resolve (the last one, else): what a
    face shows while the verb runs ("Paying 5 EUR to Ada")."""
    title = _verb_view(verb).title
    return _first_title(title.live if title is not None else None, args, None)


def _first_title(given: str | Sequence[str] | None, args: Mapping[str, Any], result: Any) -> str | None:
    templates = [given] if isinstance(given, str) else list(given or ())
    for template in templates:
        text = render(template, args, result, strict=True)
        if text is not None:
            return text
    return render(templates[-1], args, result) if templates else None


# ISO 4217 currencies whose smallest unit is not a hundredth: none (yen) or a thousandth (dinar).
_EXPONENTS = {
    **dict.fromkeys(
        (
            "BIF",
            "CLP",
            "DJF",
            "GNF",
            "ISK",
            "JPY",
            "KMF",
            "KRW",
            "PYG",
            "RWF",
            "UGX",
            "UYI",
            "VND",
            "VUV",
            "XAF",
            "XOF",
            "XPF",
        ),
        0,
    ),
    **dict.fromkeys(("BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"), 3),
}
_CODE = re.compile(r"[A-Za-z]{3}")
# A word that joins a value to the title ("Refund 5.00 USD on {{charge}}"): it goes with the value when unset.
_JOINED = re.compile(r"(\b(?:on|to|for|from|in|into|of|at|by|with)\s+)?" + PLACEHOLDER.pattern)


def _as_money(value: Any, code: Any) -> tuple[str, str] | None:
    """An amount in its currency's smallest unit as a person reads it, with the currency's code:
    (``5.00``, ``USD``) for 500 ``usd``, (``500``, ``JPY``) for 500 ``jpy``; (``500 (smallest currency
    unit)``, ``""``) without a code; None when the amount is not a whole number."""
    if not isinstance(value, int) or isinstance(value, bool):
        return None
    if not (isinstance(code, str) and _CODE.fullmatch(code)):
        return f"{value} (smallest currency unit)", ""
    exponent = _EXPONENTS.get(code.upper(), 2)
    # The digits moved by hand, never rounded: Decimal's default context keeps 28 digits, so a
    # 32-digit amount read as another number on the card a person approves (issue 23).
    digits = str(abs(value)).rjust(exponent + 1, "0")
    sign = "-" if value < 0 else ""
    if not exponent:
        return f"{sign}{digits}", code.upper()
    return f"{sign}{digits[:-exponent]}.{digits[-exponent:]}", code.upper()


def money_args(
    args: Mapping[str, Any],
    amounts: Mapping[str, str],
    objects: Mapping[str, Mapping[str, str]] | None = None,
) -> tuple[dict[str, Any], dict[str, str]]:
    """``args`` with each amount in its currency's smallest unit shown as a person reads it
    (:func:`_as_money`): an amount argument with the argument its currency is in, or a money object
    (``objects``: its amount and currency keys) as ``10.50 USD``. Anything else is left as given.
    Also the values as they are sent, by argument: the card shows them too, so what a person approves is
    never only the reading (a document that says "in cents" wrongly cannot hide what goes out)."""
    shown, sent = dict(args), {}
    for amount, currency in amounts.items():
        read = _as_money(args.get(amount), args.get(currency) if currency else None)
        if read is not None:
            shown[amount] = read[0]
            if read[1]:
                shown[currency], sent[amount] = read[1], str(args[amount])
    for name, keys in (objects or {}).items():
        money = args.get(name)
        read = (
            _as_money(money.get(keys["amount"]), money.get(keys["currency"]))
            if isinstance(money, Mapping)
            else None
        )
        if read is not None:
            shown[name], sent[name] = " ".join(part for part in read if part), _text(money)
    return shown, sent


# Who an email goes to: a Resent- header sends it on too. Matched on the raw lines as well as parsed,
# so a line the parser reads differently from the mail service cannot add a recipient unseen.
_RECIPIENTS = ("To", "Cc", "Bcc", "Resent-To", "Resent-Cc", "Resent-Bcc")
_RECIPIENT_LINE = re.compile(rb"^[ \t]*(?:resent-)?(?:to|cc|bcc)[ \t]*:", re.IGNORECASE | re.MULTILINE)
_HEADER_END = re.compile(rb"\r?\n\r?\n")


def email_headers(value: Any) -> dict[str, str] | None:
    """Who a whole email goes to and what it says it is (every To, Cc, Bcc and Resent- header, From,
    Subject), from the base64url text a Gmail-like ``raw`` argument holds; None when it is not one.
    Only the headers are parsed, with the standard library's email parser; a header met twice is
    shown each time (``get_all``: a second ``Bcc`` is a second recipient).

    A value the parser reads only in part is shown as written.

    Raises:
        InvalidArgument: an email whose recipients cannot all be shown: a line in its headers the
            parser did not take as a header, or a recipient line it did not count.
    """
    if not isinstance(value, str) or not value.strip():
        return None
    import base64  # only a card of a whole email needs these: not on every call's start-up
    import binascii
    import email.policy
    from email.parser import BytesHeaderParser

    text = value.strip()
    try:
        data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, binascii.Error):
        return None
    headers = BytesHeaderParser(policy=email.policy.default).parsebytes(data)
    wanted = {name.lower(): name for name in (*_RECIPIENTS, "From", "Subject")}
    recipients = {name.lower() for name in _RECIPIENTS}
    found: dict[str, list[str]] = {}
    counted = 0
    for raw_name, raw in headers.raw_items():  # raw: "To :" is a To a mail service may read too
        key = raw_name.strip().lower()
        if key not in wanted:
            continue
        counted += key in recipients
        whole = " ".join(str(raw).split())
        try:
            parsed = email.policy.default.header_fetch_parse(wanted[key], raw)
            # A value the parser read only in part (defects) is shown as written.
            value = whole if parsed.defects else " ".join(str(parsed).split())
        except (ValueError, IndexError, TypeError, AttributeError):
            value = whole
        found.setdefault(key, []).append(value)
    head = _HEADER_END.split(data, maxsplit=1)[0]
    lines = len(_RECIPIENT_LINE.findall(head))
    if not found and not lines:
        return None
    if headers.defects or lines != counted:
        raise InvalidArgument(
            "The email's recipients cannot all be shown on the card a person approves (a line in its "
            "headers that is not a header, or a recipient line read differently): nothing was sent. "
            "Write each header as 'Name: value' on its own line."
        )
    out = {key: "; ".join(values) for key, values in found.items()}
    return out


def preview_card(
    verb_name: str,
    verb: VerbView | Mapping[str, Any],
    args: Mapping[str, Any],
    amounts: Mapping[str, str] | None = None,
    objects: Mapping[str, Mapping[str, str]] | None = None,
    mime: Sequence[str] = (),
) -> dict[str, Any]:
    """The verb's ``preview`` with ``{{arg}}`` filled; a field whose arguments are unset is left out.
    ``amounts``/``objects``: the binding's amounts in a smallest unit (:func:`money_args`); ``mime``:
    arguments holding a whole email, shown by its headers (:func:`email_headers`)."""
    given = args  # as they are sent: money and an email are shown otherwise on the card itself
    sent: dict[str, str] = {}
    if amounts or objects:
        args, sent = money_args(args, amounts or {}, objects)
    read: dict[str, str] = {}
    for name in mime:
        headers = email_headers(args.get(name))
        if headers is not None:
            args = {**args, name: f"an email of {len(str(args[name]))} characters (base64)"}
            read |= {f"email {k}": v for k, v in headers.items()}
    preview = _verb_view(verb).preview
    if preview is None:
        return {
            "kind": "fields",
            "title": verb_name,
            "fields": {k: _text(v) for k, v in sorted(args.items())},
        }
    card: dict[str, Any] = {"kind": preview.kind}
    shown: set[str] = set()  # the arguments whose values, exactly as sent, the title or a field shows
    if preview.title is not None:
        # An unset optional value leaves no gap, nor the word that joined it: "Refund {{amount}} on
        # {{charge}}" is "Refund on ch_1" without an amount, "Refund 5.00 USD" without a charge.
        def fill(match: re.Match[str]) -> str:
            if not PLACEHOLDER_NAME.fullmatch(match.group(2)):
                return match.group(0)
            value = _lookup(match.group(2), args, None)
            if value is None:
                return ""
            text = _text(value)
            if " ".join(text.split()) == text:  # the title folds white space: a value it changes
                shown.add(match.group(2))  # is shown again, whole, in sent_with
            return (match.group(1) or "") + text

        card["title"] = " ".join(_JOINED.sub(fill, preview.title).split())
    fields: dict[str, str] = {}
    if preview.fields is not None:
        # A field whose arguments are unset is left out, never shown as "".
        filled = {k: render(v, args, strict=True) for k, v in preview.fields.items()}
        fields = {k: v for k, v in filled.items() if v is not None}
        for key, template in preview.fields.items():
            if filled[key] is not None:  # only names a template fills: {{filter[name]}} is left as written
                shown.update(n for n in placeholders(template) if PLACEHOLDER_NAME.fullmatch(n))
    # Money as sent and an email's recipients are on the card whether or not its template has fields.
    fields |= {f"{name} as sent": value for name, value in sent.items()} | read
    shown |= set(sent)
    if fields or preview.fields is not None:
        card["fields"] = fields
    rest = sent_with(given, shown)
    if rest:
        card["sent_with"] = rest
    return card


def sent_with(args: Mapping[str, Any], shown: set[str]) -> dict[str, str]:
    """Every argument the request carries that the card's title and fields do not show as sent, by
    name (sorted) with its value, so that what a person approves is all that is sent. No value is
    hidden: a name that looks like a secret's is chosen by whoever wrote the pack, and a credential
    the document declares is the binding's, never an argument."""
    return {
        name: _text(value) for name, value in sorted(args.items()) if name not in shown and value is not None
    }


def _media_type(received: Received) -> tuple[str, str]:
    raw = received.headers.get("content-type", "")
    media = raw.split(";")[0].strip().lower()
    match = re.search(r"charset=\"?([A-Za-z0-9._-]+)", raw)
    return media, match.group(1) if match else "utf-8"


def _decode_text(content: bytes, charset: str) -> str:
    try:
        return content.decode(charset, errors="replace")
    except LookupError:
        return content.decode("utf-8", errors="replace")


def decode_body(verb: str, received: Received) -> Any:
    """JSON when the response says JSON, else text; binary bodies are saved and described.

    Raises:
        InvalidResponse: the response claims JSON but is not.
    """
    if not received.content:
        return None
    media, charset = _media_type(received)
    if received.truncated:
        return (
            _decode_text(received.content, charset)
            + " "
            + TRUNCATION_MARKER.format(limit=len(received.content))
        )
    if media == "application/json" or media.endswith("+json"):
        try:
            return json.loads(received.content)
        except (ValueError, RecursionError):
            raise InvalidResponse(
                f"The server answered HTTP {received.status} with a body that is not valid JSON.",
                status=received.status,
                body=_decode_text(received.content[:500], charset),
            ) from None
    if media.startswith(_TEXT_TYPES) or media.endswith("+xml"):
        return _decode_text(received.content, charset)
    if not media:
        try:
            return received.content.decode("utf-8")
        except UnicodeDecodeError:
            pass
    from packc_runtime.calling._downloads import save_download  # lazily: only binary bodies need it

    return save_download(verb, received.content, media, received.headers.get("content-disposition", ""))


def error_for_status(received: Received, body: Any) -> PackRuntimeError | None:
    """The error for a non-2xx final status (None for 1xx-3xx)."""
    status = received.status
    if status < 400:
        return None
    shown = body if not isinstance(body, str) else body[:2000]
    if status == 401:
        return Unauthorized("The server refused the credentials (HTTP 401).", status=status, body=shown)
    if status == 403:
        return Forbidden("The credentials are not allowed to do this (HTTP 403).", status=status, body=shown)
    if status == 404:
        return NotFound("The server found nothing there (HTTP 404).", status=status, body=shown)
    if status == 429:
        wait = parse_retry_after(received.headers.get("retry-after"))
        retry_after = None if wait is None or wait > 10**9 else round(wait, 3)
        return RateLimited(
            f"The server is rate-limiting calls (HTTP 429, after {received.attempts} attempt(s)).",
            status=status,
            retry_after=retry_after,
            body=shown,
        )
    if status >= 500:
        return UpstreamError(
            f"The server failed (HTTP {status}, after {received.attempts} attempt(s)).",
            status=status,
            body=shown,
        )
    return RequestRejected(f"The server rejected the request (HTTP {status}).", status=status, body=shown)


def success(
    verb: str, status: int | None, title: str | None, body: Any, *, truncated: dict[str, Any] | None = None
) -> Envelope:
    """A success envelope; ``truncated`` says where the body was cut (left out when it was not)."""
    out: Envelope = {"ok": True, "status": status, "verb": verb, "title": title, "body": body}
    if truncated is not None:
        out["truncated"] = truncated
    return out


def failure(verb: str | None, error: PackRuntimeError) -> Envelope:
    """A failure envelope for ``error``."""
    return {"ok": False, "status": error.status, "verb": verb, "error": error.to_json()}
