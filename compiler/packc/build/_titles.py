"""Titles: what a host shows for a step while it runs and when it is done ("Merged pull request
{{pull_number}}"), English built from the resource's singular and its identifying arguments."""

from __future__ import annotations

import re
from collections.abc import Sequence

from packc.build._card_words import (
    ALWAYS_PEOPLE,
    CALLER,
    CRUD_WORDS,
    KEY_WORDS,
    LISTS,
    MANY,
    METHOD_WORDS,
    PEOPLE,
    PEOPLE_THINGS,
    PERSON,
    SELF,
    SENDING,
    SENT,
    TAKING,
    TO,
    Arg,
    ph,
)
from packc.curate.naming import path_segments
from packc.curate.plan import PlannedVerb
from packc.text import snake
from packc.words import VERBS, gerund, is_plural, past, phrase, singular
from packc_runtime.format.manifest import Title

__all__ = [
    "created_ids",
    "find_arg",
    "label_arg",
    "resource_phrase",
    "taking_pattern",
    "thing_phrase",
    "titles",
    "without_thing",
]


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
    if parent in SELF or (at == 1 and parent in ("user", "my")):
        return "your"  # /me/playlists, /users/me/settings, /user/repos (the caller's)
    # An acronym keeps its capitals (SIP, DNS), as the document writes it.
    raw = next((w for w in re.split(r"[/.]", pv.op.path) if snake(w) == parent), "")
    return raw if raw.isupper() and raw.isalpha() and len(raw) <= 5 else phrase(singular(parent))


def thing_phrase(pv: PlannedVerb, *, plural: bool = False) -> str:
    """The resource as a title names it: ``SIP domain``, ``pull request``, ``your repositories``."""
    if len(pv.resource) > 1 and pv.resource[-1] in SELF:  # /users/me: the caller's own
        return f"the current {phrase(singular(pv.resource[-2]))}"
    base = resource_phrase(pv.resource, plural=plural)
    modifier = _modifier(pv)
    return f"{modifier} {base}" if modifier and modifier not in base.split() else base


def _path_params(args: Sequence[Arg]) -> list[Arg]:
    return [a for a in args if a.location == "path"]


def _ids(pv: PlannedVerb, args: Sequence[Arg]) -> tuple[str, str]:
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


def label_arg(args: Sequence[Arg]) -> Arg | None:
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
    live, done = METHOD_WORDS.get(pv.op.method, ("Running", "Ran"))
    return live, done, phrase(pv.action)


def _verb_led(action: str) -> bool:
    return action.split("_")[0] in VERBS or action.split("_")[0] in (
        "get",
        "list",
        "find",
        "describe",
        "search",
    )


def taking_pattern(pv: PlannedVerb, args: Sequence[Arg]) -> tuple[str, Arg, Arg | None] | None:
    """(preposition, people, place) of an action that puts people into (or out of) the resource:
    ``conversations.invite`` with ``users`` and ``channel`` → ("to", users, channel)."""
    prep = TAKING.get(pv.action)
    one = singular(pv.resource[-1]) if pv.resource else ""
    if prep is None or one.rpartition("_")[2] in PEOPLE_THINGS:
        return None
    who = find_arg(args, PEOPLE, *((PERSON,) if pv.action in ALWAYS_PEOPLE else ()))
    if who is None:
        return None
    place = (
        find_arg(
            [a for a in args if a is not who],
            rf"(body_)?{one}(_id|_sid|_key)?",
            r"(body_)?(channel|chat|room|group|team|space)(_id|_sid)?",
            TO,
        )
        if one
        else None
    )
    return prep, who, place


def without_thing(obj: str, thing: str) -> str:
    """An action's object words without what the resource already says: ``dnd.end_dnd`` → '',
    ``conversations.set_conversation_prefs`` → ``prefs``."""
    last = thing.rpartition(" ")[2]
    if obj in (last, thing):
        return ""
    head, _, rest = obj.partition(" ")
    return rest if rest and head in (last, singular(last)) else obj


