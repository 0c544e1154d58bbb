"""Lexicon: the words people use for what APIs call by other names, for ``--for`` tasks.

A task is written in its user's words ("keep a database password in the cluster", "clean out the
junk replies"); a document in its authors' ("secrets", "spam", "comments"). Three general tables,
none of them any vendor's, close part of that gap:

- ``PHRASES``: English phrasal verbs and idioms read as the one verb they mean ("kick off" → start,
  "money back" → refund, "sign out" → logout).
- ``RELATED``: groups of nouns that name the same kind of thing across APIs (a password is a secret,
  a reply a comment, a file an object in a bucket). A task word meets an operation through its group
  when it does not meet it by itself.
- ``VERBS``: everyday verbs of tasks and what they ask an operation to do (fix → update, grab → read).

Words are compared as stems (``_shape.stem``). Kept small and general on purpose: a group belongs here
only when the words mean the same thing in most APIs that use them.
"""

from __future__ import annotations

import re

from packc.curate._rank import stem

__all__ = ["PHRASES", "RELATED", "VERBS", "related", "rephrase"]

PHRASES: tuple[tuple[str, str], ...] = (
    (r"kick(?:s|ed|ing)? off", "start"),
    (r"fire(?:s|d)? off", "start"),
    (r"spin(?:s|ning)? up", "create"),
    (r"set(?:s|ting)? up", "create"),
    (r"sign(?:s|ed|ing)? (?:\w+ ){0,2}(?:out|off)", "logout"),
    (r"log(?:s|ged|ging)? (?:\w+ )?(?:out|off)", "logout"),
    (r"sign(?:s|ed|ing)? in", "login"),
    (r"log(?:s|ged|ging)? in", "login"),
    (r"lock(?:s|ed|ing)? (?:\w+ )?out", "disable"),
    (r"turn(?:s|ed|ing)? off", "disable"),
    (r"turn(?:s|ed|ing)? on", "enable"),
    (r"clean(?:s|ed|ing)? (?:out|up)", "delete"),
    (r"clear(?:s|ed|ing)? out", "delete"),
    (r"get(?:s|ting)? rid of", "delete"),
    (r"throw(?:s|ing)? away", "delete"),
    (r"look(?:s|ed|ing)? up", "find"),
    (r"catch(?:es|ing)? up on", "read"),
    (r"(?:give|hand|send)(?:s|ing)? (?:\w+ )?back", "return"),
    (r"money back", "refund"),
    (r"pay(?:s|ing)? (?:\w+ )?back", "refund"),
    (r"bring(?:s|ing)? (?:\w+ )?in", "add"),
    (r"fill(?:s|ed|ing)? up", "refuel"),
    (r"on sale", "discount"),
    (r"how many", "count"),
    (r"one[- ]time (?:code|password|passcode|pin)", "verification code"),
)
_PHRASES = tuple((re.compile(rf"\b{p}\b", re.I), to) for p, to in PHRASES)

