"""Regular expressions from API documents, run on untrusted text without hanging.

A ``pattern`` comes from whoever wrote the document, and Python's ``re`` backtracks: on a string
that almost matches it tries every way the pattern can read it, which for an ambiguous pattern is
exponentially many (beezup's ``([\\w .-]*)*`` held one compile for over 20 minutes; ``^(a|aa)*$``
and ``^(a|a)*$``, overlapping alternatives, hung argument validation). ``re`` has no time limit,
so :func:`risky` judges a pattern before it is run (the analysis is ``_ambiguity.py``); anything
it cannot judge (back-references, conditionals, very large patterns, text ``re`` cannot compile)
is risky: when in doubt a check is skipped, and the API's server makes it anyway.

A risky pattern is never run: the compiler leaves it out of the args schema (warning C157), and
the runtime, lint and the compiler's example checks skip it: :func:`search`, and
:func:`safe_validator`, whose ``pattern``, ``patternProperties`` and ``additionalProperties``
keywords all go through :func:`search`. :func:`validator` is that validator with a registry that
refuses every remote ``$ref``: validating arguments never touches the network. It also closes the
two ways jsonschema runs ``re`` itself: ``unevaluatedProperties`` (which matches every
``patternProperties`` key it meets) is skipped when one of them cannot be run safely on the
object's keys, and a ``$schema`` below the root (which would validate that subschema with the
dialect's stock, unguarded class) is dropped.
"""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Iterator
from typing import Any

from packc_runtime.text._ambiguity import degree

__all__ = ["linear", "risky", "safe_validator", "search", "validator"]

MAX_PATTERN = 20_000  # characters; a longer pattern is not examined (risky)
MAX_DEGREE = 6  # more than n ** 6 ways per start is risky (beyond a few characters MAX_TRIES skips it anyway)
MAX_TRIES = 2 * 10**6  # a pattern runs only on texts where its work (see _power) stays below this


@functools.lru_cache(maxsize=4096)
def _power(pattern: str) -> int | None:
    """How ``re.search`` work grows with the text's length: about ``n ** power`` (None: risky).

    One start costs ``n ** (1 + degree)`` (``_ambiguity.degree``); a pattern not anchored at the
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
            anchored = (
                bool(items)
                and items[0] in ((sre.AT, sre.AT_BEGINNING), (sre.AT, sre.AT_BEGINNING_STRING))
                and not parsed.state.flags & sre.SRE_FLAG_MULTILINE
            )
    except Exception:  # re.error, Unsure, RecursionError, OverflowError: not judged safe
        return None
    return None if found > MAX_DEGREE else found + (1 if anchored else 2)


def risky(pattern: str) -> bool:
    """True when ``pattern`` may take exponential (or high polynomial) time, or cannot be judged or compiled."""
    return _power(pattern) is None


def linear(pattern: str) -> bool:
    """True when ``re.search(pattern, text)`` works in time linear in the text, whatever its length:
    anchored at the start and read one way only. Such a pattern may be handed to a validator packc
    does not guard (an MCP host's, checking a tool's ``outputSchema``)."""
    return _power(pattern) == 1


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
    extras = [
        k for k in instance if k not in properties and not any(search(p, k) is not False for p in patterns)
    ]
    if validator.is_type(additional, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], additional, path=extra)
    elif not additional and extras:
        listed = ", ".join(repr(k) for k in sorted(extras)[:10])
        yield ValidationError(
            f"Additional properties are not allowed ({listed} {'was' if len(extras) == 1 else 'were'}"
            " unexpected)"
        )


@functools.lru_cache(maxsize=8)
def safe_validator(cls: Any) -> Any:
    """``cls`` (a jsonschema validator class) whose document regexes skip risky patterns."""
    from jsonschema import validators

    return validators.extend(
        cls,
        {  # type: ignore[no-untyped-call]
            "pattern": _pattern,
            "patternProperties": _pattern_properties,
            "additionalProperties": _additional_properties,
        },
    )


def _refuse(uri: str) -> Any:
    from referencing.exceptions import NoSuchResource

    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]  # never fetch anything while validating


@functools.cache
def _offline() -> Any:
    from referencing import Registry

    return Registry(retrieve=_refuse)  # type: ignore[call-arg]


def _survey(schema: Any) -> tuple[frozenset[str], bool, bool]:
    """Every ``patternProperties`` key anywhere in ``schema``, whether it uses ``unevaluatedProperties``,
    and whether anything under the root names a ``$schema``.

    Every object is looked at, values (``const``, ``enum``) and name maps (``properties``) too: a
    ``$ref`` may point anywhere and use what it finds as a schema. Finding too much only makes
    the checks more careful.
    """
    keys: set[str] = set()
    unevaluated = dialects = False
    stack: list[tuple[Any, bool]] = [(schema, True)]
    while stack:
        node, root = stack.pop()
        if isinstance(node, dict):
            unevaluated = unevaluated or "unevaluatedProperties" in node
            dialects = dialects or (not root and isinstance(node.get("$schema"), str))
            found = node.get("patternProperties")
            if isinstance(found, dict):
                keys.update(k for k in found if isinstance(k, str))
            stack.extend((value, False) for value in node.values())
        elif isinstance(node, list):
            stack.extend((item, False) for item in node)
    return frozenset(keys), unevaluated, dialects


def _one_dialect(node: Any, root: bool = True) -> Any:
    """``node`` without any ``$schema`` under its root.

    jsonschema validates a subschema that names its own ``$schema`` with that dialect's stock
    validator class, whose ``pattern`` and ``patternProperties`` run ``re`` unguarded: a
    ``{"$schema": "...draft-07...", "pattern": "^(a|a)*$"}`` nested in a pack's args schema
    escaped every check of this module. Everything is validated in the root's dialect.
    """
    if isinstance(node, list):
        return [_one_dialect(item, False) for item in node]
    if not isinstance(node, dict):
        return node
    return {
        key: _one_dialect(value, False)
        for key, value in node.items()
        if root or key != "$schema" or not isinstance(value, str)
    }


@functools.lru_cache(maxsize=64)
def _guarded_unevaluated(cls: Any, keys: frozenset[str]) -> Any:
    """``cls`` whose ``unevaluatedProperties`` is skipped when a ``patternProperties`` key of the
    schema could not be run safely on a key of the object.

    jsonschema decides which keys are evaluated with a plain ``re.search`` over every
    ``patternProperties`` key it meets (through ``$ref``, ``allOf``...): a risky pattern there
    hung argument validation (``^(a|a)*$`` against 27 characters: 12 s, doubling per character).
    Any ``patternProperties`` key of the schema may be met, so all of them are judged first.
    """
    from jsonschema import validators

    original = cls.VALIDATORS["unevaluatedProperties"]

    def unevaluated(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        if validator.is_type(instance, "object") and any(
            search(pattern, key) is None for pattern in keys for key in instance
        ):
            return  # not run: when in doubt a check is skipped, and the API's server makes it anyway
        yield from original(validator, value, instance, schema)

    return validators.extend(cls, {"unevaluatedProperties": unevaluated})  # type: ignore[no-untyped-call]


def validator(cls: Any, schema: Any) -> Any:
    """A :func:`safe_validator` of ``cls`` for ``schema`` that never fetches a remote ``$ref``."""
    chosen = safe_validator(cls)
    keys, unevaluated, dialects = _survey(schema)
    if dialects:
        schema = _one_dialect(schema)
    if keys and unevaluated and "unevaluatedProperties" in chosen.VALIDATORS:
        chosen = _guarded_unevaluated(chosen, keys)
    return chosen(schema, registry=_offline())
