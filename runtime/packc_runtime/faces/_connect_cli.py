"""``connect`` on a loaded pack (``packc connect PACK``, ``<cliBin> connect``): ``--list``,
``--approve-env``, OAuth2 sign-in for the slots that have it (oauth_cli.py), and a prompt without echo
for the others. cli.py imports this module only when connect runs; what both print with is ``_output.py``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import IO, Any, Literal

from packc_runtime.calling.pack import Pack
from packc_runtime.credentials.origins import origin_of
from packc_runtime.errors import InvalidArgument, InvalidServer, PackRuntimeError
from packc_runtime.faces._output import EXIT_OK, dump
from packc_runtime.faces.oauth_cli import OAUTH_FLAGS, OAuthOptions, options_from
from packc_runtime.text.terminal import terminal_text

__all__ = ["CONNECT_FLAGS", "bound_origins", "connect_options", "run_connect"]

# Every flag ``connect`` takes, and whether it takes a value: anything else is refused, never ignored
# (``connect --lst`` would otherwise prompt for a secret the person did not mean to store).
CONNECT_FLAGS: dict[str, bool] = {
    "--list": False,
    "--json": False,
    "--approve-env": False,
    "--server": True,
    "--to": True,
    **{flag: takes for flag, (_, takes) in OAUTH_FLAGS.items()},
}


def connect_options(argv: Sequence[str]) -> dict[str, Any]:
    """The pack CLI's ``connect [--list] [--json] [--approve-env] [--server URL] [--to keyring|file]``
    and the OAuth2 flags (``--flag value`` or ``--flag=value``), read in one pass; an unknown flag, a
    stray word or a flag without its value is an InvalidArgument."""
    found: dict[str, Any] = {}
    i = 0
    while i < len(argv):
        flag, eq, value = argv[i].partition("=")
        if flag not in CONNECT_FLAGS:
            raise InvalidArgument(
                f"connect does not take {argv[i]!r}; it takes {', '.join(CONNECT_FLAGS)} "
                "(connect --help says what each does).",
                argument="connect",
            )
        takes = CONNECT_FLAGS[flag]
        if takes and not eq:
            if i + 1 >= len(argv):
                raise InvalidArgument(f"{flag} takes a value.", argument=flag.lstrip("-"))
            value = argv[i + 1]
        found[flag] = value if takes else True
        i += 2 if takes and not eq else 1
    if found.get("--to") not in (None, "keyring", "file"):
        raise InvalidArgument("--to takes keyring or file.", argument="to")
    return {
        "list_only": "--list" in found,
        "as_json": "--json" in found,
        "approve_env": "--approve-env" in found,
        "server": found.get("--server"),
        "target": found.get("--to"),
        "oauth": options_from({OAUTH_FLAGS[f][0]: v for f, v in found.items() if f in OAUTH_FLAGS}),
    }


def bound_origins(pack: Pack, server: str | None, *, every_enum: bool = True) -> dict[str, tuple[str, ...]]:
    """Per slot, the origins to bind to: the document's servers, or the one ``--server`` names."""
    if server is None:
        return pack.slot_origins(every_enum=every_enum)
    origin = origin_of(server)
    if origin is None:
        raise InvalidServer(f"--server {server!r} is not an absolute http(s) URL.")
    return {slot.env: (origin,) for slot in pack.slots}


