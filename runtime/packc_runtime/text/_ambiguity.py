"""Judge a regex before ``re`` runs it: can backtracking take exponential time? (for ``patterns.risky``).

The pattern becomes a position automaton (Glushkov's construction over ``re``'s own parse: one
state per character item; edges carry how many ways the pattern's structure allows them, capped
at two, so ``(a*)*`` has two ``a -> a`` edges and ``(a|a)``, which ``re`` factors into
``a(|)``, two ways to leave ``a``). Character items are compared as sets: the 128 ASCII
characters, plus one "some non-ASCII character" bit that any two wide items share.

- Loops (:func:`_exponential`): exponential exactly when some state returns to itself along two
  different paths reading the same text (Weber and Seidl's EDA criterion), found in the product
  of each strongly connected part of the automaton with itself.
- Without a loop (:func:`_bubbles`): written-out counts and long sequences multiply the ways a
  text can be read (``^(a|b?){40}$``); the most places along one text where two readings part and
  meet again bounds that (2**k ways for k places).

``X{m,n}`` with ``n`` up to :data:`_MANY` is written out (``(?:[A-Za-z0-9+/]{4})*`` stays exact);
a larger bound is judged as ``X`` once then ``X*``. Whatever is not modelled (back-references,
conditionals, automata past the work caps) raises :class:`Unsure`; lookarounds are judged on
their own. Every cap is a count, never a clock: the same pattern always gets the same answer.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Unsure", "degree"]

_MANY = 64  # a counted repeat up to this bound is written out; above it, it is judged as a loop
_MAX_BUBBLES = 6  # places along one text where two readings part and meet again (the corpus has at most 4)
_MAX_POSITIONS = 20_000  # character items after writing counts out
_MAX_WORK = 400_000  # product edges examined per pattern
# Non-ASCII stand-ins: an item matching any of them (or naming a non-ASCII character) gets the
# "non-ASCII" bit, and two such items are taken to overlap.
_WIDE = "éßЖ中٣\u00a0\u2028𝟙\uffff"


_MASKS: dict[tuple[str, int], int] = {}  # (item, flags) -> mask: documents repeat their character classes


class Unsure(Exception):
    """The analysis cannot judge this pattern: it is risky."""


def _cap(n: int) -> int:
    return 2 if n > 2 else n  # two ways are as bad as many: counts never need to grow further


class _Fragment:
    """What a sub-pattern contributes: ways to match empty, and its first and last positions (with counts)."""

    __slots__ = ("empty", "first", "last")

    def __init__(self, empty: int, first: dict[int, int], last: dict[int, int]) -> None:
        self.empty, self.first, self.last = empty, first, last


def _add(into: dict[int, int], other: dict[int, int], times: int = 1) -> None:
    if times:
        for k, v in other.items():
            into[k] = _cap(into.get(k, 0) + v * times)


class _Automaton:
    """The position automaton of one (sub-)pattern: ``masks[p]`` and ``edges[(p, q)] = count``."""

    def __init__(self, sre: Any, state: Any) -> None:
        self.sre, self.state = sre, state
        self.masks: list[int] = []
        self.edges: dict[tuple[int, int], int] = {}
        self.inside = 0  # the highest degree (see degree()) of a lookaround's contents

    def link(self, last: dict[int, int], first: dict[int, int]) -> None:
        if len(last) * len(first) + len(self.edges) > _MAX_WORK:
            raise Unsure
        for p, a in last.items():
            for q, b in first.items():
                self.edges[(p, q)] = _cap(self.edges.get((p, q), 0) + a * b)

    def concat(self, head: _Fragment, tail: _Fragment) -> _Fragment:
        """``head`` then ``tail``."""
        self.link(head.last, tail.first)
        first = dict(head.first)
        _add(first, tail.first, head.empty)
        last = dict(tail.last)
        _add(last, head.last, tail.empty)
        return _Fragment(_cap(head.empty * tail.empty), first, last)

    def seq(self, items: Any, flags: int) -> _Fragment:
        out = _Fragment(1, {}, {})
        for item in items:
            out = self.concat(out, self.item(item, flags))
        return out

    def loop(self, body: _Fragment, optional: bool) -> _Fragment:
        self.link(body.last, body.first)
        return _Fragment(_cap(body.empty + (1 if optional else 0)), body.first, body.last)

    def item(self, item: Any, flags: int) -> _Fragment:
        sre = self.sre
        op, av = item
        if op in (sre.LITERAL, sre.NOT_LITERAL, sre.ANY, sre.IN):
            if len(self.masks) >= _MAX_POSITIONS:
                raise Unsure
            key = (repr(item), flags)
            mask = _MASKS.get(key)
            if mask is None:
                mask = _MASKS[key] = _mask(self.state, item, flags)
                if len(_MASKS) > 20_000:
                    _MASKS.clear()
            self.masks.append(mask)
            p = len(self.masks) - 1
            return _Fragment(0, {p: 1}, {p: 1})
        if op is sre.AT:
            return _Fragment(1, {}, {})
        if op is sre.SUBPATTERN:
            return self.seq(av[3], (flags | av[1]) & ~av[2])
        if op is getattr(sre, "ATOMIC_GROUP", None):
            return self.seq(av, flags)
        if op is sre.BRANCH:
            out = _Fragment(0, {}, {})
            for alternative in av[1]:
                part = self.seq(alternative, flags)
                out.empty = _cap(out.empty + part.empty)
                _add(out.first, part.first)
                _add(out.last, part.last)
            return out
        if op in (sre.ASSERT, sre.ASSERT_NOT):  # zero-width here; its own loops are judged on their own
            # run at every place the match reaches: one more power of the length
            self.inside = max(self.inside, 1 + degree(self.sre, self.state, av[1], flags))
            return _Fragment(1, {}, {})
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", sre.MAX_REPEAT)):
            return self.repeat(av[0], av[1], av[2], flags)
        raise Unsure  # back-references, conditionals, anything new

    def repeat(self, low: int, high: int, body: Any, flags: int) -> _Fragment:
        if high == 0:
            return _Fragment(1, {}, {})
        if high == 1:
            part = self.seq(body, flags)
            return _Fragment(_cap(part.empty + (1 if low == 0 else 0)), part.first, part.last)
        if high <= _MANY and len(self.masks) + high * _size(self.sre, body) <= _MAX_POSITIONS:
            # X{m,n} = X..X (m times) then (X(X(...)?)?)? (n - m optional copies): one way per length.
            # Written out, the copies of an ambiguous body multiply its ways: _bubbles counts them.
            copies = [self.seq(body, flags) for _ in range(high)]
            out: _Fragment | None = None
            for part in reversed(copies[low:]):
                inner = part if out is None else self.concat(part, out)
                out = _Fragment(_cap(inner.empty + 1), inner.first, inner.last)
            for part in reversed(copies[:low]):
                out = part if out is None else self.concat(part, out)
            assert out is not None
            return out
        # Unbounded (or a large bound): one copy when at least one is needed, then the loop.
        looped = self.loop(self.seq(body, flags), optional=low == 0)
        return looped if low == 0 else self.concat(self.seq(body, flags), looped)


def _size(sre: Any, items: Any) -> int:
    """How many positions ``items`` takes when written out (a loop counts twice, as :meth:`_Automaton.repeat` builds it)."""
    total = 0
    for op, av in items:
        if op in (sre.LITERAL, sre.NOT_LITERAL, sre.ANY, sre.IN):
            total += 1
        elif op is sre.SUBPATTERN:
            total += _size(sre, av[3])
        elif op is sre.BRANCH:
            total += sum(_size(sre, alternative) for alternative in av[1])
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT) or op is getattr(sre, "POSSESSIVE_REPEAT", None):
            total += _size(sre, av[2]) * (av[1] if av[1] <= _MANY else 2)
        elif op is getattr(sre, "ATOMIC_GROUP", None):
            total += _size(sre, av)
    return total


def _mask(state: Any, item: Any, flags: int) -> int:
    """The characters one item matches: bits 0-127 for ASCII, bit 128 for "some non-ASCII character"."""
    import re._compiler as src  # type: ignore[import-not-found]
    import re._parser as sre  # type: ignore[import-not-found]

    one = src.compile(sre.SubPattern(state, [item]), flags)
    mask = sum(1 << i for i in range(128) if one.fullmatch(chr(i)))
    op, av = item
    names_wide = (
        op in (sre.NOT_LITERAL, sre.ANY)
        or (op is sre.LITERAL and av > 127)
        or (
            op is sre.IN
            and any(
                o is sre.NEGATE or (o is sre.LITERAL and a > 127) or (o is sre.RANGE and a[1] > 127)
                for o, a in av
            )
        )
    )
    if names_wide or any(one.fullmatch(c) for c in _WIDE):
        mask |= 1 << 128
    return mask


def _components(nodes: list[Any], succ: dict[Any, list[Any]]) -> list[list[Any]]:
    """Strongly connected components (Tarjan's algorithm, iterative)."""
    index: dict[Any, int] = {}
    low: dict[Any, int] = {}
    on_stack: set[Any] = set()
    stack: list[Any] = []
    out: list[list[Any]] = []
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(succ.get(root, ())))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(succ.get(child, ()))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                out.append(component)
    return out


