"""The stdio transport of ``packc serve`` (imported by ``_server`` only): JSON-RPC lines on the
process's stdin and stdout, read and written by the event loop itself (asyncio pipe transports).

The SDK's ``stdio_server`` goes through ``anyio.wrap_file``: every line read, every write and every
flush is a worker-thread hop, three per tools/call, 0.3-0.7 ms of a call's time on the shared 2-core
bench machine (docs/mcp.md, Performance). This keeps the SDK's contract and changes only how the bytes move:

- the wire moves to private duplicates of fd 0 and fd 1; while serving, fd 0 reads the null device and
  fd 1 writes to stderr, so a stray print or a child process cannot corrupt the wire. Both, and their
  blocking mode (the pipe transports make the wire non-blocking), are restored on exit;
- one JSON-RPC message per line, decoded as UTF-8 with replacement and parsed by the SDK's adapter; a
  line that does not parse reaches the server as the exception (the SDK's dispatcher skips it);
- at end of input the server finishes and every answer already produced is written before exit.

``serve_stdio`` falls back to the SDK's transport when the loop is not asyncio, on Windows, or when
stdin or stdout is not a pipe, socket or terminal (``packc serve < requests.jsonl``).
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress

import anyio
import anyio.abc
import mcp_types as types
from mcp.shared._context_streams import ContextReceiveStream, ContextSendStream, create_context_streams
from mcp.shared.message import SessionMessage

__all__ = ["pipe_stdio", "pipes_usable"]

#: One message may be this long (a tools/call's arguments); a longer line is answered as a parse error.
MAX_LINE = 64 * 1024 * 1024


def pipes_usable() -> bool:
    """Whether :func:`pipe_stdio` can serve this process: asyncio on POSIX, fd 0 and 1 pipes, sockets or ttys."""
    if sys.platform == "win32":
        return False
    try:
        asyncio.get_running_loop()
        modes = [os.fstat(fd).st_mode for fd in (0, 1)]
    except (RuntimeError, OSError):
        return False
    return all(stat.S_ISFIFO(m) or stat.S_ISSOCK(m) or stat.S_ISCHR(m) for m in modes)


def _claim(fd: int, diversion: int) -> tuple[int, bool]:
    """The wire on a private descriptor (close-on-exec, above 2); ``fd`` now points at ``diversion``."""
    import fcntl

    private = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    blocking = os.get_blocking(private)
    os.dup2(diversion, fd)
    return private, blocking


def _restore(fd: int, private: int, blocking: bool) -> None:
    with suppress(OSError):
        os.set_blocking(private, blocking)
    with suppress(OSError):
        os.dup2(private, fd)
    with suppress(OSError):
        os.close(private)


@asynccontextmanager
async def pipe_stdio() -> AsyncIterator[
    tuple[ContextReceiveStream[SessionMessage | Exception], ContextSendStream[SessionMessage]]
]:
    """The server's read and write streams on the process's stdin and stdout (see the module's docstring)."""
    loop = asyncio.get_running_loop()
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        wire_in, in_blocking = _claim(0, null)
    finally:
        os.close(null)
    try:
        wire_out, out_blocking = _claim(1, 2)
    except OSError:
        _restore(0, wire_in, in_blocking)
        raise
    reader = asyncio.StreamReader(limit=MAX_LINE, loop=loop)
    read_transport: asyncio.BaseTransport | None = None
    writer: asyncio.StreamWriter | None = None
    try:
        # The transports own duplicates: closing them leaves the claimed descriptors for the restore.
        read_transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader, loop=loop),
            os.fdopen(os.dup(wire_in), "rb", buffering=0),
        )
        write_transport, protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, os.fdopen(os.dup(wire_out), "wb", buffering=0)
        )
        writer = asyncio.StreamWriter(write_transport, protocol, None, loop)
        inbox, read_stream = create_context_streams[SessionMessage | Exception](0)
        write_stream, outbox = create_context_streams[SessionMessage](0)

        async def read_lines(task_status: anyio.abc.TaskStatus[anyio.CancelScope]) -> None:
            with anyio.CancelScope() as scope:
                task_status.started(scope)
                async with inbox:
                    while True:
                        try:
                            line = await reader.readline()
                        except ValueError as exc:  # longer than MAX_LINE: the rest of it was dropped
                            await inbox.send(exc)
                            continue
                        except ConnectionError:
                            return
                        if not line:
                            return
                        try:
                            message = types.jsonrpc_message_adapter.validate_json(
                                line.decode("utf-8", errors="replace"), by_name=False
                            )
                        except Exception as exc:
                            await inbox.send(exc)
                            continue
                        await inbox.send(SessionMessage(message))

        async def write_lines() -> None:
            assert writer is not None
            async with outbox:
                async for item in outbox:
                    writer.write(
                        item.message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"
                    )
                    try:
                        await writer.drain()
                    except ConnectionError:  # the host closed our stdout: nobody reads the answers
                        reading.cancel()
                        return

        async with anyio.create_task_group() as tg:
            reading: anyio.CancelScope = await tg.start(read_lines)
            tg.start_soon(write_lines)
            try:
                yield read_stream, write_stream
            finally:
                reading.cancel()  # the writer still writes what the server sent, then sees its stream closed
                await write_stream.aclose()
    finally:
        if writer is not None:
            writer.close()  # every answer was drained before; nothing is left in its buffer
        if read_transport is not None:
            read_transport.close()
        _restore(1, wire_out, out_blocking)
        _restore(0, wire_in, in_blocking)
