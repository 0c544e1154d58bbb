"""The ``packc`` command: parse flags, call one library function, print, map to an exit code.

Each subcommand is a ``_cmd_<name>(args) -> int`` function registered in ``_build_parser``.
Library code never prints; this module is the only place the compiler writes to stdout/stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from packc.errors import PackcError, UsageError
from packc_runtime.diagnostics import Diagnostic
from packc_runtime.text.terminal import for_terminal

if TYPE_CHECKING:
    from packc.options import CompileOptions

__all__ = ["EXIT_FINDINGS", "EXIT_OK", "EXIT_USAGE", "main"]

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2


def _print_diagnostics(diagnostics: Sequence[Diagnostic], *, stream: TextIO | None = None) -> None:
    out = stream or sys.stderr
    for diagnostic in diagnostics:
        print(str(diagnostic), file=out)


def _cmd_lint(args: argparse.Namespace) -> int:
    from packc.lint import lint_pack

    pack_dir = Path(args.dir)
    if not pack_dir.is_dir():
        print(f"packc lint: {pack_dir} is not a directory", file=sys.stderr)
        return EXIT_USAGE
    findings = lint_pack(pack_dir)
    errors = sum(1 for f in findings if f.level == "error")
    warnings = len(findings) - errors
    if args.json:
        print(
            json.dumps(
                {
                    "pack": str(pack_dir),
                    "errors": errors,
                    "warnings": warnings,
                    "findings": [f.to_json() for f in findings],
                },
                indent=2,
            )
        )
    else:
        for finding in findings:
            print(str(finding))
        print(f"{pack_dir}: {errors} error(s), {warnings} warning(s)")
    return EXIT_FINDINGS if errors else EXIT_OK


def _cmd_commands(args: argparse.Namespace) -> int:
    from packc.commands import list_commands

    pack_dir = Path(args.dir)
    if not pack_dir.is_dir():
        print(f"packc commands: {pack_dir} is not a directory", file=sys.stderr)
        return EXIT_USAGE
    listing, diagnostics = list_commands(pack_dir)
    if diagnostics:
        _print_diagnostics(diagnostics)
        return EXIT_FINDINGS
    if args.json:
        print(json.dumps([entry.to_json() for entry in listing], indent=2, ensure_ascii=False))
    else:
        for entry in listing:
            print(f"{entry.verb}  [{entry.access}]")
            if entry.description:
                print(f"    {entry.description}")
            if entry.line:
                print(f"    $ {entry.line}")
    return EXIT_OK


def _print_plan_text(plan: Any) -> None:
    for pack in plan.packs:
        print(f"pack {pack.id} ({len(pack.verbs)} verbs)")
        for v in pack.verbs:
            print(f"  {v.name:<32} {v.op.method.upper():<7} {v.op.path}   score {v.score}")
            if v.reasons:
                print(f"      {', '.join(v.reasons)}")
    if plan.left_out:
        print(f"left out ({len(plan.left_out)}):")
        for lo in plan.left_out:
            print(f"  {lo.name:<32} {lo.op.method.upper():<7} {lo.op.path}   {lo.reason}")


def _options(args: argparse.Namespace) -> CompileOptions:
    """The options of ``packc compile`` or ``packc plan``, made once from the flags: each flag's
    ``dest`` is the name of the option it sets (a flag ``plan`` lacks keeps the option's default)."""
    from packc.options import CompileOptions

    given = {f.name: getattr(args, f.name) for f in fields(CompileOptions) if hasattr(args, f.name)}
    return CompileOptions(**given)


_LISTING_FLAGS = ("resource", "search", "care", "page", "per_page")


def _cmd_plan(args: argparse.Namespace) -> int:
    if args.write_choice:
        return _write_choice(args)
    if args.compact or any(getattr(args, flag) is not None for flag in _LISTING_FLAGS):
        return _plan_listing(args)
    from packc.pipeline import plan_source

    plan = plan_source(args.source, options=_options(args))
    if args.json:
        print(json.dumps(plan.to_json(), indent=2, ensure_ascii=False))
    else:
        _print_plan_text(plan)
        _print_diagnostics(plan.diagnostics)
    return EXIT_FINDINGS if any(d.level == "error" for d in plan.diagnostics) else EXIT_OK


def _plan_listing(args: argparse.Namespace) -> int:
    from packc.listing import Query, list_plan

    given = {flag: getattr(args, flag) for flag in _LISTING_FLAGS if getattr(args, flag) is not None}
    page = list_plan(args.source, Query(**given), _options(args))
    if args.json:
        print(
            page.compact_json() if args.compact else json.dumps(page.to_json(), indent=2, ensure_ascii=False)
        )
        return EXIT_OK
    for row in page.rows:
        if args.compact:
            print("\t".join(str(value) for value in row.line()))
        else:
            kept = f"in {row.pack}" if row.pack else f"left out: {row.reason}"
            print(f"#{row.rank:<5} {row.verb:<32} {row.method:<7} {row.path}   [{row.care}]  {kept}")
            if row.summary:
                print(f"       {row.summary}")
    print(
        f"page {page.page} of {page.pages}: {len(page.rows)} shown, {page.matched} of "
        f"{page.total} operations match",
        file=sys.stderr,
    )
    return EXIT_OK


def _write_choice(args: argparse.Namespace) -> int:
    from packc.choice import write_choice

    plan, stub = write_choice(args.source, args.write_choice, _options(args))
    if args.json:
        print(json.dumps({"ok": True, "choice": args.write_choice, **stub}, indent=2, ensure_ascii=False))
    else:
        print(f"{args.write_choice}: {len(stub['verbs'])} verbs of {stub['id']}: {', '.join(stub['verbs'])}")
        print(f"compile it with: packc compile {args.write_choice}", file=sys.stderr)
    _print_diagnostics([d for d in plan.diagnostics if d.level == "error"])
    return EXIT_OK


def _cmd_skill(args: argparse.Namespace) -> int:
    from packc.skill import install_skill, skill_text

    if args.install is None:
        sys.stdout.write(skill_text())
        return EXIT_OK
    print(f"installed {install_skill(args.install, force=args.force)}")
    return EXIT_OK


def _cmd_compile(args: argparse.Namespace) -> int:
    from packc.pipeline import compile as compile_source

    result = compile_source(args.source, options=_options(args))
    if args.json:
        print(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
    else:
        for pack in result.packs:
            print(f"{pack.id}: {len(pack.verbs)} verbs -> {pack.directory}")
        _print_diagnostics(result.diagnostics)
        errors = sum(1 for d in result.diagnostics if d.level == "error")
        print(
            f"{len(result.packs)} pack(s), {len(result.left_out)} operation(s) left out, "
            f"{errors} error(s), {len(result.diagnostics) - errors} warning(s)"
        )
    return EXIT_OK if result.ok else EXIT_FINDINGS


def _cmd_call(args: argparse.Namespace) -> int:
    from packc_runtime.faces.cli import call_main

    return call_main(
        Path(args.pack),
        args.verb,
        args.args,
        confirm=args.confirm,
        server=args.server,
        server_vars=args.server_var or (),
    )


def _cmd_install(args: argparse.Namespace) -> int:
    from packc.install import install_pack

    done = install_pack(args.pack, venv=args.venv, name=args.name, force=args.force)
    print(f"installed {done.pack_id}: {done.command} -> {done.pack_dir} (python: {done.python})")
    if not done.on_path:
        print(
            f"{done.command.parent} is not on PATH; add it, e.g. in ~/.profile: "
            f'export PATH="{done.command.parent}:$PATH"'
        )
    return EXIT_OK


def _cmd_exec(args: argparse.Namespace) -> int:
    from packc_runtime.faces.cli import exec_main

    return exec_main(Path(args.pack))


def _cmd_connect(args: argparse.Namespace) -> int:
    from packc_runtime.errors import PackRuntimeError
    from packc_runtime.faces.cli import connect_main
    from packc_runtime.faces.oauth_cli import options_from

    try:
        oauth = options_from(
            {
                key: getattr(args, key)
                for key in (
                    "client_id",
                    "client_secret",
                    "port",
                    "timeout",
                    "device_url",
                    "no_browser",
                    "device",
                    "status",
                    "logout",
                )
            }
        )
    except PackRuntimeError as exc:
        print(f"error {exc.code}: {exc.message}")
        return exc.exit_code
    return connect_main(
        Path(args.pack),
        list_only=args.list,
        as_json=args.json,
        approve_env=args.approve_env,
        server=args.server,
        target=args.to,
        oauth=oauth,
    )


def _plan_flags(p: argparse.ArgumentParser) -> None:
    """``packc plan``'s own flags: the plan in pieces (filters, pages, one line per operation) and a choice."""
    p.add_argument(
        "--resource", metavar="NAME", help="only the operations of this resource (issues, repos.issues)"
    )
    p.add_argument(
        "--search", metavar="WORDS", help="only the operations whose name, path or summary hold every word"
    )
    p.add_argument(
        "--care", choices=["read", "write", "destructive", "money"], help="only the operations of this care"
    )
    p.add_argument("--page", type=int, metavar="N", help="the page to show (from 1; default 1)")
    p.add_argument(
        "--per-page",
        dest="per_page",
        type=int,
        metavar="K",
        help="operations per page (default 50, at most 500)",
    )
    p.add_argument(
        "--compact",
        action="store_true",
        help="one line per operation: verb, method, path, care, summary, rank (with --json: one array each)",
    )
    p.add_argument(
        "--write-choice",
        metavar="FILE",
        help="write the one pack's verbs (with --include: exactly those) as a stub manifest to compile",
    )


# What `packc exec --help` shows: the request is the whole interface, so its form is in the help.
_EXEC_REQUEST = """\
the request (one JSON object on stdin):
  {"verb": "pets.get", "args": {"pet_id": "42"}, "confirm": false, "server": null}
  verb     the verb's name, as `packc commands PACK` lists it (required)
  args     its arguments by name, an object (default {})
  confirm  true to send a write (default false: a write returns its preview card)
  server   a URL to send to instead of the document's server (a staging API, a mock); default null
  pack_id  the pack's id (optional): a request for another pack is refused, nothing run

example:
  echo '{"verb": "pets.get", "args": {"pet_id": "42"}, "server": "http://127.0.0.1:4010"}' | packc exec packs/petstore

The envelope's exit code is the error code's (docs/runtime.md); there are no flags besides PACK."""


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="packc", description="Compile OpenAPI documents into packs.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("lint", help="check a pack directory against the manifest reference")
    p.add_argument("dir", metavar="DIR")
    p.add_argument("--json", action="store_true", help="print findings as JSON")
    p.set_defaults(func=_cmd_lint)

    p = sub.add_parser("commands", help="list a pack's verbs with ready-to-run example lines")
    p.add_argument("dir", metavar="DIR")
    p.add_argument("--json", action="store_true", help="print the listing as JSON")
    p.set_defaults(func=_cmd_commands)

    # --- more subcommands register here (compile, plan, call, exec, connect) ---

    for name, func, text in (
        ("compile", _cmd_compile, "compile an OpenAPI document into one pack (or a family)"),
        ("plan", _cmd_plan, "print the verbs a compile would make, and what it leaves out"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("source", metavar="SOURCE", help="path or URL of the document, or a stub surface.json")
        if name == "compile":
            p.add_argument(
                "-o", "--out-dir", dest="out_dir", default="packs", help="output directory (default ./packs)"
            )
            p.add_argument("--server", metavar="URL", help="replace the document's servers with URL")
            p.add_argument(
                "--repo",
                action="store_true",
                help="make each pack its own repository (pyproject.toml, .gitignore, smoke test)",
            )
            p.add_argument(
                "--force",
                action="store_true",
                help="replace a pack folder another compile wrote (another document, --for or --split)",
            )
        p.add_argument(
            "--split", action="store_true", help="one pack per group of 5-12 verbs, covering every operation"
        )
        p.add_argument(
            "--for",
            dest="goal",
            metavar="TEXT",
            help='one pack of the verbs a task needs, e.g. --for "triage issues and review pull requests"',
        )
        p.add_argument(
            "--include",
            metavar="NAME",
            action="append",
            default=[],
            help="keep this operation in the one pack: a verb as packc plan shows it (refunds.create), "
            "an operationId, or 'METHOD /path'; repeat for more (up to 12; not with --split)",
        )
        p.add_argument(
            "--exclude",
            metavar="NAME",
            action="append",
            default=[],
            help="leave this operation out of every pack (named as for --include); repeat for more",
        )
        if name == "plan":
            _plan_flags(p)
        p.add_argument("--json", action="store_true", help="print a summary as JSON")
        p.add_argument("--strict", action="store_true", help="fail on any validation error of the document")
        p.add_argument("--allow-remote-refs", action="store_true", help="follow $refs to other origins")
        p.add_argument(
            "--allow-private-addresses",
            dest="allow_private",
            action="store_true",
            help="let fetches reach loopback and private-network addresses (a document of your own)",
        )
        p.add_argument(
            "--allow-outside",
            action="store_true",
            help="follow $refs to local files outside the document's folder (trusted files only)",
        )
        p.add_argument("--overlay", metavar="FILE", help="apply an OpenAPI Overlay 1.0 document first")
        p.set_defaults(func=func)

    p = sub.add_parser("skill", help="print packc's own skill file for coding agents, or install it")
    p.add_argument("--install", metavar="DIR", help="write DIR/packc/SKILL.md (e.g. DIR=.claude/skills)")
    p.add_argument("--force", action="store_true", help="with --install: replace a different SKILL.md")
    p.set_defaults(func=_cmd_skill)

    p = sub.add_parser("call", help="call one verb of a pack and print its JSON envelope")
    p.add_argument("pack", metavar="PACK", help="the pack directory")
    p.add_argument("verb", metavar="VERB")
    p.add_argument("--args", metavar="JSON", help="the arguments as a JSON object")
    p.add_argument(
        "--confirm", action="store_true", help="confirm a write verb (else its preview is returned)"
    )
    p.add_argument("--server", metavar="URL", help="replace the document's server URL (staging, a mock)")
    p.add_argument(
        "--server-var", metavar="NAME=VALUE", action="append", help="a value for a server variable"
    )
    # call always prints the JSON envelope; --json is accepted, as on every other command that has it
    p.add_argument("--json", action="store_true", help="print the JSON envelope (what call always prints)")
    p.set_defaults(func=_cmd_call)

    p = sub.add_parser(
        "install", help="put a pack's command on PATH, bound to an interpreter with the runtime"
    )
    p.add_argument("pack", metavar="PACK", help="the pack directory")
    p.add_argument(
        "--venv",
        action="store_true",
        help="give the pack its own virtual environment (under $PACKC_HOME/venvs) instead of packc's",
    )
    p.add_argument(
        "--name",
        metavar="NAME",
        help="the command's name instead of the pack's cliBin (when that name already runs another program)",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="install even if the command's name already runs another program on PATH (it is shadowed)",
    )
    p.set_defaults(func=_cmd_install)

    p = sub.add_parser(
        "exec",
        help="json_exec: read one JSON request on stdin, write one JSON envelope",
        description="Read one JSON request on stdin, call the verb, write one JSON envelope on stdout.",
        epilog=_EXEC_REQUEST,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("pack", metavar="PACK", help="the pack directory")
    p.set_defaults(func=_cmd_exec)

    p = sub.add_parser(
        "connect", help="store a pack's credentials for its server origins, or approve or list them"
    )
    p.add_argument("pack", metavar="PACK", help="the pack directory")
    p.add_argument(
        "--list", action="store_true", help="list the credentials the pack needs and their origins"
    )
    p.add_argument(
        "--approve-env",
        action="store_true",
        help="approve the environment variables for the pack's origins instead of storing values",
    )
    p.add_argument("--server", metavar="URL", help="bind to this server's origin instead (a mock, staging)")
    p.add_argument("--json", action="store_true", help="with --list: print JSON")
    p.add_argument(
        "--to", choices=["keyring", "file"], help="where to store (default: a secure keyring, else the file)"
    )
    p.add_argument("--client-id", metavar="ID", help="OAuth2: your app's client id (else <PREFIX>_CLIENT_ID)")
    p.add_argument(
        "--client-secret",
        metavar="SECRET",
        help="OAuth2: the app's secret, only if the provider requires one (prefer <PREFIX>_CLIENT_SECRET)",
    )
    p.add_argument("--port", metavar="N", help="OAuth2: the loopback redirect port (default: a free one)")
    p.add_argument(
        "--timeout", metavar="SECONDS", help="OAuth2: how long to wait for the redirect (default 300)"
    )
    p.add_argument("--no-browser", action="store_true", help="OAuth2: only print the sign-in URL")
    p.add_argument("--device", action="store_true", help="OAuth2: sign in with the device flow (RFC 8628)")
    p.add_argument("--device-url", metavar="URL", help="OAuth2: the device authorization endpoint")
    p.add_argument(
        "--status", action="store_true", help="OAuth2: show the connected slots (never the tokens)"
    )
    p.add_argument("--logout", action="store_true", help="OAuth2: remove the stored tokens")
    p.set_defaults(func=_cmd_connect)

    p = sub.add_parser(
        "serve",
        help="serve packs as MCP tools over stdio or --http (see: packc serve --help)",
        add_help=False,
    )
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(func=_cmd_serve)

    for own in sub.choices.values():  # an unknown flag is reported with its own command's usage
        own.set_defaults(parser_=own)
    return parser


def _cmd_serve(args: argparse.Namespace) -> int:
    from packc_runtime.faces.mcp.cli import serve_main

    return serve_main(args.rest)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``packc`` command; returns the exit code."""
    from packc_runtime.faces.cli import quiet_pattern_warnings

    quiet_pattern_warnings()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["serve"]:  # its flags are serve_main's own; argparse's REMAINDER drops leading options
        from packc_runtime.faces.mcp.cli import serve_main

        return serve_main(argv[1:])
    # Everything printed, document and server text included, goes through the terminal layer (not
    # `serve` above: its stdout is a protocol, JSON whose escapes json already wrote).
    with (
        contextlib.redirect_stdout(for_terminal(sys.stdout)),
        contextlib.redirect_stderr(for_terminal(sys.stderr)),
    ):
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    parser = _build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:  # said by the subcommand, with its own usage: `packc exec --server` is exec's mistake
            hint = (
                "; the request on stdin carries verb, args, confirm and server"
                if args.command == "exec"
                else ""
            )
            args.parser_.error(
                f"unrecognized arguments: {' '.join(extra)}{hint} (see packc {args.command} --help)"
            )
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    try:
        code: int = args.func(args)
    except PackcError as exc:
        if getattr(args, "json", False):  # a machine caller still gets JSON, as on success
            kind = "usage" if isinstance(exc, UsageError) else "input"
            print(
                json.dumps(
                    {
                        "ok": False,
                        "error": {"kind": kind, "message": str(exc), "exit": exc.exit_code},
                        "diagnostics": [d.to_json() for d in exc.diagnostics],
                    },
                    indent=2,
                    ensure_ascii=False,
                )
            )
        _print_diagnostics(exc.diagnostics)
        print(f"packc {args.command}: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `packc plan ... | head`: the reader left; not an error of ours
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