def run_connect(
    pack: Pack,
    *,
    list_only: bool,
    as_json: bool,
    out: IO[str],
    approve_env: bool = False,
    server: str | None = None,
    target: Literal["keyring", "file"] | None = None,
    prompt: Callable[[str], str] | None = None,
    oauth: OAuthOptions | None = None,
    browser: Callable[[str], bool] | None = None,
) -> int:
    """``connect`` on a loaded pack: list, approve, sign in with OAuth2, or prompt and store."""
    from packc_runtime.credentials.slots import prompt_and_store
    from packc_runtime.credentials.store import approve_env as record_approval
    from packc_runtime.faces.oauth_cli import oauth_connect

    provider = pack.manifest.binding.connect_provider_id if pack.manifest.binding else None
    try:
        if pack.hub == "keyring":  # binding.hub: the OS keyring only, never the environment or a file
            if approve_env:
                raise InvalidArgument(
                    f"{pack.id} takes credentials from the OS keyring only (binding.hub keyring): "
                    "environment variables are never used, so there is nothing to approve.",
                    argument="approve-env",
                )
            if target == "file":
                raise InvalidArgument(
                    f"{pack.id} takes credentials from the OS keyring only (binding.hub keyring): "
                    "a value stored in a file would never be read.",
                    argument="to",
                )
            target = "keyring"
        # --approve-env records without asking, so only the servers the pack calls by default: every
        # value of a server variable's enum is the document's to choose (api.stripe.com beside
        # collector.evil.example). Another one is approved when first used (the terminal's question)
        # or with --server. Storing a typed value shows every origin before the person types it.
        origins = bound_origins(pack, server, every_enum=not approve_env)
        if list_only:
            if as_json:
                out.write(
                    dump(
                        {
                            "pack": pack.id,
                            **({"provider": provider} if provider else {}),
                            **({"hub": pack.hub} if pack.hub else {}),
                            "credentials": [
                                {**s.to_json(), "origins": list(origins.get(s.env, ()))} for s in pack.slots
                            ],
                        }
                    )
                    + "\n"
                )
            else:
                if provider and pack.slots:
                    out.write(f"Provider: {terminal_text(provider)}\n")
                for slot in pack.slots:
                    out.write(
                        f"{slot.env:<36} {slot.scheme:<20} for {', '.join(origins.get(slot.env, ())) or '-'}\n"
                        f"{'':<36} {slot.description}\n"
                    )
                if not pack.slots:
                    out.write(f"{pack.id} needs no credentials.\n")
            return EXIT_OK
        if not pack.slots:
            out.write(f"{pack.id} needs no credentials.\n")
            return EXIT_OK
        if approve_env:
            by_origins: dict[tuple[str, ...], list[str]] = {}
            for slot in pack.slots:
                by_origins.setdefault(origins.get(slot.env, ()), []).append(slot.env)
            for bound, names in by_origins.items():
                if bound:
                    recorded = record_approval(names, bound)
                    out.write(
                        f"Approved {', '.join(names)} from your environment for {', '.join(bound)} "
                        f"(recorded in {recorded}).\n"
                    )
            return EXIT_OK
        oauth = oauth or OAuthOptions()
        if provider and not (as_json or oauth.status or oauth.logout):  # which account is being connected
            out.write(f"Connecting {terminal_text(pack.id)} to your {terminal_text(provider)} account.\n")
        slots = pack.slots
        signed = oauth_connect(
            pack.document,
            slots,
            list(pack.operations.values()),
            origins,
            oauth,
            out=out,
            as_json=as_json,
            target=target,
            browser=browser,
        )
        if signed is not None:  # OAuth2 slots are signed in for; the others are asked for as before
            code, handled = signed
            slots = [slot for slot in slots if slot.env not in handled]
            if code or not slots or oauth.status or oauth.logout:
                return code
        if prompt is None:
            import getpass

            prompt = getpass.getpass
        ask = prompt
        stored, where = prompt_and_store(slots, lambda text: ask(terminal_text(text)), origins, target=target)
    except PackRuntimeError as exc:
        reason = exc.details.get("reason")
        out.write(
            dump({"ok": False, "error": exc.to_json()}, compact=True) + "\n"
            if as_json
            else f"error {exc.code}{f' ({reason})' if reason else ''}: {exc.message}\n"
        )
        return exc.exit_code
    except (EOFError, KeyboardInterrupt):
        out.write("connect: cancelled, nothing stored.\n")
        return 130
    if stored:
        out.write(f"Stored {', '.join(stored)} in {where}, each for the origins shown.\n")
    else:
        out.write("Nothing entered, nothing stored.\n")
    return EXIT_OK
