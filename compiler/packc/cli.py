"""The ``packc`` command: parse flags, call one library function, print, map to an exit code.

Each subcommand is a ``_cmd_<name>(args) -> int`` function registered in ``_build_parser``.
Library code never prints; this module is the only place the compiler writes to stdout/stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from packc_runtime.diagnostics import Diagnostic

from .errors import PackcError

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2


def _print_diagnostics(diagnostics: Sequence[Diagnostic], *, stream: TextIO | None = None) -> None:
    out = stream or sys.stderr
    for diagnostic in diagnostics:
        print(str(diagnostic), file=out)


def _cmd_lint(args: argparse.Namespace) -> int:
    from .lint import lint_pack

    pack_dir = Path(args.dir)
    if not pack_dir.is_dir():
        print(f"packc lint: {pack_dir} is not a directory", file=sys.stderr)
        return EXIT_USAGE
    findings = lint_pack(pack_dir)
    errors = sum(1 for f in findings if f.level == "error")
    warnings = len(findings) - errors
    if args.json:
        print(json.dumps({"pack": str(pack_dir), "errors": errors, "warnings": warnings,
                          "findings": [f.to_json() for f in findings]}, indent=2))
    else:
        for finding in findings:
            print(str(finding))
        print(f"{pack_dir}: {errors} error(s), {warnings} warning(s)")
    return EXIT_FINDINGS if errors else EXIT_OK


def _cmd_commands(args: argparse.Namespace) -> int:
    from .commands import list_commands

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

    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``packc`` command; returns the exit code."""
    parser = _build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    try:
        code: int = args.func(args)
    except PackcError as exc:
        _print_diagnostics(exc.diagnostics)
        print(f"packc {args.command}: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
