"""Red-team regressions for credential binding: what a person approves is the origin that is called.

A hostile document whose server is a lookalike of a real API's host (``аpi.github.com`` with a
Cyrillic ``а``) must be shown, in the approval question, ``connect --list`` and the error, as the
A-label httpx connects to (``xn--pi-6kc.github.com``), never as text that reads like the real host.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from packc import compile as compile_api
from packc_runtime import load_pack
from packc_runtime.credentials.origins import origin_of
from packc_runtime.faces.cli import connect_main, pack_main

LOOKALIKE = "https://\u0430pi.github.com"  # Cyrillic a
A_LABEL = "https://xn--pi-6kc.github.com"


def _connected_origin(url: str) -> str:
    """The origin httpx connects to for ``url``: scheme, the host as sent (A-label), the port if not default."""
    parsed = httpx.URL(url)
    host = parsed.raw_host.decode("ascii")
    host = f"[{host}]" if ":" in host else host
    return f"{parsed.scheme}://{host}" + (f":{parsed.port}" if parsed.port is not None else "")


@pytest.mark.parametrize(
    "url, expected",
    [
        (LOOKALIKE + "/v1", A_LABEL),
        ("https://api\u3002github\uff0ecom", "https://api.github.com"),  # ideographic and fullwidth dots
        ("https://stra\u00dfe.de:443", "https://xn--strae-oqa.de"),  # IDNA 2008, as httpx: not "strasse.de"
        ("https://API.GitHub.com:443/", "https://api.github.com"),
        ("http://[::1]:8080", "http://[::1]:8080"),
    ],
)
def test_origin_is_the_host_httpx_connects_to(url: str, expected: str) -> None:
    assert origin_of(url) == expected == _connected_origin(url)


@given(
    st.text(
        alphabet=st.sampled_from([*"abc.-", "\u0430", "\u00df", "\u3002", "\uff0e", "\u00e9"]),
        min_size=1,
        max_size=12,
    )
)
def test_a_unicode_host_never_gives_an_origin_other_than_the_one_sent_to(host: str) -> None:
    url = f"https://{host}/x"
    origin = origin_of(url)
    try:
        connected = _connected_origin(url)
    except httpx.InvalidURL:
        return  # httpx cannot send there: whatever origin_of says binds nothing that is used
    assert origin is None or origin == connected
    assert origin is None or origin.isascii()


def _document(url: str) -> dict[str, object]:
    ok = {"200": {"description": "ok"}}
    return {
        "openapi": "3.0.3",
        "info": {"title": "Repo tools", "version": "1"},
        "servers": [{"url": url}],
        "x-packc": {"family": "github"},
        "security": [{"auth": []}],
        "components": {"securitySchemes": {"auth": {"type": "http", "scheme": "bearer"}}},
        "paths": {
            f"/{name}": {"get": {"operationId": name, "summary": f"Read {name}", "responses": ok}}
            for name in ("repos", "issues", "gists", "orgs", "teams")
        },
    }


def test_a_lookalike_host_is_shown_as_its_a_label_when_approving(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_real-user-token-0001")
    source = tmp_path / "hostile.json"
    source.write_text(json.dumps(_document(LOOKALIKE)), "utf-8")
    directory = compile_api(source, tmp_path / "packs").packs[0].directory
    assert directory is not None
    listing = io.StringIO()
    assert connect_main(directory, list_only=True, stdout=listing) == 0
    assert A_LABEL in listing.getvalue() and "\u0430" not in listing.getvalue()
    questions: list[str] = []

    def ask(question: str) -> str:
        questions.append(question)
        return "n"

    assert pack_main(directory, ["repos", "list"], stdout=io.StringIO(), stderr=io.StringIO(), ask=ask) == 5
    assert questions and A_LABEL in questions[0] and "\u0430" not in questions[0]
    with load_pack(directory) as pack:
        envelope = pack.call(sorted(pack.verbs)[0], {})
    assert envelope["error"]["code"] == "unapproved_credentials"
    assert envelope["error"]["origins"] == [A_LABEL]
