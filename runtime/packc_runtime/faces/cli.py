"""Command-line faces of the runtime: a pack's own CLI, and ``packc call``/``exec``/``connect``."""

from __future__ import annotations

import functools
import json
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal

from packc_runtime.calling.pack import Pack, load_pack
from packc_runtime.calling.results import Envelope, failure, live_title
from packc_runtime.errors import (
    ERROR_CLASSES,
    InvalidRequest,
    PackRuntimeError,
    UnknownVerb,
)
from packc_runtime.faces._output import EXIT_OK, dump, line
from packc_runtime.faces.command_line import (
    VERB_MARK,
    flags_of,
    grammars,
    parse_verb_argv,
    read_command,
    server_variables,
)
from packc_runtime.format.identifiers import RESERVED_VERBS
from packc_runtime.format.view import Transport
from packc_runtime.text.terminal import for_terminal, terminal_text

if TYPE_CHECKING:
    from packc_runtime.faces.oauth_cli import OAuthOptions

__all__ = ["call_main", "connect_main", "exec_main", "exit_code_for", "pack_main"]


def quiet_pattern_warnings() -> None:
    """Silence Python's FutureWarnings about odd but legal regexes (``[[a]``: "Possible nested set").

    They come from patterns in API documents, which neither the user nor packc can change; on a
    terminal they are noise, not findings. A process-wide filter is the command's to set, so only
    the entry points call this; library callers keep their own warning settings.
    """
    warnings.filterwarnings(
        "ignore",
        message=r"Possible (nested set|set (difference|intersection|symmetric "
        r"difference|union))",
        category=FutureWarning,
    )


def exit_code_for(envelope: Mapping[str, Any]) -> int:
    """The documented exit code of an envelope: 0 when ok, else its error code's."""
    if envelope.get("ok"):
        return EXIT_OK
    code = envelope.get("error", {}).get("code")
    cls = ERROR_CLASSES.get(str(code))
    return cls.exit_code if cls else 1


def _safe_call(
    pack: Pack,
    verb: str,
    args: Any,
    *,
    confirm: bool,
    server: str | None,
    server_variables: Mapping[str, str] | None = None,
) -> Envelope:
    """``pack.call``, but a bug surfaces as a ``runtime_error`` envelope, not a traceback on the wire."""
    try:
        return pack.call(verb, args, confirm=confirm, server=server, server_variables=server_variables)
    except Exception as exc:  # the envelope must still be one JSON object
        return failure(
            verb, PackRuntimeError(f"Internal error in the runtime ({type(exc).__name__}); please report it.")
        )


def _load(pack_dir: Path, verb: str | None, out: IO[str], transport: Transport | None) -> Pack | int:
    """The pack, refused (its envelope written, its exit code returned) when it is invalid or does
    not list the face ``transport`` (None: a command that is not a face, such as connect)."""
    try:
        pack = load_pack(pack_dir)
    except PackRuntimeError as exc:
        out.write(line(failure(verb, exc)) + "\n")
        return exc.exit_code
    if transport is not None:
        try:
            pack.require_transport(transport)
        except PackRuntimeError as exc:
            pack.close()
            out.write(line(failure(verb, exc)) + "\n")
            return exc.exit_code
    return pack


def _spoken(verb: str) -> str:
    """A verb's words as typed after the command: ``pets get``; ``-- connect`` for a verb named
    exactly like a built-in command (only a hand-edited pack has one), which only ``--`` reaches."""
    words = verb.replace(".", " ")
    return f"{VERB_MARK} {words}" if verb in RESERVED_VERBS else words


def _connect_lines(cli_bin: str) -> list[str]:
    return [
        f"{cli_bin} connect [--list] [--json] [--approve-env] [--server URL] [--to keyring|file]",
        f"{cli_bin} connect [--client-id ID] [--port N] [--no-browser] [--device] [--status] [--logout]",
    ]


