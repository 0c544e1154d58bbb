"""A loaded pack: ``load_pack(dir)`` and ``Pack.call(verb, args)``, sync and async, one pooled client."""

from __future__ import annotations

import json
import os
import shlex
import threading
import time
import weakref
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx

from packc_runtime.calling.args import schema_is_simple, validate_args
from packc_runtime.calling.mock import mock_answer
from packc_runtime.calling.openapi.operations import (
    DESTRUCTIVE_METHODS,
    NEVER_READ_METHODS,
    Operation,
    load_document,
    read_operations,
)
from packc_runtime.calling.openapi.request import AuthParts, build_request, server_origins, server_url
from packc_runtime.calling.results import (
    Envelope,
    decode_body,
    done_title,
    error_for_status,
    failure,
    preview_card,
    success,
)
from packc_runtime.calling.send import IDEMPOTENT_METHODS, Limits, Sender, Steps
from packc_runtime.calling.transport import LazyTLSAsyncTransport, LazyTLSTransport
from packc_runtime.calling.wrap.argv import build_argv, implied_args
from packc_runtime.calling.wrap.command import run_verb
from packc_runtime.credentials.auth import Authenticator
from packc_runtime.credentials.binding import CredentialHub, binding_mode, credential_hub
from packc_runtime.credentials.redact import Redactor, install_log_filter, remove_log_filter
from packc_runtime.credentials.slots import (
    CredentialSlot,
    CredentialSources,
    credential_slots,
    slot_origins,
)
from packc_runtime.errors import (
    ConnectionFailed,
    InvalidArgument,
    InvalidPack,
    InvalidResponse,
    InvalidServer,
    NotConfirmed,
    PackRuntimeError,
    TransportNotListed,
    UnknownVerb,
)
from packc_runtime.format.check import manifest_problem, policy_problem
from packc_runtime.format.view import ManifestView, PolicyView, Transport, VerbView

__all__ = ["Pack", "load_pack"]

# What a JSON-valid but extreme argument can still raise inside a validator or a serializer.
_UNSENDABLE = (ValueError, TypeError, RecursionError, OverflowError, UnicodeError)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InvalidPack(f"{path.name} is missing from the pack directory {path.parent}.") from None
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        raise InvalidPack(f"{path.name} in {path.parent} is not readable JSON.") from None
    if not isinstance(data, dict):
        raise InvalidPack(f"{path.name} must hold a JSON object.")
    return data


def _openapi_document(directory: Path, manifest: ManifestView) -> dict[str, Any]:
    rel = manifest.openapi.path if manifest.openapi is not None else None
    if rel is None:
        raise InvalidPack("surface.json has no openapi.path naming the pack's own document.")
    doc_path = (directory / rel).resolve()
    if not doc_path.is_relative_to(directory.resolve()):
        raise InvalidPack("openapi.path must stay inside the pack directory.")
    return load_document(doc_path)


def _mocked(envelope: Envelope) -> Envelope:
    envelope["mock"] = True
    return envelope


