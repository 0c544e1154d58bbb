"""One wrap verb, run: the bin resolved, the argv built, the command run where its workspace mode
says, and what it printed made into the call's envelope."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from packc_runtime.calling.results import TRUNCATION_MARKER, Envelope, done_title, success
from packc_runtime.calling.send import Limits
from packc_runtime.calling.wrap.argv import build_argv
from packc_runtime.calling.wrap.process import environment, resolve_bin, run, working_dir
from packc_runtime.credentials.redact import Redactor
from packc_runtime.errors import CommandFailed
from packc_runtime.format.view import VerbView, WrapView

__all__ = ["run_verb"]

# Environment variables whose values are credentials: masked wherever the CLI's output shows them.
_SECRET_ENV = re.compile(r"TOKEN|SECRET|PASSW(OR)?D|API_?KEY|PRIVATE_KEY|CREDENTIAL", re.I)


def _result(stdout: bytes, truncated: bool, limit: int) -> Any:
    """JSON on stdout is the result; other text is returned as text (None when it printed nothing)."""
    text = stdout.decode("utf-8", "replace")
    if not truncated:
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            pass
    text = text.rstrip("\n")
    if truncated:
        return f"{text}\n{TRUNCATION_MARKER.format(limit=limit)}"
    return text or None


def run_verb(
    verb: str,
    declared: VerbView,
    args: Mapping[str, Any],
    *,
    wrap: WrapView,
    pack_dir: Path,
    pack_id: str,
    limits: Limits,
    environ: Mapping[str, str],
    project: Path | None,
    redactor: Redactor,
) -> Envelope:
    """Run ``verb`` (its args already validated, its confirmation already given) and return its envelope.

    Raises:
        InvalidPack, InvalidArgument, NoProject, Timeout, CommandFailed: as docs/runtime.md says.
    """
    deadline = time.monotonic() + limits.deadline
    bin_path = resolve_bin(pack_dir, wrap.bin, environ)
    json_flag = declared.json_flag if declared.json_flag is not None else wrap.json_flag
    argv = build_argv(bin_path, verb, declared.cli, wrap.argv_template, json_flag, args)
    env = environment(environ, wrap.agent_env)
    for name, value in env.items():
        if _SECRET_ENV.search(name):
            redactor.add_secret(value)
    mode = wrap.workspace.mode if wrap.workspace is not None else "none"
    with working_dir(
        mode, pack_dir=pack_dir, pack_id=pack_id, project=project, environ=environ, env=env
    ) as cwd:
        done = run(argv, cwd=cwd, env=env, deadline=deadline, max_bytes=limits.max_response_bytes)
    if done.returncode != 0:
        how = (
            f"was stopped by signal {-done.returncode}"
            if done.returncode < 0
            else f"exited with status {done.returncode}"
        )
        raise CommandFailed(
            f"{verb}: the wrapped CLI {how}.",
            exit_status=done.returncode,
            stderr=redactor.redact_text(done.stderr_tail) or None,
        )
    body = _result(done.stdout, done.truncated, limits.max_response_bytes)
    truncated = {"limit": limits.max_response_bytes} if done.truncated else None
    return success(verb, None, done_title(declared, args, body), body, truncated=truncated)
