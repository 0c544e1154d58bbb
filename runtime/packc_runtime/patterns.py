"""Regular expressions from API documents, run on untrusted text without hanging.

A ``pattern`` comes from whoever wrote the document, and Python's ``re`` backtracks: a nested
quantifier such as ``([\\w .-]*)*`` takes exponential time on a string that almost matches (beezup's
URL pattern held one compile for over 20 minutes on one example). ``re`` has no time limit, so a
pattern is judged before it is run: :func:`risky` finds a group repeated without bound that
contains a variable-length repeat, the shape behind catastrophic backtracking, unless every
repetition starts or ends with a character the variable part cannot match (``(/[\\w.-]+)*``,
``([a-z0-9-]+\\.)+``: one way to split the text only). Overlapping alternatives (``(a|aa)*``)
are not found. Such a pattern is
never run: the compiler leaves it out of the args schema (warning C157) and the runtime and lint
skip it (:data:`SafeValidator`, :func:`search`). A pattern ``re`` cannot compile is treated the same.
This errs toward skipping a check the API's server makes anyway.
"""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Iterator
from typing import Any

__all__ = ["risky", "safe_validator", "search"]

_ASCII = [chr(i) for i in range(128)]
_MANY = 10  # an upper bound above this counts as "without bound" (a{1,1000} backtracks like a+)


@functools.lru_cache(maxsize=4096)
def risky(pattern: str) -> bool:
    """True when ``pattern`` may take exponential time on some input, or does not compile."""
    try:
        import re._parser as sre  # type: ignore[import-not-found]

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "possible nested set": still a pattern
            parsed = sre.parse(pattern)
    except Exception:  # re.error, RecursionError, OverflowError: not a pattern re can run
        return True
    repeats = {sre.MAX_REPEAT, sre.MIN_REPEAT, getattr(sre, "POSSESSIVE_REPEAT", sre.MAX_REPEAT)}

    def children(op: Any, av: Any) -> Iterator[Any]:
        if op in repeats:
            yield av[2]
        elif op is sre.SUBPATTERN:
            yield av[3]
        elif op is sre.BRANCH:
            yield from av[1]
        elif op in (sre.ASSERT, sre.ASSERT_NOT):
            yield av[1]
        elif op is sre.GROUPREF_EXISTS:
            yield from (p for p in av[1:] if p is not None)
        elif op is getattr(sre, "ATOMIC_GROUP", None):
            yield av

    def varies(items: Any) -> bool:  # contains a repeat whose count is not fixed
        return any((op in repeats and av[0] != av[1]) or any(varies(c) for c in children(op, av))
                   for op, av in items)

    def chars(item: Any) -> set[str] | None:
        """The ASCII characters one LITERAL/IN/ANY item matches; None for anything else."""
        if item[0] not in (sre.LITERAL, sre.IN, sre.ANY):
            return None
        try:
            import re._compiler as src  # type: ignore[import-not-found]

            one = src.compile(sre.SubPattern(parsed.state, [item]), parsed.state.flags)
        except Exception:
            return None
        return {c for c in _ASCII if one.fullmatch(c)}

    def inner_chars(items: Any) -> set[str] | None:
        """What the variable repeats inside ``items`` can match; None when that is not simple to tell."""
        out: set[str] = set()
        for op, av in items:
            if op in repeats and av[0] != av[1]:
                sub = list(av[2])
                if len(sub) == 1 and (found := chars(sub[0])) is not None:
                    out |= found
                    continue
                return None
            for child in children(op, av):
                found = inner_chars(child)
                if found is None:
                    return None
                out |= found
        return out

    def delimited(sub: Any) -> bool:
        """Every repetition starts or ends with a character its variable parts cannot match (``(/[a-z]+)*``)."""
        items = list(sub)
        if len(items) == 1 and items[0][0] is sre.SUBPATTERN:
            items = list(items[0][1][3])
        inner = inner_chars(items)
        if inner is None or not items:
            return False
        ends = [chars(items[0]), chars(items[-1])]
        return any(end is not None and end and not (end & inner) for end in ends)

    def nested(items: Any) -> bool:
        for op, av in items:
            if op in repeats and (av[1] == sre.MAXREPEAT or av[1] > _MANY) and varies(av[2]) \
                    and not delimited(av[2]):
                return True
            if any(nested(c) for c in children(op, av)):
                return True
        return False

    try:
        return nested(parsed)
    except RecursionError:
        return True


def search(pattern: str, text: str) -> bool | None:
    """``re.search(pattern, text)`` as a bool; None when the pattern is risky and was not run."""
    if risky(pattern):
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return re.search(pattern, text) is not None


def _pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if isinstance(instance, str) and isinstance(pattern, str) and search(pattern, instance) is False:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


@functools.lru_cache(maxsize=8)
def safe_validator(cls: Any) -> Any:
    """``cls`` (a jsonschema validator class) whose ``pattern`` keyword skips risky patterns."""
    from jsonschema import validators

    return validators.extend(cls, {"pattern": _pattern})  # type: ignore[no-untyped-call]
