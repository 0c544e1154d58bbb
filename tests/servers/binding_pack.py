"""A small keyed pack whose binding each test sets: a read and a write verb, examples and schemas."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ORIGIN = "https://api.binding.example"

DOCUMENT: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "Things", "version": "1"},
    "servers": [{"url": ORIGIN + "/v1"}],
    "security": [{"key": []}],
    "components": {
        "securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}},
        "schemas": {
            "Thing": {
                "type": "object",
                "required": ["id", "name"],
                "properties": {
                    "id": {"type": "integer", "minimum": 1},
                    "name": {"type": "string"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "state": {"type": "string", "enum": ["new", "done"]},
                },
            }
        },
    },
    "paths": {
        "/things": {
            "get": {
                "operationId": "listThings",
                "x-packc-binding": {"verb": "things.list", "args": {}},
                "responses": {
                    "200": {
                        "description": "The things",
                        "content": {
                            "application/json": {
                                "schema": {"type": "array", "items": {"$ref": "#/components/schemas/Thing"}},
                                "example": [{"id": 7, "name": "kettle"}],
                            }
                        },
                    }
                },
            },
            "post": {
                "operationId": "createThing",
                "x-packc-binding": {
                    "verb": "things.create",
                    "args": {"name": {"in": "body", "name": "name"}},
                },
                "requestBody": {
                    "content": {
                        "application/json": {
                            "schema": {"type": "object", "properties": {"name": {"type": "string"}}}
                        }
                    }
                },
                "responses": {
                    "201": {
                        "description": "Created",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Thing"}}},
                    }
                },
            },
        }
    },
}


def write_pack(root: Path, binding: dict[str, Any] | None, *, document: dict[str, Any] | None = None) -> Path:
    """The pack in ``root/things`` with ``binding`` (None: no binding field)."""
    pack = root / "things"
    pack.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {
        "id": "things",
        "name": "Things",
        "kind": "openapi",
        "cliBin": "things",
        "transports": ["cli", "json_exec"],
        "openapi": {"path": "openapi.json"},
        "verbs": {
            "things.list": {
                "description": "List things.",
                "cli": ["things", "list"],
                "args": {"type": "object", "properties": {}, "additionalProperties": False},
                "title": {"live": "Listing things", "done": "Listed things"},
            },
            "things.create": {
                "description": "Create a thing.",
                "cli": ["things", "create", "--name", "{{name}}"],
                "args": {
                    "type": "object",
                    "properties": {"name": {"type": "string", "examples": ["lamp"]}},
                    "required": ["name"],
                    "additionalProperties": False,
                },
                "title": {"live": "Creating {{name}}", "done": "Created {{name}}"},
                "preview": {"kind": "record", "title": "Create {{name}}", "fields": {"name": "{{name}}"}},
            },
        },
    }
    if binding is not None:
        manifest["binding"] = binding
    policy = {
        "surface_id": "things",
        "commands": {"things.list": {"access": "read"}, "things.create": {"access": "write"}},
    }
    (pack / "surface.json").write_text(json.dumps(manifest), encoding="utf-8")
    (pack / "policy.json").write_text(json.dumps(policy), encoding="utf-8")
    (pack / "openapi.json").write_text(json.dumps(document or DOCUMENT), encoding="utf-8")
    return pack
