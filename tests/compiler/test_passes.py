"""CompileOptions made once (CLI or Python), passes run in order over one context, plan_source a prefix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from packc import pipeline
from packc.cli import _build_parser, _options
from packc.errors import UsageError
from packc.options import CompileOptions
from packc.pipeline import PASSES, CompileContext, Pass, compile, plan_source, run

SPECS = Path(__file__).resolve().parents[2] / "specs"


def test_the_passes_and_their_order() -> None:
    assert [p.__name__ for p in PASSES] == [
        "plan_verbs",
        "imply_credentials",
        "read_parts",
        "check_packed",
        "choose_servers",
        "build_packs",
    ]


def test_options_from_flags_equal_options_from_keywords(tmp_path: Path) -> None:
    argv = [
        "compile",
        "spec.yaml",
        "-o",
        str(tmp_path),
        "--server",
        "https://s.example.com",
        "--repo",
        "--for",
        "list pets",
        "--include",
        "pets.list",
        "--include",
        "GET /pets",
        "--exclude",
        "deletePet",
        "--strict",
        "--allow-remote-refs",
        "--allow-private-addresses",
        "--allow-outside",
        "--overlay",
        "o.yaml",
    ]
    from_flags = _options(_build_parser().parse_args(argv))
    assert from_flags == CompileOptions(
        out_dir=str(tmp_path),
        server="https://s.example.com",
        repo=True,
        goal="list pets",
        include=("pets.list", "GET /pets"),
        exclude=("deletePet",),
        strict=True,
        allow_remote_refs=True,
        allow_private=True,
        allow_outside=True,
        overlay="o.yaml",
    )
    # plan has no --out-dir, --server or --repo: those keep their defaults.
    assert _options(_build_parser().parse_args(["plan", "spec.yaml", "--split"])) == CompileOptions(
        split=True
    )


def test_options_check_and_normalize_what_they_are_given() -> None:
    assert CompileOptions(include="a.b").include == ("a.b",)  # type: ignore[arg-type]
    assert CompileOptions(exclude={"b", "a"}).exclude == ("a", "b")  # type: ignore[arg-type]
    assert CompileOptions(include=["x"]) == CompileOptions(include=("x",))  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="include= takes operation names"):
        CompileOptions(include=[""])  # type: ignore[list-item]
    with pytest.raises(UsageError, match="--split covers every operation"):
        CompileOptions(split=True, goal="list pets")
    with pytest.raises(UsageError, match="--for needs a task in words"):
        CompileOptions(goal="the")


def test_options_or_keywords_give_one_result_and_not_both(tmp_path: Path) -> None:
    spec = SPECS / "clinic.yaml"
    by_keywords = compile(spec, tmp_path / "a", split=True, write=False)
    by_options = compile(spec, options=CompileOptions(out_dir=tmp_path / "b", split=True, write=False))
    assert by_options == by_keywords
    assert plan_source(spec, options=CompileOptions(split=True)) == plan_source(spec, split=True)
    with pytest.raises(UsageError, match="not both"):
        compile(spec, split=True, options=CompileOptions())
    with pytest.raises(UsageError, match="not both"):
        plan_source(spec, goal="book a visit", options=CompileOptions())


def _recording(passes: tuple[Pass, ...], ran: list[str]) -> tuple[Pass, ...]:
    def wrap(pass_: Pass) -> Pass:
        def recorded(ctx: CompileContext) -> CompileContext:
            ran.append(pass_.__name__)
            return pass_(ctx)

        return recorded

    return tuple(wrap(p) for p in passes)


def test_compile_runs_every_pass_and_plan_source_the_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran: list[str] = []
    monkeypatch.setattr(pipeline, "PASSES", _recording(PASSES, ran))
    plan_source(SPECS / "clinic.yaml")
    assert ran == ["plan_verbs"]
    ran.clear()
    compile(SPECS / "clinic.yaml", tmp_path, write=False)
    assert ran == [p.__name__ for p in PASSES]


def test_no_pass_after_read_parts_reads_an_operation(tmp_path: Path) -> None:
    # The warnings from reading operations' parts are complete once read_parts has run.
    ops = "\n".join(
        f"""  /things{i}/{{id}}:
    get:
      parameters: [{{name: id, in: path, schema: {{type: string}}}}, {{name: q, in: query}}]
      responses: {{"200": {{description: ok}}}}"""
        for i in range(6)
    )
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        f"openapi: 3.0.3\ninfo: {{title: Things, version: '1'}}\npaths:\n{ops}\n", encoding="utf-8"
    )
    ctx = pipeline.read_source(spec, CompileOptions(out_dir=tmp_path, write=False))
    at = [p.__name__ for p in PASSES].index("read_parts") + 1
    ctx = run(ctx, PASSES[:at])
    parts = ctx.parts
    assert [d.code for d in parts] == ["D042", "D045"] * 6
    done = run(ctx, PASSES[at:])
    assert done.api.deferred_diagnostics() == parts == done.parts
    assert done.diagnostics == compile(spec, tmp_path, write=False).diagnostics


def test_a_body_content_key_keeps_its_parameters(tmp_path: Path) -> None:
    # The runtime looks the media type up by the document's own key, parameters included.
    doc = {
        "openapi": "3.0.3",
        "info": {"title": "Notes", "version": "1"},
        "servers": [{"url": "https://notes.example.com"}],
        "paths": {
            "/notes": {
                "post": {
                    "operationId": "createNote",
                    "requestBody": {
                        "content": {
                            "application/json; charset=utf-8": {"schema": {"type": "object"}},
                            "application/json": {"schema": {"type": "string"}},
                        }
                    },
                    "responses": {"201": {"description": "made"}},
                }
            }
        },
    }
    spec = tmp_path / "notes.json"
    spec.write_text(json.dumps(doc), encoding="utf-8")
    result = compile(spec, tmp_path / "out")
    assert result.packs[0].directory is not None
    cut = json.loads((result.packs[0].directory / "openapi.json").read_text(encoding="utf-8"))
    binding = cut["paths"]["/notes"]["post"]["x-packc-binding"]
    assert binding["contentType"] == "application/json; charset=utf-8"
