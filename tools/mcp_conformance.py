"""``make conformance-mcp``: the official MCP conformance suite against ``packc serve --http``.

Starts the demo API server (specs/demo/server.py) and the demo pack served over streamable HTTP on
127.0.0.1, then runs ``@modelcontextprotocol/conformance server`` (installed by the Makefile under
.mcp-conformance/) against it: every active server scenario with the baseline of the ones a pack
server cannot pass by design (tools/mcp_conformance_node/baseline.yml says why), or only the
scenarios named with ``--scenario`` (the CI slice). Exits with the suite's code: 0 when nothing
failed that the baseline does not expect. Node < 22 lacks ``fs.globSync``, which the suite imports:
a resolve hook (tools/mcp_conformance_node/) supplies it. The server requires its bearer secret on
every request and the suite has no option for headers: the same hooks add it to the suite's fetch
and undici requests (``PACKC_MCP_BEARER``, read from the server's --token-file).

``--stateless`` runs the 2026-07-28 scenarios of the suite's pre-release (0.2.0-alpha.12, under
.mcp-conformance-next/; 0.1.16 has none) and reads every check: it fails on any failed check except
those the suite marks untestable (they call its own fixture tools) and the caching hints of
prompts/resources lists, which packc does not serve.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUITE = (
    ROOT / ".mcp-conformance" / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
)
NODE_DIR = ROOT / "tools" / "mcp_conformance_node"
#: The scenarios that apply to any pack server; CI runs these.
SLICE = ("server-initialize", "ping", "tools-list", "dns-rebinding-protection", "server-sse-multiple-streams")
NEXT_SUITE = (
    ROOT
    / ".mcp-conformance-next"
    / "node_modules"
    / "@modelcontextprotocol"
    / "conformance"
    / "dist"
    / "index.js"
)
#: The pre-release's scenarios of the stateless revision that do not need its fixture tools.
STATELESS = (
    "server-stateless",
    "tools-list",
    "http-header-validation",
    "caching",
    "dns-rebinding-protection",
    "server-sse-multiple-streams",
    "server-initialize",
    "server-session-lifecycle",
)
#: Checks about what packc does not serve (prompts, resources).
NOT_SERVED = frozenset(
    {
        "sep-2549-prompts-list-caching-hints",
        "sep-2549-resources-list-caching-hints",
        "sep-2549-resources-templates-list-caching-hints",
    }
)


def _node_env(secret: str) -> dict[str, str]:
    return {**os.environ, "PACKC_MCP_BEARER": secret}


def run_stateless(url: str, out_dir: Path, secret: str) -> int:
    """Every STATELESS scenario on the pre-release suite; 0 unless a check that applies failed."""
    import json

    for scenario in STATELESS:
        subprocess.run(
            [
                "node",
                "--import",
                str(NODE_DIR / "register.mjs"),
                str(NEXT_SUITE),
                "server",
                "--url",
                url,
                "-o",
                str(out_dir),
                "--scenario",
                scenario,
            ],
            cwd=ROOT,
            timeout=300,
            stdout=subprocess.DEVNULL,
            env=_node_env(secret),
        )
    counts = {"SUCCESS": 0, "WARNING": 0, "untestable": 0, "not served": 0}
    failed = []
    for path in sorted(out_dir.glob("server-*/checks.json")):
        for check in json.loads(path.read_text(encoding="utf-8")):
            status = check.get("status")
            if status == "FAILURE":
                if (check.get("details") or {}).get("untestable"):
                    counts["untestable"] += 1
                elif check.get("id") in NOT_SERVED:
                    counts["not served"] += 1
                else:
                    failed.append(f"{path.parent.name}: {check.get('id')}: {check.get('errorMessage')}")
            elif status in counts:
                counts[status] += 1
    print(
        f"stateless (2026-07-28) scenarios: {counts['SUCCESS']} checks passed, {len(failed)} failed, "
        f"{counts['WARNING']} warnings; not counted: {counts['untestable']} untestable (the suite's fixture "
        f"tools), {counts['not served']} about prompts/resources"
    )
    for line in failed:
        print("  FAILED " + line)
    return 1 if failed else 0


def run_suite(url: str, scenarios: Sequence[str], out_dir: Path, secret: str) -> int:
    base = [
        "node",
        "--import",
        str(NODE_DIR / "register.mjs"),
        str(SUITE),
        "server",
        "--url",
        url,
        "-o",
        str(out_dir),
    ]
    if not scenarios:
        return subprocess.run(
            [*base, "--expected-failures", str(NODE_DIR / "baseline.yml")],
            cwd=ROOT,
            timeout=900,
            env=_node_env(secret),
        ).returncode
    worst = 0
    for scenario in scenarios:  # the suite takes one --scenario at a time
        worst = max(
            worst,
            subprocess.run(
                [*base, "--scenario", scenario], cwd=ROOT, timeout=300, env=_node_env(secret)
            ).returncode,
        )
    return worst


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--scenario", action="append", default=[], help="run only this scenario (repeatable)")
    parser.add_argument("--slice", action="store_true", help="run the scenarios every pack server must pass")
    parser.add_argument(
        "--stateless", action="store_true", help="the 2026-07-28 scenarios of the pre-release suite"
    )
    parser.add_argument(
        "-o", "--out-dir", default="out/mcp-conformance", help="where the suite saves results"
    )
    opts = parser.parse_args(argv)
    suite = NEXT_SUITE if opts.stateless else SUITE
    if not suite.is_file():
        print(f"The suite is not installed at {suite}: run make conformance-mcp.", file=sys.stderr)
        return 2
    scenarios = list(SLICE) if opts.slice else opts.scenario
    api = subprocess.Popen(
        [sys.executable, "specs/demo/server.py", "--port", "0", "--api-key", "demo-key"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    serve: subprocess.Popen[str] | None = None
    try:
        assert api.stdout is not None
        api_url = api.stdout.readline().strip()
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "packc.cli",
                    "compile",
                    "specs/demo/petstore.yaml",
                    "-o",
                    tmp,
                    "--server",
                    api_url,
                ],
                cwd=ROOT,
                check=True,
                capture_output=True,
                timeout=120,
            )
            token = Path(tmp) / "mcp-token"
            serve = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "packc.cli",
                    "serve",
                    str(Path(tmp) / "petstore"),
                    "--http",
                    "127.0.0.1:0",
                    "--token-file",
                    str(token),
                ],
                cwd=ROOT,
                stderr=subprocess.PIPE,
                text=True,
                env={
                    **os.environ,
                    "PETSTORE_API_KEY": "demo-key",
                    "PACKC_KEYRING": "off",
                    "PACKC_TRUSTED_ORIGINS": api_url,
                },
            )  # the key goes there: named
            assert serve.stderr is not None
            match = None
            for line in serve.stderr:  # the URL line, after any warning printed first
                match = re.search(r"at (http://127\.0\.0\.1:\d+/mcp)", line)
                if match:
                    break
            if not match:
                print("packc serve did not start", file=sys.stderr)
                return 1
            print(f"packc serve: {match.group(1)} (demo API at {api_url})", flush=True)
            secret = token.read_text(encoding="utf-8").strip()
            if opts.stateless:
                return run_stateless(match.group(1), Path(tmp) / "results", secret)
            return run_suite(match.group(1), scenarios, ROOT / opts.out_dir, secret)
    finally:
        for proc in (serve, api):
            if proc is not None:
                proc.terminate()
                proc.wait(10)


if __name__ == "__main__":
    sys.exit(main())
