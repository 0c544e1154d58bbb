"""The load stage: JSON and YAML parsing and its guards."""

from __future__ import annotations

import gzip
import http.server
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from packc.errors import InputError
from packc.read._fetch import fetch
from packc.read._limits import MAX_DEPTH
from packc.read._load import parse_document


def _codes(exc: InputError) -> list[str]:
    return [d.code for d in exc.diagnostics]


def test_json_and_yaml_give_the_same_values() -> None:
    doc = {
        "openapi": "3.0.3",
        "info": {"title": "T", "version": "1"},
        "paths": {"/a": {}},
        "n": [1, 2.5, None, True],
    }
    as_json = parse_document(json.dumps(doc).encode(), "a.json")
    as_yaml = parse_document(
        b"openapi: 3.0.3\ninfo: {title: T, version: '1'}\npaths: {/a: {}}\nn: [1, 2.5, null, true]\n",
        "a.yaml",
    )
    assert as_json.data == doc
    assert as_yaml.data == doc
    assert as_json.diagnostics == as_yaml.diagnostics == ()


def test_yaml_bomb_fails_fast(specs: Path) -> None:
    with pytest.raises(InputError) as info:
        parse_document((specs / "bomb.yaml").read_bytes(), "bomb.yaml")
    assert _codes(info.value) == ["D005"]


def test_real_aliases_are_shared_not_copied() -> None:
    loaded = parse_document(b"a: &x {k: [1, 2]}\nb: *x\nc: *x\n", "a.yaml")
    assert loaded.data["a"] == {"k": [1, 2]}
    assert loaded.data["b"] is loaded.data["a"]  # loading stays linear: aliases share one object


def test_merge_keys() -> None:
    loaded = parse_document(b"base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  y: 3\n", "m.yaml")
    assert loaded.data["d"] == {"x": 1, "y": 3}


@pytest.mark.parametrize("text", [b"a: &a [*a]\n", b"a: &a {b: *a}\n"])
def test_recursive_alias_is_an_error(text: bytes) -> None:
    with pytest.raises(InputError) as info:
        parse_document(text, "r.yaml")
    assert _codes(info.value) == ["D006"]


@pytest.mark.parametrize(
    "text",
    [
        b"!!python/object/apply:os.system ['echo hi']\n",
        b"a: !!python/name:os.system\n",
    ],
)
def test_python_tags_are_refused(text: bytes) -> None:
    with pytest.raises(InputError) as info:
        parse_document(text, "p.yaml")
    assert "D007" in _codes(info.value)


def test_yaml_11_surprises_are_strings_with_a_warning() -> None:
    loaded = parse_document(b"a: yes\nb: on\nc: 2024-01-31\nd: 'no'\ne: true\n", "y.yaml")
    assert loaded.data == {"a": "yes", "b": "on", "c": "2024-01-31", "d": "no", "e": True}
    d009 = [d for d in loaded.diagnostics if d.code == "D009"]
    assert [d.pointer for d in d009] == ["y.yaml#/a", "y.yaml#/b"]  # quoted 'no' is not a surprise


def test_yaml_keys_become_strings() -> None:
    loaded = parse_document(b"200: ok\ntrue: x\n", "k.yaml")
    assert loaded.data == {"200": "ok", "true": "x"}
    assert [d.code for d in loaded.diagnostics] == [
        "D010"
    ]  # a status code key is normal; a boolean key is not


def test_duplicate_keys_are_reported_last_wins() -> None:
    yaml_doc = parse_document(b"a: 1\nb: {c: 1, c: 2}\n", "d.yaml")
    assert yaml_doc.data == {"a": 1, "b": {"c": 2}}
    assert [(d.code, d.pointer) for d in yaml_doc.diagnostics] == [("D008", "d.yaml#/b/c")]
    json_doc = parse_document(b'{"a": {"c": 1, "c" : 2}, "s": "quote\\": inside"}', "d.json")
    assert json_doc.data == {"a": {"c": 2}, "s": 'quote": inside'}
    assert [d.code for d in json_doc.diagnostics] == ["D008"]
    assert "'c'" in json_doc.diagnostics[0].message


def test_no_false_duplicate_when_strings_hold_quote_colon() -> None:
    loaded = parse_document(b'{"a": "x\\": y", "b": "z\\":"}', "q.json")
    assert loaded.diagnostics == ()


@pytest.mark.parametrize("depth", [MAX_DEPTH + 5, 5000])
def test_deep_json_is_a_clear_error(depth: int) -> None:
    with pytest.raises(InputError) as info:
        parse_document(b"[" * depth + b"]" * depth, "deep.json")
    assert _codes(info.value) == ["D004"]


