"""Golden packs: compiling the hand-written APIs again gives tests/golden/ byte for byte (`make golden`)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
_spec = importlib.util.spec_from_file_location("golden_rebuild", GOLDEN / "rebuild.py")
assert _spec is not None and _spec.loader is not None
rebuild = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rebuild)


def _tree(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()
    }


@pytest.mark.parametrize("name", sorted(rebuild.CASES))
def test_golden_pack_is_unchanged(name: str, tmp_path: Path) -> None:
    rebuild.build(name, tmp_path)
    expected, actual = _tree(GOLDEN / name), _tree(tmp_path)
    assert sorted(actual) == sorted(expected), "files differ: run `make golden` and review the diff"
    for rel, data in expected.items():
        assert actual[rel] == data, f"{name}/{rel} differs: run `make golden` and review the diff"
