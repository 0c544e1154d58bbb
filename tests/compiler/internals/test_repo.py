"""``packc compile --repo``: a pack directory becomes its own repository that installs and tests itself.

End to end in a temporary directory: git init, a fresh virtual environment with the runtime alone,
``pip install .`` of the pack, its CLI against the real demo server on 127.0.0.1, and its own pytest.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from packc import compile
from packc.write._repo import module_name, repo_files
from packc_runtime.format.manifest import read_manifest

ROOT = Path(__file__).resolve().parents[3]
SPEC = ROOT / "specs" / "demo" / "petstore.yaml"


def run(*argv: str | Path, cwd: Path, env: dict[str, str] | None = None, timeout: float = 300) -> str:
    done = subprocess.run(
        [str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, f"{argv} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_repo_files_are_deterministic_and_named_for_the_pack(tmp_path: Path) -> None:
    first = compile(SPEC, tmp_path / "a", repo=True)
    second = compile(SPEC, tmp_path / "b", repo=True)
    assert first.ok and second.ok
    (pack,) = first.packs
    assert pack.directory is not None
    manifest, _ = read_manifest(pack.directory)
    assert manifest is not None
    files = repo_files(manifest)
    assert {
        "pyproject.toml",
        ".gitignore",
        "tests/test_smoke.py",
        f"{module_name(manifest)}/__init__.py",
    } == set(files)
    for rel in files:
        assert (tmp_path / "a" / "petstore" / rel).read_bytes() == (
            tmp_path / "b" / "petstore" / rel
        ).read_bytes()
    pyproject = (pack.directory / "pyproject.toml").read_text()
    assert (
        '"packc-runtime' in pyproject
        and "packc>=" not in pyproject
        and '"petstore" = "petstore_pack:main"' in pyproject
    )


@pytest.mark.e2e
@pytest.mark.slow
def test_pack_repo_installs_runs_and_tests_itself(tmp_path: Path, demo_server: Any) -> None:
    result = compile(SPEC, tmp_path / "out", repo=True)
    assert result.ok, result.diagnostics
    (pack,) = result.packs
    repo = pack.directory
    assert repo is not None
    run("git", "init", "-q", ".", cwd=repo)
    ignored = run("git", "status", "--porcelain", "--ignored", cwd=repo)
    assert "surface.json" in ignored

    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", venv, cwd=tmp_path)
    pip = [venv / "bin" / "python", "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    run(*pip, ROOT / "runtime", cwd=tmp_path)
    run(*pip, ".[test]", cwd=repo)
    # The pack depends on the runtime only: the compiler is not installed in its environment.
    probe = subprocess.run([venv / "bin" / "python", "-c", "import packc"], capture_output=True, cwd=tmp_path)
    assert probe.returncode != 0

    env = {
        **os.environ,
        "PETSTORE_API_KEY": demo_server.api_key,
        "PACKC_TRUSTED_ORIGINS": demo_server.url,
        "PACKC_CREDENTIALS_FILE": str(tmp_path / "creds" / "credentials.json"),
        "PACKC_KEYRING": "off",
    }
    env.pop("PYTHONPATH", None)
    out = run(
        venv / "bin" / "petstore",
        "pets",
        "list",
        "--json",
        "--server",
        demo_server.url,
        cwd=tmp_path,
        env=env,
    )
    envelope = json.loads(out)
    assert envelope["ok"] is True and envelope["status"] == 200
    assert {pet["name"] for pet in envelope["body"]} >= {"Rex", "Mittens"}

    tests = run(venv / "bin" / "python", "-m", "pytest", "-q", "-p", "no:cacheprovider", cwd=repo, env=env)
    assert " passed" in tests and "failed" not in tests


def test_a_repo_readme_says_how_to_install_it(tmp_path: Path) -> None:
    # Set-up words (issue 24, item 9): the steps the slow test above runs, written for a person.
    (pack,) = compile(SPEC, tmp_path / "repo", repo=True).packs
    assert pack.directory is not None
    readme = (pack.directory / "README.md").read_text()
    assert "## Install" in readme and "pip install PATH/TO/packc/runtime ." in readme
    assert "petstore --help" in readme
    (plain,) = compile(SPEC, tmp_path / "plain").packs
    assert plain.directory is not None and "## Install" not in (plain.directory / "README.md").read_text()
