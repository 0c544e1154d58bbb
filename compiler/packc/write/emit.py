"""Emit: write a pack directory (surface.json, policy.json, openapi.json, HARNESS.md, README.md, bin/)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from packc.build.derive import DerivedVerb
from packc.text import clean, inline_md, sentence, shorten
from packc.write._files import check_maker, write_tree
from packc.write._repo import repo_files
from packc.write._skill import allowed_values, credential_lines
from packc_runtime.credentials.slots import CredentialSlot, credential_slots
from packc_runtime.format.identifiers import PackId
from packc_runtime.format.launcher import LAUNCHER
from packc_runtime.format.manifest import Manifest, Policy, dump_json
from packc_runtime.format.templating import SHOWN_OPTIONAL, example_line
from packc_runtime.text.escaping import fenced_line, md_code, yaml_scalar

__all__ = ["COMMAND_WORDS", "LAUNCHER", "PackOutput", "check_maker", "render_pack", "write_pack"]

OPENAPI_FILE = "openapi.json"
_T = TypeVar("_T")

_ERRORS: tuple[tuple[str, str], ...] = (
    (
        "unknown_argument, missing_argument, invalid_argument",
        "Fix the arguments as the message says; the verb list above shows each one.",
    ),
    (
        "not_confirmed",
        "A write verb was called without --confirm. Show the preview to a person; run again with --confirm only after they agree.",
    ),
    (
        "missing_credentials",
        "Ask a person to set the environment variables under Setup, or to run the connect command there.",
    ),
    (
        "unapproved_credentials",
        "A variable is set but not approved for this API's server. Ask a person to check the origin in the message and run the command it names; do not run it yourself.",
    ),
    (
        "unauthorized, forbidden",
        "The credentials are wrong, expired or lack a permission. Ask the person to check them; do not retry blindly.",
    ),
    ("not_found", "The item does not exist. Check the identifier, e.g. with a list verb."),
    ("rate_limited", "Wait (the error may say how long) and try again once."),
    (
        "request_rejected",
        "The API refused the request (a 4xx answer). Read the message and change the arguments.",
    ),
    (
        "upstream_error, timeout, connection_failed",
        "The API or the network failed. Try again later; report it if it persists.",
    ),
    (
        "invalid_response, unsafe_redirect, invalid_server",
        "Something is wrong on the API side or in the server URL. Do not retry; report it.",
    ),
)


@dataclass(frozen=True, slots=True)
class PackOutput:
    """Everything one pack directory holds, before it is written."""

    manifest: Manifest
    policy: Policy
    document: Mapping[str, Any]
    verbs: tuple[DerivedVerb, ...]
    about: str  # one cleaned sentence on what the API is for
    task: str | None = None  # --for: the task the pack was made for
    unmet: tuple[str, ...] = ()  # the parts of it no operation clearly does


def _task_lines(pack: PackOutput) -> list[str]:
    """What a --for pack was made for, and what of it no operation clearly does (the user's own text,
    through ``inline_md``, the one Markdown escaping layer)."""
    if not pack.task:
        return []
    task = inline_md(pack.task)
    line = f"Made for the task: {task}{'' if task.endswith(('.', '!', '?')) else '.'}"
    if pack.unmet:
        line += (
            " No operation of the API clearly does "
            + "; ".join(f"'{inline_md(u)}'" for u in pack.unmet)
            + ": do not guess it with another verb, ask the person."
        )
    return [line, ""]


def _example(verb: DerivedVerb) -> str:
    """A ready-to-run line: the required arguments and the few optional ones that matter, from their
    first examples (the same line ``packc commands`` prints)."""
    return example_line(verb.verb.cli or [], verb.verb.args or {}, optional=SHOWN_OPTIONAL)


# What each of the pack CLI's own commands (RESERVED_VERBS) does, for the paragraph below.
COMMAND_WORDS = {
    "help": "lists the verbs",
    "connect": "stores credentials",
    "mcp": "serves the pack over MCP",
}


def _command_words(pack: PackOutput, cli_bin: str) -> list[str]:
    """A paragraph when a verb starts with one of the pack CLI's own words (``help.list`` of a /help
    resource): its words call it, and the word alone stays the command (docs/runtime.md); else none."""
    verb = next((v for v in pack.verbs if v.name.split(".")[0] in COMMAND_WORDS), None)
    if verb is None:
        return []
    word = verb.name.split(".")[0]
    return [
        f"{md_code(cli_bin + ' ' + verb.name.replace('.', ' '))} calls {md_code(verb.name)}: a verb's words come "
        f"first, and {md_code(cli_bin + ' ' + word)} alone {COMMAND_WORDS[word]} "
        f"({md_code(cli_bin + ' -- <verb words>')} always calls a verb).",
        "",
    ]


def _slots(pack: PackOutput) -> list[CredentialSlot]:
    return credential_slots(pack.manifest, pack.document)


def _verb_section(v: DerivedVerb) -> list[str]:
    lines = [
        f"### {md_code(v.name)}",
        "",
        inline_md(v.verb.description or ""),
        "",
        "```sh",
        fenced_line(_example(v)),
        "```",
        "",
    ]
    props = (v.verb.args or {}).get("properties", {})
    required = set((v.verb.args or {}).get("required", []))
    if props:
        lines.append("Arguments:")
        lines.append("")
        for name, prop in props.items():
            kind = prop.get("type", "any") if isinstance(prop, Mapping) else "any"
            kind = "/".join(kind) if isinstance(kind, list) else str(kind)
            text = inline_md(prop.get("description", "")) if isinstance(prop, Mapping) else ""
            need = "required" if name in required else "optional"
            values = allowed_values(prop)
            text = f"{text} {values}".strip() if values else text
            lines.append(f"- {md_code(str(name))} ({inline_md(kind)}, {need}){': ' + text if text else ''}")
        lines.append("")
    return lines


def _confirm_lines(verbs: Sequence[DerivedVerb]) -> list[str]:
    writes = [v for v in verbs if v.access == "write"]
    if not writes:
        return ["Every verb only reads: none needs a person's confirmation.", ""]
    lines = [
        "These verbs change something. Called without `--confirm` they send nothing and return a preview "
        "card; show it to a person and run the same line with `--confirm` only after they agree.",
        "",
    ]
    for v in writes:
        p = v.verb.preview
        shown = ", ".join(md_code(str(k)) for k in (p.fields or {})) if p else ""
        extra = " It cannot be undone." if v.destructive else ""
        lines.append(
            f"- {md_code(v.name)}: a {inline_md(p.kind) if p else 'fields'} preview"
            f"{' showing ' + shown if shown else ''}.{extra}"
        )
    return [*lines, ""]


def render_harness(pack: PackOutput) -> str:
    """HARNESS.md: the skill file an agent reads.

    Every piece of text from the document goes through one escaping function of
    ``packc_runtime.text.escaping``, chosen by where it lands (``inline_md`` is ``md_text`` after ``clean``).
    """
    m = pack.manifest
    cli_bin = m.cliBin or m.id
    name = clean(m.name or m.id)
    base, _, group = name.partition(": ")
    api = base if base.lower().endswith("api") else f"{base} API"
    api += f" ({group})" if group else ""
    description = shorten(f"Call the {api} through {len(pack.verbs)} verbs with the {cli_bin} command.", 200)
    lines = [
        "---",
        f"name: {yaml_scalar(m.id)}",
        f"description: {yaml_scalar(description)}",
        "---",
        "",
        f"# {inline_md(name)}",
        "",
    ]
    lines += [
        inline_md(pack.about) if pack.about else f"This pack calls the {inline_md(name)} API.",
        "",
        *_task_lines(pack),
        f"Run {md_code(f'{cli_bin} <verb words> [arguments]')}; add `--json` for a JSON envelope "
        '(`{"ok": true, "status": ..., "body": ...}` or `{"ok": false, "error": {"code": ...}}`).',
        "",
    ]
    lines += _command_words(pack, cli_bin)
    lines += ["## Setup", ""]
    slots = _slots(pack)
    if slots:
        lines += [
            f"Have a person store them once with {md_code(cli_bin + ' connect')} (it prompts without echo and "
            "keeps them in the OS keyring for this API's server), or set these environment variables and have a "
            f"person approve them once for the server with {md_code(cli_bin + ' connect --approve-env')}:",
            "",
        ]
        lines += credential_lines(slots, pack.document)
    else:
        lines += ["No credentials are needed.", ""]
    lines += ["## Verbs", ""]
    for v in pack.verbs:
        lines += _verb_section(v)
    lines += ["## Confirmation", "", *_confirm_lines(pack.verbs)]
    lines += ["## Errors", "", "| code | what to do |", "|---|---|"]
    lines += [f"| {codes} | {what} |" for codes, what in _ERRORS]
    return "\n".join(lines) + "\n"


def _install_lines(cli_bin: str) -> list[str]:
    """A pack repo's install step: it needs packc-runtime, which comes from a packc checkout."""
    return [
        "## Install",
        "",
        "```sh",
        fenced_line("python3 -m venv .venv && . .venv/bin/activate"),
        fenced_line(
            "pip install PATH/TO/packc/runtime .   # packc-runtime (from a packc checkout), then this pack"
        ),
        fenced_line(f"{cli_bin} --help"),
        "```",
        "",
        f"{md_code('pip install .')} puts {md_code(cli_bin)} on the environment's PATH; the runtime comes "
        "from the `runtime/` folder of a packc checkout (it is not on a package index). Without installing, "
        f"{md_code('bin/' + cli_bin)} runs the pack in place with any Python that has the runtime.",
        "",
    ]


