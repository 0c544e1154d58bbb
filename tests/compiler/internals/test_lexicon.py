"""The lexicon (``--for`` in a user's own words): phrasal verbs, groups of related nouns, task verbs."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from compiler.helpers import make_api, op
from packc.curate._lexicon import RELATED, VERBS, related, rephrase
from packc.curate._rank import stem, words
from packc.curate._task_words import intents
from packc.curate.plan import plan
from packc.read.overrides import Overrides


def test_phrasal_verbs_read_as_the_verb_they_mean() -> None:
    assert rephrase("kick off my nightly build") == "start my nightly build"
    assert rephrase("sign a troublemaker out of every device") == "logout of every device"
    assert rephrase("Lock out an employee who left") == "disable an employee who left"
    assert rephrase("give them back") == "return"
    assert rephrase("give a customer their money back") == "give a customer their refund"
    assert rephrase("the logbook is out") == "the logbook is out"  # whole words only


def test_groups_are_single_stems_and_relate_both_ways() -> None:
    for group in RELATED:
        for word in group:
            assert words(word) == (word,) and stem(word) == word
            assert group - {word} <= related(word)
            assert word not in related(word)
    assert "secret" in related("password") and "password" in related("secret")
    assert related("no-such-word") == frozenset()


def test_task_verbs_have_an_intent() -> None:
    for kind, verbs in VERBS.items():
        for verb in verbs:
            assert kind in intents(verb)


@given(st.text(max_size=200))
def test_rephrase_is_total_and_deterministic(text: str) -> None:
    once = rephrase(text)
    assert isinstance(once, str) and once == rephrase(text)


def _cluster() -> object:
    return make_api(
        op("get", "/namespaces/{namespace}/pods", summary="List pods"),
        op("post", "/namespaces/{namespace}/pods", summary="Create a pod"),
        op("get", "/namespaces/{namespace}/pods/{name}", summary="Read a pod"),
        op("get", "/namespaces/{namespace}/configmaps", summary="List config maps"),
        op("post", "/namespaces/{namespace}/configmaps", summary="Create a config map"),
        op("get", "/namespaces/{namespace}/secrets", summary="List secrets"),
        op("post", "/namespaces/{namespace}/secrets", summary="Create a secret"),
        op("get", "/namespaces/{namespace}/secrets/{name}", summary="Read a secret"),
        op("get", "/namespaces/{namespace}/services", summary="List services"),
        op("post", "/namespaces/{namespace}/services", summary="Create a service"),
        op("get", "/namespaces/{namespace}/events", summary="List events"),
        op("get", "/nodes", summary="List nodes"),
        op("get", "/namespaces", summary="List namespaces"),
        op("post", "/namespaces", summary="Create a namespace"),
    )


def test_a_task_in_the_users_words_finds_the_documents_word() -> None:
    # The document never says "password": a password kept in the cluster is a secret.
    kept = {
        v.op.key
        for v in plan(
            _cluster(),
            Overrides(),
            goal="keep a database password in the cluster",  # type: ignore[arg-type]
        )
        .packs[0]
        .verbs
    }
    assert "POST /namespaces/{namespace}/secrets" in kept
    assert not kept & {
        "POST /namespaces/{namespace}/pods",
        "POST /namespaces/{namespace}/configmaps",
    }  # not the 12 best
    # A word the document uses is read as itself: no group widens it.
    kept = {
        v.op.key
        for v in plan(
            _cluster(),
            Overrides(),
            goal="create a config map",  # type: ignore[arg-type]
        )
        .packs[0]
        .verbs
    }
    assert "POST /namespaces/{namespace}/configmaps" in kept
