"""A document can raise a verb's care but never lower what its HTTP method implies (issue 10, item 5)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from packc import compile
from packc.lint import lint_pack
from packc_runtime import load_pack

from .helpers import write_doc


def _op(summary: str, **extra: Any) -> dict[str, Any]:
    return {
        "summary": summary,
        "responses": {
            "200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}
        },
        **extra,
    }


def _zoo(**marks: dict[str, Any]) -> dict[str, Any]:
    """A public API of five reads and a DELETE, PUT, PATCH, POST; ``marks`` adds x-packc by method."""
    item = {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
    paths: dict[str, Any] = {f"/things{i}": {"get": _op(f"List things {i}.")} for i in range(5)}
    paths["/pets/{id}"] = {
        "parameters": [item],
        "delete": _op("Delete a pet."),
        "put": _op("Replace a pet."),
        "patch": _op("Change a pet."),
    }
    paths["/pets/{id}/adopt"] = {"parameters": [item], "post": _op("Adopt a pet.")}
    for method, mark in marks.items():
        for node in paths.values():
            if method in node:
                node[method]["x-packc"] = mark
    return {
        "openapi": "3.0.3",
        "info": {"title": "Zoo", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9/api"}],
        "paths": paths,
    }


def _policy(out: Path) -> dict[str, Any]:
    return dict(json.loads((out / "zoo" / "policy.json").read_text())["commands"])


def test_x_packc_access_read_on_a_delete_is_ignored_with_a_warning(tmp_path: Path) -> None:
    """The reproduction: x-packc {access: read} on a DELETE made it a read, sent without --confirm."""
    doc = _zoo(delete={"access": "read"})
    result = compile(write_doc(tmp_path, doc), tmp_path / "out")
    assert result.ok
    policy = _policy(tmp_path / "out")
    assert policy["pets.delete"] == {"access": "write", "destructive": True}
    c171 = [d for d in result.diagnostics if d.code == "C171"]
    assert [d.pointer for d in c171] == ["#/paths/~1pets~1{id}/delete/x-packc"]
    assert c171[0].level == "warning" and "DELETE" in c171[0].message
    harness = (tmp_path / "out" / "zoo" / "HARNESS.md").read_text()
    assert "Every verb only reads" not in harness and "`pets.delete`" in harness
    sent: list[httpx.Request] = []
    with load_pack(
        tmp_path / "out" / "zoo",
        transport=httpx.MockTransport(lambda r: sent.append(r) or httpx.Response(204)),
    ) as pack:
        envelope = pack.call("pets.delete", {"id": "7"})
    assert envelope["ok"] is False and envelope["error"]["code"] == "not_confirmed" and sent == []


def test_every_verb_marked_read_never_makes_a_delete_pack_read_only(tmp_path: Path) -> None:
    """All operations marked read: the DELETE, PUT and PATCH stay writes; HARNESS.md never says only reads."""
    mark = {"access": "read"}
    result = compile(
        write_doc(tmp_path, _zoo(get=mark, delete=mark, put=mark, patch=mark, post=mark)), tmp_path / "out"
    )
    policy = _policy(tmp_path / "out")
    assert {v: row["access"] for v, row in policy.items() if v.startswith("pets.")} == {
        "pets.delete": "write",
        "pets.replace": "write",
        "pets.update": "write",
        "pets.adopt": "write",  # "Adopt a pet." does not say it only reads
    }
    assert sorted(d.code for d in result.diagnostics if d.code in ("C170", "C171")) == ["C171"] * 4
    assert "Every verb only reads" not in (tmp_path / "out" / "zoo" / "HARNESS.md").read_text()


def test_document_can_raise_care(tmp_path: Path) -> None:
    doc = _zoo(post={"access": "write", "destructive": True})
    doc["paths"]["/things0"]["get"]["x-packc"] = {"access": "write"}
    doc["paths"]["/things1"]["get"]["x-packc"] = {"destructive": True}
    result = compile(write_doc(tmp_path, doc), tmp_path / "out")
    policy = _policy(tmp_path / "out")
    assert policy["things0.list"] == {"access": "write"}
    assert policy["things1.list"] == {"access": "write", "destructive": True}
    assert policy["pets.adopt"] == {"access": "write", "destructive": True}
    assert not [d for d in result.diagnostics if d.code in ("C170", "C171")]


def test_destructive_false_on_a_delete_is_ignored(tmp_path: Path) -> None:
    result = compile(write_doc(tmp_path, _zoo(delete={"destructive": False})), tmp_path / "out")
    assert _policy(tmp_path / "out")["pets.delete"] == {"access": "write", "destructive": True}
    assert [d.code for d in result.diagnostics if d.code == "C171"] == ["C171"]


def test_the_document_lowers_a_post_only_where_its_own_words_say_it_reads(tmp_path: Path) -> None:
    """A hostile review: "Make a note", "Grant access", "Wipe the device" marked read were sent without
    confirmation. The document's marking counts only where the operation's own words say it reads."""
    for i, summary in enumerate(
        ("Adopt a pet.", "Make a note", "Grant access", "Wipe the device", "**Create** a note")
    ):
        doc = _zoo(post={"access": "read"})
        doc["paths"]["/pets/{id}/adopt"]["post"]["summary"] = summary
        result = compile(write_doc(tmp_path, doc), tmp_path / f"out{i}")
        assert _policy(tmp_path / f"out{i}")["pets.adopt"] == {"access": "write"}, summary
        c171 = [d for d in result.diagnostics if d.code == "C171"]
        assert [d.pointer for d in c171] == ["#/paths/~1pets~1{id}~1adopt/post/x-packc"], summary
    doc = _zoo(post={"access": "read"})
    doc["paths"]["/pets/{id}/adopt"]["post"]["summary"] = "Check whether a pet can be adopted; read-only."
    result = compile(write_doc(tmp_path, doc), tmp_path / "out")
    assert _policy(tmp_path / "out")["pets.adopt"] == {"access": "read"}
    c170 = [d for d in result.diagnostics if d.code == "C170"]
    assert [d.pointer for d in c170] == ["#/paths/~1pets~1{id}~1adopt/post/x-packc"]
    assert "without a person's confirmation" in c170[0].message


def test_a_post_the_user_marks_read_in_an_overlay_has_no_warning(tmp_path: Path) -> None:
    """An --overlay is the user's own file: its access: read on a POST is the user's decision."""
    overlay = tmp_path / "overlay.yaml"
    overlay.write_text(
        yaml.safe_dump(
            {
                "overlay": "1.0.0",
                "info": {"title": "t", "version": "1"},
                "actions": [
                    {"target": "$.paths['/pets/{id}/adopt'].post", "update": {"x-packc": {"access": "read"}}},
                    {"target": "$.paths['/pets/{id}'].delete", "update": {"x-packc": {"access": "read"}}},
                ],
            }
        )
    )
    result = compile(write_doc(tmp_path, _zoo()), tmp_path / "out", overlay=overlay)
    policy = _policy(tmp_path / "out")
    assert policy["pets.adopt"] == {"access": "read"}
    assert policy["pets.delete"] == {"access": "write", "destructive": True}  # not even the user
    assert [d.code for d in result.diagnostics if d.code in ("C170", "C171")] == ["C171"]


def test_a_local_stub_is_not_the_users_word_on_care(tmp_path: Path) -> None:
    """Red team: ``packc compile packs/x/surface.json`` (the README's own example) trusted the stub as
    the user's, though a pack directory is often someone else's (a cloned pack repository): its
    ``verbs`` made a POST a read with no warning. Now a local stub lowers care only as a document
    does: a POST read with C170 at the stub's pointer, and PUT, PATCH or DELETE never (C171)."""
    write_doc(tmp_path, _zoo(), name="api.json")
    stub = {
        "id": "zoo",
        "kind": "openapi",
        "cliBin": "zoo",
        "openapi": {"path": "api.json"},
        "verbs": {
            "pets.adopt": {"policy": "read"},
            "pets.delete": {"policy": "read"},
            "pets.replace": {"policy": "read"},
            "pets.update": {"policy": "read"},  # PUT, PATCH
            **{f"things{i}.list": {} for i in range(4)},
        },
    }
    (tmp_path / "surface.json").write_text(json.dumps(stub))
    result = compile(tmp_path / "surface.json", tmp_path / "out")
    policy = _policy(tmp_path / "out")
    assert policy["pets.delete"] == {"access": "write", "destructive": True}
    written = ("pets.adopt", "pets.replace", "pets.update")  # "Adopt a pet." does not say it reads
    assert [policy[name] for name in written] == [{"access": "write"}] * 3
    assert [d for d in result.diagnostics if d.code == "C170"] == []
    c171 = sorted(d.pointer for d in result.diagnostics if d.code == "C171")
    assert c171 == sorted(f"surface.json#/verbs/{name}/policy" for name in ("pets.delete", *written))
    with load_pack(
        tmp_path / "out" / "zoo", transport=httpx.MockTransport(lambda r: httpx.Response(204))
    ) as pack:
        assert all(pack.is_write(name) for name in ("pets.delete", *written))


def test_a_post_whose_text_says_read_only_but_creates_stays_a_write(tmp_path: Path) -> None:
    doc = _zoo()
    doc["paths"]["/pets/{id}/adopt"]["post"] = {
        "summary": "Create a read-only token.",
        "responses": {
            "201": {"description": "made", "content": {"application/json": {"schema": {"type": "object"}}}}
        },
    }
    compile(write_doc(tmp_path, doc), tmp_path / "out")
    assert _policy(tmp_path / "out")["pets.adopt"] == {"access": "write"}


def test_a_post_read_by_its_text_warns(tmp_path: Path) -> None:
    doc = _zoo()
    doc["paths"]["/pets/{id}/adopt"]["post"]["summary"] = "Check adoption; read-only."
    result = compile(write_doc(tmp_path, doc), tmp_path / "out")
    assert _policy(tmp_path / "out")["pets.adopt"] == {"access": "read"}
    assert [d.message for d in result.diagnostics if d.code == "C170"] == [
        "POST /pets/{id}/adopt is packed as a read (its summary says it only reads): "
        "it is sent without a person's confirmation."
    ]


def test_hand_edited_policy_lowering_a_delete_is_a_lint_error_and_still_confirmed(tmp_path: Path) -> None:
    compile(write_doc(tmp_path, _zoo()), tmp_path / "out")
    pack_dir = tmp_path / "out" / "zoo"
    policy = json.loads((pack_dir / "policy.json").read_text())
    policy["commands"]["pets.delete"] = {"access": "read"}
    policy["commands"]["pets.update"] = {"access": "read"}
    (pack_dir / "policy.json").write_text(json.dumps(policy))
    found = {(d.code, d.pointer) for d in lint_pack(pack_dir)}
    assert ("M031", "policy.json#/commands/pets.delete/access") in found
    assert ("M031", "policy.json#/commands/pets.update/access") in found
    assert ("M032", "policy.json#/commands/pets.delete/destructive") in found
    sent: list[httpx.Request] = []
    with load_pack(
        pack_dir, transport=httpx.MockTransport(lambda r: sent.append(r) or httpx.Response(204))
    ) as pack:
        assert pack.is_write("pets.delete") and pack.is_write("pets.update")
        assert pack.is_destructive("pets.delete") and not pack.is_destructive("pets.update")
        assert pack.call("pets.delete", {"id": "1"})["error"]["code"] == "not_confirmed"
        assert pack.call("pets.update", {"id": "1"})["error"]["code"] == "not_confirmed"
    assert sent == []


def test_a_fetched_stub_is_the_documents_word_not_the_users(tmp_path: Path) -> None:
    """A stub read from a URL may still make a POST a read, but only with the warning a document gets."""
    import functools
    import http.server
    import threading

    doc = _zoo()
    doc["paths"]["/pets/{id}/adopt"]["post"]["summary"] = "Check whether a pet can be adopted; read-only."
    write_doc(tmp_path, doc, name="api.json")
    stub = {
        "id": "zoo",
        "kind": "openapi",
        "cliBin": "zoo",
        "openapi": {"path": "api.json"},
        "verbs": {"pets.adopt": {"policy": "read"}, **{f"things{i}.list": {} for i in range(4)}},
    }
    (tmp_path / "surface.json").write_text(json.dumps(stub))

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(tmp_path))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        result = compile(f"http://127.0.0.1:{server.server_address[1]}/surface.json", tmp_path / "out")
    finally:
        server.shutdown()
        server.server_close()
    assert _policy(tmp_path / "out")["pets.adopt"] == {"access": "read"}
    assert [d.pointer for d in result.diagnostics if d.code == "C170"] == [
        "surface.json#/verbs/pets.adopt/policy"
    ]


