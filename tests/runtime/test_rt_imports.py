"""The runtime's modules import each other without a cycle, counting imports inside functions too.

A lazy import that closes a cycle works only while nobody moves it to the top of its file; a piece
two modules share belongs in a third both import (faces/_output.py, format/_lint_codes.py).
"""

from __future__ import annotations

import ast
from pathlib import Path

RUNTIME = Path(__file__).resolve().parents[2] / "runtime"


def _modules() -> dict[str, Path]:
    out = {}
    for path in (RUNTIME / "packc_runtime").rglob("*.py"):
        parts = path.relative_to(RUNTIME).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """Every runtime module ``name`` imports, anywhere in the file (``from a import b``: a, and a.b
    when b is a module)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                head = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*head, base] if base else head)
            found |= {base, *(f"{base}.{alias.name}" for alias in node.names)}
    return (found & known) - {name}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(module: str) -> None:
        state[module] = 1
        stack.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                cycles.append([*stack[stack.index(target) :], target])
            elif target not in state:
                visit(target)
        stack.pop()
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)
    return cycles


def test_the_runtime_import_graph_has_no_cycle() -> None:
    modules = _modules()
    graph = {name: _imports(name, path, set(modules)) for name, path in modules.items()}
    assert graph["packc_runtime.faces.cli"]  # the walk sees imports at all
    assert [" -> ".join(cycle) for cycle in _cycles(graph)] == []
