"""Pick: the one pack's verbs, the best of the ranking spread over resources (``select``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from packc.curate._rank import ENTRY, GLOBAL_SEARCH, SIGNATURE_VERBS, Ranked, Shape, noun_of

__all__ = ["select"]


_TRIO = frozenset({"list", "get", "create"})


def _kind(s: Shape) -> tuple[str, str, str]:
    """What an operation does to its resource, told apart from its siblings: conversations.history
    and conversations.replies both list, but neither is the other's companion."""
    return (s.action, s.object, s.verb)


def select(
    ranked: Sequence[tuple[str, Ranked]],
    limit: int,
    *,
    spread: int = 10,
    most: int = 4,
    together: int = 10,
    first: Sequence[str] = (),
) -> list[str]:
    """The ``limit`` best operations, over several resources, each kept whole where it counts.

    Companions gain ``together`` points: a resource's list, get and create once one of the three is
    taken (each kind once: a second list is no companion), and so do its signature acts. Any other
    operation of a resource already taken costs ``spread`` points per operation taken before it,
    except a signature action (merge, send, share) and the resource's first update; from the
    ``most``-th on, every operation of the resource but its list/get/create costs 25 points more (a
    pack of 12 verbs of one resource is no pack, but neither is one padded with an API's plumbing).
    The top-level list of what a taken create's required fields name (``GET /server_types`` for
    ``POST /servers``, which needs a ``server_type``) gains ``3 * together`` points and no spread cost:
    a person calls it first to learn the values. An API of ``limit`` operations or fewer keeps them all.
    """
    taken: Counter[tuple[str, ...]] = Counter()
    actions: dict[tuple[str, ...], set[tuple[str, str, str]]] = {}
    chosen: list[str] = []
    remaining = list(ranked)
    if len(remaining) <= limit:
        return [key for key, _ in remaining]

    needed: set[tuple[str, ...]] = set()  # what the creates taken need: their required fields' nouns

    def take(i: int) -> None:
        key, r = remaining.pop(i)
        chosen.append(key)
        taken[r.shape.resource] += 1
        actions.setdefault(r.shape.resource, set()).add(_kind(r.shape))
        needed.update(r.needs)

    # What a person (--include) or the document (x-packc include) keeps comes first, whatever else does.
    for key in first:
        at = next((i for i, (k, _) in enumerate(remaining) if k == key), None)
        if at is not None and len(chosen) < limit:
            take(at)
    # Two verbs every pack wants when its API has them: who am I (the first call of every
    # quickstart, and how an agent checks its credentials), and a search of the whole API.
    for kind in (ENTRY, GLOBAL_SEARCH):
        found = [
            (max(p for n, p in r.points if n == kind), r.score, -i)
            for i, (_, r) in enumerate(remaining)
            if any(n == kind for n, _ in r.points)
        ]
        if found and len(chosen) < limit:
            take(-max(found)[2])

    def adjusted(r: Ranked) -> int:
        s = r.shape
        n = taken[s.resource]
        done = actions.get(s.resource, set())
        first = _kind(s) not in done
        trio = s.action in _TRIO and first  # a second "get" is no companion
        exempt = trio or s.action in SIGNATURE_VERBS or (s.action == "update" and first)
        # A campaign created brings its send; a payment intent's confirm, its create.
        companion = (trio or (s.action in SIGNATURE_VERBS and first)) and any(
            k[0] in _TRIO or k[0] in SIGNATURE_VERBS for k in done
        )
        bonus = together if companion else 0
        # The list that gives a taken create's required value (GET /server_types for POST /servers).
        if (
            s.action == "list"
            and not s.object
            and s.resource
            and len(s.resource) == 1
            and noun_of(s.resource) in needed
        ):
            bonus += 3 * together
            exempt = True
        cost = (0 if exempt else spread * n) + (25 * (n - most + 1) if n >= most and not trio else 0)
        return r.score + bonus - cost

    # ``ranked`` is best first: no operation gains more than ``3 * together`` points, so the scan for
    # the best adjusted one stops where the plain score can no longer reach it.
    while remaining and len(chosen) < limit:
        best_i, best = -1, (0, "")
        for i, (key, r) in enumerate(remaining):
            if best_i >= 0 and r.score + 3 * together < -best[0]:
                break
            candidate = (-adjusted(r), key)
            if best_i < 0 or candidate < best:
                best_i, best = i, candidate
        take(best_i)
    return chosen
