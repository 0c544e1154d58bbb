"""Benchmark the runtime: CLI cold start vs ``import httpx``, in-process call vs a bare httpx.Client request.

Starts the echo test API with uvicorn on 127.0.0.1 and measures both sides in the same run.
Prints one line per measurement and the two ratios; exits 1 when a ratio misses its target
(cold start <= 1.5x, in-process <= 1.2x) and ``--check`` is given.
"""

from __future__ import annotations

import argparse
import compileall
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

import packc_runtime
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


def _cpu_seconds(argv: list[str]) -> float:
    """User + system CPU time of one child process: steady even when other processes load the machine."""
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise RuntimeError(f"{argv} exited {child.returncode}")
    return usage.ru_utime + usage.ru_stime


def _samples(run: Callable[[], object], repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        out.append(time.perf_counter() - started)
    return out


def _interleaved(
    a: Callable[[], object], b: Callable[[], object], rounds: int, per_round: int
) -> tuple[tuple[float, float], tuple[float, float]]:
    """(median, minimum) of a and of b, measured in alternating rounds so load drift hits both alike.

    The minimum is the run least disturbed by other processes: on a busy machine it is the
    steadier measure of what the code itself costs; both are printed.
    """
    sa: list[float] = []
    sb: list[float] = []
    for _ in range(rounds):
        sa.extend(_samples(a, per_round))
        sb.extend(_samples(b, per_round))
    return (statistics.median(sa), min(sa)), (statistics.median(sb), min(sb))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    options = parser.parse_args()
    python = sys.executable
    launcher = str(PACK / "bin" / "echo")
    # pip compiles an installed package's bytecode; this editable checkout may run with
    # PYTHONDONTWRITEBYTECODE=1, which would charge the runtime a source compile on every start.
    compileall.compile_dir(str(Path(packc_runtime.__file__).parent), quiet=1, force=False)
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
            options.rounds,
            4,
        )
        cpu_cli, cpu_httpx = [], []
        for _ in range(options.rounds * 4):
            cpu_cli.append(_cpu_seconds(cli))
            cpu_httpx.append(_cpu_seconds([python, "-c", "import httpx"]))
        with load_pack(PACK) as pack, httpx.Client() as client:
            args = {"item_id": "42", "limit": 5}
            target = server + "/echo/items/42?limit=5"
            for _ in range(20):  # warm both pools
                pack.call("items.get", args, server=server)
                client.get(target)
            call, bare = _interleaved(
                lambda: pack.call("items.get", args, server=server),
                lambda: client.get(target).json(),
                options.rounds,
                100,
            )
    cold_ratio = cold_cli[0] / cold_httpx[0]
    call_ratio = call[0] / bare[0]
    print("                                              median   (minimum)")
    print(
        f"cold start, CLI verb call (echo items get):   {cold_cli[0] * 1000:8.1f} ms  ({cold_cli[1] * 1000:.1f} ms)"
    )
    print(
        f"cold start, python -c 'import httpx':         {cold_httpx[0] * 1000:8.1f} ms  ({cold_httpx[1] * 1000:.1f} ms)"
    )
    print(
        f"ratio cold CLI / import httpx:                {cold_ratio:8.2f}x   ({cold_cli[1] / cold_httpx[1]:.2f}x)"
        "   target <= 1.5x"
    )
    cpu_ratio = statistics.median(cpu_cli) / statistics.median(cpu_httpx)
    print(f"cold start CPU time (user+sys), CLI call:     {statistics.median(cpu_cli) * 1000:8.1f} ms")
    print(f"cold start CPU time, import httpx:            {statistics.median(cpu_httpx) * 1000:8.1f} ms")
    print(f"ratio of CPU times:                           {cpu_ratio:8.2f}x   target <= 1.5x")
    print(f"in-process Pack.call:                         {call[0] * 1e6:8.0f} us  ({call[1] * 1e6:.0f} us)")
    print(f"bare httpx.Client GET, same server:           {bare[0] * 1e6:8.0f} us  ({bare[1] * 1e6:.0f} us)")
    print(
        f"ratio Pack.call / httpx.Client:               {call_ratio:8.2f}x   ({call[1] / bare[1]:.2f}x)"
        "   target <= 1.2x"
    )
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    if options.check and (cold_ratio > 1.5 or call_ratio > 1.2):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
