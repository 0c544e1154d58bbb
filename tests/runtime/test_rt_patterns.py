"""Document regexes on untrusted text: a pattern that can backtrack for ever is never run."""

from __future__ import annotations

import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packc_runtime.calling.args import validate_args
from packc_runtime.errors import InvalidArgument
from packc_runtime.text.patterns import risky, safe_validator, search

# beezup.com's URL pattern: one `re.search` on the string below runs for minutes.
BEEZUP = r"^(https?:\/\/)?([\da-z\.-]+)\.([a-z\.]{2,6})([\/\w \.-]*)*\/?$"
EVIL = "http://" + "a" * 30 + ".com/" + "x" * 40 + "!"


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (BEEZUP, True),
        (r"(a+)+$", True),
        (r"(.*[\n\r\t\f\ ]?)*", True),
        (r"([a-z.]+\.)+", True),
        (r"^\p{L}+$", True),  # re cannot compile it: never run either
        (r"^[a-z]+$", False),
        (r"(\d{1,3}\.){3}\d{1,3}", False),
        (r"(\d{3}-)+", False),
        (r"^(.+)@(.+)$", False),
        (r"arn:[\w+=/,.@-]+:[\w+=,.@-]+(/[\w+=,.@-]+)*", False),  # every repetition starts with "/"
        (r"^(\*[\w\d-]*\.)?([\w\d-]+\.)+[\w\d-]+$", False),  # every repetition ends with "."
        (r"^([A-Za-z]_?)+$", False),
        (r"[[a]", False),
    ],
)
def test_risky_finds_nested_unbounded_repeats(pattern: str, expected: bool) -> None:
    assert risky(pattern) is expected


SAFE = [
    r"^[a-z]+$",
    r"(\d{1,3}\.){3}\d{1,3}",
    r"^(\*[\w\d-]*\.)?([\w\d-]+\.)+[\w\d-]+$",
    r"^[A-Z]{3}$",
    r"arn:[\w+=/,.@-]+:[\w+=,.@-]+(/[\w+=,.@-]+)*",
]


@settings(max_examples=200)
@given(pattern=st.sampled_from(SAFE), text=st.text(string.printable, max_size=40))
def test_search_agrees_with_re_on_patterns_it_runs(pattern: str, text: str) -> None:
    assert search(pattern, text) is (re.search(pattern, text) is not None)


@settings(max_examples=100)
@given(text=st.text(string.ascii_letters + "./:-_ !", max_size=80))
def test_a_risky_pattern_is_never_run_on_any_text(text: str) -> None:
    assert search(BEEZUP, text) is None


def test_validation_skips_a_risky_pattern_and_keeps_the_rest() -> None:
    schema = {
        "type": "object",
        "properties": {
            "url": {"type": "string", "pattern": BEEZUP, "maxLength": 200},
            "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
        },
    }
    assert validate_args("v", schema, {"url": EVIL, "code": "EUR"}) == {"url": EVIL, "code": "EUR"}
    with pytest.raises(InvalidArgument):
        validate_args("v", schema, {"url": EVIL, "code": "euro"})
    with pytest.raises(InvalidArgument):  # the other keywords of the same argument still apply
        validate_args("v", schema, {"url": "x" * 201})
    # jsonschema's own pattern keyword, as the runtime and lint use it for schemas beyond the subset
    from jsonschema import Draft202012Validator

    validator = safe_validator(Draft202012Validator)({"allOf": [{"pattern": BEEZUP}], "pattern": "^h"})
    assert validator.is_valid(EVIL)
    assert not validator.is_valid("x" + EVIL)
