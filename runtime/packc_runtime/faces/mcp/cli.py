"""``packc serve DIR...`` and a pack's ``<cliBin> mcp``: flags, loading the packs, stdio or HTTP.

Imports nothing of ``mcp`` until a server really starts (``--print-config`` needs no SDK), and
says how to install it when it is missing.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import IO

from packc_runtime.calling.pack import Pack, load_pack
from packc_runtime.credentials.origins import is_loopback_host
from packc_runtime.errors import PackRuntimeError
from packc_runtime.faces.mcp._auth import (
    TOKEN_ENV,
    TokenFileError,
    allowed_host_names,
    new_secret,
    secret_from_file,
)
from packc_runtime.faces.mcp._config import HOSTS, HTTP_HOSTS, http_snippet, render_snippet
from packc_runtime.faces.mcp._tools import DEFAULT_MAX_RESULT_BYTES, find_pack_dirs

__all__ = ["parse_http", "serve_main"]

EXIT_OK, EXIT_USAGE, EXIT_PACK = 0, 2, 3
_INSTALL = "The MCP server needs the mcp extra: pip install 'packc-runtime[mcp]' (packc installs it)."


def parse_http(value: str) -> tuple[str, int]:
    """``PORT``, ``HOST:PORT`` or ``[V6]:PORT`` as (host, port); the host defaults to 127.0.0.1.

    Raises:
        ValueError: not one of those shapes, or a port outside 0-65535.
    """
    host, port = "127.0.0.1", value
    if value.startswith("["):
        inner, sep, rest = value[1:].partition("]:")
        if not sep:
            raise ValueError(value)
        host, port = inner, rest
    elif ":" in value:
        host, _, port = value.rpartition(":")
    number = int(port)
    if not 0 <= number <= 65535 or not host:
        raise ValueError(value)
    return host, number


def _parser(prog: str, *, with_dirs: bool) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description="Serve pack verbs as MCP tools (stdio unless --http).")
    if with_dirs:
        p.add_argument(
            "dirs",
            metavar="PACK_OR_FAMILY_DIR",
            nargs="+",
            help="a pack directory, or a folder of packs (a --split family)",
        )
    p.add_argument(
        "--http",
        metavar="[HOST:]PORT",
        help="streamable HTTP at http://HOST:PORT/mcp (host 127.0.0.1); "
        "every request must carry 'Authorization: Bearer <secret>', the secret printed at start",
    )
    p.add_argument(
        "--allow-host",
        metavar="HOST",
        action="append",
        default=[],
        help="with --http: also answer requests whose Host (and Origin) names HOST, such as a name the "
        "server is reached by; without it only the bind address (and loopback names on loopback) are "
        "answered, so a web page cannot reach the server by DNS rebinding (repeatable)",
    )
    p.add_argument(
        "--token-file",
        metavar="PATH",
        type=Path,
        help="with --http: keep the bearer secret in PATH (created 0600 with a new secret when missing), "
        "so host configurations survive restarts; it is then not printed",
    )
    p.add_argument(
        "--host-confirms",
        action="store_true",
        help="the MCP host asks a person before every tool call: send write verbs even when the "
        "client cannot show an approval form (without it such clients get only the preview)",
    )
    p.add_argument(
        "--max-result-bytes",
        type=int,
        default=DEFAULT_MAX_RESULT_BYTES,
        metavar="N",
        help=f"cut a result's body to fit N bytes of JSON, with a marker (default {DEFAULT_MAX_RESULT_BYTES})",
    )
    p.add_argument(
        "--no-output-schema",
        action="store_true",
        help="declare no outputSchema (for documents whose response schemas the API does not keep)",
    )
    p.add_argument(
        "--print-config",
        metavar="HOST",
        choices=sorted(HOSTS),
        help="print the snippet that registers this server in HOST's config: " + ", ".join(sorted(HOSTS)),
    )
    return p


def _command(dirs: Sequence[Path], pack_bin: Path | None, opts: argparse.Namespace) -> list[str]:
    extra = ["--host-confirms"] if opts.host_confirms else []
    if opts.max_result_bytes != DEFAULT_MAX_RESULT_BYTES:
        extra += ["--max-result-bytes", str(opts.max_result_bytes)]
    if opts.no_output_schema:
        extra.append("--no-output-schema")
    if pack_bin is not None:
        return [sys.executable, str(pack_bin), "mcp", *extra]
    return [sys.executable, "-m", "packc.cli", "serve", *(str(d.resolve()) for d in dirs), *extra]


def _name(packs: Sequence[Pack]) -> str:
    if len(packs) == 1:
        return packs[0].id
    binding = packs[0].manifest.binding
    family = binding.family if binding is not None else None
    return family or "packc"


def serve_main(
    argv: Sequence[str],
    *,
    pack_dir: Path | None = None,
    prog: str = "packc serve",
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
) -> int:
    """Run the server (or print a host's config snippet); returns the exit code.

    ``pack_dir`` set means the pack's own ``<cliBin> mcp``: that pack alone, no directory arguments.
    """
    out, err = stdout or sys.stdout, stderr or sys.stderr
    parser = _parser(prog, with_dirs=pack_dir is None)
    try:
        opts = parser.parse_args(list(argv))
        http = parse_http(opts.http) if opts.http else None
    except SystemExit as exc:
        return int(exc.code or 0)
    except ValueError:
        err.write(f"{prog}: --http takes PORT, HOST:PORT or [V6]:PORT, not {opts.http!r}\n")
        return EXIT_USAGE
    if opts.token_file is not None and http is None:
        err.write(f"{prog}: --token-file goes with --http (stdio needs no secret)\n")
        return EXIT_USAGE
    if opts.allow_host and http is None:
        err.write(f"{prog}: --allow-host goes with --http (stdio has no Host header)\n")
        return EXIT_USAGE
    if http is not None:
        try:
            allowed_host_names(http[0], opts.allow_host)
        except ValueError as exc:
            err.write(f"{prog}: not a host name or IP address: {str(exc)!r}\n")
            return EXIT_USAGE
    if opts.max_result_bytes < 4096:
        err.write(f"{prog}: --max-result-bytes must be at least 4096\n")
        return EXIT_USAGE
    dirs = [pack_dir] if pack_dir is not None else [Path(d) for d in opts.dirs]
    try:
        # Over HTTP the caller is remote: the server's folder is not their project (no_project).
        packs = [load_pack(d, project=http is None) for d in find_pack_dirs(dirs)]
    except PackRuntimeError as exc:
        err.write(f"{prog}: error {exc.code}: {exc.message}\n")
        return EXIT_PACK
    try:
        for pack in packs:
            pack.require_transport("mcp")
    except PackRuntimeError as exc:
        for pack in packs:
            pack.close()
        err.write(f"{prog}: error {exc.code}: {exc.message}\n")
        return exc.exit_code
    if opts.print_config and not _sdk_installed():
        # The entry would make the host start a server that stops at once: say what is missing instead.
        err.write(f"{prog}: no host entry printed: {_INSTALL} Then run --print-config again.\n")
        for pack in packs:
            pack.close()
        return EXIT_USAGE
    if opts.print_config and http is not None:
        code = _print_http_config(opts, http, _name(packs), prog, out, err)
        for pack in packs:
            pack.close()
        return code
    if opts.print_config:
        pack_bin = pack_dir / "bin" / packs[0].cli_bin if pack_dir is not None else None
        slots = {s.env: s for p in packs for s in p.slots}
        out.write(
            render_snippet(
                opts.print_config, _name(packs), _command(dirs, pack_bin, opts), list(slots.values())
            )
            + "\n"
        )
        err.write(f"Add it to {HOSTS[opts.print_config]}.\n")
        if slots and opts.print_config != "vscode":
            err.write(
                f"Credentials ({', '.join(slots)}): have a person run `{packs[0].cli_bin} connect` once "
                '(OS keyring), or add them under "env" in that file and approve them once for the API\'s '
                f"server with `{packs[0].cli_bin} connect --approve-env`.\n"
            )
        for pack in packs:
            pack.close()
        return EXIT_OK
    return _run(packs, opts, http, prog, err)


def _sdk_installed() -> bool:
    """Whether this interpreter (the one the printed entry starts) can import the mcp SDK; found
    without importing it, so --print-config stays fast."""
    import importlib.util

    try:
        return importlib.util.find_spec("mcp") is not None
    except (ImportError, ValueError):  # a broken install, or a module without a spec
        return False


def _print_http_config(
    opts: argparse.Namespace, http: tuple[str, int], name: str, prog: str, out: IO[str], err: IO[str]
) -> int:
    """The snippet pointing a host at this server over HTTP; the secret stays in the token file."""
    host, port = http
    if opts.print_config not in HTTP_HOSTS:
        err.write(
            f"{prog}: {opts.print_config}'s config file starts servers over stdio only: drop --http "
            "(the stdio snippet needs no secret)\n"
        )
        return EXIT_USAGE
    if port == 0 or opts.token_file is None:
        err.write(
            f"{prog}: --print-config with --http needs a fixed port and --token-file PATH (the host keeps "
            "the URL, and the secret must outlive a restart)\n"
        )
        return EXIT_USAGE
    try:
        secret_from_file(opts.token_file)
    except TokenFileError as exc:
        err.write(f"{prog}: --token-file: {exc}\n")
        return EXIT_USAGE
    shown = f"[{host}]" if ":" in host else host
    out.write(
        json.dumps(http_snippet(opts.print_config, name, f"http://{shown}:{port}/mcp"), indent=2) + "\n"
    )
    err.write(
        f"Add it to {HOSTS[opts.print_config]}. Start the server with the same --http and --token-file "
        f"{opts.token_file}; "
    )
    if opts.print_config == "vscode":
        err.write(
            "VS Code asks for the secret once (paste the file's content) and keeps it in its secret store.\n"
        )
    else:
        err.write(
            f"start the host with {TOKEN_ENV} set to that file's content "
            f'(export {TOKEN_ENV}="$(cat {opts.token_file})"): the file holds the secret, the snippet '
            "does not.\n"
        )
    return EXIT_OK


def _run(
    packs: list[Pack], opts: argparse.Namespace, http: tuple[str, int] | None, prog: str, err: IO[str]
) -> int:
    try:
        import anyio

        from packc_runtime.faces.mcp._server import PackServer, serve_http, serve_stdio
    except ImportError:
        err.write(f"{prog}: {_INSTALL}\n")
        return EXIT_USAGE
    try:
        server = PackServer(
            packs,
            host_confirms=opts.host_confirms,
            max_result_bytes=opts.max_result_bytes,
            output_schemas=not opts.no_output_schema,
        )
    except PackRuntimeError as exc:
        err.write(f"{prog}: error {exc.code}: {exc.message}\n")
        return EXIT_PACK
    # The packs and their tools live as long as the server: out of the collector's generations, a full
    # collection, which can land on any call, does not walk them (Stripe's family: 120-270 ms each).
    gc.collect()
    gc.freeze()
    try:
        if http is None:
            anyio.run(serve_stdio, server)
        else:
            host, port = http
            if not is_loopback_host(host):
                err.write(
                    f"{prog}: warning: serving on {host}, not loopback, without TLS: the bearer secret crosses "
                    "the network in clear text, and whoever sees it can call these verbs with your "
                    "credentials.\n"
                )

            try:
                secret = secret_from_file(opts.token_file) if opts.token_file is not None else new_secret()
            except TokenFileError as exc:
                err.write(f"{prog}: --token-file: {exc}\n")
                return EXIT_USAGE

            def ready(url: str) -> None:
                err.write(f"{prog}: {len(server.tools)} tools at {url}\n")
                if opts.token_file is not None:
                    err.write(
                        f"{prog}: every request needs 'Authorization: Bearer <secret>', the secret in "
                        f"{opts.token_file}\n"
                    )
                else:  # shown once, to the person who started the server; it lives as long as the server
                    err.write(
                        f"{prog}: every request needs the header 'Authorization: Bearer {secret}' "
                        "(a new secret each start; --token-file keeps one)\n"
                    )
                err.flush()

            anyio.run(
                partial(
                    serve_http,
                    server,
                    host,
                    port,
                    secret=secret,
                    allowed_hosts=opts.allow_host,
                    on_ready=ready,
                )
            )
    except KeyboardInterrupt:
        return 130
    return EXIT_OK
