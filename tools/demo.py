"""The demo (``make demo``): compile the demo API into a pack and use it against its local server.

Every step runs the real command as a subprocess and prints it first, so the person sees what they
would type: compile specs/demo/petstore.yaml into out/demo, start specs/demo/server.py on a free
127.0.0.1 port, ``packc lint`` and ``packc commands`` the pack, call a read verb through the pack's
own CLI with the key in the pack's documented environment variable, show a write verb's preview
(not confirmed, so nothing is sent), confirm it, and read the result back. The server is stopped
on the way out, whatever happened. Exit 0 when every step did what it should, else 1.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SPEC = Path("specs/demo/petstore.yaml")
SERVER = Path("specs/demo/server.py")
OUT = Path(os.environ.get("PACKC_DEMO_OUT", "out/demo"))  # tests point it at a temporary directory
API_KEY = "demo-key"
BINDING = "x-packc-binding"
STEPS = 8


class DemoFailed(Exception):
    """A step did not do what it should; the message says which and why."""


def say(text: str) -> None:
    print(text, flush=True)


def step(number: int, title: str) -> None:
    say(f"\n==> [{number}/{STEPS}] {title}")


def packc() -> list[str]:
    """The ``packc`` command of this environment (the venv's script, else the module)."""
    script = Path(sys.executable).parent / "packc"
    return [str(script)] if script.exists() else [sys.executable, "-m", "packc.cli"]


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    # The pack's bin/ launcher runs `python3` from PATH: put this venv first, as `activate` would.
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.pop("PYTHONPATH", None)
    return {**env, **(extra or {})}


def run(
    shown: list[str],
    actual: list[str] | None = None,
    *,
    env: dict[str, str] | None = None,
    expect: tuple[int, ...] = (0,),
    shown_env: str = "",
) -> int:
    """Print ``$ command``, run it with its output going straight to the person, check the exit code."""
    say("$ " + shown_env + shlex.join(shown))
    code = subprocess.run(
        actual or shown, cwd=ROOT, env=env or child_env(), stdin=subprocess.DEVNULL
    ).returncode
    if code not in expect:
        raise DemoFailed(
            f"`{shlex.join(shown)}` exited with {code} (expected {' or '.join(map(str, expect))})"
        )
    return code


def find_pack(out: Path) -> Path:
    packs = sorted(p.parent for p in out.rglob("surface.json"))
    if len(packs) != 1:
        raise DemoFailed(f"expected one pack under {out}, found {len(packs)}")
    return packs[0]


def verbs_by_operation(pack: Path) -> dict[str, str]:
    """operationId -> verb name, read from the x-packc-binding extensions of the pack's document."""
    document = json.loads((pack / "openapi.json").read_text(encoding="utf-8"))
    out: dict[str, str] = {}
    for item in document.get("paths", {}).values():
        for op in item.values() if isinstance(item, dict) else []:
            if isinstance(op, dict) and isinstance(op.get(BINDING), dict) and op.get("operationId"):
                out[op["operationId"]] = op[BINDING]["verb"]
    return out


def fill(cli: list[str], args: dict[str, Any]) -> list[str]:
    """A verb's ``cli`` template filled with args; a missing value drops its token and the flag before it."""
    out: list[str] = []
    for token in cli:
        if token.startswith("{{") and token.endswith("}}"):
            name = token[2:-2]
            if name in args:
                value = args[name]
                out.append(value if isinstance(value, str) else json.dumps(value))
            elif out and out[-1].startswith("--"):
                out.pop()
        else:
            out.append(token)
    return out


def example_args(verb: dict[str, Any]) -> dict[str, Any]:
    props = (verb.get("args") or {}).get("properties") or {}
    return {name: p["examples"][0] for name, p in props.items() if isinstance(p, dict) and p.get("examples")}


def credential_env(pack: Path) -> dict[str, str]:
    """The pack's documented API-key variable, set to the demo server's key."""
    from packc_runtime.credentials.slots import credential_slots
    from packc_runtime.format.manifest import read_manifest

    manifest, problems = read_manifest(pack)
    if manifest is None:
        raise DemoFailed("surface.json does not read: " + "; ".join(str(p) for p in problems))
    document = json.loads((pack / "openapi.json").read_text(encoding="utf-8"))
    slots = [s for s in credential_slots(manifest, document) if s.kind == "api_key"]
    if not slots:
        raise DemoFailed("the pack documents no API-key variable")
    return {slot.env: API_KEY for slot in slots}


def count_pets(url: str) -> int:
    """How many pets the server holds (a check behind the scenes, not a step the person needs)."""
    import httpx

    answer = httpx.get(f"{url}/pets", params={"limit": 100}, headers={"X-API-Key": API_KEY}, timeout=10)
    answer.raise_for_status()
    return len(answer.json())


def start_server() -> tuple[subprocess.Popen[str], str]:
    shown = ["python", str(SERVER), "--port", "0"]
    say("$ " + shlex.join(shown) + " &")
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), "--port", "0", "--api-key", API_KEY],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    url = proc.stdout.readline().strip()
    if not url.startswith("http://127.0.0.1:"):
        raise DemoFailed(f"the demo server did not start (it printed {url!r})")
    say(url)
    return proc, url