def _exponential(auto: _Automaton) -> bool:
    """Whether some state returns to itself along two different paths reading the same text (EDA)."""
    succ: dict[int, list[int]] = {}
    for p, q in auto.edges:
        succ.setdefault(p, []).append(q)
    work = 0
    for component in _components(list(range(len(auto.masks))), succ):
        members = set(component)
        inner = {p: [q for q in succ.get(p, ()) if q in members] for p in component}
        if any(auto.edges[(p, q)] > 1 for p in component for q in inner[p]):
            return True  # two parallel edges on a cycle: (a*)*, (a(|))*
        if not any(inner.values()):
            continue  # a single state without a loop
        # Pairs of states reached by reading the same text from a shared state, within this part.
        pairs, work = _pairs([(p, p) for p in component], inner, auto.masks, work)
        if pairs is None:
            return True
        for part in _components(list(pairs), pairs):
            if any(a == b for a, b in part) and any(a != b for a, b in part):
                return True
    return False


def _pairs(
    start: list[tuple[int, int]], succ: dict[int, list[int]], masks: list[int], work: int
) -> tuple[dict[tuple[int, int], list[tuple[int, int]]] | None, int]:
    """The product graph reachable from ``start``: pairs of states reading the same text; None past the work cap."""
    pairs: dict[tuple[int, int], list[tuple[int, int]]] = {}
    todo = list(start)
    seen = set(todo)
    while todo:
        a, b = todo.pop()
        nxt = [(x, y) for x in succ.get(a, ()) for y in succ.get(b, ()) if masks[x] & masks[y]]
        work += len(nxt)
        if work > _MAX_WORK:
            return None, work
        for pair in nxt:
            if pair not in seen:
                seen.add(pair)
                todo.append(pair)
        pairs[(a, b)] = nxt
    return pairs, work


