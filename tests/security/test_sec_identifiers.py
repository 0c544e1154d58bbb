"""Issue 10 item 1: the identifier grammar, sanitize_id and safe_child, over arbitrary input (hypothesis)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from packc_runtime.format.identifiers import (
    CliBin,
    Family,
    InvalidIdentifier,
    PackId,
    UnsafePath,
    VerbName,
    safe_child,
    sanitize_id,
)

NAME = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
VERB = re.compile(r"[a-z0-9][a-z0-9_]*(\.[a-z0-9][a-z0-9_]*)*")
ID_CHARS = st.text(st.sampled_from(list("abz09-_.A/\\ \n\"'`<>#$;:~")), max_size=70)
ANY = st.one_of(ID_CHARS, st.text(max_size=80))


@given(ANY)
@settings(max_examples=500)
def test_an_identifier_is_accepted_exactly_when_it_is_in_the_grammar(text: str) -> None:
    for kind, grammar in ((PackId, NAME), (CliBin, NAME), (Family, NAME), (VerbName, VERB)):
        valid = bool(grammar.fullmatch(text)) and len(text) <= 64
        assert kind.is_valid(text) is valid
        if valid:
            assert kind(text) == text and isinstance(kind(text), str)
        else:
            with pytest.raises(InvalidIdentifier):
                kind(text)


@given(ANY)
@settings(max_examples=500)
def test_sanitize_id_always_gives_a_valid_id_and_keeps_a_valid_one(text: str) -> None:
    out = sanitize_id(text)
    assert PackId.is_valid(out)
    if PackId.is_valid(text):
        assert out == text


@pytest.mark.parametrize(
    "hostile",
    [
        'x"""\nimport os',
        "../../../victim.txt",
        "/etc",
        "a b",
        "",
        "Zoo",
        "-x",
        "x-",
        "a--b",
        "x" * 65,
        "zoo\n# h",
        "zoo.pack",
        "zoo_pack",
        "1zoo",
        "zoo\x7f",
    ],
)
def test_the_issue_s_identifiers_are_refused(hostile: str) -> None:
    for kind in (PackId, CliBin, Family):
        assert not kind.is_valid(hostile)


@pytest.mark.parametrize(
    "verb", ["pets.list", "issues.comments.create_2", "v2.get", "a", "n1password.items.get"]
)
def test_real_verb_names_are_valid(verb: str) -> None:
    assert VerbName.is_valid(verb)


@pytest.mark.parametrize(
    "verb", ["Pets.list", "pets..list", ".pets", "pets.", "pet-s.list", "_x", "a b", "x" * 65]
)
def test_other_verb_names_are_not(verb: str) -> None:
    assert not VerbName.is_valid(verb)


@pytest.fixture()
def root(tmp_path: Path) -> Path:
    base = tmp_path / "root"
    (base / "inside").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (base / "out_link").symlink_to(tmp_path / "outside")
    (base / "in_link").symlink_to(base / "inside")
    return base


@given(
    name=st.one_of(
        st.text(st.sampled_from(list("ab./\\-_\x00")), max_size=12),
        st.lists(st.sampled_from(["..", ".", "out_link", "in_link", "inside", "a", "", "/"]), max_size=5).map(
            "/".join
        ),
    )
)
@settings(max_examples=400, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_safe_child_is_inside_the_root_or_refused(root: Path, name: str) -> None:
    try:
        path = safe_child(root, name)
    except UnsafePath:
        return
    real_root = root.resolve()
    assert path.is_relative_to(real_root) and path != real_root
    assert path.resolve() == path  # every link already followed


def test_safe_child_refuses_each_way_out(root: Path) -> None:
    for name in (
        "../x",
        "/etc/passwd",
        "out_link/x",
        "out_link",
        "a/../../x",
        "",
        "a\\..\\x",
        "C:/x",
        "a\x00b",
        ".",
    ):
        with pytest.raises(UnsafePath):
            safe_child(root, name)
    assert safe_child(root, "in_link/x") == root.resolve() / "inside" / "x"
    assert safe_child(root, "bin/zoo") == root.resolve() / "bin" / "zoo"
