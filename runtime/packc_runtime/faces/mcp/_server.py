"""Serve packs to MCP hosts (stdio or streamable HTTP) on the official ``mcp`` SDK's low-level Server.

Only ``packc serve`` and a pack's ``<cliBin> mcp`` import this module: a pack that is never served
never imports ``mcp``. Each verb is one tool (``_tools``); a write verb is sent only after a
person approves its preview card (``_confirm``), asked through the client's form elicitation
(both the handshake protocol and the stateless one), or, for a client that cannot ask, only when
the server was started with ``host_confirms`` (the operator says the host asks before every call).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from opentelemetry.trace import NoOpTracerProvider, ProxyTracerProvider, get_tracer_provider

from packc_runtime.calling.pack import Pack
from packc_runtime.calling.results import Envelope, failure, live_title
from packc_runtime.errors import PackRuntimeError
from packc_runtime.faces.mcp._confirm import (
    ApprovalLedger,
    Decision,
    args_digest,
    decision_of,
    form_message,
    form_schema,
)
from packc_runtime.faces.mcp._threads import CallThreads
from packc_runtime.faces.mcp._tools import DEFAULT_MAX_RESULT_BYTES, ToolSpec, build_tools, fit_and_render

__all__ = ["PackServer", "rebinding_protection", "serve_http", "serve_stdio"]

_CONFIRM_KEY = "confirm"
#: Worker threads for Pack.call: as many calls run at once as anyio's default thread limiter allowed.
_CALL_THREADS = 40
_NOT_SENT = {
    "decline": "The person declined: nothing was sent.",
    "cancel": "The person dismissed the approval without answering: nothing was sent.",
}


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    for dist in ("packc-runtime", "packc"):
        try:
            return version(dist)
        except PackageNotFoundError:
            continue
    return "0"


def _cli_line(spec: ToolSpec, args: Mapping[str, Any], *, confirm: bool = False) -> str:
    """The exact call on a command line (the pack's document and these arguments), for a person."""
    import json
    import shlex

    line = [
        "packc",
        "call",
        str(spec.pack.directory),
        spec.verb,
        "--args",
        json.dumps(args, ensure_ascii=False, separators=(",", ":"), sort_keys=True),
    ]
    return shlex.join([*line, "--confirm"] if confirm else line)


class _TracedWhenConfigured:
    """The SDK's OpenTelemetry middleware, run only while a tracer provider is installed.

    The SDK ships it on every server; with no provider it opens a no-op span per message, which cost
    25-60 us of a tools/call (docs/mcp.md, Performance). The check is per message, so a provider
    installed after the server was built is still honoured.
    """

    def __init__(self, inner: ServerMiddleware[Any]) -> None:
        self.inner = inner

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if isinstance(get_tracer_provider(), ProxyTracerProvider | NoOpTracerProvider):
            return await call_next(ctx)
        return await self.inner(ctx, call_next)


async def _report_live(ctx: ServerRequestContext[Any], spec: ToolSpec, args: Mapping[str, Any]) -> None:
    """The verb's ``title.live`` as a progress notification, when the client sent a progress token
    (the SDK sends nothing otherwise). Progress is a courtesy: a failure to send it never fails the call."""
    try:
        title = live_title(spec.pack.verbs[spec.verb], args)
        if title:
            await ctx.session.report_progress(0, None, title)
    except Exception:  # a lost notification is not the call's outcome
        return


class PackServer:
    """The tools of one or more packs behind one MCP ``Server``.

    Args:
        packs: loaded packs (their connection pools are closed by :meth:`aclose`).
        host_confirms: the operator's word that the MCP host asks a person before every tool call;
            then a client without elicitation gets write verbs sent instead of only previewed.
        max_result_bytes: the cap on one result's JSON (a marker says what was cut).
        output_schemas: declare each tool's ``outputSchema`` where the document gives a small one.
    """

    def __init__(
        self,
        packs: Sequence[Pack],
        *,
        host_confirms: bool = False,
        max_result_bytes: int = DEFAULT_MAX_RESULT_BYTES,
        output_schemas: bool = True,
    ) -> None:
        self.packs = list(packs)
        self.tools: dict[str, ToolSpec] = build_tools(self.packs, with_output_schema=output_schemas)
        self.host_confirms = host_confirms
        self.max_result_bytes = max_result_bytes
        self.ledger = ApprovalLedger()
        self._calls = CallThreads(_CALL_THREADS)
        self._listing = types.ListToolsResult(
            tools=[types.Tool.model_validate(spec.definition) for spec in self.tools.values()]
        )
        name = self.packs[0].id if len(self.packs) == 1 else "packc"
        self.server: Server[Any] = Server(
            name,
            version=_version(),
            title="packc: " + ", ".join(p.id for p in self.packs)[:200],
            instructions=self._instructions(),
            on_list_tools=self._list_tools,
            get_tool_input_schema=lambda tool: (
                self.tools[tool].definition["inputSchema"] if tool in self.tools else None
            ),
        )
        # Registered as a plain handler: a result goes back as the wire dict (``_result``), not a model.
        self.server.add_request_handler("tools/call", types.CallToolRequestParams, self._call_tool)
        self.server.middleware = [
            _TracedWhenConfigured(m) if type(m).__name__ == "OpenTelemetryMiddleware" else m
            for m in self.server.middleware
        ]
        # Seals the stateless protocol's requestState, bound to the tool name and its arguments.
        self.server.middleware.append(
            RequestStateBoundary(RequestStateSecurity.ephemeral(), default_audience=name)
        )

    def _instructions(self) -> str:
        names = ", ".join(p.manifest.name or p.id for p in self.packs)
        return (
            f"Tools for {names}. Each tool is one command of the API with a JSON-Schema arguments object. "
            "Tools that change data show a person a preview and send only after they approve; if the "
            "result says not_confirmed, nothing was sent. Results carry the envelope "
            "{ok, status, title, body | error}."
        )

    async def aclose(self) -> None:
        """Wait for the calls under way, stop the call threads, close every pack's connection pools."""
        await self._calls.aclose()
        for pack in self.packs:
            await pack.aclose()

    # --- handlers ---

    async def _list_tools(
        self,
        ctx: ServerRequestContext[Any],
        params: types.PaginatedRequestParams | None,
    ) -> types.ListToolsResult:
        return self._listing

    async def _call_tool(
        self,
        ctx: ServerRequestContext[Any],
        params: types.CallToolRequestParams,
    ) -> dict[str, Any] | types.InputRequiredResult:
        spec = self.tools.get(params.name)
        if spec is None:
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {params.name}")
        args: dict[str, Any] = dict(params.arguments or {})
        if not spec.write:
            await _report_live(ctx, spec, args)
        envelope = await self._send(spec, args, confirm=False)
        if not spec.write or envelope.get("ok") or envelope.get("error", {}).get("code") != "not_confirmed":
            return self._result(spec, envelope, args)  # a read, or a write refused before asking (bad args)
        card = envelope["error"].get("preview") or {}
        decision = await self._ask(ctx, params, spec, args, card)
        if isinstance(decision, types.InputRequiredResult):
            return decision
        if decision == "accept":
            await _report_live(ctx, spec, args)
            return self._result(spec, await self._send(spec, args, confirm=True), args)
        if decision in _NOT_SENT:
            envelope["error"] = {
                **envelope["error"],
                "code": "not_confirmed",
                "message": _NOT_SENT[decision],
                "declined": decision,
            }
            return self._result(spec, envelope, args)
        envelope["error"] = {
            **envelope["error"],
            "message": (
                f"{spec.name} changes data and this MCP client cannot ask a person (it has no form elicitation): "
                "nothing was sent. Show the preview to the person; to send it they can run "
                f"`{_cli_line(spec, args, confirm=True)}`, or the server can be started with --host-confirms if this "
                "host asks the person before every tool call."
            ),
        }
        return self._result(spec, envelope, args)

    async def _send(self, spec: ToolSpec, args: Mapping[str, Any], *, confirm: bool) -> Envelope:
        # The sync Pack.call on a worker thread (_threads: one queue put, one call_soon_threadsafe;
        # Pack.acall costs ~0.3 ms more than Pack.call on loopback: anyio streams, event-loop turns).
        # A cancelled request stops waiting at once; a call not yet started is dropped, one under way
        # finishes on its thread and its envelope is dropped. docs/mcp.md, Performance.
        call = partial(spec.pack.call, spec.verb, args, confirm=confirm)
        try:
            try:
                asyncio.get_running_loop()
            except RuntimeError:  # not on asyncio (anyio on trio): anyio's worker threads
                import anyio.to_thread

                return await anyio.to_thread.run_sync(call)
            return await self._calls.run(call)
        except Exception as exc:  # a bug must still come back as one envelope, not a dropped call
            return failure(
                spec.verb,
                PackRuntimeError(f"Internal error in the runtime ({type(exc).__name__}); please report it."),
            )

    async def _ask(
        self,
        ctx: ServerRequestContext[Any],
        params: types.CallToolRequestParams,
        spec: ToolSpec,
        args: Mapping[str, Any],
        card: Mapping[str, Any],
    ) -> Decision | str | types.InputRequiredResult:
        """The person's decision, a question to return (stateless protocol), or "unavailable"."""
        caps = ctx.session.client_capabilities
        elicitation = caps.elicitation if caps is not None else None
        can_form = elicitation is not None and (elicitation.form is not None or elicitation.url is None)
        digest = args_digest(spec.name, args)
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            answer = (params.input_responses or {}).get(_CONFIRM_KEY)
            if (
                params.request_state is not None
                and isinstance(answer, types.ElicitResult)
                and self.ledger.redeem(params.request_state, digest)
            ):
                return decision_of(answer.action, answer.content)
            if not can_form:
                return "accept" if self.host_confirms else "unavailable"
            question = types.ElicitRequest(
                params=types.ElicitRequestFormParams(
                    message=form_message(spec.name, card, args), requested_schema=form_schema(card)
                )
            )
            return types.InputRequiredResult(
                input_requests={_CONFIRM_KEY: question}, request_state=self.ledger.issue(digest)
            )
        if not can_form or not ctx.session.can_send_request:
            return "accept" if self.host_confirms else "unavailable"
        try:
            result = await ctx.session.elicit_form(
                form_message(spec.name, card, args), form_schema(card), related_request_id=ctx.request_id
            )
        except (
            Exception
        ):  # the client failed to ask (an error answer, a closed stream): no answer, send nothing
            return "cancel"
        return decision_of(result.action, result.content)

    def _result(self, spec: ToolSpec, envelope: Envelope, args: Mapping[str, Any]) -> dict[str, Any]:
        """The CallToolResult as its wire dict: the SDK validates and dumps a handler's result against the
        protocol's schema anyway, so a model built here would be validated and dumped twice (about half the
        result's serialization time: 0.19 of 0.38 ms for a 29 KB result)."""
        error = envelope.get("error")
        if isinstance(error, dict) and error.get("code") == "missing_credentials":
            env = " or ".join(error.get("env") or []) or "the pack's credential variable"
            error["fix"] = (
                f"Have a person run `{spec.pack.cli_bin} connect` (or `packc connect "
                f"{spec.pack.directory}`) once, or set {env} in the environment the MCP host starts this "
                f"server with and approve it once (`{spec.pack.cli_bin} connect --approve-env`); then "
                "call again."
            )
        elif isinstance(error, dict) and error.get("code") == "unapproved_credentials":
            error["fix"] = (
                f"Have a person check that {', '.join(error.get('origins') or [])} is the API the "
                f"variable is for and run `{error.get('command')}` once (an agent must not run it); or "
                "list that origin in PACKC_TRUSTED_ORIGINS in the host's environment. Then call again."
            )

        def how() -> str:  # only when the body is cut
            return (
                f"call again with narrower arguments (a filter or a smaller page), or run "
                f"`{_cli_line(spec, args)}` for the whole body (up to 10 MiB)"
            )

        fitted, text = fit_and_render(envelope, self.max_result_bytes, how=how)
        if len(text.encode()) > self.max_result_bytes:  # error bodies and previews are not cut above
            head, sep, marker = text.rpartition("\n[packc: ")
            tail = sep + marker if head else ""
            keep = max(0, self.max_result_bytes - len(tail.encode()) - 32)
            text = (
                (head or text).encode()[:keep].decode("utf-8", errors="ignore") + "\n[packc: text cut]" + tail
            )
        return {
            "content": [{"type": "text", "text": text}],
            "structuredContent": fitted,
            "isError": not envelope.get("ok"),
            "resultType": "complete",
        }


async def serve_stdio(server: PackServer) -> None:
    """Serve over the process's stdin/stdout until the client closes them (``_stdio``: the event loop
    reads and writes the pipes; the SDK's ``stdio_server``, a thread hop per read and write, otherwise)."""
    from packc_runtime.faces.mcp._stdio import pipe_stdio, pipes_usable

    if pipes_usable():
        transport = pipe_stdio
    else:
        from mcp.server.stdio import stdio_server as transport
    try:
        async with transport() as (read, write):
            await server.server.run(read, write, server.server.create_initialization_options())
    finally:
        await server.aclose()


def rebinding_protection(host: str, allowed_hosts: Sequence[str] = ()) -> Any:
    """The SDK's Host/Origin check for a server bound to ``host``, on whatever the address: it
    answers only to the names :func:`_auth.allowed_host_names` gives (with any port)."""
    from mcp.server.transport_security import TransportSecuritySettings

    from packc_runtime.faces.mcp._auth import allowed_host_names

    names = allowed_host_names(host, tuple(allowed_hosts))
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[form for name in names for form in (name, f"{name}:*")],
        allowed_origins=[form for name in names for form in (f"http://{name}", f"http://{name}:*")],
    )


