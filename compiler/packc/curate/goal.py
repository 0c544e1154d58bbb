"""Goal: the verbs that serve a stated task (``--for "triage issues and review pull requests"``).

Operations are ranked against the text by lexical overlap (BM25 over stemmed words of each
operation's summary, operationId, path, tags and description, each field weighted), with a bonus
when the task's verbs ask for what the operation does (``review`` → create a review, ``close`` →
update). A task word the document never uses reads as the document's words of its group
(``_lexicon.RELATED``) and its other forms (collaborator: collaboration), for half. The best matches
are then closed over what a task needs: a create comes with its resource's list and get, an
operation on a sub-resource with its parent's list and get. Deterministic; no model, no network.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from packc.curate._lexicon import related, rephrase
from packc.curate._rank import (
    Ranked,
    Shape,
    common_arguments,
    entry_point,
    noun_of,
    parent_item,
    same_noun,
    stem,
    words,
)
from packc.curate._risk import admin_words, risk_of, unasked
from packc.curate._shape import shape
from packc.curate._task import (
    Clause,
    OpWords,
    body_refs,
    clause_fit,
    fit_parts,
    item_aliases,
    op_words,
    read_task,
)
from packc.curate._task import _meets as task_meets
from packc.curate._task_words import FUNCTION_WORDS, action_intent, intents
from packc.errors import UsageError
from packc.model import Operation
from packc.text import clean

__all__ = ["MAX_GOAL", "GoalMatch", "check_goal", "match_goal", "select_for_goal"]

MAX_GOAL = 500

_SELF = frozenset({"me", "my", "mine", "myself", "i"})
_FIELDS = (("summary", 3.0), ("operation_id", 2.0), ("path", 2.0), ("tags", 1.0), ("description", 1.0))
_K1, _B = 1.2, 0.75
_FLOOR = 0.25  # relevance below this (a quarter of the best match's) is not about the task
_GENERAL = 0.8  # share of the general score in an operation's worth for the task
_SPREAD = 15
_COMPANIONS = 0.7  # an operation this relevant brings its companions
_PLAIN = frozenset({"list", "get", "create", "update", "delete"})
_QUESTION = frozenset(
    {"what", "which", "who", "whom", "whose", "why", "how", "where"}
)  # ask to read; name nothing
_REALIZE = 10  # worth of a point of fit when choosing what does a clause
_FIT = 6  # worth per point of how well an operation does what a clause of the task asks


@dataclass(frozen=True, slots=True)
class GoalMatch:
    """How an operation meets the task: its relevance and the task words it matched."""

    relevance: float
    matched: tuple[str, ...]
    intent: bool

    def signals(self) -> tuple[tuple[str, int], ...]:
        if self.relevance <= 0:
            return ()
        asks = "; asks for what it does" if self.intent else ""
        return ((f"task words {', '.join(self.matched)}{asks}", round(40 * self.relevance)),)


def check_goal(goal: object) -> str | None:
    """The goal text, stripped; a UsageError when it is given but is not text, says nothing, or is
    longer than a task (``MAX_GOAL`` characters: matching costs time with every word)."""
    if goal is None:
        return None
    if not isinstance(goal, str):
        raise UsageError(
            f"--for (goal=) takes a task in words, not {type(goal).__name__}, "
            'e.g. goal="triage issues and review pull requests"'
        )
    text = clean(goal)  # plain words: a terminal's escapes and control characters read as spaces
    if len(text) > MAX_GOAL:
        raise UsageError(
            f"--for takes a task of at most {MAX_GOAL} characters (this one has {len(text)}): say what "
            "the pack is for in a sentence or two"
        )
    if not [w for w in words(text) if w not in FUNCTION_WORDS]:
        raise UsageError(
            '--for needs a task in words, e.g. --for "triage issues and review pull requests"; '
            f"{goal!r} has none"
        )
    return text


def _kin(a: str, b: str) -> bool:
    """Two forms of one word that the light stem keeps apart: register, registrant, registration."""
    n = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return n >= 6 or (n >= 5 and min(len(a), len(b)) - n <= 1)


def _terms(op: Operation) -> dict[str, Counter[str]]:
    return {
        "summary": Counter(stem(w) for w in words(op.summary)),
        "operation_id": Counter(stem(w) for w in words(op.operation_id or "")),
        "path": Counter(stem(w) for w in words(op.path.partition("?")[0]) if not w.isdigit()),
        "tags": Counter(stem(w) for t in op.tags for w in words(t)),
        "description": Counter(stem(w) for w in words(op.description)),
    }


def match_goal(goal: str, ops: Sequence[Operation], shapes: Mapping[str, Shape]) -> dict[str, GoalMatch]:
    """BM25 relevance of every operation to the goal, scaled to 0..1 (the best match is 1)."""
    goal_words = [w for w in words(goal) if w not in FUNCTION_WORDS and len(w) > 1]
    terms = sorted({stem(w) for w in goal_words if w not in _QUESTION})
    asks_for = {intent for w in goal_words for intent in intents(w)}
    docs: dict[str, dict[str, float]] = {}
    for op in ops:
        weighted: dict[str, float] = {}
        fields = _terms(op)
        for field, weight in _FIELDS:
            for term, n in fields[field].items():
                weighted[term] = weighted.get(term, 0.0) + weight * n
        docs[op.key] = weighted
    n_docs = len(docs) or 1
    avg = sum(sum(d.values()) for d in docs.values()) / n_docs or 1.0
    # A task word the document never uses reads as the words of its group (a password: secrets), for
    # half: _lexicon.RELATED.
    seen = {t for d in docs.values() for t in d}
    boost = {r: 0.5 for t in terms if t not in seen for r in related(t) if r not in terms}
    for t in terms:
        if t not in seen and len(t) >= 5:
            for u in seen:
                if u not in terms and _kin(t, u):
                    boost.setdefault(u, 0.5)
    boost.update(dict.fromkeys(terms, 1.0))
    terms = sorted(boost)
    df = {t: sum(1 for d in docs.values() if t in d) for t in terms}
    bm25: dict[str, tuple[float, tuple[str, ...]]] = {}
    for op in ops:
        d = docs[op.key]
        length = sum(d.values())
        score, matched = 0.0, []
        for t in terms:
            tf = d.get(t, 0)
            if tf:
                idf = math.log(1 + (n_docs - df[t] + 0.5) / (df[t] + 0.5))
                score += boost[t] * idf * tf * (_K1 + 1) / (tf + _K1 * (1 - _B + _B * length / avg))
                matched.append(t)
        bm25[op.key] = (score, tuple(matched))
    best = max((score for score, _ in bm25.values()), default=0.0) or 1.0
    out: dict[str, GoalMatch] = {}
    for op in ops:
        score, found = bm25[op.key]
        s = shapes[op.key]
        # The task names the resource (its noun) and asks for what the operation does (its action).
        noun = noun_of(s.resource)
        named = bool(noun) and any(same_noun(noun[-1], t) for t in terms if boost[t] == 1.0)
        asked = bool({stem(w) for w in words(s.action)} & set(terms))
        intent = asked or action_intent(s.action, op.method) in asks_for
        relevance = (
            0.5 * score / best + (0.35 if named else 0.0) + (0.25 if asked else 0.12 if intent else 0.0)
        )
        out[op.key] = GoalMatch(relevance if score else 0.0, found, intent)
    top = max((m.relevance for m in out.values()), default=0.0) or 1.0
    return {k: GoalMatch(m.relevance / top, m.matched, m.intent) for k, m in out.items()}


def _companions(
    key: str,
    shapes: Mapping[str, Shape],
    by_resource: Mapping[tuple[str, ...], Mapping[str, str]],
    matches: Mapping[str, GoalMatch],
) -> list[str]:
    """What a task needs beside an operation: its resource's list (to find what it acts on) and get
    (to read one); for a sub-resource, its parent's list (adding a member to a list needs the list's
    id; ending a user's sessions, the user's, found by name) and its parent's get when the task
    names that too."""
    s = shapes[key]
    own = by_resource.get(s.resource, {})
    out = [own[a] for a in (("get", "list") if s.action == "list" else ("list", "get")) if a in own]
    parent = by_resource.get(parent_item(s.resource), {}) if parent_item(s.resource) else {}
    if "list" in parent:
        out.append(parent["list"])
    if "get" in parent and matches[parent["get"]].relevance >= _FLOOR:
        out.append(parent["get"])
    return [k for k in out if k != key]


def _named_first(goal: str, ranked: Sequence[str], shapes: Mapping[str, Shape]) -> list[str]:
    """For each word of the task that names a resource, that resource's best operation (in ``ranked`` order)."""
    out: list[str] = []
    for term in sorted({stem(w) for w in words(goal) if w not in FUNCTION_WORDS and len(w) > 1}):
        best = next(
            (k for k in ranked if (noun := noun_of(shapes[k].resource)) and same_noun(noun[-1], term)), None
        )
        if best is not None and best not in out:
            out.append(best)
    return sorted(out, key=ranked.index)