def test_deep_yaml_is_a_clear_error() -> None:
    for depth in (MAX_DEPTH + 5, 1200):
        with pytest.raises(InputError) as info:
            parse_document(b"[" * depth + b"]" * depth, "deep.yaml" if depth < 1000 else "x.yaml")
        assert _codes(info.value) == ["D004"]
    block = "".join(" " * i + f"k{i}:\n" for i in range(MAX_DEPTH + 3)) + " " * (MAX_DEPTH + 3) + "v: 1\n"
    with pytest.raises(InputError) as info:
        parse_document(block.encode(), "block.yaml")
    assert _codes(info.value) == ["D004"]


def test_depth_through_aliases_counts() -> None:
    inner = "[" * 200 + "1" + "]" * 200
    text = f"a: &a {inner}\nb: " + "[" * 100 + "*a" + "]" * 100 + "\n"
    with pytest.raises(InputError) as info:
        parse_document(text.encode(), "alias-depth.yaml")
    assert _codes(info.value) == ["D004"]


@pytest.mark.parametrize("raw", [b"", b"   \n", b"a: [1\n", b"\xff\xfe\x00garbage", b'{"a": [}'])
def test_unparseable_input_is_a_clear_error(raw: bytes) -> None:
    with pytest.raises(InputError) as info:
        parse_document(raw, "bad.yaml")
    assert _codes(info.value) == ["D003"]


def test_json_nan_is_kept_as_a_string() -> None:
    assert parse_document(b'{"a": NaN, "b": Infinity}', "n.json").data == {"a": "NaN", "b": "Infinity"}


def test_size_cap_and_missing_file(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b"{}" + b" " * 2000)
    with pytest.raises(InputError) as info:
        fetch(big, timeout=5, max_bytes=1000)
    assert _codes(info.value) == ["D002"]
    with pytest.raises(InputError) as info:
        fetch(tmp_path / "missing.yaml", timeout=5, max_bytes=1000)
    assert _codes(info.value) == ["D001"]
    with pytest.raises(InputError) as info:
        fetch("ftp://example.com/spec.json", timeout=5, max_bytes=1000)
    assert _codes(info.value) == ["D001"]


def test_url_fetch_has_a_size_cap(served: str) -> None:
    raw, location = fetch(f"{served}/petstore-3.1.json", timeout=5, max_bytes=100_000)
    assert location == f"{served}/petstore-3.1.json"
    assert json.loads(raw)["openapi"] == "3.1.0"
    with pytest.raises(InputError) as info:
        fetch(f"{served}/petstore-3.1.json", timeout=5, max_bytes=100)
    assert _codes(info.value) == ["D002"]
    with pytest.raises(InputError) as info:
        fetch(f"{served}/nope.json", timeout=5, max_bytes=100)
    assert _codes(info.value) == ["D001"]


class _Tricky(http.server.BaseHTTPRequestHandler):
    """Serves a gzip bomb at /bomb and a slow drip at /drip."""

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        if self.path == "/bomb":
            body = gzip.compress(b'{"a": "' + b"x" * 5_000_000 + b'"}')
            self.send_response(200)
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.send_response(200)
        self.end_headers()
        try:
            for _ in range(40):
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.1)
        except OSError:
            pass


@pytest.fixture
def tricky() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Tricky)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_gzip_bomb_is_capped_after_inflating(tricky: str) -> None:
    with pytest.raises(InputError) as info:
        fetch(f"{tricky}/bomb", timeout=5, max_bytes=1_000_000)  # ~5 KB on the wire, 5 MB inflated
    assert _codes(info.value) == ["D002"]


def test_slow_drip_hits_the_total_deadline(tricky: str) -> None:
    start = time.monotonic()
    with pytest.raises(InputError) as info:
        fetch(f"{tricky}/drip", timeout=0.5, max_bytes=1_000_000)
    assert _codes(info.value) == ["D001"]
    assert time.monotonic() - start < 3  # the drip would last 4 s


def test_repeated_warnings_are_summarised() -> None:
    yaml_text = "".join(f"k{i}: yes\n" for i in range(30)).encode()
    diagnostics = parse_document(yaml_text, "many.yaml").diagnostics
    assert len(diagnostics) == 21 and {d.code for d in diagnostics} == {"D009"}
    assert "10 more" in diagnostics[-1].message
    json_text = ("{" + ", ".join(f'"o{i}": {{"a": 1, "a": 2}}' for i in range(25)) + "}").encode()
    diagnostics = parse_document(json_text, "many.json").diagnostics
    assert len(diagnostics) == 21 and "5 more" in diagnostics[-1].message
