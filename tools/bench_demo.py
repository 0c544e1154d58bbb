"""Benchmark: what a pack costs over a plain HTTP request, measured on the demo API (prints ratios).

Compiles specs/demo/petstore.yaml, starts the demo server, then times the same read (GET one pet)
four ways: httpx in this process, ``Pack.call`` in this process, a fresh Python process doing one
httpx request, and the pack's own CLI (a fresh process, as an agent host runs it). Median of N runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
API_KEY = "demo-key"


def median_seconds(action: Callable[[], object], runs: int) -> float:
    action()  # warm up: connections, imports, caches
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args(argv)
    from packc_runtime.calling.pack import load_pack

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "packc.cli",
                "compile",
                str(ROOT / "specs/demo/petstore.yaml"),
                "-o",
                str(out),
            ],
            check=True,
            capture_output=True,
        )
        pack_dir = out / "petstore"
        server = subprocess.Popen(
            [sys.executable, str(ROOT / "specs/demo/server.py"), "--api-key", API_KEY],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert server.stdout is not None
            url = server.stdout.readline().strip()
            origin = url.rsplit("/", 1)[0]  # the key goes there because this names the origin
            env = {
                **os.environ,
                "PETSTORE_API_KEY": API_KEY,
                "PACKC_TRUSTED_ORIGINS": origin,
                "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            }
            os.environ["PETSTORE_API_KEY"] = API_KEY
            os.environ["PACKC_TRUSTED_ORIGINS"] = origin
            with httpx.Client(headers={"X-API-Key": API_KEY}) as client:
                raw = median_seconds(lambda: client.get(f"{url}/pets/1").raise_for_status(), args.runs)
            with load_pack(pack_dir) as pack:

                def via_pack() -> None:
                    if not pack.call("pets.get", {"pet_id": 1}, server=url)["ok"]:
                        raise RuntimeError("pets.get failed")

                in_pack = median_seconds(via_pack, args.runs)
            fresh = [
                sys.executable,
                "-c",
                "import httpx,sys; httpx.get(sys.argv[1], headers={'X-API-Key': "
                f"'{API_KEY}'}}).raise_for_status()",
                f"{url}/pets/1",
            ]
            raw_process = median_seconds(lambda: subprocess.run(fresh, check=True), args.runs)
            cli = [str(pack_dir / "bin" / "petstore"), "pets", "get", "1", "--server", url, "--json"]
            cli_process = median_seconds(
                lambda: subprocess.run(cli, check=True, env=env, capture_output=True), args.runs
            )
        finally:
            server.terminate()
            server.wait(10)
    print(f"bench_demo: GET one pet on 127.0.0.1, median of {args.runs}")
    print(f"  httpx, in process              {raw * 1000:8.2f} ms")
    print(f"  Pack.call, in process          {in_pack * 1000:8.2f} ms   ratio to httpx {in_pack / raw:6.2f}")
    print(f"  httpx, fresh python process    {raw_process * 1000:8.2f} ms")
    print(
        f"  pack CLI (bin/petstore)        {cli_process * 1000:8.2f} ms   ratio to fresh httpx "
        f"{cli_process / raw_process:6.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
