"""A task in words, read as clauses: what to do (verbs) to what (objects), and where (targets).

``"post a message to a channel and reply in its thread"`` is two clauses: post → message (to a
channel), reply (in a thread). Pronouns (it, them, its) stand for the previous clause's objects; a
clause with no object of its own acts on the previous one's (``"pause playback … and resume"``).
Operations are read the same way: the nouns they act on (the path's resource, the summary's words)
and what they do (the path's action, the summary's first verbs). Plain English, no vendor's
vocabulary; deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from packc.curate._lexicon import related
from packc.curate._rank import Shape, noun_of, parent_item, same_noun, stem, words
from packc.curate._task_words import NOUN_FORM, PREPOSITIONS, PRONOUNS, STOP, action_intent, intents
from packc.model import Operation
from packc_runtime.rules import PATH_TEMPLATE

__all__ = [
    "Clause",
    "OpWords",
    "body_refs",
    "clause_fit",
    "fit_parts",
    "item_aliases",
    "op_words",
    "param_nouns",
    "read_task",
]

_SPLIT = re.compile(r"[,;:.!?()]|\b(?:and|or|then|also|while|plus)\b", re.I)


@dataclass(frozen=True, slots=True)
class Clause:
    """One part of a task: its verbs (stems), the things it acts on (each a phrase of stems: ``pull
    request``) and the places it names (targets: ``to a channel``)."""

    verbs: tuple[str, ...]
    phrases: tuple[tuple[str, ...], ...]
    targets: tuple[str, ...]
    said: str = field(default="", compare=False)  # its words as the task wrote them (no punctuation)

    @property
    def objects(self) -> tuple[str, ...]:
        return tuple(w for p in self.phrases for w in p)

    def parts(self) -> tuple[Clause, ...]:
        """One clause per verb and thing: "review and merge a merge request" → review it, merge it."""
        if len(self.verbs) <= 1 and len(self.phrases) <= 1:
            return (self,)
        return tuple(
            Clause((v,), (p,) if p else (), self.targets, self.said)
            for v in self.verbs
            for p in self.phrases or ((),)
        )


def read_task(goal: str, nouns: Collection[str]) -> tuple[Clause, ...]:
    """The task's clauses. ``nouns`` are the API's resource nouns (stems): a clause's first word that
    names none of them is read as a verb even when it is not a common one (``transcribe``, ``reboot``)."""
    out: list[Clause] = []
    before: tuple[tuple[str, ...], ...] = ()
    place: tuple[tuple[str, ...], ...] = ()  # the clause before's places
    pending: list[str] = []  # "review and merge a merge request": verbs waiting for their thing
    for part in _SPLIT.split(goal.lower()):
        tokens = [w for w in words(part) if len(w) > 1 or w in ("s", "a")]
        if not [w for w in tokens if w not in STOP]:
            continue
        verbs: list[str] = []
        phrases: list[list[str]] = []
        targets: list[str] = []
        where, phrase = False, False  # after a preposition; inside a phrase
        for i, w in enumerate(tokens):
            if (
                w in PRONOUNS
            ):  # the clause before's things, else its places ("comment on an issue and close it")
                meant = before or place
                if where or w in ("its", "their"):
                    targets.extend(x for p in meant for x in p)
                else:
                    phrases.extend(list(p) for p in meant)
                phrase = False
                continue
            if w in PREPOSITIONS or w in STOP:
                where = (where or w in PREPOSITIONS) and w != "with"  # with sections: made too
                phrase = False
                continue
            if w == "s" or (i + 1 < len(tokens) and tokens[i + 1] == "s"):
                if w != "s":
                    targets.append(stem(w))  # a customer's payment: the payment, of a customer
                phrase = False
                continue
            named = any(same_noun(stem(w), n) for n in nouns)
            # "refund a payment": a clause's first word before an article or a preposition is its verb
            leads = not verbs and i == 0 and i + 1 < len(tokens) and tokens[i + 1] in STOP | PREPOSITIONS
            more = any(
                t not in STOP and t not in PREPOSITIONS for t in tokens[i + 1 :]
            )  # something to act on
            if (
                not where
                and not phrases
                and not targets
                and ((intents(w) and not (verbs and named)) or (not verbs and more and (not named or leads)))
            ):
                verbs.append(stem(w))  # the clause's first word, and verbs after it that name no resource
                continue
            if where:
                targets.append(stem(w))
            elif phrase:
                phrases[-1].append(stem(w))
            else:
                phrases.append([stem(w)])
                phrase = True
        if not phrases and not targets and not before and verbs:
            pending.extend(verbs)
            continue
        verbs = [*pending, *verbs] or (list(out[-1].verbs) if out else [])  # "search code and repositories"
        pending = []
        if not phrases and not targets:
            phrases = [list(p) for p in before]  # "... and resume": what the clause before acted on
        found = tuple(dict.fromkeys(tuple(p) for p in phrases))
        out.append(
            Clause(tuple(dict.fromkeys(verbs)), found, tuple(dict.fromkeys(targets)), " ".join(words(part)))
        )
        if found:
            before = found
        place = tuple((t,) for t in dict.fromkeys(targets))
    if pending:
        out.append(Clause(tuple(dict.fromkeys(pending)), (), ()))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class OpWords:
    """What an operation acts on and does, in stems: head nouns (its resource's, its summary's first),
    other nouns its summary names, its parent resource's noun, and its verbs."""

    heads: frozenset[str]
    mentions: frozenset[str]
    parent: str
    verbs: frozenset[str]
    intent: str
    asks: bool  # a required query argument: a lookup (GET /artists?ids=), not a list to find things in
    user: bool  # a user's id in the path: the current user's id is needed to call it
    needs: frozenset[str]  # what its path parameters name: the ids it must be given


