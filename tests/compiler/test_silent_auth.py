"""A document with writes and no security gets C158 saying how to declare auth; the shipped GitHub
overlay declares it for GitHub's official document, and the pack then sends the token
(issue 12, item 3)."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from packc import compile
from packc_runtime.faces.cli import pack_main

from .helpers import write_doc

ROOT = Path(__file__).resolve().parents[2]
# GitHub's official document, from the npm package @octokit/openapi (not in the APIs.guru corpus):
# `make github-spec` installs it beside the corpus; PACKC_GITHUB_SPEC names another copy.
_OCTOKIT = "node_modules/@octokit/openapi/generated/api.github.com.json"
GITHUB = next(
    (
        p
        for p in (
            Path(os.environ.get("PACKC_GITHUB_SPEC", "/nonexistent")),
            ROOT / ".corpus" / _OCTOKIT,
            Path("/work/extra") / _OCTOKIT,
        )
        if p.is_file()
    ),
    ROOT / ".corpus" / _OCTOKIT,
)
OVERLAY = ROOT / "specs" / "overlays" / "github-auth.yaml"
sys.path.insert(0, str(ROOT / "tests"))


def _doc(*, secured: bool) -> dict[str, Any]:
    ok = {"200": {"description": "ok"}}
    doc: dict[str, Any] = {
        "openapi": "3.0.3",
        "info": {"title": "Notes", "version": "1"},
        "servers": [{"url": "https://notes.example"}],
        "paths": {
            "/notes": {"get": {"responses": ok}, "post": {"responses": ok}},
            "/notes/{id}": {
                "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
                "get": {"responses": ok},
                "delete": {"responses": ok},
            },
        },
    }
    if secured:
        doc["components"] = {"securitySchemes": {"k": {"type": "apiKey", "in": "header", "name": "X-Key"}}}
        doc["security"] = [{"k": []}]
    return doc


def test_writes_without_security_warn_with_the_way_to_declare_it(tmp_path: Path) -> None:
    result = compile(write_doc(tmp_path, _doc(secured=False)), tmp_path / "out", write=False)
    (c158,) = [d for d in result.diagnostics if d.code == "C158"]
    assert "POST /notes" in c158.message and "DELETE /notes/{id}" in c158.message
    assert "--overlay" in c158.fix and "specs/overlays/github-auth.yaml" in c158.fix
    secured = compile(write_doc(tmp_path, _doc(secured=True), "s.json"), tmp_path / "out2", write=False)
    assert not [d for d in secured.diagnostics if d.code == "C158"]
    reads_only = _doc(secured=False)
    del reads_only["paths"]["/notes"]["post"], reads_only["paths"]["/notes/{id}"]["delete"]
    public = compile(write_doc(tmp_path, reads_only, "r.json"), tmp_path / "out3", write=False)
    assert not [d for d in public.diagnostics if d.code == "C158"]


@pytest.mark.skipif(
    not GITHUB.is_file(),
    reason="GitHub's official document (@octokit/openapi) is not installed (make github-spec)",
)
def test_the_github_overlay_gives_the_pack_a_token(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from servers.form_app import FormApp
    from servers.runner import serve

    bare = compile(GITHUB, tmp_path / "bare")
    assert [d.code for d in bare.diagnostics if d.code == "C158"] == ["C158"]
    result = compile(GITHUB, tmp_path / "out", overlay=OVERLAY)
    assert result.ok and not [d for d in result.diagnostics if d.code == "C158"]
    (pack,) = result.packs
    # The write verb that opens an issue (named by whatever the naming rules call it).
    document = json.loads((tmp_path / "out" / "github" / "openapi.json").read_text())
    verb = document["paths"]["/repos/{owner}/{repo}/issues"]["post"]["x-packc-binding"]["verb"]
    assert pack.id == "github" and verb in pack.verbs
    assert "`GITHUB_TOKEN`" in (tmp_path / "out" / "github" / "README.md").read_text()
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_overlay_test")
    app = FormApp()
    with serve(app) as url:
        monkeypatch.setenv("PACKC_TRUSTED_ORIGINS", url)  # the stand-in for api.github.com, named explicitly
        out = io.StringIO()
        code = pack_main(
            tmp_path / "out" / "github",
            [*verb.split("."), "octo", "hello", "--title", "Bug", "--confirm", "--server", url, "--json"],
            stdout=out,
            stderr=io.StringIO(),
        )
    assert code == 0, out.getvalue()
    assert json.loads(out.getvalue())["ok"]
    assert app.seen[-1][0] == "/repos/octo/hello/issues"
    assert app.headers[-1]["authorization"] == "Bearer ghp_overlay_test"
