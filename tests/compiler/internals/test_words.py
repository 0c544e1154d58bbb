"""One noun table (packc.words): the names' singulars and the curation's stems agree on every noun."""

from __future__ import annotations

import pytest

from packc.curate._shape import stem
from packc.words import _IE, _IRREGULAR, _SAME, singular

# Issue 22: words said ties → ty, the curation's stem said buses → buse. The stem table's own cases
# (people, statuses, indexes, alias...) keep their answers.
CASES = {
    "ties": "tie",
    "buses": "bus",
    "movies": "movie",
    "people": "person",
    "children": "child",
    "analyses": "analysis",
    "statuses": "status",
    "addresses": "address",
    "aliases": "alias",
    "indices": "index",
    "indexes": "index",
    "businesses": "business",
    "processes": "process",
    "accesses": "access",
    "caches": "cache",
    "alias": "alias",
    "canvas": "canvas",
    "series": "series",
    "news": "news",
}


@pytest.mark.parametrize(("plural", "one"), sorted(CASES.items()))
def test_singular_and_stem_give_the_same_noun(plural: str, one: str) -> None:
    assert singular(plural) == one
    assert stem(plural) == one


def test_every_noun_of_the_table_has_one_answer() -> None:
    nouns = set(_IRREGULAR) | _SAME | {w + "s" for w in _IE}
    assert {n: (singular(n), stem(n)) for n in nouns if singular(n) != stem(n)} == {}
