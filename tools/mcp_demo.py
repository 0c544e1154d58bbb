"""The MCP demo (``make demo-mcp``): the demo pack served to an MCP client, end to end.

Starts specs/demo/server.py on a free 127.0.0.1 port, compiles specs/demo/petstore.yaml into
out/mcp-demo against it, prints the Claude Desktop snippet, then plays the host: starts
``packc serve`` over stdio with the SDK's client, lists the tools and their annotations, calls a
read, calls a write that a scripted person approves in the elicitation form (the form is printed as
a host would show it), and calls a destructive write from a client that cannot ask a person, which
comes back as a preview with nothing sent. Exit 0 when every step did what it should, else 1.
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import Client, StdioServerParameters

ROOT = Path(__file__).resolve().parent.parent
OUT = Path(os.environ.get("PACKC_DEMO_OUT", "out/mcp-demo"))
API_KEY = "demo-key"
STEPS = 6


class DemoFailed(Exception):
    """A step did not do what it should."""


def say(text: str) -> None:
    print(text, flush=True)


def step(number: int, title: str) -> None:
    say(f"\n==> [{number}/{STEPS}] {title}")


def check(ok: bool, why: str) -> None:
    if not ok:
        raise DemoFailed(why)


def packc(*args: str) -> str:
    command = [sys.executable, "-m", "packc.cli", *args]
    say("$ packc " + shlex.join(args))
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    say(done.stdout.rstrip())
    if done.stderr.strip():
        say(done.stderr.rstrip())
    check(done.returncode == 0, f"packc {args[0]} exited {done.returncode}")
    return done.stdout


async def approve(ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    say("    ┌ the host shows the person this form:")
    for line in getattr(params, "message", "").splitlines():
        say(f"    │ {line}")
    say("    └ the person ticks yes")
    return types.ElicitResult(action="accept", content={"approve": True})


def show(result: types.CallToolResult) -> dict[str, Any]:
    text = (
        result.content[0].text if result.content and isinstance(result.content[0], types.TextContent) else ""
    )
    say(("  isError: " + str(result.is_error).lower()) + "\n  " + text[:600].replace("\n", "\n  "))
    return result.structured_content or {}


async def host(pack_dir: Path, url: str) -> None:
    # The key goes to the demo server only because the environment names its origin (a variable is
    # sent only where it is approved, `connect --approve-env`, or trusted).
    origin = url.rsplit("/", 1)[0] if url.endswith("/v1") else url
    env = {"PETSTORE_API_KEY": API_KEY, "PACKC_KEYRING": "off", "PACKC_TRUSTED_ORIGINS": origin}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "packc.cli", "serve", str(pack_dir)], env=env
    )
    say(
        f"$ PETSTORE_API_KEY={API_KEY} PACKC_TRUSTED_ORIGINS={origin} packc serve {pack_dir}"
        "    (started by the host over stdio)"
    )
    async with Client(params, elicitation_callback=approve) as client:
        step(3, "tools/list: one tool per verb, all four annotations from policy.json and the binding")
        tools = (await client.list_tools()).tools
        for tool in tools:
            a = tool.annotations
            assert a is not None
            say(
                f"  {tool.name:<14} readOnly={a.read_only_hint!s:<5} destructive={a.destructive_hint!s:<5} "
                f"idempotent={a.idempotent_hint!s:<5} openWorld={a.open_world_hint}"
            )
        check(len(tools) >= 5, "too few tools")
        step(4, "a read: pets.list")
        listed = show(await client.call_tool("pets.list", {"status": "available"}))
        check(listed.get("ok") is True, "pets.list failed")
        step(5, "a write the person approves: pets.create (sent only after the form says yes)")
        created = show(await client.call_tool("pets.create", {"name": "Biscuit", "species": "dog"}))
        check(created.get("status") == 201, "pets.create was not sent")
    async with Client(params) as client:  # this client declares no elicitation
        step(6, "a client that cannot ask a person: pets.delete comes back as its preview, nothing sent")
        preview = show(await client.call_tool("pets.delete", {"pet_id": created["body"]["id"]}))
        check(preview.get("error", {}).get("code") == "not_confirmed", "the delete was not stopped")
        still = show(await client.call_tool("pets.get", {"pet_id": created["body"]["id"]}))
        check(still.get("ok") is True, "the pet is gone: the delete was sent")
    say(f"\nDemo done: the server at {url} was called only for the reads and the approved write.")


def main() -> int:
    server = subprocess.Popen(
        [sys.executable, "specs/demo/server.py", "--port", "0", "--api-key", API_KEY],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        step(1, f"compile the demo API against its server at {url}")
        packc("compile", "specs/demo/petstore.yaml", "-o", str(OUT), "--server", url)
        pack_dir = (ROOT / OUT / "petstore").resolve()
        step(2, "the snippet that registers it in Claude Desktop (no secret in it)")
        snippet = json.loads(packc("serve", str(pack_dir), "--print-config", "claude-desktop"))
        check("petstore" in snippet["mcpServers"], "no petstore entry")
        asyncio.run(host(pack_dir, url))
    except (DemoFailed, subprocess.TimeoutExpired) as exc:
        say(f"\nDemo failed: {exc}")
        return 1
    finally:
        server.terminate()
        server.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
