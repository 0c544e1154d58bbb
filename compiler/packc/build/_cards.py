"""Titles and preview cards: what a host shows for a step, and what a person approves.

Titles are English built from the resource's singular and its identifying arguments ("Merged pull
request {{pull_number}}"). A preview's kind follows what the operation does: money out is
``payment`` with the amount and currency and the right verb ("Refund {{amount}} {{currency}} on
{{charge}}"); an update of a payment object that moves no money is a ``record``; messages name the
recipient and the text; removal names the object. Fields are the arguments that identify and
describe the change; the runtime leaves out a field whose arguments are unset.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from packc.curate.naming import path_segments
from packc.curate.plan import PlannedVerb
from packc.text import snake
from packc.words import VERBS, gerund, is_plural, past, phrase, singular
from packc_runtime.format.manifest import Preview, PreviewKind, Title

__all__ = ["preview", "resource_phrase", "titles"]

_CRUD_WORDS = {
    "list": ("Listing", "Listed"),
    "get": ("Getting", "Got"),
    "create": ("Creating", "Created"),
    "update": ("Updating", "Updated"),
    "delete": ("Deleting", "Deleted"),
    "replace": ("Replacing", "Replaced"),
}
_METHOD_WORDS = {
    "get": ("Getting", "Got"),
    "post": ("Submitting", "Submitted"),
    "put": ("Updating", "Updated"),
    "patch": ("Updating", "Updated"),
    "delete": ("Deleting", "Deleted"),
}
# What moves money when created, or when this action is taken on it.
_MONEY_THINGS = {
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
_MONEY_ACTIONS = {
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
_MESSAGE_THINGS = {
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
_SELF = {"me", "self", "current", "myself", "whoami"}  # GET /users/me: the caller's own
_CALLER = {"user", "account", "profile", "me", "self", "whoami"}  # GET /user alone: the caller's
_SENT = {"message", "sms", "mms", "email", "mail", "notification", "fax"}  # created is sent
_MANY = {"search", "list", "find", "query", "filter"}  # actions over many: "Searched pets"
_PUBLISH_WORDS = {"publish", "release", "deploy", "share", "publication", "unpublish"}
# What describes a change; a subscription's or an order's items say what it is for.
_DESCRIBING = (
    r"(body_)?(title|name|display_name|subject|summary|description|body|text|message|content|email|"
    r"state|status|label|tag_name|version|note|memo|reason|commit_title|merge_method|event|"
    r"items|line_items|price|plan|quantity|friendly_name|notes|assignee|due_on|due_at|due_date|priority|"
    r"projects?|issuetype|region|size|image|topic|start_time|duration|given_name|family_name|first_name|"
    r"last_name|email_address|company_name)"
)
# Words of a path parameter's name that say it is a key, not what it keys (project_key: a project).
_KEY_WORDS = {"id", "key", "uuid", "sid", "gid", "slug", "name", "path", "ref", "reference", "number", "code"}
# What puts something on a calendar: a start and an end then make an event card ("Schedule meeting").
_SCHEDULING = {"create", "schedule", "book", "reschedule", "insert", "add", "reserve", "plan"}
# Who a message or an invitation goes to.
_TO = (
    r"(body_)?(to|recipients?|email|phone|phone_number|channel|chat_id|to_\w+|(?!reply_to|link_to|in_reply_to)\w+_to|"
    r"payee\w*|destination\w*|"
    r"customer|user|user_id)"
)
# The people an invitation (or a removal) names, and the verbs that take them: "Invite {{users}} to {{channel}}".
_PEOPLE = r"(body_)?(users|user_ids|emails|members|invitees|assignees|reviewers|people)"
_PERSON = r"(body_)?(user|user_id|email|member|invitee)"  # for the verbs whose object is always a person
_TAKING = {"invite": "to", "add": "to", "assign": "to", "kick": "from", "remove": "from", "unassign": "from"}
_ALWAYS_PEOPLE = {"invite", "kick", "assign", "unassign"}
# Resources that are people themselves: adding to them adds no one to anything.
_PEOPLE_THINGS = {
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
_SENDING = {"post", "send", "share", "forward", "reply", "publish", "deliver", "broadcast", "notify"}
# Nouns that read as many things though singular: GET /conversations.history lists.
_LISTS = {"history", "feed", "timeline", "activity", "log", "inbox", "queue"}
# Credentials passed as plain arguments (Slack's token): a card never shows them.
_SECRET = re.compile(
    r"(body_|header_|query_)?(token|access_token|auth_token|api_token|api_key|apikey|key|secret|"
    r"client_secret|password|passwd|authorization|credentials?|"
    r"x_[a-z0-9_]*(token|key|secret|auth[a-z_]*)|"  # Postmark's X-Postmark-Server-Token header
    r"[a-z0-9_]*_(api_key|apikey|server_token|account_token|auth_token|access_token|secret_key|"
    r"access_key|private_key|secret|password))",
    re.I,
)


class _Arg(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def location(self) -> str: ...
    @property
    def required(self) -> bool: ...


def ph(a: _Arg | None) -> str:
    return f"{{{{{a.name}}}}}" if a else ""


def resource_phrase(resource: Sequence[str], *, plural: bool = False) -> str:
    """``("repos", "pulls")`` → ``pull request`` (``pull requests`` with ``plural``)."""
    if not resource:
        return "items" if plural else "item"
    word = resource[-1]
    one = phrase(singular(word))
    if not plural or not is_plural(word):
        return one
    if one == singular(word).replace("_", " "):
        return phrase(word)  # "payment intents": the path word is the plural
    head, _, last = one.rpartition(" ")  # "pull request" → "pull requests", "repository" → "repositories"
    last = (
        last[:-1] + "ies"
        if last.endswith("y") and last[-2:-1] not in "aeiou"
        else last + "es"
        if last.endswith(("s", "x", "ch", "sh"))
        else last + "s"
    )
    return f"{head} {last}".strip()


def _modifier(pv: PlannedVerb) -> str:
    """The word before the resource's own when no parameter stands between them, as a title says it:
    /SIP/Domains → ``SIP``, /checkout/sessions → ``checkout``, /users.profile.get → ``user``;
    /user/repos at the top of the path (the caller's own) → ``your``; else ''."""
    if len(pv.resource) < 2:
        return ""
    parent, own = pv.resource[-2], pv.resource[-1]
    segs = path_segments(pv.op.path)
    at = next(
        (
            i
            for i in range(len(segs) - 1, 0, -1)
            if segs[i] == (own, False) and segs[i - 1] == (parent, False)
        ),
        None,
    )
    if at is None:
        return ""
    if parent in _SELF or (at == 1 and parent in ("user", "my")):
        return "your"  # /me/playlists, /users/me/settings, /user/repos (the caller's)
    # An acronym keeps its capitals (SIP, DNS), as the document writes it.
    raw = next((w for w in re.split(r"[/.]", pv.op.path) if snake(w) == parent), "")
    return raw if raw.isupper() and raw.isalpha() and len(raw) <= 5 else phrase(singular(parent))


def _thing(pv: PlannedVerb, *, plural: bool = False) -> str:
    """The resource as a title names it: ``SIP domain``, ``pull request``, ``your repositories``."""
    if len(pv.resource) > 1 and pv.resource[-1] in _SELF:  # /users/me: the caller's own
        return f"the current {phrase(singular(pv.resource[-2]))}"
    base = resource_phrase(pv.resource, plural=plural)
    modifier = _modifier(pv)
    return f"{modifier} {base}" if modifier and modifier not in base.split() else base


def _path_params(args: Sequence[_Arg]) -> list[_Arg]:
    return [a for a in args if a.location == "path"]


def _ids(pv: PlannedVerb, args: Sequence[_Arg]) -> tuple[str, str]:
    """(the item's own id placeholder, the parent's ``of <parent> {{a}}/{{b}}``) from the path."""
    params = _path_params(args)
    segments = [s for s in pv.op.path.partition("#")[0].partition("?")[0].split("/") if s]
    # An action's own word (/pulls/{n}/merge) is not the object: the item before it is.
    if (
        len(segments) > 1
        and "{" not in segments[-1]
        and "{" in segments[-2]
        and snake(re.sub(r"\.(json|xml)$", "", segments[-1])) not in pv.resource
    ):
        segments = segments[:-1]
    trailing = 0
    for s in reversed(segments):
        if "{" not in s:
            break
        trailing += 1
    own = ph(params[-1]) if params and trailing else ""
    parents = params[: len(params) - (1 if trailing else 0)]
    if not parents:
        return own, ""
    # The parameters right before the resource's own words name the parent (/repos/{owner}/{repo}/pulls;
    # /Accounts/{AccountSid}/SIP/Domains.json: the account, not "sip").
    body = segments[: len(segments) - trailing]
    last_static = max((i for i, s in enumerate(body) if "{" not in s), default=-1)
    while last_static > 0 and "{" not in body[last_static - 1]:
        last_static -= 1
    run: list[str] = []
    i = last_static - 1
    while i >= 0 and "{" in body[i]:
        run.insert(0, body[i])
        i -= 1
    chosen = parents[-len(run) :] if run else parents[-1:]
    parent_word = snake(body[i]) if i >= 0 else ""
    label = phrase(singular(parent_word)) if parent_word and not parent_word[0].isdigit() else ""
    joined = "/".join(ph(a) for a in chosen)
    return own, (f"for {label} {joined}" if label else f"for {joined}")


def _label_arg(args: Sequence[_Arg]) -> _Arg | None:
    """What names the thing a call makes (``Create customer {{name}}``): a required title or name
    first; an optional one leaves no gap when unset."""
    named = [
        a
        for a in args
        if a.location in ("body", "query")
        and re.fullmatch(r"(body_)?(title|name|subject|summary|tag_name)", a.name)
    ]
    return next((a for a in named if a.required), named[0] if named else None)


def _action_words(pv: PlannedVerb) -> tuple[str, str, str]:
    """(live verb, done verb, object words) of a non-CRUD action: ``update_branch`` → Updating/Updated/branch."""
    words = pv.action.split("_")
    if _verb_led(pv.action):
        verb = words[0]
        return gerund(verb).capitalize(), past(verb).capitalize(), phrase("_".join(words[1:]))
    live, done = _METHOD_WORDS.get(pv.op.method, ("Running", "Ran"))
    return live, done, phrase(pv.action)


def _verb_led(action: str) -> bool:
    return action.split("_")[0] in VERBS or action.split("_")[0] in (
        "get",
        "list",
        "find",
        "describe",
        "search",
    )


def _taking(pv: PlannedVerb, args: Sequence[_Arg]) -> tuple[str, _Arg, _Arg | None] | None:
    """(preposition, people, place) of an action that puts people into (or out of) the resource:
    ``conversations.invite`` with ``users`` and ``channel`` → ("to", users, channel)."""
    prep = _TAKING.get(pv.action)
    one = singular(pv.resource[-1]) if pv.resource else ""
    if prep is None or one.rpartition("_")[2] in _PEOPLE_THINGS:
        return None
    who = _find(args, _PEOPLE, *((_PERSON,) if pv.action in _ALWAYS_PEOPLE else ()))
    if who is None:
        return None
    place = (
        _find(
            [a for a in args if a is not who],
            rf"(body_)?{one}(_id|_sid|_key)?",
            r"(body_)?(channel|chat|room|group|team|space)(_id|_sid)?",
            _TO,
        )
        if one
        else None
    )
    return prep, who, place


def _without_thing(obj: str, thing: str) -> str:
    """An action's object words without what the resource already says: ``dnd.end_dnd`` → '',
    ``conversations.set_conversation_prefs`` → ``prefs``."""
    last = thing.rpartition(" ")[2]
    if obj in (last, thing):
        return ""
    head, _, rest = obj.partition(" ")
    return rest if rest and head in (last, singular(last)) else obj


def _created_ids(pv: PlannedVerb, args: Sequence[_Arg]) -> tuple[str, str]:
    """``_ids``, but a create at an item path (LaunchDarkly's ``POST /flags/{projectKey}``) makes a new
    thing: its path key is the parent's, named after itself (``project {{project_key}}``)."""
    own, parent = _ids(pv, args)
    if pv.action == "create" and own and pv.op.path.rstrip("/").endswith("}"):
        keys = _path_params(args)
        noun = " ".join(w for w in (keys[-1].name.split("_") if keys else []) if w not in _KEY_WORDS)
        return "", f"{noun} {own}" if noun and noun != _thing(pv) else ""
    return own, parent


def titles(pv: PlannedVerb, args: Sequence[_Arg]) -> Title:
    """live/done titles, most specific first; the last one has no placeholder."""
    own, parent = _created_ids(pv, args)
    thing = _thing(pv)
    state = pv.resource[-1] if pv.action == "get" and pv.resource else ""
    if state.endswith("ed") and len(pv.resource) > 1 and not is_plural(state):
        # A state read (pulls.merged.get): "Checked whether pull request 5 is merged".
        base = resource_phrase(pv.resource[:-1])
        subject = f"{base} {own}".strip()
        text = phrase(state)
        return _both(
            ("Checking", "Checked"), [f"whether {subject} is {text}", f"whether the {base} is {text}"]
        )
    if pv.action == "get" and len(pv.resource) > 1 and pv.resource[-1] in _SELF:  # GET /users/me
        return _both(_CRUD_WORDS["get"], [f"the current {phrase(singular(pv.resource[-2]))}"])
    if pv.action == "list":
        things = _thing(pv, plural=True)
        return _both(_CRUD_WORDS["list"], [f"{things} {parent}", things] if parent else [things])
    one = singular(pv.resource[-1]) if pv.resource else ""
    to = _find(args, _TO)
    if pv.action == "create" and one in _SENT and to is not None:
        # Twilio's messages.create: "Sending message to {{to}}", then "Sending message".
        return _both(("Sending", "Sent"), [f"{thing} to {ph(to)}", thing])
    if (
        pv.action == "get"
        and len(pv.resource) == 1
        and one in _CALLER
        and [w for w, p in path_segments(pv.op.path)] == [pv.resource[0]]
    ):
        return _both(_CRUD_WORDS["get"], [f"the current {thing}"])  # GET /user, GET /v1/account
    if pv.action in _CRUD_WORDS:
        words = _CRUD_WORDS[pv.action]
        label = _label_arg(args) if pv.action == "create" else None
        first = (
            f"{thing} {own}"
            if own
            else f"{thing} {ph(label)}"
            if label
            else f"{thing} {parent}"
            if parent
            else ""
        )
        return _both(words, [first, thing] if first else [thing])
    if pv.action in _SELF:
        return _both(_action_words(pv)[:2], [f"the current {thing}"])
    if not _verb_led(pv.action) and pv.op.method == "get":
        # A noun read (conversations.info, conversations.history): the resource's info, or its history listed.
        obj = phrase(pv.action)
        last = pv.action.split("_")[-1]
        words = _CRUD_WORDS["list"] if is_plural(last) or last in _LISTS else _CRUD_WORDS["get"]
        target = (
            f"your {obj}" if pv.resource and pv.resource[-1] in _SELF else f"{thing} {obj}"
        )  # /users/me/settings
        first = f"{obj} of {thing} {own}" if own else f"{target} {parent}" if parent else ""
        return _both(words, [first, target] if first else [target])
    live, done, obj = _action_words(pv)
    taking = _taking(pv, args)
    if taking:
        # conversations.invite: "Inviting {{users}} to {{channel}}", then "Inviting to conversation".
        prep, who, place = taking
        live, done = gerund(pv.action).capitalize(), past(pv.action).capitalize()
        where = f"{thing} {own}" if own else ph(place) if place else thing
        return _both((live, done), [f"{ph(who)} {prep} {where}", f"{prep} {thing}"])
    obj = _without_thing(obj, thing)
    if pv.action.split("_")[0] in _MANY and not obj:
        thing = (
            _thing(pv, plural=True)
            if is_plural(pv.resource[-1] if pv.resource else "")
            else f"{thing}s"
            if pv.resource
            else thing
        )
    to = _find(args, _TO) if obj and pv.action.split("_")[0] in _SENDING else None
    if obj and not own and to is not None:
        # chat.post_message: "Posting message to {{channel}}", then "Posting chat message".
        return _both((live, done), [f"{obj} to {ph(to)}", f"{thing} {obj}" if pv.resource else obj])
    if obj and not own and not parent and pv.resource:
        return _both((live, done), [f"{thing} {obj}"])  # users.get_presence: "Getting user presence"
    target = f"{obj} of {thing}" if obj and pv.resource else obj or thing
    first = f"{target} {own}" if own else f"{target} {parent}" if parent else ""
    return _both((live, done), [first, target] if first else [target])


def _both(words: tuple[str, str], objects: Sequence[str]) -> Title:
    live_w, done_w = words
    objects = [" ".join(o.split()) for o in objects if o.strip()]
    return Title(live=[f"{live_w} {o}" for o in objects], done=[f"{done_w} {o}" for o in objects])


def _find(args: Sequence[_Arg], *patterns: str) -> _Arg | None:
    for pattern in patterns:
        for a in args:
            if re.fullmatch(pattern, a.name):
                return a
    return None


def _money(pv: PlannedVerb, words: set[str]) -> str:
    """``''`` when the operation moves no money; else the money verb: create, refund, capture, ..."""
    if pv.action in ("update", "get", "list", "delete", "replace"):
        return ""  # an update of a payment object (its description, metadata) moves no money
    if pv.action in _MONEY_ACTIONS or pv.action.split("_")[0] in _MONEY_ACTIONS:
        return pv.action.split("_")[0]
    thing = singular(pv.resource[-1]) if pv.resource else ""
    if pv.action == "create" and (thing in _MONEY_THINGS or thing.rpartition("_")[2] in _MONEY_THINGS):
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


def _money_args(args: Sequence[_Arg]) -> tuple[_Arg | None, _Arg | None]:
    """The arguments that say how much (``amount``, ``price``, ``total_amount``) and in what currency."""
    return (
        _find(args, r"(body_)?(amount|price|total|sum|value)", r"(body_)?amount_\w+", r"\w*_amount"),
        _find(args, r"(body_)?currency(_code)?", r"\w*_currency"),
    )


# How a document says an amount is in the currency's smallest unit (Stripe: "A positive integer in cents
# representing how much to charge", "in the smallest currency unit").
_MINOR = re.compile(
    r"\bsmallest (currency )?(units?|denomination)\b|\bminor (currency )?units?\b|\bin cents\b", re.I
)
_MAJOR = re.compile(r"\b(dollars?|euros?|whole units?|major units?|decimal)\b", re.I)
_AMOUNT = re.compile(r"(\w+_)?amount(_\w+)?", re.I)
_CONVENTION: dict[int, tuple[Mapping[str, Any], int]] = {}


def minor_amounts(args: Sequence[_Arg], document: Mapping[str, Any] | None = None) -> dict[str, str]:
    """The binding's ``amounts``: an integer amount in the currency's smallest unit, with the argument
    that names its currency ("" when none does); the runtime shows 500 usd as 5.00 USD. The amount's
    own description says so ("in cents"), or, beside a currency argument and saying no other unit, its
    document does for at least three of its integer amounts (Stripe's refund amount says only "how much
    to refund"; 62 other amounts in its document say "in the smallest currency unit")."""
    amount, currency = _money_args(args)
    schema = getattr(amount, "schema", None)
    if amount is None or not isinstance(schema, Mapping) or schema.get("type") != "integer":
        return {}
    if _smallest_unit(schema, document if currency is not None else None):
        return {amount.name: currency.name if currency else ""}
    return {}


def _smallest_unit(schema: Mapping[str, Any], document: Mapping[str, Any] | None) -> bool:
    """Whether an integer amount is in its currency's smallest unit: its description says so ("in
    cents"), or, naming no other unit, its ``document`` (given only when a currency stands beside the
    amount) says so of at least three of its integer amounts."""
    text = str(schema.get("description", ""))
    return bool(_MINOR.search(text)) or (
        document is not None and not _MAJOR.search(text) and minor_convention(document) >= 3
    )


_RFC822 = re.compile(r"\bRFC ?(822|2822|5322)\b", re.I)


def _whole_emails(args: Sequence[_Arg]) -> list[_Arg]:
    """Arguments that carry a whole email, base64-encoded (Gmail's ``raw``: "The entire email message
    in an RFC 2822 formatted and base64url encoded string")."""
    out = []
    for a in args:
        schema = getattr(a, "schema", None)
        text = str(schema.get("description", "")) if isinstance(schema, Mapping) else ""
        if a.location == "body" and _RFC822.search(text) and re.search(r"base64", text, re.I):
            out.append(a)
    return out


def mime_args(args: Sequence[_Arg]) -> list[str]:
    """The binding's ``mime``: the names of :func:`_whole_emails`; the runtime shows each one's To, Cc,
    Bcc and Subject on the card, which would otherwise show a blob."""
    return [a.name for a in _whole_emails(args)]


def money_objects(
    args: Sequence[_Arg], document: Mapping[str, Any] | None = None
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


def preview(pv: PlannedVerb, args: Sequence[_Arg], destructive: bool, forced: PreviewKind | None) -> Preview:
    """The card a person approves before a write is sent."""
    amount, currency = _money_args(args)
    args = [a for a in args if not _SECRET.fullmatch(a.name)]  # a card never shows a credential
    to = _find(args, _TO)
    text = _find(
        args, r"(body_)?text", r"(body_)?body", r"(body_)?message", r"(body_)?content", r"(body_)?msg"
    )
    start = _find(args, r"(body_)?(start|starts_at|start_\w+|begin\w*)")
    end = _find(args, r"(body_)?(end|ends_at|end_\w+|finish\w*)")
    words = set(pv.name.replace(".", "_").split("_")) | set(snake(pv.op.operation_id or "").split("_"))
    words |= {singular(w) for w in words}
    thing_word = singular(pv.resource[-1]) if pv.resource else ""
    money = _money(pv, {*pv.resource, thing_word})
    own, parent = _created_ids(pv, args)
    thing = _thing(pv)
    # What the change is on: the item itself, else its parent ("charge {{charge}}", "issue {{issue_number}}").
    on = f"{thing} {own}" if own else parent.removeprefix("for ").strip()
    subject = f"{thing} {own}" if own else f"{thing} {parent}".strip()
    mime = next(iter(_whole_emails(args)), None)
    if mime and pv.action.split("_")[0] in _SENDING and not text:
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
        and (to or thing_word.rpartition("_")[2] in _MESSAGE_THINGS)
        and pv.action not in ("update", "delete")
    ):
        kind = "message"
    elif start and end and pv.action.split("_")[0] in _SCHEDULING:
        kind = "event"  # not a read's date range (Plaid's transactions.get), nor an update of one
    elif words & _PUBLISH_WORDS and pv.action not in ("update", "delete", "get"):
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
        headline = _find(args, r"(body_)?(subject|title)")
        if headline and headline is not text:
            fields["subject"] = ph(headline)
    elif kind == "event":
        fields = {"start": ph(start), "end": ph(end)}
        what = _find(args, r"(body_)?(title|summary|name)")
        if what:
            fields["title"] = ph(what)
    taking = _taking(pv, args)
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
        chosen += [a for a in args if not _wanted(a) and re.fullmatch(_DESCRIBING, a.name)]
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


def _wanted(a: _Arg) -> bool:
    """Required, or required by its body's schema (``ArgSpec.wanted``) though the body is optional."""
    return a.required or bool(getattr(a, "wanted", False))


def _preview_title(
    pv: PlannedVerb,
    kind: str,
    money: str,
    thing: str,
    subject: str,
    on: str,
    amount: _Arg | None,
    currency: _Arg | None,
    to: _Arg | None,
    args: Sequence[_Arg],
) -> str:
    sum_ = f"{ph(amount)} {ph(currency)}"
    to_part = f" to {ph(to)}" if to else ""
    if money == "refund":
        to_part = ""
    if kind == "payment":
        if money == "refund":
            paid = on or ph(_find(args, r"(body_)?(charge|payment_intent|payment)"))
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
    if kind == "message" and not to and _whole_emails(args) and pv.action.split("_")[0] in _SENDING:
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
    taking = _taking(pv, args)
    if taking:
        prep, who, place = taking
        where = ph(place) if place and place.location != "path" else on or thing
        return f"{pv.action.capitalize()} {ph(who)} {prep} {where}"
    if kind == "publish":
        label = _label_arg(args)
        return f"Publish {thing} {ph(label)}" + (f" in {on}" if on and not label else "")
    if pv.action == "create" and thing == "call" and to:  # placing a call rings someone: say who
        caller = _find(args, r"(body_)?from", r"(body_)?(caller_id|caller)")
        return f"Call {ph(to)}" + (f" from {ph(caller)}" if caller else "")
    if pv.action == "create":
        label = _label_arg(args)
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
        rest = _without_thing(phrase("_".join(words[1:])), thing)
        return f"{words[0].capitalize()} {rest} of" if rest else words[0].capitalize()
    verb = {"post": "Submit", "put": "Update", "patch": "Update", "delete": "Delete"}.get(method, "Confirm")
    return f"{verb} {phrase(action)} of"
