"""The words titles and cards are made of: tables of actions and things, and the argument view."""

from __future__ import annotations

from typing import Protocol

__all__ = [
    "ALWAYS_PEOPLE",
    "CALLER",
    "CRUD_WORDS",
    "DESCRIBING",
    "KEY_WORDS",
    "LISTS",
    "MANY",
    "MESSAGE_THINGS",
    "METHOD_WORDS",
    "MONEY_ACTIONS",
    "MONEY_THINGS",
    "PEOPLE",
    "PEOPLE_THINGS",
    "PERSON",
    "PUBLISH_WORDS",
    "SCHEDULING",
    "SELF",
    "SENDING",
    "SENT",
    "TAKING",
    "TO",
    "Arg",
    "ph",
]


CRUD_WORDS = {
    "list": ("Listing", "Listed"),
    "get": ("Getting", "Got"),
    "create": ("Creating", "Created"),
    "update": ("Updating", "Updated"),
    "delete": ("Deleting", "Deleted"),
    "replace": ("Replacing", "Replaced"),
}
METHOD_WORDS = {
    "get": ("Getting", "Got"),
    "post": ("Submitting", "Submitted"),
    "put": ("Updating", "Updated"),
    "patch": ("Updating", "Updated"),
    "delete": ("Deleting", "Deleted"),
}
# What moves money when created, or when this action is taken on it.
MONEY_THINGS = {
    "charge",
    "payment",
    "payout",
    "transfer",
    "refund",
    "capture",
    "disbursement",
    "remittance",
    "withdrawal",
    "outbound_transfer",
    "outbound_payment",
    "payment_intent",
    "send_money",
    "wire",
}
MONEY_ACTIONS = {
    "capture",
    "pay",
    "refund",
    "payout",
    "transfer",
    "charge",
    "withdraw",
    "send_money",
    "disburse",
}
MESSAGE_THINGS = {
    "message",
    "sms",
    "email",
    "mail",
    "chat",
    "notification",
    "text",
    "comment",
    "reply",
    "post",
    "tweet",
    "status",
    "note",
}
SELF = {"me", "self", "current", "myself", "whoami"}  # GET /users/me: the caller's own
CALLER = {"user", "account", "profile", "me", "self", "whoami"}  # GET /user alone: the caller's
SENT = {"message", "sms", "mms", "email", "mail", "notification", "fax"}  # created is sent
MANY = {"search", "list", "find", "query", "filter"}  # actions over many: "Searched pets"
PUBLISH_WORDS = {"publish", "release", "deploy", "share", "publication", "unpublish"}
# What describes a change; a subscription's or an order's items say what it is for.
DESCRIBING = (
    r"(body_)?(title|name|display_name|subject|summary|description|body|text|message|content|email|"
    r"state|status|label|tag_name|version|note|memo|reason|commit_title|merge_method|event|"
    r"items|line_items|price|plan|quantity|friendly_name|notes|assignee|due_on|due_at|due_date|priority|"
    r"projects?|issuetype|region|size|image|topic|start_time|duration|given_name|family_name|first_name|"
    r"last_name|email_address|company_name)"
)
# Words of a path parameter's name that say it is a key, not what it keys (project_key: a project).
KEY_WORDS = {"id", "key", "uuid", "sid", "gid", "slug", "name", "path", "ref", "reference", "number", "code"}
# What puts something on a calendar: a start and an end then make an event card ("Schedule meeting").
SCHEDULING = {"create", "schedule", "book", "reschedule", "insert", "add", "reserve", "plan"}
# Who a message or an invitation goes to.
TO = (
    r"(body_)?(to|recipients?|email|phone|phone_number|channel|chat_id|to_\w+|(?!reply_to|link_to|in_reply_to)\w+_to|"
    r"payee\w*|destination\w*|"
    r"customer|user|user_id)"
)
# The people an invitation (or a removal) names, and the verbs that take them: "Invite {{users}} to {{channel}}".
PEOPLE = r"(body_)?(users|user_ids|emails|members|invitees|assignees|reviewers|people)"
PERSON = r"(body_)?(user|user_id|email|member|invitee)"  # for the verbs whose object is always a person
TAKING = {"invite": "to", "add": "to", "assign": "to", "kick": "from", "remove": "from", "unassign": "from"}
ALWAYS_PEOPLE = {"invite", "kick", "assign", "unassign"}
# Resources that are people themselves: adding to them adds no one to anything.
PEOPLE_THINGS = {
    "user",
    "member",
    "participant",
    "invitee",
    "assignee",
    "reviewer",
    "admin",
    "owner",
    "person",
    "collaborator",
    "guest",
}
# Verbs that send something somewhere: "Posting message to {{channel}}".
SENDING = {"post", "send", "share", "forward", "reply", "publish", "deliver", "broadcast", "notify"}
# Nouns that read as many things though singular: GET /conversations.history lists.
LISTS = {"history", "feed", "timeline", "activity", "log", "inbox", "queue"}


class Arg(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def location(self) -> str: ...
    @property
    def required(self) -> bool: ...


def ph(a: Arg | None) -> str:
    return f"{{{{{a.name}}}}}" if a else ""