def _connect_usage(pack: Pack) -> str:
    first, second = _connect_lines(pack.cli_bin)
    return "\n".join(
        [
            f"usage: {first}",
            f"       {second}",
            "",
            "Stores this pack's credentials for its server, prompting without echo (OS keyring, else a 0600 file),",
            "or signs in with OAuth2 where the API offers it.",
            "  --list          each credential's variable, scheme and the servers it is bound to (never values)",
            "  --json          print the result as JSON",
            "  --approve-env   approve the environment variables already set, instead of storing values",
            "  --server URL    bind to this server instead of the document's",
            "  --to keyring|file  force where to store (default: the keyring when it is secure, else the file)",
            "  --client-id ID, --client-secret S, --port N, --timeout S, --device, --device-url URL,",
            "  --no-browser, --status, --logout   OAuth2 sign-in (docs/runtime.md)",
        ]
    )


def _usage(pack: Pack) -> str:
    first, second = _connect_lines(pack.cli_bin)
    lines = [
        f"usage: {pack.cli_bin} VERB [ARGS] [--json] [--confirm] [--server URL] [--server-var NAME=VALUE]",
        f"       {first}",
        f"       {second}",
        f"       {pack.cli_bin} mcp [--http [HOST:]PORT [--token-file PATH]] [--host-confirms] [--print-config HOST]  (MCP server)",
        f"       {pack.cli_bin} help [VERB]  (this list, or one verb's form: VERB --help)",
        f"       {pack.cli_bin} -- VERB [ARGS]  (always a verb, whatever its first word)",
        "",
        "verbs:",
    ]
    for name, verb in sorted(pack.verbs.items()):
        access = "write" if pack.is_write(name) else "read"
        lines.append(f"  {_spoken(name):<28} [{access}] {verb.description or ''}")
    return "\n".join(lines)


def _verb_usage(pack: Pack, verb: str) -> str:
    declared = pack.verbs[verb]
    schema = declared.args or {}
    props: Mapping[str, Any] = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    access = "write: needs --confirm" if pack.is_write(verb) else "read"
    lines = [
        f"{' '.join(declared.cli or [pack.cli_bin, *verb.split('.')])}",
        "",
        f"{declared.description or ''} [{access}]",
        "",
    ]
    for name, prop in props.items():
        prop = prop if isinstance(prop, Mapping) else {}
        kind = _type_words(prop)
        flag = f"<{name}> (position {prop['x-position']})" if "x-position" in prop else f"--{name}"
        need = "required" if name in required else "optional"
        lines.append(f"  {flag:<28} {kind:<10} {need:<9} {_description(prop)}")
    return "\n".join(lines)


def _types(schema: Mapping[str, Any], depth: int = 0) -> list[str]:
    """The JSON types a schema allows, in its order: its ``type`` (one or a list), else its anyOf/oneOf
    parts', else a const's or enum's values'."""
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [str(k) for k in kind]
    out: list[str] = []
    for key in ("anyOf", "oneOf", "allOf"):
        parts = schema.get(key)
        if isinstance(parts, list) and depth < 4:
            out += [t for part in parts if isinstance(part, Mapping) for t in _types(part, depth + 1)]
    if not out and isinstance(schema.get("enum"), list):
        names = {bool: "boolean", int: "integer", float: "number", str: "string", type(None): "null"}
        out = [names.get(type(v), "object" if isinstance(v, dict) else "array") for v in schema["enum"]]
    return list(dict.fromkeys(out))


def _type_words(schema: Mapping[str, Any]) -> str:
    """An argument's type as a person reads it: ``string``, ``string or null``, ``any``."""
    kinds = _types(schema)
    if not kinds:
        return "any"
    return " or ".join(kinds) if len(kinds) <= 2 else ", ".join(kinds[:-1]) + " or " + kinds[-1]


def _description(schema: Mapping[str, Any]) -> str:
    """An argument's description, else its anyOf/oneOf parts' (GitHub's ``milestone``: a number or
    ``"none"``/``"*"``, each part described), else its named choices."""
    if isinstance(schema.get("description"), str) and schema["description"]:
        return str(schema["description"])
    parts = [p for key in ("anyOf", "oneOf") if isinstance(schema.get(key), list) for p in schema[key]]
    said = [
        str(part["description"])
        for part in parts
        if isinstance(part, Mapping) and isinstance(part.get("description"), str) and part["description"]
    ]
    if said:
        return " Or: ".join(dict.fromkeys(said))
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return "One of: " + ", ".join(json.dumps(v) for v in schema["enum"][:12])
    return ""