def _plural(resource: tuple[str, ...]) -> bool:
    last = next((seg for seg in reversed(resource) if seg != "{}"), "")
    return stem(last) != last.lower()


def _finder(
    thing: tuple[str, ...],
    keys: Sequence[str],
    shapes: Mapping[str, Shape],
    said: Mapping[str, OpWords],
    vocabulary: Collection[str],
    action: str = "list",
    hints: Collection[tuple[str, ...]] = (),
) -> str | None:
    """How to find a thing the task names (``to a channel``, ``a payment``): the best list of it (or,
    with ``action="get"``, the read of one): one the chosen operations' bodies name (``hints``), by its
    resource's noun, by its summary's head noun (``conversations.list``: "Lists all channels"), by a
    word of its noun; no list of it: a search that says it finds it."""
    last = thing[-1]
    if action == "get":
        ones = [
            k
            for k in keys
            if shapes[k].action == "get"
            and not said[k].asks
            and len(said[k].needs) <= 1
            and task_meets(last, said[k].heads, vocabulary)
        ]
        return ones[0] if ones else None
    lists = [
        k
        for k in keys
        if shapes[k].action == "list" and not said[k].asks and not task_meets(last, said[k].needs, vocabulary)
    ]  # not a list that needs one of them first
    # Its own collection first (plural, fewest ids to give): /boards/{id}/lists over /cards/{id}/list.
    lists.sort(key=lambda k: (len(said[k].needs), not _plural(shapes[k].resource)))
    nouns = {k: noun_of(shapes[k].resource) for k in lists}
    for found in (
        [k for k in lists if nouns[k] in hints and last in nouns[k]],  # the body takes a payment_intent
        [k for k in lists if nouns[k] and task_meets(last, {nouns[k][-1]}, vocabulary)],
        [k for k in lists if task_meets(last, said[k].heads, vocabulary)],
        [k for k in lists if set(thing) & set(nouns[k])],
    ):  # a payment: payment_intents
        if found:
            return found[0]
    searches = [k for k in keys if shapes[k].action == "search" and not shapes[k].resource]
    return next((k for k in searches if task_meets(last, said[k].mentions | said[k].heads, vocabulary)), None)