_GENERIC = frozenset(
    {
        "id",
        "ids",
        "hash",
        "key",
        "gid",
        "number",
        "num",
        "no",
        "uuid",
        "guid",
        "slug",
        "name",
        "code",
        "sid",
        "ref",
        "or",
        "identifier",
        "index",
        "idx",
        "pk",
    }
)
_ID_WORDS = frozenset({"id", "ids", "gid", "uuid", "guid"})
_PARAM = re.compile(r"([^/{}]*)/?" + PATH_TEMPLATE.pattern)  # the segment before, and the name


def param_nouns(path: str) -> list[str]:
    """What each path parameter names, in stems: ``{issue_number}`` → issue, ``{idCard}`` → card, a bare
    ``{id}`` → the segment before it (``/artists/{id}`` → artist)."""
    out = []
    for before, name in _PARAM.findall(path.partition("?")[0]):
        own = [w for w in words(name) if w not in _GENERIC]
        seg = words(before.rsplit("/", 1)[-1].rsplit(".", 1)[-1]) if before else ()
        picked = own[-1] if own else (seg[-1] if seg else "")
        if picked:
            out.append(stem(picked))
    return out


def op_words(op: Operation, s: Shape, aliases: Collection[str] = (), common: Collection[str] = ()) -> OpWords:
    """``aliases``: what the document calls one item of the operation's resource in its paths
    (``/lists/{list_id}/members/{subscriber_hash}``: a member is a subscriber); ``common``: query
    arguments most operations require (a key and token in the query), which make no lookup."""
    noun = noun_of(s.resource)
    raw = words(op.summary or op.description[:120])
    at = [i for i, w in enumerate(raw) if w not in STOP and len(w) > 1]
    said = [raw[i] for i in at]
    told = [w for w in words(op.description[:200]) if w not in STOP and len(w) > 1] if op.summary else []
    verbs = {stem(w) for w in words(s.action)}
    heads = ({noun[-1]} if noun else set()) | set(aliases)
    if said:
        verbs.add(stem(said[0]))
        rest, n = said[1:], 1
        while (
            rest
            and at[n] == at[n - 1] + 1
            and intents(rest[0])
            and stem(rest[0]) not in {noun[-1] if noun else ""}
        ):
            verbs.add(stem(rest[0]))  # "Start/Resume a User's Playback" (not "Comment on an issue")
            rest, n = rest[1:], n + 1
        if rest:
            heads.add(stem(rest[0]))
        mentions = {stem(w) for w in rest + told}
    else:
        mentions = {stem(w) for w in told}
    pnoun = noun_of(parent_item(s.resource)) if parent_item(s.resource) else ()
    if s.object and words(s.object):
        # /tasks/{id}/addFollowers, /chat.postMessage: followers and messages, on a task or in chat
        heads = (heads - {noun[-1]} if noun else heads) | {stem(words(s.object)[-1])}
        pnoun = noun or pnoun
    # An act named by its verb (add_dependencies: an add) does what the verb says.
    named = next(iter(sorted(intents(s.action.partition("_")[0]))), "") if "_" in s.action else ""
    intent = action_intent(s.action, op.method, named)
    asks = any(p.required and p.location == "query" and p.name not in common for p in op.parameters)
    user = any(p.location == "path" and words(p.name)[:1] == ("user",) for p in op.parameters)
    return OpWords(
        frozenset(heads),
        frozenset(mentions),
        pnoun[-1] if pnoun else "",
        frozenset(verbs),
        intent,
        asks,
        user,
        frozenset(param_nouns(op.path)),
    )