_SAID_LIMIT = 2000  # characters of the server's answer shown; --json has all the envelope keeps


def _print_human(envelope: Mapping[str, Any], out: IO[str], err: IO[str]) -> None:
    if envelope.get("ok"):
        if envelope.get("title"):
            err.write(f"{envelope['title']}\n")
        if envelope.get("mock"):  # a person must not take a mock's answer for the API's
            err.write("(mock: answered from the pack's document; nothing was sent)\n")
        body = envelope.get("body")
        if body is not None:
            out.write((body if isinstance(body, str) else dump(body)) + "\n")
        return
    error = envelope.get("error", {})
    err.write(f"error {error.get('code')}: {error.get('message')}\n")
    if "preview" in error:
        err.write(dump(error["preview"]) + "\n")
    # The server's own answer is its reason ("must have required property 'To'"): without it a
    # person sees only "rejected (HTTP 422)" and has to know to ask for --json.
    said = error.get("body")
    if said not in (None, "", {}, []):
        text = said if isinstance(said, str) else dump(said)
        cut = len(text) > _SAID_LIMIT
        err.write(f"The server said:\n{text[:_SAID_LIMIT]}{'…' if cut else ''}\n")


def _terminal_ask() -> Callable[[str], str] | None:
    """Asks a yes/no question on the terminal, or None when no person is there to answer."""
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return None

    def ask(question: str) -> str:
        sys.stderr.write(terminal_text(question))
        sys.stderr.flush()
        return sys.stdin.readline()

    return ask


def _showing_live(
    call: Callable[[], Envelope], title: str | None, err: IO[str], raw: IO[str]
) -> Callable[[], Envelope]:
    """``call``, showing the verb's ``title.live`` on stderr while it runs, only when stderr is a
    terminal (a pipe or a log gets the done title alone); the line is erased when the call ends."""
    try:
        on_terminal = raw.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream is not a terminal
        on_terminal = False
    if not title or not on_terminal:
        return call

    def showing() -> Envelope:
        err.write(f"{title}…")  # through the terminal layer: the document's text writes no control sequence
        err.flush()
        try:
            return call()
        finally:
            raw.write("\r\x1b[2K")  # back to the line's start and clear it; the done title follows
            raw.flush()

    return showing


def _approving(call: Callable[[], Envelope], ask: Callable[[str], str] | None, err: IO[str]) -> Envelope:
    """Run ``call``; when it needs an environment variable approved and a person can answer, ask them
    once (like SSH's unknown host question), record the answer and run it again."""
    from packc_runtime.credentials.store import approve_env

    envelope = call()
    error = envelope.get("error") or {}
    if ask is None or error.get("code") != "unapproved_credentials":
        return envelope
    names, origins = error.get("env") or [], error.get("origins") or []
    answer = ask(
        f"{', '.join(names)} from your environment would be sent to {', '.join(origins)}. "
        "Is that the API you meant it for? Approve and remember [y/N]: "
    )
    if answer.strip().lower() not in ("y", "yes"):
        return envelope
    try:
        where = approve_env(names, origins)
    except PackRuntimeError as exc:
        err.write(f"error {exc.code}: {exc.message}\n")
        return envelope
    err.write(f"Approved {', '.join(names)} for {', '.join(origins)} (recorded in {where}).\n")
    return call()


def _no_verb(cli_bin: str, verbs: Sequence[str], argv: Sequence[str]) -> str:
    """The unknown-verb message: the words typed (not the flags and their values), and the verb
    they come closest to, if one is close."""
    import difflib  # only on this error path: the CLI's cold start stays small

    words: list[str] = []
    for token in argv:
        if token.startswith("-"):
            break
        words.append(token)
    # Only as many words as the longest verb has: what follows are its arguments' values
    # ("issue list octocat hello-world" is the verb 'issue list' with two values).
    words = words[: max((v.count(".") + 1 for v in verbs), default=1)]
    typed = " ".join(words) or " ".join(argv[:1])
    best, best_ratio = "", 0.0
    for verb in verbs:
        spoken = verb.replace(".", " ")
        ratio = difflib.SequenceMatcher(None, " ".join(words[: spoken.count(" ") + 1]), spoken).ratio()
        if ratio > best_ratio:
            best, best_ratio = _spoken(verb), ratio
    hint = f" Did you mean '{cli_bin} {best}'?" if best_ratio >= 0.8 else ""
    return f"{cli_bin}: no verb {typed!r}.{hint} Run '{cli_bin} --help' for the list."