class Pack:
    """A pack ready to call; use as a context manager to close its connection pool."""

    def __init__(
        self,
        directory: Path,
        *,
        transport: httpx.BaseTransport | httpx.AsyncBaseTransport | None = None,
        limits: Limits | None = None,
        environ: Mapping[str, str] | None = None,
        project: str | Path | bool = True,
    ) -> None:
        self.directory = directory
        self._project = project
        # The light view, not the pydantic models: they double a verb call's cold start (format/view.py).
        # Checked first with lint's rules (format/check.py): nothing runs from a pack lint refuses.
        surface, policy = _read_json(directory / "surface.json"), _read_json(directory / "policy.json")
        for problem in (manifest_problem(surface), policy_problem(policy)):
            if problem is not None:
                pointer, message = problem
                raise InvalidPack(
                    f"{pointer} {message}. Run 'packc lint {directory}' for every finding.", pointer=pointer
                )
        self.manifest = ManifestView.read(surface)
        self.policy = PolicyView.read(policy)
        kind = self.manifest.kind
        if kind == "wrap":
            if self.manifest.wrap is None or not self.manifest.wrap.bin:
                raise InvalidPack("A wrap pack needs wrap.bin in surface.json.")
            self.document: dict[str, Any] = {"paths": {}}  # no HTTP: no operation, no credential slot
        elif kind == "openapi":
            self.document = _openapi_document(directory, self.manifest)
        else:
            raise InvalidPack(
                f"This is a {kind} pack: the runtime runs openapi and wrap packs only, "
                f"and does not run {kind} packs."
            )
        self.operations: dict[str, Operation] = read_operations(self.document)
        self.verbs: Mapping[str, VerbView] = self.manifest.verbs
        self.id = self.manifest.id or directory.name
        self.cli_bin = self.manifest.cliBin or self.id
        self.limits = limits or Limits()
        self.redactor = Redactor()
        install_log_filter(self.redactor)
        # httpx logs whole URLs: the filter stays while this pack can send, i.e. as long as it
        # exists (close() only closes pools, which a later call opens again).
        weakref.finalize(self, remove_log_filter, self.redactor)
        # binding: mothership is refused here; public, mock and hubs public/none ask for no credential.
        self.hub: CredentialHub | None = credential_hub(self.manifest)
        # binding.mode mock: answers come from the document and nothing is sent (calling/mock.py).
        self.mock = binding_mode(self.manifest) == "mock"
        self.slots: list[CredentialSlot] = credential_slots(self.manifest, self.document)
        self._environ: Mapping[str, str] = environ if environ is not None else os.environ
        launcher = directory / "bin" / self.cli_bin
        self.connect_command = (
            f"{shlex.quote(str(launcher))} connect"
            if launcher.is_file()
            else f"packc connect {shlex.quote(str(directory))}"
        )
        self._auth = Authenticator(
            self.document,
            self.slots,
            CredentialSources(environ, hub=self.hub or "local-credential"),
            self.redactor,
            connect_command=self.connect_command,
        )
        self._transport = transport
        self._client: httpx.Client | None = None
        self._aclient: httpx.AsyncClient | None = None
        self._simple: dict[str, bool] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Pack(id={self.id!r}, verbs={len(self.verbs)})"

    def require_transport(self, transport: Transport) -> None:
        """Refuse a face the pack's ``transports`` does not list (none listed: every face serves it).

        Raises:
            TransportNotListed: ``transport`` is not in ``transports``.
        """
        listed = self.manifest.transports
        if listed is not None and transport not in listed:
            faces = {"cli": "its CLI or packc call", "json_exec": "packc exec", "mcp": "MCP"}
            raise TransportNotListed(
                f"{self.id} does not project to {transport}: its transports are "
                f"{', '.join(listed) or 'none'}, so it is not run through {faces[transport]}. "
                f"Use a listed face, or add {transport!r} to transports in surface.json.",
                transport=transport,
                transports=list(listed),
            )

    def slot_origins(self, *, every_enum: bool = True) -> dict[str, tuple[str, ...]]:
        """Per credential variable, the origins ``connect`` binds it to (the document's servers;
        with ``every_enum``, every value of their variables' enums too)."""
        return slot_origins(self.slots, self.operations.values(), self.document, every_enum=every_enum)

    def __enter__(self) -> Pack:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    async def __aenter__(self) -> Pack:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    def close(self) -> None:
        """Close the sync connection pool (a later call opens a new one).

        httpx's log stays redacted for this pack's secrets until the pack itself is gone: a closed
        pack can still be called. In async code use ``async with`` or :meth:`aclose`, which also
        close the async pool.
        """
        if self._client is not None:
            self._client.close()
            self._client = None

    async def aclose(self) -> None:
        """Close both connection pools."""
        if self._aclient is not None:
            await self._aclient.aclose()
            self._aclient = None
        self.close()

    def _sender(self) -> Sender:
        if self._transport is not None and not isinstance(self._transport, httpx.BaseTransport):
            raise TypeError("The injected transport is async-only: use Pack.acall.")
        with self._lock:  # build the one pool once, even with calls on several threads
            if self._client is None:
                self._client = httpx.Client(
                    transport=self._transport or LazyTLSTransport(),
                    follow_redirects=False,
                    timeout=self.limits.timeout,
                )
            return Sender(self._client, self.limits)

    def _async_sender(self) -> Sender | None:
        """The async pool's sender; None when an injected transport is sync-only."""
        if self._transport is not None and not isinstance(self._transport, httpx.AsyncBaseTransport):
            return None
        with self._lock:
            if self._aclient is None:
                transport = (
                    self._transport
                    if isinstance(self._transport, httpx.AsyncBaseTransport)
                    else LazyTLSAsyncTransport()
                )
                self._aclient = httpx.AsyncClient(
                    transport=transport, follow_redirects=False, timeout=self.limits.timeout
                )
            return Sender(None, self.limits, aclient=self._aclient)

    def is_write(self, verb: str) -> bool:
        """policy.json's access (authoritative), else the verb's legacy ``policy`` hint; write when unsure.

        A PUT, PATCH or DELETE is a write whatever policy.json says: a hand-edited (or hostile)
        pack cannot make one run without a person's confirmation.
        """
        op = self.operations.get(verb)
        if op is not None and op.method in NEVER_READ_METHODS:
            return True
        row = self.policy.commands.get(verb)
        if row is not None:
            return row.access == "write"
        declared = self.verbs.get(verb)
        return declared is None or declared.policy != "read"

    def is_destructive(self, verb: str) -> bool:
        """policy.json's ``destructive``, and always for a DELETE (as :meth:`is_write` holds PUT/PATCH/DELETE)."""
        op = self.operations.get(verb)
        if op is not None and op.method in DESTRUCTIVE_METHODS:
            return True
        row = self.policy.commands.get(verb)
        return row is not None and row.destructive is True

    def call(
        self,
        verb: str,
        args: Mapping[str, Any] | None = None,
        *,
        confirm: bool = False,
        server: str | None = None,
        server_variables: Mapping[str, str] | None = None,
    ) -> Envelope:
        """Run one verb and return its JSON envelope (never raises for a failed call).

        Args:
            verb: the verb name, e.g. ``pets.get``.
            args: the arguments object, validated against the verb's args schema first.
            confirm: True confirms a write verb; without it a write verb returns its preview card.
            server: a base URL replacing the document's server URL, path prefix included.
            server_variables: values for the document's server variables.
        """
        if self.manifest.kind == "wrap":
            try:
                envelope = self._wrap_call(
                    verb, args if args is not None else {}, confirm, server, server_variables
                )
            except PackRuntimeError as exc:
                envelope = self._failure(verb, exc)
            wrapped: Envelope = self.redactor.redact(envelope)
            return wrapped
        sender = self._sender()
        try:
            envelope = sender.run(
                self._steps(
                    sender, verb, (args if args is not None else {}), confirm, server, server_variables
                )
            )
        except (PackRuntimeError, httpx.HTTPError) as exc:
            envelope = self._failure(verb, exc)
        redacted: Envelope = self.redactor.redact(envelope)
        return redacted

    async def acall(
        self,
        verb: str,
        args: Mapping[str, Any] | None = None,
        *,
        confirm: bool = False,
        server: str | None = None,
        server_variables: Mapping[str, str] | None = None,
    ) -> Envelope:
        """:meth:`call` for async code, on the pack's async connection pool (``httpx.AsyncClient``).

        With an injected sync-only transport, the sync call runs on a worker thread instead.
        """
        sender = self._async_sender()
        if sender is None or self.manifest.kind == "wrap":  # a wrap verb waits on a child process
            import asyncio  # lazily: the CLI path never needs it

            return await asyncio.to_thread(
                self.call, verb, args, confirm=confirm, server=server, server_variables=server_variables
            )
        try:
            envelope = await sender.arun(
                self._steps(
                    sender, verb, (args if args is not None else {}), confirm, server, server_variables
                )
            )
        except (PackRuntimeError, httpx.HTTPError) as exc:
            envelope = self._failure(verb, exc)
        redacted: Envelope = self.redactor.redact(envelope)
        return redacted

    def _failure(self, verb: str, exc: PackRuntimeError | httpx.HTTPError) -> Envelope:
        if isinstance(exc, httpx.HTTPError):  # a transport failure the sender did not classify
            exc = ConnectionFailed(f"The request failed ({type(exc).__name__}).")
        exc.message = self.redactor.redact_text(exc.message)
        return failure(verb, exc)

    def args_schema(self, verb: str) -> Mapping[str, Any] | None:
        """The args schema calls of ``verb`` are checked against: its ``args``; for a wrap verb that
        declares none, each placeholder of its command line as a required string."""
        declared = self.verbs[verb]
        if declared.args is None and self.manifest.kind == "wrap" and self.manifest.wrap is not None:
            return implied_args(declared.cli, self.manifest.wrap.argv_template)
        return declared.args

    def _checked(self, verb: str, args: Any) -> tuple[VerbView, dict[str, Any]]:
        """The verb's declaration and its args, validated against its schema (a wrap verb without
        one: each placeholder of its command line a required string)."""
        if verb not in self.verbs:
            raise UnknownVerb(
                f"{self.id} has no verb {verb!r}; its verbs are: {', '.join(sorted(self.verbs))}.",
                verbs=sorted(self.verbs),
            )
        declared = self.verbs[verb]
        schema = self.args_schema(verb)
        simple = self._simple.get(verb)
        if simple is None:
            simple = self._simple[verb] = schema_is_simple(schema)
        try:
            return declared, validate_args(verb, schema, args, simple=simple)
        except _UNSENDABLE as exc:  # a value check_json_args let through that still breaks a validator
            raise InvalidArgument(
                f"{verb}: the arguments cannot be checked ({type(exc).__name__})."
            ) from None

    def _wrap_call(
        self, verb: str, args: Any, confirm: bool, server: str | None, variables: Mapping[str, str] | None
    ) -> Envelope:
        """A wrap verb: checked and confirmed as an openapi verb is, then run as one command."""
        assert self.manifest.wrap is not None  # __init__ refuses a wrap pack without it
        declared, args = self._checked(verb, args)
        if server or variables:
            raise InvalidServer(f"{self.id} wraps a CLI: it has no server to replace.")
        wrap = self.manifest.wrap
        # An argument that would pose as a flag is refused before a person is asked about it.
        build_argv(wrap.bin, verb, declared.cli, wrap.argv_template, (), args)
        if self.is_write(verb) and not confirm:
            raise NotConfirmed(
                f"{verb} changes data: nothing was run. Show the preview to a person, then call "
                'again confirmed (--confirm, confirm=True, or "confirm": true).',
                preview=preview_card(verb, declared, args),
            )
        if self.mock:  # the command is not run: a mock pack reaches nothing outside itself
            return _mocked(success(verb, None, done_title(declared, args, None), None))
        project = self._project
        return run_verb(
            verb,
            declared,
            args,
            wrap=wrap,
            pack_dir=self.directory.resolve(),
            pack_id=self.id,
            limits=self.limits,
            environ=self._environ,
            project=None if project is False else Path.cwd() if project is True else Path(project),
            redactor=self.redactor,
        )

    def _steps(
        self,
        sender: Sender,
        verb: str,
        args: Any,
        confirm: bool,
        server: str | None,
        server_variables: Mapping[str, str] | None,
    ) -> Steps:
        """One call as a generator of send/sleep effects (driven by ``sender.run`` or ``sender.arun``)."""
        deadline = time.monotonic() + self.limits.deadline
        declared, args = self._checked(verb, args)
        op = self.operations.get(verb)
        if op is None:
            raise InvalidPack(
                f"Verb {verb!r} is bound to no operation in the pack's document (x-packc-binding)."
            )
        if self.is_write(verb) and not confirm:
            raise NotConfirmed(
                f"{verb} changes data: nothing was sent. Show the preview to a person, then call "
                'again confirmed (--confirm, confirm=True, or "confirm": true).',
                preview=preview_card(verb, declared, args, op.amounts, op.money_objects, op.mime),
            )
        if self.mock:
            status, body = mock_answer(self.document, op)
            return _mocked(success(verb, status, done_title(declared, args, body), body))
        base = server_url(op, override=server, variables=server_variables)
        home = server_origins(op, server_variables) if op.security and self.hub else ()

        def token_send(request: httpx.Request) -> Steps:
            # its form carries the refresh token or client secret: no redirect to another origin
            return sender.steps(request, retry=False, deadline_at=deadline, same_origin=True)

        retry = op.method in IDEMPOTENT_METHODS or op.idempotent
        for attempt in (1, 2):
            parts = (yield from self._auth.apply(op, base, token_send, home)) if self.hub else AuthParts()
            try:
                request = build_request(op, args, base, parts)
            except _UNSENDABLE as exc:
                raise InvalidArgument(
                    f"{verb}: the request cannot be built from these arguments ({type(exc).__name__})."
                ) from None
            received = yield from sender.steps(
                request, retry=retry, credential_headers=parts.headers.keys(), deadline_at=deadline
            )
            # A 401 with a cached OAuth2 token: the API revoked or expired it early. Forget it and
            # try once more with a fresh one (a second 401 is the answer).
            if not (received.status == 401 and attempt == 1 and self._auth.evict_tokens()):
                break
        try:
            body = decode_body(verb, received)
        except InvalidResponse as exc:
            if received.status < 400:
                raise
            body = exc.details.get("body")  # an error status wins over its broken JSON body
        error = error_for_status(received, body)
        if error is not None:
            raise error
        truncated = {"limit": self.limits.max_response_bytes} if received.truncated else None
        return success(verb, received.status, done_title(declared, args, body), body, truncated=truncated)


def load_pack(
    directory: str | Path,
    *,
    transport: httpx.BaseTransport | httpx.AsyncBaseTransport | None = None,
    limits: Limits | None = None,
    environ: Mapping[str, str] | None = None,
    project: str | Path | bool = True,
) -> Pack:
    """Load the pack in ``directory``.

    Args:
        directory: the pack directory (holding surface.json, policy.json and the document).
        transport: an httpx transport to use instead of the network (tests: ``httpx.MockTransport``,
            which serves both :meth:`Pack.call` and :meth:`Pack.acall`).
        limits: time and size limits; :class:`Limits` defaults otherwise.
        environ: where environment credentials come from (default ``os.environ``); for a wrap pack,
            the wrapped CLI's environment too.
        project: where a wrap command of ``workspace.mode: project`` runs: True, the current
            directory (``HCP_PROJECT_DIR`` overrides it); a path, that directory; False, there is
            none (a hosted runtime, ``packc serve --http``), and such commands return ``no_project``.

    Raises:
        InvalidPack: the directory is not a usable openapi or wrap pack.
    """
    return Pack(Path(directory), transport=transport, limits=limits, environ=environ, project=project)
