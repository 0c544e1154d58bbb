"""Red-team regression: an unambiguous pattern with nested written-out counts made example
generation build a text of the counts' product.

``^((x[0-9]{1000}y){1000}z){1000}$`` is not risky (nothing can read it two ways), so the compiler
builds an example for it: a billion characters (1 GB, 3.5 s per parameter); one level more raised
MemoryError out of ``packc.compile``. An example longer than a few thousand characters is given up.
"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

from packc import compile as packc_compile
from packc.build._examples import example_for

THREE = r"^((x[0-9]{1000}y){1000}z){1000}$"
FOUR = r"^(((x[0-9]{1000}y){1000}z){1000}w){1000}$"


def test_example_generation_stays_small_for_multiplied_counts() -> None:
    tracemalloc.start()
    try:
        found, value = example_for({"type": "string", "pattern": THREE})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 10_000_000
    assert not found or len(value) <= 4096
    assert example_for({"type": "string", "pattern": r"^[a-z]{3}-\d{2}$"}) == (True, "aaa-00")  # still made


def test_a_document_with_nested_counts_compiles(tmp_path: Path) -> None:
    ok = {"200": {"description": "ok"}}
    params = [
        {"name": f"q{i}", "in": "query", "schema": {"type": "string", "pattern": FOUR}} for i in range(3)
    ]
    document = {
        "openapi": "3.0.3",
        "info": {"title": "Counts", "version": "1"},
        "servers": [{"url": "http://127.0.0.1:9/api"}],
        "paths": {
            "/things": {
                "get": {
                    "operationId": "listThings",
                    "summary": "List things",
                    "parameters": params,
                    "responses": ok,
                }
            },
            **{f"/x{i}": {"get": {"operationId": f"x{i}", "responses": ok}} for i in range(4)},
        },
    }
    source = tmp_path / "d.json"
    source.write_text(json.dumps(document), "utf-8")
    result = packc_compile(source, tmp_path / "packs")  # raised MemoryError before
    assert result.packs and result.packs[0].directory is not None