RELATED: tuple[frozenset[str], ...] = tuple(
    frozenset(stem(w) for w in group.split())
    for group in (
        "comment reply response remark",
        "answer solution",
        "secret password passphrase credential",
        "variable envvar",
        "spam junk abuse",
        "refund reimbursement",
        "discount sale promotion promo coupon markdown",
        "sale price",
        "replica scale",
        "session login logout",
        "ban block suspension",
        "reputation karma",
        "notification alert notice",
        "log output console",
        "file document attachment object blob",
        "folder directory prefix",
        "recording video clip",
        "article post entry story",
        "photo image picture",
        "song track tune",
        "film movie",
        "show series",
        "customer client buyer",
        "contact person people",
        "administrator admin role",
        "group team",
        "meeting conference webinar",
        "message text sms chat",
        "email mail",
        "order purchase",
        "invoice bill",
        "payment charge",
        "job build run execution",
        "pipeline workflow dag",
        "artifact binary",
        "verification code otp passcode",
        "phone mobile",
        "course class classroom",
        "student pupil learner",
        "teacher instructor tutor",
        "essay assignment homework coursework submission",
        "repository repo",
        "issue ticket bug",
        "deployment rollout",
        "server machine instance vm host",
        "disk volume",
        "certificate cert",
        "database db",
        "spreadsheet workbook sheet",
        "row record",
        "link url",
        "channel room",
        "follower subscriber fan",
        "favorite favourite bookmark",
        "label tag",
        "parcel package shipment",
        "pickup collection",
        "carrier courier",
        "rate quote",
        "incident outage",
        "application app",
        "webhook hook callback",
        "invitation invite",
        "participant attendee",
        "count statistic stat analytic metric insight summary",
        "failure error crash",
        "watchlist watchlater",
        "deal opportunity",
        "company organization org",
        "note memo",
        "task todo",
        "slide presentation deck",
        "appointment booking reservation",
        "product sku merchandise",
        "inventory stock",
        "cart basket",
        "coupon voucher",
        "subscription membership",
        "payout withdrawal",
        "balance fund",
        "dispute chargeback",
        "tax vat",
        "domain hostname",
        "photo avatar",
        "audio sound",
        "survey questionnaire poll",
        "campaign newsletter blast",
        "permission access acl grant privilege",
        "commit revision changeset",
        "release version",
        "failure exception",
        "rotation rota shift oncall",
        "conversation thread discussion",
        "stream broadcast livestream",
        "artist musician band",
        "place venue location",
        "quote estimate",
        "expense spending",
        "employee worker staff hire user",
        "candidate applicant",
        "podcast show",
        "episode installment",
        "playlist mixtape",
        "lyric lyrics",
        "function lambda",
        "vulnerability vuln cve",
        "dependency package library",
        "footage video",
        "license licence",
        "bucket container",
        "snapshot backup",
        "volume drive",
        "vpc network",
        "queue backlog",
        "holiday vacation leave",
        "salary payroll pay",
        "timesheet hour",
        "lead prospect",
        "activity interaction",
        "ticket case request",
        "macro template",
        "feedback review rating",
        "transaction transfer payment",
        "card debit",
        "statement balance",
        "beneficiary recipient payee counterparty",
        "loan credit",
        "shop store storefront",
        "feed catalog",
        "listing offer product",
        "shipping delivery fulfillment",
        "return rma",
        "warehouse location",
        "sku variant",
        "mention tag",
        "emoji reaction",
        "dm conversation",
        "bot app",
        "reminder notification",
        "form submission",
        "workspace space",
        "board project",
        "sprint iteration",
        "epic milestone",
        "unsubscribe optout",
        "bounce rejection",
        "monitor check",
        "uptime availability",
        "trace span",
        "translation locale",
        "subtitle caption",
        "thumbnail preview",
    )
)

# Everyday verbs of a task → what they ask an operation to do (_task_words.INTENT's kinds).
VERBS: dict[str, frozenset[str]] = {
    "create": frozenset(
        {
            "keep",
            "store",
            "save",
            "record",
            "run",
            "trigger",
            "launch",
            "execute",
            "rerun",
            "retry",
            "import",
            "load",
            "copy",
            "clone",
            "duplicate",
            "text",
            "email",
            "message",
            "notify",
            "ping",
            "alert",
            "ship",
            "order",
            "enroll",
            "enrol",
            "login",
            "refund",
            "pay",
            "charge",
            "deploy",
            "provision",
            "spin",
            "log",
        }
    ),
    "read": frozenset(
        {"grab", "pull", "catch", "audit", "compare", "which", "what", "who", "why", "how", "export"}
    ),
    "update": frozenset(
        {
            "fix",
            "correct",
            "adjust",
            "tweak",
            "swap",
            "switch",
            "rotate",
            "point",
            "repoint",
            "promote",
            "demote",
            "grade",
            "lock",
            "block",
            "suspend",
            "mute",
            "unmute",
            "silence",
            "return",
            "unpublish",
            "refuel",
            "dock",
            "renew",
            "upgrade",
            "downgrade",
            "resize",
            "scale",
            "discount",
            "reschedule",
            "snooze",
            "acknowledge",
            "ack",
            "escalate",
            "reassign",
        }
    ),
    "delete": frozenset(
        {
            "revoke",
            "clear",
            "wipe",
            "evict",
            "unfollow",
            "dismiss",
            "logout",
            "unshare",
            "trash",
            "discard",
            "retire",
            "decommission",
        }
    ),
}


def rephrase(text: str) -> str:
    """A task with its phrasal verbs and idioms read as the words they mean."""
    for pattern, to in _PHRASES:
        text = pattern.sub(to, text)
    return text


# Each word's groups, joined once: what ``related`` answers.
_RELATED_TO: dict[str, frozenset[str]] = {
    word: frozenset().union(*(g for g in RELATED if word in g)) - {word}
    for group in RELATED
    for word in group
}


def related(word: str) -> frozenset[str]:
    """The stems that name the same kind of thing as ``word`` (a stem), itself excluded."""
    return _RELATED_TO.get(word, frozenset())
