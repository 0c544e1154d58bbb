"""Regular expressions from API documents, run on untrusted text without hanging.

A ``pattern`` comes from whoever wrote the document, and Python's ``re`` backtracks: on a string
that almost matches it tries every way the pattern can read it, which for an ambiguous pattern is
exponentially many (beezup's ``([\\w .-]*)*`` held one compile for over 20 minutes; ``^(a|aa)*$``
and ``^(a|a)*$``, overlapping alternatives, hung argument validation). ``re`` has no time limit,
so :func:`risky` judges a pattern before it is run (the analysis is ``ambiguity.py``); anything
it cannot judge (back-references, conditionals, very large patterns, text ``re`` cannot compile)
is risky: when in doubt a check is skipped, and the API's server makes it anyway.

A risky pattern is never run: the compiler leaves it out of the args schema (warning C157), and
the runtime, lint and the compiler's example checks skip it: :func:`search`, and
:func:`safe_validator`, whose ``pattern``, ``patternProperties`` and ``additionalProperties``
keywords all go through :func:`search`. :func:`validator` is that validator with a registry that
refuses every remote ``$ref``: validating arguments never touches the network.
"""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Iterator
from typing import Any

from .ambiguity import degree

__all__ = ["risky", "safe_validator", "search", "validator"]

MAX_PATTERN = 20_000  # characters; a longer pattern is not examined (risky)
MAX_DEGREE = 6  # more than n ** 6 ways per start is risky (beyond a few characters MAX_TRIES skips it anyway)
MAX_TRIES = 2 * 10 ** 6  # a pattern runs only on texts where its work (see _power) stays below this


@functools.lru_cache(maxsize=4096)
def _power(pattern: str) -> int | None:
    """How ``re.search`` work grows with the text's length: about ``n ** power`` (None: risky).

    One start costs ``n ** (1 + degree)`` (``ambiguity.degree``); a pattern not anchored at the
    start of the text is tried from every position, one more power.
    """
    if len(pattern) > MAX_PATTERN:
        return None
    try:
        import re._parser as sre  # type: ignore[import-not-found]

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "possible nested set": still a pattern
            parsed = sre.parse(pattern)
            found = degree(sre, parsed.state, list(parsed), parsed.state.flags)
            items = list(parsed)
            anchored = bool(items) and items[0] in ((sre.AT, sre.AT_BEGINNING), (sre.AT, sre.AT_BEGINNING_STRING)) \
                and not parsed.state.flags & sre.SRE_FLAG_MULTILINE
    except Exception:  # re.error, Unsure, RecursionError, OverflowError: not judged safe
        return None
    return None if found > MAX_DEGREE else found + (1 if anchored else 2)


def risky(pattern: str) -> bool:
    """True when ``pattern`` may take exponential (or high polynomial) time, or cannot be judged or compiled."""
    return _power(pattern) is None


def search(pattern: str, text: str) -> bool | None:
    """``re.search(pattern, text)`` as a bool; None when it was not run.

    Not run: a risky pattern, and any other on a text so long that its work would pass
    :data:`MAX_TRIES` (``[a-z]+$`` is tried from every position: checked up to 1,413 characters;
    ``^[a-z]+$`` up to two million).
    """
    power = _power(pattern)
    if power is None or (len(text) + 1) ** power > MAX_TRIES:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return re.search(pattern, text) is not None


def _pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if isinstance(instance, str) and isinstance(pattern, str) and search(pattern, instance) is False:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if search(pattern, key):  # None (risky): the key is not checked against it
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(validator: Any, additional: Any, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    properties = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    # A key a risky pattern might match counts as matched: the check is skipped, not failed.
    extras = [k for k in instance if k not in properties and not any(search(p, k) is not False for p in patterns)]
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        listed = ", ".join(repr(k) for k in sorted(extras)[:10])
        yield ValidationError(f"Additional properties are not allowed ({listed} {'was' if len(extras) == 1 else 'were'}"
                              " unexpected)")


@functools.lru_cache(maxsize=8)
def safe_validator(cls: Any) -> Any:
    """``cls`` (a jsonschema validator class) whose document regexes skip risky patterns."""
    from jsonschema import validators

    return validators.extend(cls, {  # type: ignore[no-untyped-call]
        "pattern": _pattern, "patternProperties": _pattern_properties, "additionalProperties": _additional_properties})


def _refuse(uri: str) -> Any:
    from referencing.exceptions import NoSuchResource

    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]  # never fetch anything while validating


@functools.cache
def _offline() -> Any:
    from referencing import Registry

    return Registry(retrieve=_refuse)  # type: ignore[call-arg]


def validator(cls: Any, schema: Any) -> Any:
    """A :func:`safe_validator` of ``cls`` for ``schema`` that never fetches a remote ``$ref``."""
    return safe_validator(cls)(schema, registry=_offline())
