"""Hostile HTTP servers on 127.0.0.1 for the runtime's security tests (raw sockets, bounded in time)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def trickling_server(interval: float = 0.25, lines: int = 400) -> Iterator[str]:
    """A server that answers every connection with a status line, then one header line per ``interval``.

    It never finishes the head (at most ``lines`` lines, so it stops by itself); yields its base URL.
    """
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.2)
    stop = threading.Event()

    def trickle(conn: socket.socket) -> None:
        with conn:
            try:
                conn.settimeout(5)
                conn.recv(65536)  # the request head
                conn.sendall(b"HTTP/1.1 200 OK\r\n")
                for i in range(lines):
                    if stop.wait(interval):
                        return
                    conn.sendall(b"X-Trickle-%d: %s\r\n" % (i, b"x" * 20))
            except OSError:  # the client hung up: what the test wants
                return

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            threading.Thread(target=trickle, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(5)
        listener.close()


def elapsed(start: float) -> float:
    return time.monotonic() - start
