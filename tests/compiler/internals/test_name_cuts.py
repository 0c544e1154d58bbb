"""Verb names cut to 64 characters keep whole words (issue 24: no ``...permissions.forked_pr_contr``)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from packc.curate.naming import MAX_NAME, _fit, _numbered

_WORD = st.from_regex(r"[a-z]{1,20}", fullmatch=True)
_PART = st.lists(_WORD, min_size=1, max_size=5).map("_".join)


def test_a_long_name_loses_middle_segments_then_last_words() -> None:
    name = "repos.actions.permissions.workflow.forked_pr_contributor_approval_settings_update"
    cut = _fit(name)
    assert len(cut) <= MAX_NAME
    assert cut.startswith("repos.") and "forked_pr_contributor_approval" in cut


def test_a_numbered_name_keeps_whole_words() -> None:
    name = "subscriptions.restorable_dropped_databases.backup_short_term_retention_policies.get"
    out = _numbered(name, 2)
    assert len(out) <= MAX_NAME and out.endswith("_2")
    assert all(w in name for w in re.split(r"[._]", out[:-2]))


@given(st.lists(_PART, min_size=1, max_size=8).map(".".join))
def test_every_cut_is_made_of_the_names_words(name: str) -> None:
    cut = _fit(name)
    assert len(cut) <= MAX_NAME
    words = set(re.split(r"[._]", name))
    if all(len(w) <= MAX_NAME for w in words):
        assert set(re.split(r"[._]", cut)) <= words
