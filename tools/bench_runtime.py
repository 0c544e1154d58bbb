"""Benchmark the runtime: CLI cold start vs ``import httpx``, in-process call vs a bare httpx.Client request.

Starts the echo test API with uvicorn on 127.0.0.1 and measures both sides in the same run.
Prints one line per measurement and the two ratios; exits 1 when a ratio misses its target
(cold start <= 1.5x, in-process <= 1.2x) and ``--check`` is given.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from packc_runtime import load_pack

ROOT = Path(__file__).resolve().parents[1]
PACK = ROOT / "tests" / "fixtures" / "packs" / "echo"
# The server runs in its own process: in a thread it would share the GIL with the client under test.
SERVER = (
    "import sys, uvicorn\n"
    "sys.path.insert(0, {tests!r})\n"
    "from servers.echo_app import EchoApp\n"
    "uvicorn.run(EchoApp(), host='127.0.0.1', port={port}, log_level='warning', lifespan='off')\n"
)


@contextmanager
def serve() -> Iterator[str]:
    """The echo test API under uvicorn on 127.0.0.1 in a child process; yields its base URL."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code = SERVER.format(tests=str(ROOT / "tests"), port=port)
    child = subprocess.Popen([sys.executable, "-c", code])
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                httpx.get(url + "/api/echo/ready", timeout=1)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or child.poll() is not None:
                    raise RuntimeError("the echo server did not start") from None
                time.sleep(0.05)
        yield url
    finally:
        child.terminate()
        child.wait(10)


def _median_seconds(run: Callable[[], object], repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def _interleaved(a: Callable[[], object], b: Callable[[], object], rounds: int, per_round: int) -> tuple[float, float]:
    """Medians of a and b, measured in alternating rounds so drift hits both alike."""
    sa, sb = [], []
    for _ in range(rounds):
        sa.append(_median_seconds(a, per_round))
        sb.append(_median_seconds(b, per_round))
    return statistics.median(sa), statistics.median(sb)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    options = parser.parse_args()
    python = sys.executable
    launcher = str(PACK / "bin" / "echo")
    with serve() as url:
        server = url + "/api"
        cli = [python, launcher, "items", "get", "42", "--limit", "5", "--server", server, "--json"]
        check = subprocess.run(cli, capture_output=True, text=True, check=False)
        if '"ok": true' not in check.stdout:
            print(f"the CLI call failed: {check.stdout}{check.stderr}")
            return 1
        cold_cli, cold_httpx = _interleaved(
            lambda: subprocess.run(cli, capture_output=True, check=True),
            lambda: subprocess.run([python, "-c", "import httpx"], capture_output=True, check=True),
            options.rounds, 5)
        with load_pack(PACK) as pack, httpx.Client() as client:
            args = {"item_id": "42", "limit": 5}
            target = server + "/echo/items/42?limit=5"
            for _ in range(20):  # warm both pools
                pack.call("items.get", args, server=server)
                client.get(target)
            call, bare = _interleaved(
                lambda: pack.call("items.get", args, server=server),
                lambda: client.get(target).json(),
                options.rounds, 100)
    cold_ratio = cold_cli / cold_httpx
    call_ratio = call / bare
    print(f"cold start, CLI verb call (echo items get):   {cold_cli * 1000:8.1f} ms")
    print(f"cold start, python -c 'import httpx':         {cold_httpx * 1000:8.1f} ms")
    print(f"ratio cold CLI / import httpx:                {cold_ratio:8.2f}x   (target <= 1.5x)")
    print(f"in-process Pack.call:                         {call * 1e6:8.0f} us")
    print(f"bare httpx.Client GET, same server:           {bare * 1e6:8.0f} us")
    print(f"ratio Pack.call / httpx.Client:               {call_ratio:8.2f}x   (target <= 1.2x)")
    if options.check and (cold_ratio > 1.5 or call_ratio > 1.2):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
