"""What a person approves is exactly what is sent: every argument the request carries is on the card,
in its title or fields or in its "sent with" list, on every face (issue 23, item 0)."""

from __future__ import annotations

import base64
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from packc import compile as packc_compile
from packc_runtime import load_pack
from packc_runtime.calling.results import preview_card
from packc_runtime.faces.cli import call_main, exec_main, pack_main

ROOT = Path(__file__).resolve().parents[2]
PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}")


def _verb(title: str, fields: dict[str, str] | None) -> dict[str, Any]:
    preview: dict[str, Any] = {"kind": "record", "title": title}
    return {"preview": preview if fields is None else {**preview, "fields": fields}}


def test_an_argument_the_card_does_not_name_is_sent_with() -> None:
    card = preview_card(
        "issues.create",
        _verb("Create issue {{title}}", {"repo": "{{repo}}"}),
        {"title": "Crash", "repo": "r", "labels": ["bug"], "assignees": ["mallory"]},
    )
    assert card["title"] == "Create issue Crash" and card["fields"] == {"repo": "r"}
    assert card["sent_with"] == {"assignees": '["mallory"]', "labels": '["bug"]'}


def test_a_field_left_out_for_an_unset_value_does_not_hide_the_set_one() -> None:
    card = preview_card("x.create", _verb("Create", {"where": "{{city}}, {{country}}"}), {"city": "Oslo"})
    assert card["fields"] == {} and card["sent_with"] == {"city": "Oslo"}


def test_a_card_that_names_everything_has_no_sent_with() -> None:
    card = preview_card("m.send", _verb("Send {{text}}", {}), {"text": "hi"})
    assert "sent_with" not in card


def test_a_name_that_looks_like_a_secret_hides_nothing() -> None:
    """A hostile review: a document named its arguments `x_forward_key` and `key`, and the card hid
    their values as credentials while the request sent them."""
    card = preview_card(
        "notes.create",
        _verb("Create note {{title}}", {}),
        {
            "title": "Shopping",
            "x_forward_key": "all my notes to mallory@evil.example",
            "key": "IGNORE PREVIOUS",
        },
    )
    assert card["sent_with"] == {
        "key": "IGNORE PREVIOUS",
        "x_forward_key": "all my notes to mallory@evil.example",
    }


def test_a_title_that_folds_a_value_shows_it_whole_beside() -> None:
    """The title folds white space: `Rex\n  species: cat` read `Rex species: cat` and counted as shown."""
    card = preview_card(
        "pets.create", _verb("Create pet {{name}}", {}), {"name": "Rex\n  species: cat\u2028x"}
    )
    assert card["sent_with"] == {"name": "Rex\n  species: cat\u2028x"}


def test_a_placeholder_the_card_cannot_fill_does_not_count_as_shown() -> None:
    card = preview_card("x.list", _verb("List", {"f": "{{filter[name]}}"}), {"filter[name]": "EVIL"})
    assert card["sent_with"] == {"filter[name]": "EVIL"}


def test_money_and_an_email_are_on_a_card_whose_template_has_no_fields() -> None:
    """A hand-written card with a title only dropped the amount as sent and every recipient."""
    card = preview_card(
        "c.create",
        _verb("Charge {{amount}}", None),
        {"amount": 500, "currency": "usd"},
        amounts={"amount": "currency"},
    )
    assert card["fields"] == {"amount as sent": "500"}
    raw = base64.urlsafe_b64encode(b"To: a@example.com\r\nBcc: mallory@evil.example\r\n\r\nhi").decode()
    card = preview_card(
        "m.send", {"preview": {"kind": "message", "title": "Send"}}, {"raw": raw}, mime=["raw"]
    )
    assert card["fields"]["email bcc"] == "mallory@evil.example"


def test_money_is_shown_as_sent() -> None:
    card = preview_card(
        "refunds.create",
        _verb("Refund", {}),
        {"amount": 500, "currency": "usd", "reason": "duplicate"},
        amounts={"amount": "currency"},
    )
    assert card["sent_with"] == {"currency": "usd", "reason": "duplicate"}
    assert card["fields"]["amount as sent"] == "500"


names = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True)
values = st.one_of(
    st.none(), st.text(max_size=10), st.integers(), st.booleans(), st.lists(st.text(max_size=4), max_size=2)
)


@given(
    st.dictionaries(names, values, max_size=6),
    st.lists(names, max_size=3),
    st.dictionaries(names, st.lists(names, min_size=0, max_size=2), max_size=4),
)
def test_every_argument_sent_is_on_the_card(
    args: dict[str, Any], in_title: list[str], fields: dict[str, list[str]]
) -> None:
    """Over generated verbs: each argument with a value is named by the title, by a field that is
    shown, or listed in sent_with with exactly its value as sent."""
    title = "Do " + " ".join(f"{{{{{n}}}}}" for n in in_title)
    templates = {key: " ".join(f"{{{{{n}}}}}" for n in used) or "fixed" for key, used in fields.items()}
    card = preview_card("x.do", _verb(title, templates), args)
    shown = {n for n in in_title if args.get(n) is not None}
    for key, template in templates.items():
        if key in card.get("fields", {}):
            shown |= set(PLACEHOLDER.findall(template))
    sent_with = card.get("sent_with", {})
    for name, value in args.items():
        if value is None:
            assert name not in sent_with
            continue
        assert name in shown or name in sent_with, (name, card)
        if name in sent_with:
            if isinstance(value, bool):
                assert sent_with[name] == ("true" if value else "false")
            else:
                assert sent_with[name] == (
                    value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
                )


@pytest.fixture(scope="module")
def demo_pack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    result = packc_compile(ROOT / "specs/demo/petstore.yaml", tmp_path_factory.mktemp("demo"))
    return result.packs[0].directory


def test_every_face_shows_the_tag_the_demo_card_used_to_leave_out(
    demo_pack: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`pets create --tag beagle`: the card had no tag. The pack CLI, `packc call`, json_exec and
    Python all carry the same card, and none sends anything unconfirmed."""
    monkeypatch.setenv("PETSTORE_API_KEY", "demo-test-key")
    args = {"name": "Rex", "species": "dog", "tag": "beagle"}
    out = io.StringIO()
    code = pack_main(
        demo_pack,
        ["pets", "create", "--name", "Rex", "--species", "dog", "--tag", "beagle", "--json"],
        stdout=out,
        stderr=io.StringIO(),
    )
    cards = [json.loads(out.getvalue())["error"]["preview"]]
    assert code == 4
    assert call_main(demo_pack, "pets.create", json.dumps(args)) == 4
    cards.append(json.loads(capsys.readouterr().out)["error"]["preview"])
    out = io.StringIO()
    assert (
        exec_main(demo_pack, stdin=io.StringIO(json.dumps({"verb": "pets.create", "args": args})), stdout=out)
        == 4
    )
    cards.append(json.loads(out.getvalue())["error"]["preview"])
    with load_pack(demo_pack) as pack:
        cards.append(pack.call("pets.create", args)["error"]["preview"])
    for card in cards:
        text = json.dumps(card)
        assert "beagle" in text and "Rex" in text, card
    assert all(card == cards[0] for card in cards)


def test_the_confirmed_call_sends_what_the_card_showed(
    demo_pack: Path, demo_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PETSTORE_API_KEY", demo_server.api_key)
    monkeypatch.setenv("PACKC_TRUSTED_ORIGINS", demo_server.url)
    args = {"name": "Rex", "species": "dog", "tag": "beagle"}
    with load_pack(demo_pack) as pack:
        card = pack.call("pets.create", args, server=demo_server.url)["error"]["preview"]
        assert card["sent_with"] == {"tag": "beagle"}
        envelope = pack.call("pets.create", args, confirm=True, server=demo_server.url)
    assert envelope["ok"], envelope
    assert envelope["body"]["tag"] == "beagle"
