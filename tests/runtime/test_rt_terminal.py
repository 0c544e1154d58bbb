"""Terminal output: no document or server text can drive the terminal (issue 10, item 10).

Properties of the one escaping layer (``packc_runtime.text.terminal``), then a hostile document and a
hostile server through every command of both CLIs: compile, plan, lint, commands, connect (the
listing and the prompt), the pack's help, results and errors.
"""

from __future__ import annotations

import io
import json
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from packc.cli import main as packc_main
from packc_runtime.faces.cli import connect_main, pack_main
from packc_runtime.text.escaping import invisible
from packc_runtime.text.terminal import for_terminal, terminal_text
from servers.runner import serve

OSC52 = "\x1b]52;c;cm0gLXJmIH4=\x07"  # writes "rm -rf ~" to the clipboard
CLEAR = "\x1b[2J"
BIDI = "\u202egnp.exe"
C1_CSI = "\x9b2J"
HOSTILE = [OSC52, CLEAR, BIDI, C1_CSI, "\r", "\U000e0041"]
BIDI_AND_INVISIBLE = set(
    "\u061c\u200b\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"
)


def _safe(text: str) -> bool:
    """No control character but TAB, LF and CR-before-LF; no bidi control, invisible, surrogate or tag."""
    for i, ch in enumerate(text):
        category = unicodedata.category(ch)
        if ch == "\r" and text[i + 1 : i + 2] == "\n":
            continue
        if (
            (category == "Cc" and ch not in "\t\n")
            or category == "Cs"
            or ch in BIDI_AND_INVISIBLE
            or 0xE0000 <= ord(ch) <= 0xE007F
            or (ch != "\r" and invisible(ch))  # the one definition: variation selectors, fillers, ...
        ):
            return False
    return True


@given(st.text())
def test_terminal_text_never_holds_a_control_character(text: str) -> None:
    cleaned = terminal_text(text)
    assert _safe(cleaned)
    assert terminal_text(cleaned) == cleaned  # idempotent: wrapping a wrapped stream changes nothing


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
        max_leaves=12,
    )
)
def test_json_stays_valid_and_equal(value: Any) -> None:
    for text in (json.dumps(value, ensure_ascii=False), json.dumps(value, ensure_ascii=False, indent=2)):
        cleaned = terminal_text(text)
        assert _safe(cleaned) and json.loads(cleaned) == value


@given(st.lists(st.text(), max_size=5))
def test_a_wrapped_stream_receives_only_safe_text(pieces: list[str]) -> None:
    raw = io.StringIO()
    stream = for_terminal(for_terminal(raw))
    for piece in pieces:
        assert stream.write(piece) == len(piece)
    assert _safe(raw.getvalue())


def test_what_the_escapes_look_like() -> None:
    assert terminal_text(f"a{CLEAR}b") == "a\\u001b[2Jb"
    assert terminal_text("line\r\nnext\rover") == "line\r\nnext\\u000dover"
    assert terminal_text("\u202eabc\U000e0041") == "\\u202eabc\\udb40\\udc41"
    assert terminal_text("tab\tnew\nline, café, ½ 日本") == "tab\tnew\nline, café, ½ 日本"
    # Issue 23: what escaping.invisible counts is escaped too (one definition), joiners and
    # variation selectors included: a run of them spells bytes a person does not see.
    assert terminal_text("Rex\ufe01\U000e0101\u00ad\u3164👨\u200d👧") == (
        "Rex\\ufe01\\udb40\\udd01\\u00ad\\u3164👨\\u200d👧"
    )


@given(st.text())
def test_terminal_text_leaves_nothing_unseen(text: str) -> None:
    assert not invisible(terminal_text(text))


def _hostile_document(url: str) -> dict[str, Any]:
    text = " ".join(HOSTILE)
    ok = {"200": {"description": f"ok {text}", "content": {"text/plain": {"schema": {"type": "string"}}}}}
    param = {"name": "q", "in": "query", "description": text, "schema": {"type": "string", "example": text}}
    return {
        "openapi": "3.0.3",
        "info": {"title": f"Evil{CLEAR}", "version": "1", "description": text},
        "servers": [{"url": url}],
        "security": [{f"key{OSC52}": []}],
        "components": {
            "securitySchemes": {
                f"key{OSC52}": {"type": "apiKey", "in": "query", "name": f"k{CLEAR}", "description": text}
            }
        },
        "paths": {
            f"/{name}": {
                "get": {
                    "operationId": f"{name}{CLEAR}",
                    "summary": f"Read {name} {text}",
                    "description": text,
                    "parameters": [param],
                    "responses": ok,
                }
            }
            for name in ("alpha", "beta", "gamma", "delta", "epsilon")
        },
    }


async def _hostile_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Answers every request with text full of escapes: 200 on /api/alpha, else 400."""
    body = ("\n".join(HOSTILE) + "\n").encode()
    status = 200 if scope["path"].endswith("/alpha") else 400
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"text/plain; charset=utf-8")],
        }
    )
    await send({"type": "http.response.body", "body": body})


@pytest.fixture()
def hostile_server() -> Iterator[str]:
    with serve(_hostile_app) as url:
        yield url


@pytest.mark.e2e
def test_no_escape_reaches_the_terminal_from_any_command(
    tmp_path: Path, hostile_server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "evil.json"
    source.write_text(json.dumps(_hostile_document(hostile_server + "/api")))
    printed: list[str] = []

    def run(*argv: str) -> int:
        code = packc_main(list(argv))
        captured = capsys.readouterr()
        printed.extend([captured.out, captured.err])
        return code

    assert run("compile", str(source), "-o", str(tmp_path / "packs")) == 0
    pack = next((tmp_path / "packs").iterdir())
    run("compile", str(source), "-o", str(tmp_path / "again"), "--json")
    run("plan", str(source))
    run("lint", str(pack))
    run("commands", str(pack))
    run("commands", str(pack), "--json")
    run("connect", str(pack), "--list")
    run("connect", str(pack), "--list", "--json")
    asked: list[str] = []
    out = io.StringIO()
    connect_main(pack, stdout=out, prompt=lambda text: asked.append(text) or "")  # type: ignore[func-returns-value]
    printed.extend([out.getvalue(), *asked])
    verbs = json.loads((pack / "surface.json").read_text())["verbs"]
    for words in (["--help"], [*sorted(verbs)[0].split("."), "--help"], ["nothing", CLEAR]):
        out, err = io.StringIO(), io.StringIO()
        pack_main(pack, words, stdout=out, stderr=err)
        printed.extend([out.getvalue(), err.getvalue()])
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("EVIL_2J_API_KEY", "key-1")
        patch.setenv("PACKC_TRUSTED_ORIGINS", hostile_server)
        for verb in sorted(verbs):  # one 200 text body, the others 400 with the text in the error
            for flags in ([], ["--json"]):
                out, err = io.StringIO(), io.StringIO()
                pack_main(pack, [*verb.split("."), "--q", CLEAR, *flags], stdout=out, stderr=err)
                printed.extend([out.getvalue(), err.getvalue()])
    assert any("\\u001b]52" in text for text in printed)  # the document's text is there, visibly escaped
    assert any("\\u001b[2J\n\\u202egnp" in text for text in printed)  # the server's 200 text body
    assert any('"request_rejected"' in text and "\\u009b2J" in text for text in printed)  # its 400 body
    for text in printed:
        assert _safe(text), repr(text[:300])
