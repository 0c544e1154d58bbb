"""Worker threads for the MCP server's sync ``Pack.call``: one queue put there, one
``call_soon_threadsafe`` back.

A no-op round trip from the event loop measured 44-49 us here against 76-152 us with asyncio's
``run_in_executor`` on a ``ThreadPoolExecutor`` (two futures chained, a Condition-based queue) and
102-167 us with ``anyio.to_thread.run_sync`` (two more event-loop turns), interleaved on the loaded
2-core bench machine (docs/mcp.md, Performance). Threads start on demand, up to ``limit`` (then calls wait in the queue),
and stay for the next call. A call whose awaiting task was cancelled before a thread took it is
dropped; one under way finishes on its thread and its result is dropped. The threads are daemons:
:meth:`CallThreads.aclose` waits for the calls under way (a write already sent finishes) and stops them.
"""

from __future__ import annotations

import asyncio
import contextvars
import queue
import threading
from collections.abc import Callable
from contextlib import suppress
from typing import Any, TypeVar

__all__ = ["CallThreads"]

T = TypeVar("T")
_Job = tuple[contextvars.Context, Callable[[], Any], asyncio.AbstractEventLoop, "asyncio.Future[Any]"]


def _settle(future: asyncio.Future[Any], ok: bool, value: Any) -> None:
    if future.done():  # cancelled while the call ran
        return
    if ok:
        future.set_result(value)
    else:
        future.set_exception(value)


class CallThreads:
    """Up to ``limit`` threads running sync callables for an asyncio event loop."""

    def __init__(self, limit: int, *, name: str = "packc-call") -> None:
        self.limit = limit
        self.name = name
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._free = 0  # threads not running a call: waiting for one, or about to
        self._queued = 0  # calls put and not yet taken
        self._busy = 0
        self._idle = threading.Condition(self._lock)

    async def run(self, fn: Callable[[], T]) -> T:
        """``fn()`` on a worker thread (the caller's context variables with it); its result or exception."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        with self._lock:
            self._queued += 1
            if self._queued > self._free and len(self._threads) < self.limit:
                thread = threading.Thread(
                    target=self._work, name=f"{self.name}-{len(self._threads)}", daemon=True
                )
                self._threads.append(thread)
                self._free += 1
                thread.start()
        self._jobs.put((contextvars.copy_context(), fn, loop, future))
        return await future

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            with self._lock:
                self._queued -= 1
                self._free -= 1
                if job is None:
                    return
                self._busy += 1
            context, fn, loop, future = job
            ok, value = True, None
            ran = not future.cancelled()  # a plain read; at worst a call cancelled just now still runs
            if ran:
                try:
                    value = context.run(fn)
                except BaseException as exc:  # handed to the awaiting task, as anyio.to_thread does
                    ok, value = False, exc
            with self._lock:  # free again before the caller wakes: its next call finds this thread
                self._busy -= 1
                self._free += 1
                self._idle.notify_all()
            if ran:
                with suppress(RuntimeError):  # the loop is closed: nobody awaits it any more
                    loop.call_soon_threadsafe(_settle, future, ok, value)

    def wait_idle(self) -> None:
        """Block until no call is under way."""
        with self._lock:
            self._idle.wait_for(lambda: self._busy == 0)

    async def aclose(self) -> None:
        """Wait for the calls under way, then stop the threads (they would otherwise wait for more)."""
        with self._lock:
            busy = self._busy
        if busy:
            await asyncio.get_running_loop().run_in_executor(None, self.wait_idle)
        with self._lock:
            threads, self._threads = self._threads, []
        for _ in threads:
            self._jobs.put(None)