def render_readme(pack: PackOutput, *, repo: bool = False) -> str:
    """README.md: the pack for a person (escaped as HARNESS.md is); with ``repo``, how to install it."""
    m = pack.manifest
    cli_bin = m.cliBin or m.id
    name = inline_md(clean(m.name or m.id))
    lead = (inline_md(pack.about) + " ") if pack.about else ""
    lines = [
        f"# {name} pack",
        "",
        f"{lead}Generated by packc from the API's OpenAPI document; the cut-down copy is `{OPENAPI_FILE}`.",
        "",
        *_task_lines(pack),
        *(_install_lines(cli_bin) if repo else []),
        "## Credentials",
        "",
    ]
    slots = _slots(pack)
    if slots:
        lines += [f"- {md_code(s.env)}: {inline_md(s.description)}" for s in slots]
        lines += [
            "",
            f"Store them once with {md_code(cli_bin + ' connect')} (prompts without echo; OS keyring, else "
            "an owner-only file; bound to this API's server origin), or set them in the environment and approve "
            f"them once for that origin with {md_code(cli_bin + ' connect --approve-env')} "
            f"({md_code(cli_bin + ' connect --list')} shows the origin).",
            "",
        ]
    else:
        lines += ["None: the API is public.", ""]
    lines += ["## Verbs", "", "| verb | access | what it does |", "|---|---|---|"]
    for v in pack.verbs:
        access = v.access + (", destructive" if v.destructive else "")
        lines.append(
            f"| {md_code(v.name, in_table=True)} | {access} | {inline_md(v.verb.description or '')} |"
        )
    lines += ["", "## Run a verb", "", "```sh"]
    lines += [fenced_line(_example(v)) for v in pack.verbs[:3]]
    lines += [
        "```",
        "",
        "Write verbs return a preview until you add `--confirm`. `--server URL` calls another "
        "server; `--json` prints the result envelope.",
        "",
        *_command_words(pack, cli_bin),
    ]
    if "mcp" in (m.transports or []):
        lines += [
            "## Use from an MCP host",
            "",
            f"{md_code(cli_bin + ' mcp')} serves these verbs as MCP tools over stdio (it needs "
            f"`pip install 'packc-runtime[mcp]'`); {md_code(cli_bin + ' mcp --print-config claude-desktop')} "
            "prints the entry for the host's configuration (also claude-code, cursor, windsurf, gemini-cli, "
            "vscode). Write verbs are sent only after a person approves the preview in the host.",
            "",
        ]
    return "\n".join(lines) + "\n"


