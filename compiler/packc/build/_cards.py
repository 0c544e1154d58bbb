"""Preview cards: what a person approves before a write is sent.

A preview's kind follows what the operation does: money out is ``payment`` with the amount and
currency and the right verb ("Refund {{amount}} {{currency}} on {{charge}}"); an update of a payment
object that moves no money is a ``record``; messages name the recipient and the text; removal names
the object. Fields are the arguments that identify and describe the change; the runtime leaves out a
field whose arguments are unset and lists every other argument sent beside the card.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from packc.curate.plan import PlannedVerb
from packc.text import snake
from packc.words import VERBS, phrase, singular
from packc_runtime.credentials.redact import is_secret_argument
from packc_runtime.format.manifest import Preview, PreviewKind

__all__ = ["preview"]

from packc.build._card_words import (
    DESCRIBING,
    MESSAGE_THINGS,
    PUBLISH_WORDS,
    SCHEDULING,
    SENDING,
    TO,
    Arg,
    ph,
)
from packc.build._money import money_arg_pair, money_verb, whole_emails
from packc.build._titles import created_ids, find_arg, label_arg, taking_pattern, thing_phrase, without_thing


def preview(pv: PlannedVerb, args: Sequence[Arg], destructive: bool, forced: PreviewKind | None) -> Preview:
    """The card a person approves before a write is sent."""
    amount, currency = money_arg_pair(args)
    args = [a for a in args if not is_secret_argument(a.name)]  # a card never shows a credential
    to = find_arg(args, TO)
    text = find_arg(
        args, r"(body_)?text", r"(body_)?body", r"(body_)?message", r"(body_)?content", r"(body_)?msg"
    )
    start = find_arg(args, r"(body_)?(start|starts_at|start_\w+|begin\w*)")
    end = find_arg(args, r"(body_)?(end|ends_at|end_\w+|finish\w*)")
    words = set(pv.name.replace(".", "_").split("_")) | set(snake(pv.op.operation_id or "").split("_"))
    words |= {singular(w) for w in words}
    thing_word = singular(pv.resource[-1]) if pv.resource else ""
    money = money_verb(pv, {*pv.resource, thing_word})
    own, parent = created_ids(pv, args)
    thing = thing_phrase(pv)
    # What the change is on: the item itself, else its parent ("charge {{charge}}", "issue {{issue_number}}").
    on = f"{thing} {own}" if own else parent.removeprefix("for ").strip()
    subject = f"{thing} {own}" if own else f"{thing} {parent}".strip()
    mime = next(iter(whole_emails(args)), None)
    if mime and pv.action.split("_")[0] in SENDING and not text:
        text, to = (
            mime,
            None,
        )  # a whole email: the runtime reads who it goes to from it (user_id is the sender)
    kind: PreviewKind
    if forced:
        kind = forced
    elif destructive:
        kind = "removal"
    elif money and (amount or money in ("capture", "confirm", "refund")):
        kind = "payment"
    elif (
        text
        and (to or thing_word.rpartition("_")[2] in MESSAGE_THINGS)
        and pv.action not in ("update", "delete")
    ):
        kind = "message"
    elif start and end and pv.action.split("_")[0] in SCHEDULING:
        kind = "event"  # not a read's date range (Plaid's transactions.get), nor an update of one
    elif words & PUBLISH_WORDS and pv.action not in ("update", "delete", "get"):
        kind = "publish"
    elif pv.action in ("create", "update", "replace"):
        kind = "record"
    else:
        kind = "fields"
    if (
        kind == "payment"
        and to
        and re.fullmatch(r"(body_)?(channel|chat_id|user|user_id|email|phone|phone_number)", to.name)
    ):
        to = None  # Adyen's channel (Web, iOS) is where a payment comes from, not who is paid
    fields: dict[str, str] = {}
    if kind == "payment":
        fields = {"amount": ph(amount), "currency": ph(currency)}
        if to and money != "refund":
            fields["to"] = ph(to)
        if (
            money == "refund"
        ):  # what is refunded, whichever way the call names it (a charge, a payment intent)
            fields |= {
                a.name: ph(a)
                for a in args
                if re.fullmatch(r"(body_)?(charge|payment_intent|payment)(_id)?", a.name)
            }
    elif kind == "message" and text is mime and mime is not None:
        fields = {"message": ph(mime)}
    elif kind == "message":
        fields = {"to": ph(to) if to else on, "text": ph(text)}
        headline = find_arg(args, r"(body_)?(subject|title)")
        if headline and headline is not text:
            fields["subject"] = ph(headline)
    elif kind == "event":
        fields = {"start": ph(start), "end": ph(end)}
        what = find_arg(args, r"(body_)?(title|summary|name)")
        if what:
            fields["title"] = ph(what)
    taking = taking_pattern(pv, args)
    if taking:
        fields = {taking[1].name: ph(taking[1])} | ({taking[2].name: ph(taking[2])} if taking[2] else {})
    # Then what identifies the change (path arguments), what is required (in a body the document
    # leaves optional too: Twilio's To and From), and what describes it; when none of these is
    # there (Slack's methods mark nothing required), the arguments themselves.
    chosen = [a for a in args if a.location == "path"] + [
        a for a in args if _wanted(a) and a.location != "path"
    ]
    # An optional argument that names the very thing created says which one (Twilio's phone_number when
    # buying an incoming phone number; its area_code-or-number choice leaves both optional).
    named = set(thing.split())
    chosen += [
        a
        for a in args
        if a.location != "path"
        and not _wanted(a)
        and len(a.name.split("_")) >= 2
        and set(a.name.split("_")) <= named
    ]
    if kind not in ("removal",):
        chosen += [a for a in args if not _wanted(a) and re.fullmatch(DESCRIBING, a.name)]
    if not chosen and not fields:
        chosen = [a for a in args if a.location == "body"] or [a for a in args if a.location != "header"]
    cap = 8
    if pv.action in ("update", "replace", "patch") and kind in ("record", "fields"):
        # An update changes what it is given: every body argument may be on its card, and the runtime
        # shows only those set (Zoom's users.update showed only the user's id).
        chosen += [a for a in args if a.location == "body"]
        cap = 24
    shown = set(fields.values())
    for a in chosen:
        if len(fields) >= cap:
            break
        if ph(a) not in shown and a.name not in fields:
            fields[a.name] = ph(a)
            shown.add(ph(a))
    fields = {k: v for k, v in fields.items() if v}
    return Preview(
        kind=kind,
        title=" ".join(
            _preview_title(pv, kind, money, thing, subject, on, amount, currency, to, args).split()
        ),
        fields=fields or None,
    )


def _wanted(a: Arg) -> bool:
    """Required, or required by its body's schema (``ArgSpec.wanted``) though the body is optional."""
    return a.required or bool(getattr(a, "wanted", False))