@pytest.mark.parametrize(
    ("path", "summary", "description"),
    [
        # Google Drive's files.create: "read-only" is about a property, far down its description.
        (
            "/files",
            "",
            "Creates a file. This method supports an /upload URI. Apps creating shortcuts cannot "
            "set the read-only fileExtension property.",
        ),
        # A name that says it writes wins over any text.
        ("/messages/send", "Send a message; does not modify the mailbox.", ""),
    ],
)
def test_a_post_read_only_only_by_a_word_about_something_else_stays_a_write(
    tmp_path: Path, path: str, summary: str, description: str
) -> None:
    doc = _zoo()
    doc["paths"][path] = {
        "post": {
            "summary": summary,
            "description": description,
            "responses": {
                "200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}
            },
        }
    }
    compile(write_doc(tmp_path, doc), tmp_path / "out")
    policy = _policy(tmp_path / "out")
    name = "files.create" if path == "/files" else "messages.send"
    assert policy[name] == {"access": "write"}


def _notes(mark: dict[str, Any] | None = None, summary: str = "Create a note.") -> dict[str, Any]:
    op = {**_op(summary), "operationId": "noteAction"}  # a name that says nothing: only the summary speaks
    if mark is not None:
        op["x-packc"] = mark
    return {
        "openapi": "3.0.3",
        "info": {"title": "Zoo", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9/api"}],
        "paths": {
            "/notes": {"post": op},
            **{f"/things{i}": {"get": _op(f"List things {i}.")} for i in range(4)},
        },
    }


def test_the_document_cannot_lower_a_post_whose_own_words_say_it_writes(tmp_path: Path) -> None:
    """Issue 23: a POST whose summary says "Create a note", marked x-packc access: read by its own
    document, was packed as a read and sent without confirmation."""
    result = compile(write_doc(tmp_path, _notes({"access": "read"})), tmp_path / "out")
    policy = _policy(tmp_path / "out")
    [verb] = [name for name in policy if name.startswith("notes")]
    assert policy[verb] == {"access": "write"}
    [c171] = [d for d in result.diagnostics if d.code == "C171"]
    assert c171.pointer == "#/paths/~1notes/post/x-packc" and "it stays a write" in c171.message
    assert not [d for d in result.diagnostics if d.code == "C170"]
    with load_pack(
        tmp_path / "out" / "zoo", transport=httpx.MockTransport(lambda r: httpx.Response(200))
    ) as pack:
        assert pack.is_write(verb)
        assert pack.call(verb, {})["error"]["code"] == "not_confirmed"


@pytest.mark.parametrize("summary", ["Create a note.", "Creates a note", "Sends a note", "Publish notes"])
def test_only_the_users_overlay_lowers_a_post_that_says_it_writes(tmp_path: Path, summary: str) -> None:
    overlay = tmp_path / "overlay.yaml"
    overlay.write_text(
        yaml.safe_dump(
            {
                "overlay": "1.0.0",
                "info": {"title": "t", "version": "1"},
                "actions": [{"target": "$.paths['/notes'].post", "update": {"x-packc": {"access": "read"}}}],
            }
        )
    )
    doc = write_doc(tmp_path, _notes(summary=summary))
    result = compile(doc, tmp_path / "out", overlay=overlay)
    assert [v for k, v in _policy(tmp_path / "out").items() if k.startswith("notes")] == [{"access": "read"}]
    assert not [d for d in result.diagnostics if d.code in ("C170", "C171")]
    marked = compile(write_doc(tmp_path, _notes({"access": "read"}, summary)), tmp_path / "marked")
    assert [v for k, v in _policy(tmp_path / "marked").items() if k.startswith("notes")] == [
        {"access": "write"}
    ]
    assert [d.code for d in marked.diagnostics if d.code in ("C170", "C171")] == ["C171"]