def select_for_goal(
    goal: str,
    ops: Sequence[Operation],
    ranking: Mapping[str, Ranked],
    limit: int,
    minimum: int,
    core: Sequence[str] = (),
    misses: list[str] | None = None,
    withheld: dict[str, str] | None = None,
) -> tuple[list[str], dict[str, GoalMatch]]:
    """The operations for the task, best first with their companions, at most ``limit``; filled up to
    ``minimum`` from the general ranking when the task names fewer.

    First each clause of the task (``read_task``) gets the operation that does what it says to what
    it names; then what those need (their resource's list and get, their parent's, the list of each
    place the task names: ``to a channel``), then the rest by worth. An operation's worth for the
    task is its relevance (0..1, times 100) plus a share of its general score, so that among
    operations that say the same words the API's everyday ones win (``POST /refunds`` over a
    terminal reader's ``refund_payment``); each one already taken from a resource costs the next
    one of it ``_SPREAD``, so every part of the task gets its verbs.

    When a clause finds no operation that does it (the task's words are not the document's), the
    room the matches leave holds ``core`` (the API's one pack, best first): the agent keeps its
    everyday calls beside the near misses. Such clauses are added to ``misses`` (their words), so
    that the user can be told. An operation that destroys, moves money, changes an owner or writes as
    an admin is taken only when a clause asks for that act (``_risk``); the others are added to
    ``withheld`` with the reason.
    """
    goal = rephrase(goal)  # "kick off a build": start a build
    shapes = {k: r.shape for k, r in ranking.items()}
    kinds = {op.key: op for op in ops}
    matches = match_goal(goal, ops, shapes)
    # A deprecated operation serves a task only when nothing else does (a legacy list beside the list).
    if any(m.relevance > 0 for op in ops if not op.deprecated for m in (matches[op.key],)):
        matches |= {op.key: GoalMatch(0.0, (), False) for op in ops if op.deprecated}
    general = sorted(ranking, key=lambda k: (-ranking[k].score, k))
    by_resource: dict[tuple[str, ...], dict[str, str]] = {}
    for key in general:
        by_resource.setdefault(shapes[key].resource, {}).setdefault(shapes[key].action, key)
    aliases = item_aliases(ops, shapes)
    common = common_arguments(ops)
    said = {
        op.key: op_words(op, shapes[op.key], aliases.get(shapes[op.key].resource, ()), common)
        for op in ops
        if op.key in shapes
    }
    vocabulary = {w for op in ops for w in words(op.path) + words(op.summary)}
    nouns = {n[-1] for s in shapes.values() if (n := noun_of(s.resource))}
    clauses = read_task(goal, nouns)
    fits = {k: max((clause_fit(c, said[k], vocabulary) for c in clauses), default=0) for k in said}
    worth = {
        k: 100 * m.relevance + _GENERAL * ranking[k].score + _FIT * fits.get(k, 0)
        for k, m in matches.items()
        if m.relevance >= _FLOOR or fits.get(k, 0) >= 4
    }
    by_worth = sorted(
        ranking, key=lambda k: (-(worth.get(k, 0.0) + (0 if k in worth else _GENERAL * ranking[k].score)), k)
    )
    taken: Counter[tuple[str, ...]] = Counter()
    chosen: list[str] = []

    # A task gets no risk it does not ask for (_risk): "cancel tomorrow's meeting" is no reason to
    # hold users.delete, nor "refund a payment" to hold a payment out of the account. A removal is
    # asked of what the task names: the meeting may be deleted, not a user.
    named = {stem(w) for w in words(goal)}
    named |= {r for t in named for r in related(t)}
    admin_api = 2 * sum(admin_words(op) for op in ops) >= len(ops)
    risky = {
        k: r
        for k in shapes
        # The operation's own shape: the ranking may read a POST-only API's POSTs as lists.
        if (r := risk_of(kinds[k], own := shape(kinds[k]), admin_api))
        and unasked(r, own, clauses, words(goal), named)
    }
    if withheld is not None:
        withheld.update({k: r.reason() for k, r in risky.items()})

    def take(key: str | None) -> None:
        if key is not None and key not in chosen and key not in risky and len(chosen) < limit:
            chosen.append(key)
            taken[shapes[key].resource] += 1

    # Each clause: the operation that does what it says to what it names.
    done: list[str] = []
    unmet = 0
    missed: list[Clause] = []
    for clause in (part for c in clauses for part in c.parts()):
        parts = {k: fit_parts(clause, said[k], vocabulary) for k in by_worth}
        scored = [(sum(parts[k]), k) for k in by_worth]
        top = max((f for f, _ in scored), default=0)
        met = top >= 4 or bool(top and not (clause.objects or clause.targets))
        unmet += not met
        if not met:
            missed.append(clause)
        if met:
            # The best fit, unless one a point below is much more the API's own (mail/send over a test send_email).
            best = max(
                (k for f, k in scored if f >= top - 1),
                key=lambda k: (_REALIZE * sum(parts[k]) + worth.get(k, 0.0), k),
            )
            # An action of its own (moveAllCards) and the everyday verb that also does it (update a card).
            asked = {i for v in clause.verbs for i in intents(v)}
            plain = next(
                (
                    k
                    for f, k in scored
                    if f >= 4
                    and shapes[k].action in _PLAIN
                    and said[k].intent in asked
                    and said[k].intent != said[best].intent
                ),
                None,
            )
            for pick in (best, plain):
                if pick is not None:
                    take(pick)
                    done.append(pick)
    # What they need, one round at a time so every clause gets its first companion before any its second.
    points = {op.key: entry_point(op, shapes[op.key], lambda: common) for op in ops if op.key in shapes}
    me = min((k for k, p in points.items() if p), key=lambda k: (-points[k], k), default=None)
    needs = [
        _companions(k, shapes, by_resource, matches) + ([me] if me and said[k].user else []) for k in done
    ]
    refs = {k: body_refs(op) for op in ops if (k := op.key) in done}
    hints = {ref for k in done for ref, _ in refs[k]}
    for k, need in zip(done, needs, strict=True):  # recipients.list_id: the list of lists, to find one
        need += [
            f
            for ref, named_id in refs[k]
            if named_id and (f := _finder(ref, general, shapes, said, vocabulary, hints={ref}))
        ]
    for round_ in range(max([2, *(len(n) for n in needs)])):
        for need in needs:
            if round_ < len(need):
                take(need[round_])
        if round_ < 2:  # how to find what the task names: first a list of it, then the read of one
            action = ("list", "get")[round_]
            for (
                clause
            ) in clauses:  # the read of a place only when it is all the clause names ("reply to a topic")
                places = [(t,) for t in clause.targets] if round_ == 0 or not clause.phrases else []
                for thing in [*places, *clause.phrases]:
                    take(_finder(thing, general, shapes, said, vocabulary, action, hints))
    remaining = [k for k in sorted(worth, key=lambda k: (-worth[k], k)) if k not in chosen]
    # Each thing the task names gets its best verb; "me"/"my" names the current user.
    for key in _named_first(goal, remaining, shapes):
        take(key)
    if _SELF & set(words(goal)):
        take(me)
    for key in list(chosen):
        if matches[key].relevance >= _COMPANIONS:
            for companion in _companions(key, shapes, by_resource, matches):
                take(companion)
    remaining = [k for k in remaining if k not in chosen]
    while remaining and len(chosen) < limit:
        best = min(remaining, key=lambda k: (-(worth[k] - _SPREAD * taken[shapes[k].resource]), k))
        remaining.remove(best)
        take(best)
        if matches[best].relevance < _COMPANIONS:
            continue
        for companion in _companions(best, shapes, by_resource, matches):
            take(companion)
        remaining = [k for k in remaining if k not in chosen]
    if unmet or not clauses:
        for key in core:
            take(key)
    for key in general:
        if len(chosen) >= minimum:
            break
        take(key)
    # What to tell the user: a clause no operation does, unless a chosen one has its very verb
    # (invite a colleague: conversations.invite, though "colleague" is not the document's word).
    for clause in missed:
        said_words = clause.said or " ".join((*clause.verbs, *clause.objects, *clause.targets))
        if (
            misses is not None
            and said_words not in misses
            and not any(said[k].verbs & set(clause.verbs) for k in chosen)
        ):
            misses.append(said_words)
    return chosen, matches
