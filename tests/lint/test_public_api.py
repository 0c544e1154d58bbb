"""The packc package's public API: ``__all__`` sorted and complete, exports lazy, call path light."""

from __future__ import annotations

import subprocess
import sys

import packc


def test_all_is_sorted_and_resolves() -> None:
    assert packc.__all__ == sorted(packc.__all__)
    for name in packc.__all__:
        assert getattr(packc, name) is not None
    assert callable(packc.compile)  # the function, not the pipeline module


def test_importing_the_pipeline_module_keeps_compile_the_function() -> None:
    code = "import packc.pipeline, packc; assert callable(packc.compile), packc.compile"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_packc_cli_imports_no_compiler_stage() -> None:
    # `packc call` / `packc exec` are runtime work: the CLI module must not drag in the pipeline.
    code = (
        "import sys, packc.cli; heavy = sorted(m for m in sys.modules if m.startswith('packc.') "
        "and m.split('.')[1] in {'pipeline', 'frontend', 'plan', 'derive', 'emit', 'normalize', 'load'}); "
        "print(','.join(heavy))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout.strip()
    assert out == ""