def _meets(word: str, nouns: Collection[str], compounds: Collection[str]) -> bool:
    """``word`` is one of ``nouns`` or its short form (repo/repository), but not the head of a
    compound the document spells as one word (issue ≠ issuetype when ``type`` is a word of its own)."""
    for n in nouns:
        if n == word:
            return True
        if same_noun(n, word):
            short, long_ = sorted((n, word), key=len)
            rest = long_[len(short) :]
            if len(rest) >= 3 and rest not in compounds:  # not send/sender, issue/issuetype
                return True
    return False


def clause_fit(clause: Clause, ow: OpWords, vocabulary: Collection[str]) -> int:
    """How well an operation does what a clause asks: 0 (not at all) to 6 (its own verb on the
    clause's object). Verb: 3 its own word, 2 the clause's verb names its resource (``review`` a pull
    request → create a review under it), 1 same kind (read, create, update, delete). Object: 3 the
    operation's head noun, 2 a noun its summary names (a clause that names no object: its targets)."""
    return sum(fit_parts(clause, ow, vocabulary))


def fit_parts(clause: Clause, ow: OpWords, vocabulary: Collection[str]) -> tuple[int, int]:
    """``clause_fit`` as (verb, object) points; (0, 0) when the operation does not do the clause."""
    if not clause.verbs:
        return 0, 0
    things = clause.objects or clause.targets
    verb = 3 if ow.verbs & set(clause.verbs) else 0
    heads = ow.heads
    if not verb and ow.intent == "create":
        nominal = {NOUN_FORM.get(v, v) for v in clause.verbs}
        if any(_meets(n, ow.heads, vocabulary) for n in nominal):
            # review pull requests: create a review of a pull request; refund a payment: a refund
            verb, heads = 2, frozenset({ow.parent}) if ow.parent else ow.mentions
    if not verb:
        verb = 1 if ow.intent in {i for v in clause.verbs for i in intents(v)} else 0
    if not verb:
        return 0, 0
    if not things:
        return verb, 0
    # The clause's own words, then those of their groups (a password is a secret): _lexicon.RELATED.
    for said in (things, [r for t in things for r in related(t)]):
        if any(_meets(t, heads, vocabulary) for t in said):
            return verb, 3
        if any(_meets(t, ow.mentions, vocabulary) for t in said):
            return verb, 2
    return 0, 0


def item_aliases(ops: Collection[Operation], shapes: Mapping[str, Shape]) -> dict[tuple[str, ...], set[str]]:
    """What the document calls one item of each resource, from its item paths' last parameter."""
    out: dict[tuple[str, ...], set[str]] = {}
    for op in ops:
        path = op.path.partition("?")[0].rstrip("/")
        if path.endswith("}") and op.key in shapes and not shapes[op.key].object:
            nouns = param_nouns(path)
            if nouns:
                out.setdefault(shapes[op.key].resource, set()).add(nouns[-1])
    return out


def _required(schema: Any, name: Any) -> bool:
    required = schema.get("required") if isinstance(schema, Mapping) else None
    return isinstance(required, list) and name in required


def body_refs(op: Operation) -> list[tuple[tuple[str, ...], bool]]:
    """What an operation's request body refers to by name, in stems, and whether it is an id the body
    requires: ``payment_intent`` → ((payment, intent), False); ``recipients.list_id`` (required) →
    ((list,), True); an optional ``template_id`` → ((template,), False), no reason to find one.
    Top-level fields and one level of inline objects; references (``$ref``) are not followed."""
    out: list[tuple[tuple[str, ...], bool]] = []
    body = op.request_body
    for media in body.content if body is not None else ():
        schema = media.schema
        props = schema.get("properties") if isinstance(schema, Mapping) else None
        if not isinstance(props, Mapping):
            continue
        fields = [(str(n), v, _required(schema, n)) for n, v in props.items()]
        for _, v, _need in list(fields):
            inner = v.get("properties") if isinstance(v, Mapping) else None
            if isinstance(inner, Mapping):
                fields += [(str(n), None, _required(v, n)) for n in inner]
        for name, _, needed in fields:
            ws = words(name)
            own = tuple(stem(w) for w in ws if w not in _GENERIC)
            if own:
                out.append((own, needed and ws[-1] in _ID_WORDS))
    return list(dict.fromkeys(out))