def demo() -> None:
    step(1, f"Compile {SPEC} into a pack")
    shutil.rmtree(ROOT / OUT, ignore_errors=True)
    run(["packc", "compile", str(SPEC), "-o", str(OUT)], [*packc(), "compile", str(SPEC), "-o", str(OUT)])
    pack = find_pack(ROOT / OUT)
    pack = pack.relative_to(ROOT) if pack.is_relative_to(ROOT) else pack
    say(f"pack: {pack}/ holds " + ", ".join(sorted(p.name for p in (ROOT / pack).iterdir())))

    step(2, "Start the demo API server on 127.0.0.1 (a free port)")
    server, url = start_server()
    try:
        step(3, "Lint the pack")
        run(["packc", "lint", str(pack)], [*packc(), "lint", str(pack)])

        step(4, "List the pack's commands")
        run(["packc", "commands", str(pack)], [*packc(), "commands", str(pack)])

        manifest = json.loads((ROOT / pack / "surface.json").read_text(encoding="utf-8"))
        verbs = manifest["verbs"]
        by_op = verbs_by_operation(ROOT / pack)
        # The key goes to the demo server's origin only because the environment names that origin:
        # a variable is sent only where the user approved it (`connect --approve-env`) or trusts it.
        origin = url.rsplit("/", 1)[0]
        keys = credential_env(ROOT / pack)
        creds = {**keys, "PACKC_TRUSTED_ORIGINS": origin}
        shown_env = " ".join(f"{k}={v}" for k, v in creds.items()) + " "
        env = child_env(creds)
        launcher = str(pack / "bin" / manifest["cliBin"])

        def line(operation: str, args: dict[str, Any] | None, *flags: str) -> list[str]:
            # args None: each argument's first example, as `packc commands` shows it.
            verb = verbs[by_op[operation]]
            filled = fill(verb["cli"], example_args(verb) if args is None else args)
            return [launcher, *filled[1:], "--server", url, *flags]

        step(5, f"Read: call {by_op['getPet']} through the pack's own CLI, key in {', '.join(keys)}")
        run(line("getPet", None), env=env, shown_env=shown_env)

        step(6, f"Write, unconfirmed: {by_op['createPet']} only shows what it would do; nothing is sent")
        before = count_pets(url)
        run(line("createPet", None), env=env, shown_env=shown_env, expect=tuple(range(0, 256)))
        if count_pets(url) != before:
            raise DemoFailed("the unconfirmed write reached the server")

        step(7, f"Write, confirmed: {by_op['createPet']} --confirm sends it")
        run(line("createPet", None, "--confirm"), env=env, shown_env=shown_env)
        if count_pets(url) != before + 1:
            raise DemoFailed("the confirmed write did not add a pet")

        step(8, f"Read it back: {by_op['listPets']}")
        run(line("listPets", {"status": "available", "sort": "name"}), env=env, shown_env=shown_env)
    finally:
        server.terminate()
        server.wait(10)
        say(f"\n(demo server at {url} stopped)")


def main() -> int:
    os.chdir(ROOT)
    try:
        demo()
    except DemoFailed as exc:
        say(f"\ndemo failed: {exc}")
        return 1
    except KeyboardInterrupt:
        return 130
    say(f"\nDone. The pack is in {OUT}/; its README.md and HARNESS.md say how to use it.")
    say(
        'To type packc yourself, put it on PATH: . .venv/bin/activate (or export PATH="$PWD/.venv/bin:$PATH").'
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