def pack_main(
    pack_dir: Path,
    argv: Sequence[str],
    *,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
    ask: Callable[[str], str] | None = None,
) -> int:
    """The pack's own CLI (``bin/<cliBin>``): ``petstore pets get 42 --json``; returns the exit code.

    ``ask`` answers the approval question for an environment variable (default: the terminal, when
    stdin and stderr are one; else nobody, and the call fails with ``unapproved_credentials``).
    """
    ask = ask or _terminal_ask()
    quiet_pattern_warnings()
    out, err = for_terminal(stdout or sys.stdout), for_terminal(stderr or sys.stderr)
    loaded = _load(pack_dir, None, out, None)
    if isinstance(loaded, int):
        return loaded
    with loaded as pack:
        action, verb, rest = read_command(pack.verbs, argv, grammars(pack.verbs))
        if action not in ("connect", "mcp"):  # connect sets a pack up; mcp is its own face
            try:
                pack.require_transport("cli")
            except PackRuntimeError as exc:
                out.write(line(failure(verb, exc)) + "\n")
                return exc.exit_code
        if action in ("usage", "missing"):
            out.write(_usage(pack) + "\n")
            return EXIT_OK if action == "usage" else 2
        if action == "connect" and ("-h" in rest or "--help" in rest):
            out.write(_connect_usage(pack) + "\n")
            return EXIT_OK
        if action == "connect":
            from packc_runtime.faces._connect_cli import connect_options, run_connect

            try:
                options = connect_options(rest)
            except PackRuntimeError as exc:
                out.write(f"error {exc.code}: {exc.message}\n")
                return exc.exit_code
            return run_connect(pack, out=out, **options)
        if action == "mcp":  # lazily: a pack that is never served never imports mcp
            from packc_runtime.faces.mcp.cli import serve_main

            # stdout may carry the protocol (stdio): JSON, whose escapes json writes; stderr is for a person
            return serve_main(
                rest, pack_dir=pack_dir, prog=f"{pack.cli_bin} mcp", stdout=stdout or sys.stdout, stderr=err
            )
        if action == "help" and verb is not None:
            out.write(_verb_usage(pack, verb) + "\n")
            return EXIT_OK
        as_json = "--json" in flags_of(rest)
        try:
            if verb is None:
                raise UnknownVerb(_no_verb(pack.cli_bin, list(pack.verbs), rest))
            args, options = parse_verb_argv(pack, verb, rest)
        except PackRuntimeError as exc:
            envelope = failure(verb, exc)
        else:
            call: Callable[[], Envelope] = functools.partial(
                _safe_call,
                pack,
                verb,
                args,
                confirm=options["confirm"],
                server=options["server"],
                server_variables=options["server_variables"],
            )
            if not (pack.is_write(verb) and not options["confirm"]):  # an unconfirmed write runs nothing
                call = _showing_live(call, live_title(pack.verbs[verb], args), err, stderr or sys.stderr)
            envelope = _approving(call, ask, err)
        if as_json:
            out.write(line(envelope) + "\n")
        else:
            _print_human(envelope, out, err)
        return exit_code_for(envelope)


def call_main(
    pack_dir: Path,
    verb: str,
    args_json: str | None,
    *,
    confirm: bool = False,
    server: str | None = None,
    server_vars: Sequence[str] = (),
    stdout: IO[str] | None = None,
    ask: Callable[[str], str] | None = None,
) -> int:
    """``packc call PACK VERB --args '{...}'``: prints the envelope as JSON; returns the exit code."""
    quiet_pattern_warnings()
    out = for_terminal(stdout or sys.stdout)
    ask = ask or _terminal_ask()
    loaded = _load(pack_dir, verb, out, "cli")
    if isinstance(loaded, int):
        return loaded
    with loaded as pack:
        try:
            args = json.loads(args_json) if args_json else {}
            variables = server_variables(server_vars)
        except (ValueError, RecursionError) as exc:  # RecursionError: nesting too deep for json
            envelope = failure(verb, InvalidRequest(f"--args is not valid JSON: {exc}."))
        except PackRuntimeError as exc:
            envelope = failure(verb, exc)
        else:
            call: Callable[[], Envelope] = functools.partial(
                _safe_call, pack, verb, args, confirm=confirm, server=server, server_variables=variables
            )
            envelope = (
                _approving(call, ask, for_terminal(sys.stderr))
                if isinstance(args, dict)
                else failure(verb, InvalidRequest("--args must be a JSON object."))
            )
        out.write(line(envelope) + "\n")
        return exit_code_for(envelope)