def _preview_title(
    pv: PlannedVerb,
    kind: str,
    money: str,
    thing: str,
    subject: str,
    on: str,
    amount: Arg | None,
    currency: Arg | None,
    to: Arg | None,
    args: Sequence[Arg],
) -> str:
    sum_ = f"{ph(amount)} {ph(currency)}"
    to_part = f" to {ph(to)}" if to else ""
    if money == "refund":
        to_part = ""
    if kind == "payment":
        if money == "refund":
            paid = on or ph(find_arg(args, r"(body_)?(charge|payment_intent|payment)"))
            return f"Refund {sum_}" + (f" on {paid}" if paid else "")
        if money == "capture":  # a created capture is on its parent (Adyen's /payments/{ref}/captures)
            return f"Capture {sum_} on {on if pv.action == 'create' and on else subject}"
        if money == "confirm":
            return f"Confirm {subject}"
        if money == "payout":
            return f"Pay out {sum_}{to_part}"
        if money == "transfer":
            return f"Transfer {sum_}{to_part}"
        if (money == "create" and thing == "charge") or (
            to and re.fullmatch(r"(body_)?customer(_id)?", to.name)
        ):
            return f"Charge {sum_}{to_part}"  # a customer is charged, not paid (Stripe's payment intents)
        where = to_part or (f" for {on}" if on else "")
        return f"Pay {sum_}{where}" if amount or to else f"Pay {subject}"
    if kind == "removal":
        if pv.action in ("delete", "delete_all"):
            return f"Delete {subject}"
        return f"{_imperative(pv.action, pv.op.method, thing)} {subject}"  # users.delete_photo: "Delete photo of user"
    if kind == "message" and not to and whole_emails(args) and pv.action.split("_")[0] in SENDING:
        return f"Send {thing}"  # the runtime adds who it goes to, from the email itself
    if kind == "message":
        verb, _, rest = pv.action.partition("_")
        if verb in VERBS and rest and verb not in ("create", "update"):  # chat.post_message: "Post message"
            return f"{verb.capitalize()} {phrase(rest)}" + (
                f" to {ph(to)}" if to else f" on {on}" if on else ""
            )
        if to:
            return f"Send {thing} to {ph(to)}"
        if thing in ("comment", "reply", "note", "review") and on:
            return f"Comment on {on}" if thing == "comment" else f"Add {thing} on {on}"
        return f"Send {thing}" + (f" on {on}" if on else "")
    if kind == "event":
        return f"Schedule {subject}"
    taking = taking_pattern(pv, args)
    if taking:
        prep, who, place = taking
        where = ph(place) if place and place.location != "path" else on or thing
        return f"{pv.action.capitalize()} {ph(who)} {prep} {where}"
    if kind == "publish":
        label = label_arg(args)
        return f"Publish {thing} {ph(label)}" + (f" in {on}" if on and not label else "")
    if pv.action == "create" and thing == "call" and to:  # placing a call rings someone: say who
        caller = find_arg(args, r"(body_)?from", r"(body_)?(caller_id|caller)")
        return f"Call {ph(to)}" + (f" from {ph(caller)}" if caller else "")
    if pv.action == "create":
        label = label_arg(args)
        return f"Create {thing} {ph(label)}" + (f" in {on}" if on else "")
    if pv.action in ("update", "replace"):
        return f"{pv.action.capitalize()} {subject}"
    return f"{_imperative(pv.action, pv.op.method, thing)} {subject}" if pv.action else f"Confirm {pv.name}"


def _imperative(action: str, method: str, thing: str = "") -> str:
    """An action as an imperative phrase: ``merge`` → ``Merge``, ``update_branch`` → ``Update branch of``;
    a noun (POST .../cover) takes its method's verb: ``Submit cover of``; what ``thing`` says is not
    said twice (``dnd.end_dnd`` → ``End``)."""
    words = action.split("_")
    if words[0] in VERBS:
        rest = without_thing(phrase("_".join(words[1:])), thing)
        return f"{words[0].capitalize()} {rest} of" if rest else words[0].capitalize()
    verb = {"post": "Submit", "put": "Update", "patch": "Update", "delete": "Delete"}.get(method, "Confirm")
    return f"{verb} {phrase(action)} of"