async def serve_http(
    server: PackServer,
    host: str,
    port: int,
    *,
    secret: str,
    allowed_hosts: Sequence[str] = (),
    on_ready: Callable[[str], None] | None = None,
) -> None:
    """Serve streamable HTTP at ``http://HOST:PORT/mcp``, with DNS-rebinding protection on any address.

    Every request must carry ``Authorization: Bearer <secret>`` (``_auth.BearerGate``: 401
    otherwise, before the SDK sees it), and a Host (and any Origin) naming the bind address, a
    loopback name on loopback, or one of ``allowed_hosts`` (421/403 otherwise). ``on_ready`` gets the
    URL once the socket listens (port 0 picks a free port).
    """
    import anyio
    import uvicorn

    from packc_runtime.faces.mcp._auth import BearerGate

    security = rebinding_protection(host, allowed_hosts)
    app = BearerGate(server.server.streamable_http_app(host=host, transport_security=security), secret)
    http = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on"))
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(http.serve)
            while not http.started:
                if http.should_exit:
                    return
                await anyio.sleep(0.02)
            bound = http.servers[0].sockets[0].getsockname()[1] if http.servers else port
            shown = f"[{host}]" if ":" in host else host
            if on_ready is not None:
                on_ready(f"http://{shown}:{bound}/mcp")
    finally:
        await server.aclose()