def _parse_exec_request(text: str) -> dict[str, Any]:
    try:
        request = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise InvalidRequest(f"The request on stdin is not valid JSON: {exc}.") from None
    if not isinstance(request, dict):
        raise InvalidRequest("The request must be a JSON object with 'verb' and 'args'.")
    unknown = sorted(set(request) - {"verb", "args", "confirm", "server", "pack_id"})
    if unknown:
        raise InvalidRequest(f"Unknown request field(s): {', '.join(unknown)}.")
    if not isinstance(request.get("verb"), str):
        raise InvalidRequest("The request needs a 'verb' string.")
    if not isinstance(request.get("args", {}), dict):
        raise InvalidRequest("'args' must be a JSON object.")
    if not isinstance(request.get("confirm", False), bool):
        raise InvalidRequest("'confirm' must be true or false.")
    if request.get("server") is not None and not isinstance(request["server"], str):
        raise InvalidRequest("'server' must be a URL string or null.")
    if request.get("pack_id") is not None and not isinstance(request["pack_id"], str):
        raise InvalidRequest("'pack_id' must be the pack's id, a string.")
    return request


def exec_main(pack_dir: Path, *, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> int:
    """``packc exec PACK`` (json_exec): one JSON request on stdin, one JSON envelope on stdout."""
    quiet_pattern_warnings()
    out = for_terminal(stdout or sys.stdout)
    text = (stdin or sys.stdin).read()
    verb = None
    try:
        request = _parse_exec_request(text)
        verb = request["verb"]
    except PackRuntimeError as exc:
        out.write(line(failure(verb, exc)) + "\n")
        return exc.exit_code
    loaded = _load(pack_dir, verb, out, "json_exec")
    if isinstance(loaded, int):
        return loaded
    with loaded as pack:
        if request.get("pack_id") not in (None, pack.id):
            envelope = failure(
                verb,
                InvalidRequest(
                    f"The request is for pack {request['pack_id']!r}, but this is {pack.id!r}: "
                    "nothing was run."
                ),
            )
            out.write(line(envelope) + "\n")
            return exit_code_for(envelope)
        envelope = _safe_call(
            pack,
            request["verb"],
            request.get("args") or {},
            confirm=request.get("confirm", False),
            server=request.get("server"),
        )
    out.write(line(envelope) + "\n")
    return exit_code_for(envelope)


def connect_main(
    pack_dir: Path,
    *,
    list_only: bool = False,
    as_json: bool = False,
    approve_env: bool = False,
    server: str | None = None,
    target: Literal["keyring", "file"] | None = None,
    stdout: IO[str] | None = None,
    prompt: Callable[[str], str] | None = None,
    oauth: OAuthOptions | None = None,
    browser: Callable[[str], bool] | None = None,
) -> int:
    """``packc connect PACK``: prompt for each credential without echo and store it bound to the pack's
    origins, or sign in with OAuth2 (``oauth``: ``OAuthOptions``; _connect_cli.py, oauth_cli.py);
    ``--approve-env`` approves the environment variables for them instead; ``--list`` lists."""
    quiet_pattern_warnings()
    out = for_terminal(stdout or sys.stdout)
    loaded = _load(pack_dir, None, out, None)
    if isinstance(loaded, int):
        return loaded
    from packc_runtime.faces._connect_cli import run_connect

    with loaded as pack:
        return run_connect(
            pack,
            list_only=list_only,
            as_json=as_json,
            out=out,
            approve_env=approve_env,
            server=server,
            target=target,
            prompt=prompt,
            oauth=oauth,
            browser=browser,
        )
