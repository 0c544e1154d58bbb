"""Pack.call runs on the server's worker threads: calls overlap, a cancelled call stops being waited for,
and the server keeps answering. Driven with raw JSON-RPC messages on the server's streams (no SDK client),
the stateless era, against the echo pack with an in-process upstream that can be slow."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
import mcp_types as types
from mcp.shared._context_streams import create_context_streams
from mcp.shared.message import SessionMessage

from packc_runtime import load_pack
from packc_runtime.faces.mcp._server import PackServer

ECHO = Path(__file__).resolve().parents[2] / "fixtures" / "packs" / "echo"
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


class Upstream:
    """The echo API in process: item ``slow`` answers after ``delay`` seconds; records what was sent."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.started: list[str] = []
        self.threads: set[str] = set()

    def __call__(self, request: httpx.Request) -> httpx.Response:
        item = request.url.path.rsplit("/", 1)[-1]
        self.started.append(item)
        self.threads.add(threading.current_thread().name)
        if item == "slow":
            time.sleep(self.delay)
        return httpx.Response(200, json={"id": item})


Raw = Callable[[dict[str, Any]], Awaitable[None]]


def serve_raw(
    upstream: Upstream,
    body: Callable[[Raw, Callable[[], Awaitable[dict[str, Any]]]], Awaitable[Any]],
    times: dict[str, float] | None = None,
) -> Any:
    """Run ``body(send, receive)`` against a PackServer on in-memory streams; JSON in, JSON out. ``times``
    gets when the connection was closed and when ``PackServer.aclose`` returned (perf_counter)."""
    times = {} if times is None else times
    server = PackServer([load_pack(ECHO, transport=httpx.MockTransport(upstream))])

    async def main() -> Any:
        c2s_send, c2s_recv = create_context_streams[SessionMessage | Exception](0)
        s2c_send, s2c_recv = create_context_streams[SessionMessage](0)

        async def send(message: dict[str, Any]) -> None:
            await c2s_send.send(
                SessionMessage(types.jsonrpc_message_adapter.validate_json(json.dumps(message)))
            )

        async def receive() -> dict[str, Any]:
            out = await s2c_recv.receive()
            answer: dict[str, Any] = json.loads(
                out.message.model_dump_json(by_alias=True, exclude_unset=True)
            )
            return answer

        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(
                    server.server.run, c2s_recv, s2c_send, server.server.create_initialization_options()
                )
                try:
                    return await body(send, receive)
                finally:
                    await c2s_send.aclose()
        finally:
            times["closed"] = time.perf_counter()
            await server.aclose()
            times["aclosed"] = time.perf_counter()

    return asyncio.run(main())


def call(request_id: int, item: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": "items.get", "arguments": {"item_id": item}, "_meta": META},
    }


def test_calls_overlap_on_worker_threads() -> None:
    upstream = Upstream(delay=0.6)

    async def body(send: Raw, receive: Callable[[], Awaitable[dict[str, Any]]]) -> tuple[float, list[Any]]:
        started = time.perf_counter()
        for i in range(4):
            await send(call(i, "slow"))
        answers = [await receive() for _ in range(4)]
        return time.perf_counter() - started, answers

    took, answers = serve_raw(upstream, body)
    assert sorted(a["id"] for a in answers) == [0, 1, 2, 3]
    assert all(a["result"]["structuredContent"]["body"] == {"id": "slow"} for a in answers)
    assert took < 4 * 0.6 * 0.75, took  # four 0.6 s calls at once, not one after another
    assert len(upstream.threads) == 4 and all(t.startswith("packc-call") for t in upstream.threads)
    assert threading.main_thread().name not in upstream.threads  # never on the event loop's thread


def test_a_cancelled_call_is_not_answered_and_the_server_keeps_serving() -> None:
    upstream = Upstream(delay=1.5)

    async def body(
        send: Raw, receive: Callable[[], Awaitable[dict[str, Any]]]
    ) -> tuple[float, dict[str, Any]]:
        await send(call(1, "slow"))
        while "slow" not in upstream.started:
            await anyio.sleep(0.01)
        await send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})
        started = time.perf_counter()
        await send(call(2, "fast"))
        with anyio.fail_after(1.0):  # long before the slow call's upstream answers
            answer = await receive()
        return time.perf_counter() - started, answer

    started = time.perf_counter()
    times: dict[str, float] = {}
    took, answer = serve_raw(upstream, body, times)
    assert answer["id"] == 2 and answer["result"]["structuredContent"]["body"] == {"id": "fast"}, answer
    assert took < 1.0
    # The cancelled call was not waited for: the connection closed before its upstream answered ...
    assert times["closed"] - started < 1.5
    # ... while closing the server waits for it (a write already sent is not cut off at exit).
    assert times["aclosed"] - started >= 1.5


def test_call_threads_reuse_threads_keep_the_limit_pass_errors_and_context_and_drop_cancelled_calls() -> None:
    import contextvars

    from packc_runtime.faces.mcp._threads import CallThreads

    var: contextvars.ContextVar[str] = contextvars.ContextVar("var", default="unset")
    ran: list[str] = []

    def slow(tag: str) -> str:
        time.sleep(0.3)
        ran.append(tag)
        return tag

    def boom() -> None:
        raise ValueError("boom")

    async def main() -> None:
        threads = CallThreads(2)
        for _ in range(5):  # one after another: one thread, reused
            assert await threads.run(lambda: threading.current_thread().name) == "packc-call-0"
        var.set("the caller's")
        assert await threads.run(var.get) == "the caller's"
        try:
            await threads.run(boom)
        except ValueError as exc:
            assert str(exc) == "boom"
        else:
            raise AssertionError("the exception was lost")
        started = time.perf_counter()
        results = await asyncio.gather(*(threads.run(lambda i=i: slow(f"s{i}")) for i in range(4)))
        assert results == ["s0", "s1", "s2", "s3"]
        assert 0.55 < time.perf_counter() - started < 1.1  # two at a time: two rounds of 0.3 s
        assert len(threads._threads) == 2
        ran.clear()
        first, second = (asyncio.ensure_future(threads.run(lambda t=t: slow(t))) for t in ("a", "b"))
        queued = asyncio.ensure_future(threads.run(lambda: slow("queued")))
        await asyncio.sleep(0.05)
        queued.cancel()  # both threads are busy: it was never taken
        assert await first == "a" and await second == "b"
        await threads.aclose()
        await asyncio.sleep(0.4)  # the threads took the cancelled call before the stop: they did not run it
        assert sorted(ran) == ["a", "b"]

    asyncio.run(main())