def created_ids(pv: PlannedVerb, args: Sequence[Arg]) -> tuple[str, str]:
    """``_ids``, but a create at an item path (LaunchDarkly's ``POST /flags/{projectKey}``) makes a new
    thing: its path key is the parent's, named after itself (``project {{project_key}}``)."""
    own, parent = _ids(pv, args)
    if pv.action == "create" and own and pv.op.path.rstrip("/").endswith("}"):
        keys = _path_params(args)
        noun = " ".join(w for w in (keys[-1].name.split("_") if keys else []) if w not in KEY_WORDS)
        return "", f"{noun} {own}" if noun and noun != thing_phrase(pv) else ""
    return own, parent


def titles(pv: PlannedVerb, args: Sequence[Arg]) -> Title:
    """live/done titles, most specific first; the last one has no placeholder."""
    own, parent = created_ids(pv, args)
    thing = thing_phrase(pv)
    state = pv.resource[-1] if pv.action == "get" and pv.resource else ""
    if state.endswith("ed") and len(pv.resource) > 1 and not is_plural(state):
        # A state read (pulls.merged.get): "Checked whether pull request 5 is merged".
        base = resource_phrase(pv.resource[:-1])
        subject = f"{base} {own}".strip()
        text = phrase(state)
        return _both(
            ("Checking", "Checked"), [f"whether {subject} is {text}", f"whether the {base} is {text}"]
        )
    if pv.action == "get" and len(pv.resource) > 1 and pv.resource[-1] in SELF:  # GET /users/me
        return _both(CRUD_WORDS["get"], [f"the current {phrase(singular(pv.resource[-2]))}"])
    if pv.action == "list":
        things = thing_phrase(pv, plural=True)
        return _both(CRUD_WORDS["list"], [f"{things} {parent}", things] if parent else [things])
    one = singular(pv.resource[-1]) if pv.resource else ""
    to = find_arg(args, TO)
    if pv.action == "create" and one in SENT and to is not None:
        # Twilio's messages.create: "Sending message to {{to}}", then "Sending message".
        return _both(("Sending", "Sent"), [f"{thing} to {ph(to)}", thing])
    if (
        pv.action == "get"
        and len(pv.resource) == 1
        and one in CALLER
        and [w for w, p in path_segments(pv.op.path)] == [pv.resource[0]]
    ):
        return _both(CRUD_WORDS["get"], [f"the current {thing}"])  # GET /user, GET /v1/account
    if pv.action in CRUD_WORDS:
        words = CRUD_WORDS[pv.action]
        label = label_arg(args) if pv.action == "create" else None
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
    if pv.action in SELF:
        return _both(_action_words(pv)[:2], [f"the current {thing}"])
    if not _verb_led(pv.action) and pv.op.method == "get":
        # A noun read (conversations.info, conversations.history): the resource's info, or its history listed.
        obj = phrase(pv.action)
        last = pv.action.split("_")[-1]
        words = CRUD_WORDS["list"] if is_plural(last) or last in LISTS else CRUD_WORDS["get"]
        target = (
            f"your {obj}" if pv.resource and pv.resource[-1] in SELF else f"{thing} {obj}"
        )  # /users/me/settings
        first = f"{obj} of {thing} {own}" if own else f"{target} {parent}" if parent else ""
        return _both(words, [first, target] if first else [target])
    live, done, obj = _action_words(pv)
    taking = taking_pattern(pv, args)
    if taking:
        # conversations.invite: "Inviting {{users}} to {{channel}}", then "Inviting to conversation".
        prep, who, place = taking
        live, done = gerund(pv.action).capitalize(), past(pv.action).capitalize()
        where = f"{thing} {own}" if own else ph(place) if place else thing
        return _both((live, done), [f"{ph(who)} {prep} {where}", f"{prep} {thing}"])
    obj = without_thing(obj, thing)
    if pv.action.split("_")[0] in MANY and not obj:
        thing = (
            thing_phrase(pv, plural=True)
            if is_plural(pv.resource[-1] if pv.resource else "")
            else f"{thing}s"
            if pv.resource
            else thing
        )
    to = find_arg(args, TO) if obj and pv.action.split("_")[0] in SENDING else None
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


def find_arg(args: Sequence[Arg], *patterns: str) -> Arg | None:
    for pattern in patterns:
        for a in args:
            if re.fullmatch(pattern, a.name):
                return a
    return None