def render_pack(pack: PackOutput, *, repo: bool = False) -> dict[str, tuple[str, int]]:
    """Every file of the pack: relative path → (text, mode); with ``repo``, the repo files too."""
    m = pack.manifest
    cli_bin = m.cliBin or m.id
    extra = repo_files(m) if repo else {}
    return extra | {
        "surface.json": (dump_json(m.to_json()), 0o644),
        "policy.json": (dump_json(pack.policy.to_json()), 0o644),
        OPENAPI_FILE: (dump_json(pack.document), 0o644),
        "HARNESS.md": (render_harness(pack), 0o644),
        "README.md": (render_readme(pack, repo=repo), 0o644),
        f"bin/{cli_bin}": (LAUNCHER, 0o755),
    }


def write_pack(
    out_dir: Path,
    pack: PackOutput,
    *,
    repo: bool = False,
    check: Callable[[Path], _T] | None = None,
    made_by: Mapping[str, Any] | None = None,
    force: bool = False,
) -> tuple[Path, _T | None]:
    """Write the pack as ``out_dir/<id>/`` (see ``packc.write._files``); returns it and what ``check`` found.

    ``check`` (lint) runs on the new files before they replace an earlier pack that packc wrote.
    ``made_by`` (the API, task and split of the compile) goes in the marker; an earlier pack another
    compile made is replaced only with ``force``.

    Raises:
        UsageError: for a path outside ``out_dir``, a directory packc did not write, or a disk error.
    """
    files = render_pack(pack, repo=repo)
    return write_tree(out_dir, PackId(pack.manifest.id), files, check, made_by=made_by, force=force)


def about(text: str) -> str:
    """One sentence on what the API is for, from its description."""
    return sentence(text, 240)