def _ways(auto: _Automaton, first: dict[int, int]) -> tuple[int, int]:
    """Along one text: the most places where two readings part and meet again (each doubles the
    ways), and the most loops two readings can run apart (each multiplies the ways by the length).

    Loops that return to where they parted are :func:`_exponential`'s; this bounds what written-out
    counts and sequences multiply (``^(a|b?){40}$``, ``((a|a){10}){10}``, ``a*a*a*``).
    """
    start = -1  # the automaton's initial state
    succ: dict[int, list[int]] = {start: list(first)}
    for p, q in auto.edges:
        succ.setdefault(p, []).append(q)
    masks = [*auto.masks, -1]  # masks[-1]: the initial state, compatible with itself
    pairs, _ = _pairs([(start, start)], succ, masks, 0)
    if pairs is None:
        raise Unsure

    def weight(a: int, b: int, x: int, y: int) -> int:
        if x != y:
            return 0
        if a != b:
            return 1  # two readings meet again
        return 1 if (first.get(x, 0) if a == start else auto.edges[(a, x)]) > 1 else 0  # parallel edges

    bubbles: dict[tuple[int, int], int] = {}
    loops: dict[tuple[int, int], int] = {}
    for part in _components(list(pairs), pairs):  # sinks first: successors are done before
        members = set(part)
        apart = all(a != b for a, b in part) and (len(part) > 1 or part[0] in pairs[part[0]])
        most_bubbles = most_loops = 0
        for a, b in part:
            for x, y in pairs[(a, b)]:
                if (x, y) not in members:
                    most_bubbles = max(most_bubbles, bubbles[(x, y)] + weight(a, b, x, y))
                    most_loops = max(most_loops, loops[(x, y)])
        for node in part:
            bubbles[node] = most_bubbles
            loops[node] = most_loops + (1 if apart else 0)
    return bubbles.get((start, start), 0), loops.get((start, start), 0)


def degree(sre: Any, state: Any, items: Any, flags: int) -> int:
    """How ``re``'s work on ``items`` (a parsed pattern or part of one) grows with the text's length
    ``n``: about ``n ** (1 + degree)`` tries at one start.

    Raises:
        Unsure: the work can grow exponentially, or the pattern is beyond what is modelled.
    """
    auto = _Automaton(sre, state)
    first = auto.seq(items, flags).first
    if _exponential(auto):
        raise Unsure
    bubbles, loops = _ways(auto, first)
    if bubbles >= _MAX_BUBBLES:
        raise Unsure
    return max(loops, auto.inside)
