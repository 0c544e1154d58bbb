"""What a pack's ready-to-run lines show (issue 24, item 5): a GET takes no body argument, and two
fields one of which qualifies the other are not both shown with examples chosen apart."""

from __future__ import annotations

import json
from pathlib import Path

from packc import compile as packc_compile
from packc_runtime.format.templating import SHOWN_OPTIONAL, example_line


def test_a_get_with_a_request_body_takes_no_body_argument(tmp_path: Path) -> None:
    # Stripe's GET /v1/account declares an empty form body: its line read `--body '{}'`.
    doc = {
        "openapi": "3.0.3",
        "info": {"title": "Acct", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {
            "/account": {
                "get": {
                    "operationId": "getAccount",
                    "parameters": [{"name": "expand", "in": "query", "schema": {"type": "string"}}],
                    "requestBody": {
                        "content": {"application/x-www-form-urlencoded": {"schema": {"type": "object"}}}
                    },
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }
    source = tmp_path / "acct.json"
    source.write_text(json.dumps(doc))
    result = packc_compile(source, tmp_path / "out", lint=False)
    [pack] = result.packs
    verbs = json.loads((pack.directory / "surface.json").read_text())["verbs"]
    [verb] = verbs.values()
    assert set(verb["args"]["properties"]) == {"expand"}
    assert "--body" not in verb["cli"]
    [c161] = [d for d in result.diagnostics if d.code == "C161"]
    assert c161.pointer == "#/paths/~1account/get/requestBody"


def test_a_field_that_qualifies_another_is_not_shown_beside_it() -> None:
    # GitHub: `--state open --state_reason not_planned` contradicts itself.
    enum = {"type": "string", "enum": ["open", "closed"]}
    args = {
        "type": "object",
        "properties": {
            "state": {**enum, "examples": ["open"]},
            "state_reason": {
                "type": "string",
                "enum": ["completed", "not_planned"],
                "examples": ["not_planned"],
            },
            "lock": {"type": "string", "enum": ["a", "b"], "examples": ["a"]},
        },
    }
    cli = [
        "gh",
        "issues",
        "update",
        "--state",
        "{{state}}",
        "--state_reason",
        "{{state_reason}}",
        "--lock",
        "{{lock}}",
    ]
    assert example_line(cli, args, optional=SHOWN_OPTIONAL) == "gh issues update --state open --lock a"
