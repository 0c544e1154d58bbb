"""tools/corpus.py: its per-document time limit ends the document even inside code that catches Exception."""

from __future__ import annotations

import contextlib
import importlib.util
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).parents[2]


def _corpus_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tool_corpus", ROOT / "tools" / "corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def test_the_time_limit_is_not_swallowed_by_a_catch_all(monkeypatch: pytest.MonkeyPatch) -> None:
    # Lint reports any Exception from the meta-schema check as M020 and packc.build._schemas.validates reads one
    # as "does not validate": a time limit raised as an Exception there was swallowed, and the
    # document ran on with a false lint finding (Microsoft Graph: M020 "…: _Timeout", 528 s).
    corpus = _corpus_tool()
    import packc.pipeline

    def compile_that_catches_everything(*args: Any, **kwargs: Any) -> None:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            with contextlib.suppress(Exception):  # what lint does with a schema that breaks a validator
                time.sleep(0.05)
        raise AssertionError("the time limit did not end the compile")

    monkeypatch.setattr(packc.pipeline, "compile", compile_that_catches_everything)
    outcome = corpus.check_document(str(ROOT / "specs" / "clinic.yaml"), {"timeout": 1, "compile": True})
    assert outcome.status == "timeout"
    assert outcome.seconds < 4


def test_one_pack_mode_compiles_the_default_pack_and_split_mode_the_family() -> None:
    # `--compile --one-pack` checks what `packc compile` writes by default (the 12 best verbs); the
    # family of --split is a different plan, so the corpus run measures both.
    corpus = _corpus_tool()
    spec = str(ROOT / "specs" / "taskboard.yaml")  # 30 operations: one pack of 12, a family of 3
    one = corpus.check_document(spec, {"timeout": 60, "compile": True, "one_pack": True})
    family = corpus.check_document(spec, {"timeout": 60, "compile": True})
    assert (one.status, family.status) == ("ok", "ok")
    assert one.packs == 1 and 0 < one.operations <= 12
    assert family.packs > 1
    assert one.lint_errors == family.lint_errors == 0


def test_one_pack_needs_compile(capsys: pytest.CaptureFixture[str]) -> None:
    corpus = _corpus_tool()
    with pytest.raises(SystemExit) as exc:
        corpus.main(["--one-pack", "--dir", str(ROOT / "specs")])
    assert exc.value.code == 2
    assert "--one-pack: only with --compile" in capsys.readouterr().err
