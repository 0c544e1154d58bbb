"""The public ``compile`` function: source → front end → the passes (plan → checks → derive → emit → lint).

The front end (:func:`read_source`) makes a :class:`CompileContext`; :data:`PASSES` then run in
order, each ``ctx -> ctx`` (sqlglot's optimizer ``RULES``), and ``plan_source`` runs the first of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from packc.build.assemble import assemble_pack, pack_servers, small_pack
from packc.build.checks import check_operations, silent_auth
from packc.build.hidden import hidden_values
from packc.build.implied import imply_security
from packc.build.response_patterns import response_patterns
from packc.curate.goal import check_goal
from packc.curate.plan import MIN_VERBS, LeftOut, PackPlan, Plan, plan
from packc.errors import InputError, UsageError
from packc.model import Api, Operation
from packc.options import CompileOptions, hand_names
from packc.read.overrides import IDENTIFIER_CODES, Overrides, collect_overrides
from packc.write.emit import check_maker, write_pack
from packc_runtime.diagnostics import Diagnostic, has_errors

__all__ = [
    "PASSES",
    "CompileContext",
    "CompileResult",
    "CompiledPack",
    "Pass",
    "compile",
    "plan_source",
    "read_source",
    "run",
]


@dataclass(frozen=True, slots=True)
class CompiledPack:
    """One pack: its id, where it was written (None when not written) and its verbs."""

    id: str
    directory: Path | None
    verbs: tuple[str, ...]
    access: Mapping[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "directory": str(self.directory) if self.directory else None,
            "verbs": [{"verb": v, "access": self.access.get(v, "")} for v in self.verbs],
        }


@dataclass(frozen=True, slots=True)
class CompileResult:
    """What a compile produced: packs, the operations left out and why, and every diagnostic."""

    packs: tuple[CompiledPack, ...]
    left_out: tuple[LeftOut, ...]
    diagnostics: tuple[Diagnostic, ...]

    @property
    def ok(self) -> bool:
        """True when no diagnostic is an error."""
        return not has_errors(self.diagnostics)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "packs": [p.to_json() for p in self.packs],
            "left_out": [
                {"verb": lo.name, "method": lo.op.method.upper(), "path": lo.op.path, "reason": lo.reason}
                for lo in self.left_out
            ],
            "diagnostics": [d.to_json() for d in self.diagnostics],
        }


@dataclass(frozen=True, slots=True)
class CompileContext:
    """What flows through the passes: the source, the options, the model and overrides, what was
    made so far, and every diagnostic.

    The diagnostics are kept in three runs, joined in this order (:attr:`diagnostics`): the front
    end's (the document's and the stub's), the warnings from reading operations' parameters, bodies
    and responses (normalize defers that reading; the passes that read record them), and the
    compile's own, from planning on, in pass order.
    """

    source: str | Path
    options: CompileOptions
    api: Api
    overrides: Overrides
    front: tuple[Diagnostic, ...] = ()  # the front end's
    parts: tuple[Diagnostic, ...] = ()  # reading operations' parts, in the order they were read
    found: tuple[Diagnostic, ...] = ()  # the passes', in pass order
    plan: Plan | None = None  # from plan_verbs on
    servers: tuple[Mapping[str, Any], ...] = ()  # from choose_servers on
    packs: tuple[CompiledPack, ...] = ()  # what build_packs made

    @property
    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """Every diagnostic so far, in the order a compile reports them."""
        return (*self.front, *self.parts, *self.found)

    @property
    def planned(self) -> Plan:
        """The plan; only passes after :func:`plan_verbs` ask for it."""
        if self.plan is None:
            raise RuntimeError("a pass ran before plan_verbs")  # a bug in PASSES, not in the input
        return self.plan

    @property
    def packed(self) -> list[Operation]:
        """The planned packs' operations, pack by pack, in verb order."""
        return [v.op for pack in self.planned.packs for v in pack.verbs]

    def noting(self, found: Iterable[Diagnostic]) -> CompileContext:
        """This context with ``found`` after the compile's diagnostics so far."""
        return replace(self, found=(*self.found, *found))


Pass = Callable[[CompileContext], CompileContext]


def _front(
    source: str | Path,
    *,
    strict: bool,
    allow_remote_refs: bool,
    allow_outside: bool,
    overlay: str | Path | None,
    allow_private: bool = False,
) -> tuple[Api, Overrides, list[Diagnostic]]:
    from packc.read.frontend import read_api

    front = read_api(
        source,
        allow_remote_refs=allow_remote_refs,
        allow_outside=allow_outside,
        strict=strict,
        overlay=overlay,
        allow_private=allow_private,
    )
    diags = list(front.diagnostics)
    api = front.api
    # A stub, local or fetched, is as untrusted as a document: lowering a verb's care from it warns (C170).
    overrides, more = collect_overrides(api, front.stub, care_by_user=front.care_by_overlay)
    if front.goal is not None:
        overrides = replace(overrides, goal=front.goal)
    return api, overrides, diags + more


def read_source(source: str | Path, options: CompileOptions) -> CompileContext:
    """The front end: the context the passes start from (the model, the overrides, their diagnostics)."""
    api, overrides, diags = _front(
        source,
        strict=options.strict,
        allow_remote_refs=options.allow_remote_refs,
        allow_outside=options.allow_outside,
        overlay=options.overlay,
        allow_private=options.allow_private,
    )
    return CompileContext(source, options, api, overrides, front=tuple(diags))


def _goal(given: str | None, overrides: Overrides, split: bool, source: str | Path) -> str | None:
    """The task: ``--for`` (``goal=``), else the stub's ``for``; an empty one or one with ``split`` is refused.
    A stub's own ``for`` that says nothing, or is too long, is the stub's error (D013 at ``#/for``), not ``--for``'s."""
    if given is not None or overrides.goal is None:
        return check_goal(given)  # with split, refused when the options were made
    try:
        goal = check_goal(overrides.goal)
    except UsageError as exc:
        raise InputError(
            f'{source}: the stub\'s "for" is not a task',
            [
                Diagnostic(
                    "D013",
                    "error",
                    f"{source}#/for",
                    f'The stub\'s "for": {exc}',
                    'Write "for": "triage issues and review pull requests".',
                )
            ],
        ) from exc
    if split:
        raise UsageError(
            'The stub\'s "for" picks the verbs of one pack for a task; --split covers every operation. '
            "Leave out one of them."
        )
    return goal


# -- the passes, in the order PASSES runs them -------------------------------------------------


def plan_verbs(ctx: CompileContext) -> CompileContext:
    """Rank and select the verbs (``packc plan``'s answer); ranking reads some operations' parts."""
    o = ctx.options
    plan_ = plan(
        ctx.api,
        ctx.overrides,
        split=o.split,
        goal=_goal(o.goal, ctx.overrides, o.split, ctx.source),
        include=o.include,
        exclude=o.exclude,
    )
    return replace(ctx, plan=plan_, parts=ctx.api.deferred_diagnostics()).noting(plan_.diagnostics)


def imply_credentials(ctx: CompileContext) -> CompileContext:
    """A planned operation that asks for an Authorization header and names no security gets a scheme (C156)."""
    api, plan_, implied = imply_security(ctx.api, ctx.planned)
    return replace(ctx, api=api, plan=plan_).noting(implied)


def read_parts(ctx: CompileContext) -> CompileContext:
    """Read the packed operations' parameters, bodies and responses now, and record the warnings.

    Every later pass reads only these operations, so what reading reports is complete here.
    """
    return replace(ctx, parts=ctx.api.read_parts(ctx.packed))


def check_packed(ctx: CompileContext) -> CompileContext:
    """The checks of the packed operations: their parts, silent credentials, values no one can see,
    response patterns a host would run unguarded."""
    packed = ctx.packed
    return ctx.noting(
        [
            *check_operations(ctx.api, packed),
            *silent_auth(ctx.api, packed),
            *hidden_values(ctx.api, packed),
            *response_patterns(ctx.api, packed),
        ]
    )


def choose_servers(ctx: CompileContext) -> CompileContext:
    """The servers every pack names: ``--server``, else the document's (C130 when there is none)."""
    servers = tuple(pack_servers(ctx.api, ctx.options.server))
    ctx = replace(ctx, servers=servers)
    if servers:
        return ctx
    none = Diagnostic(
        "C130",
        "warning",
        "#/servers",
        "The document names no server.",
        "Pass --server URL to packc compile, or --server to each call.",
    )
    return ctx.noting([none])


def build_packs(ctx: CompileContext) -> CompileContext:
    """Derive, write and lint each planned pack."""
    # A name that would become a path, a command or code and is not a valid identifier: nothing
    # is written (the plan and the diagnostics are still returned).
    writing = ctx.options.write and not any(
        d.code in IDENTIFIER_CODES and d.level == "error" for d in ctx.front
    )
    if writing:  # every folder is checked first: a refusal leaves no pack of this compile half-written
        for pack in ctx.planned.packs:
            check_maker(Path(ctx.options.out_dir), pack.id, _made_by(ctx), force=ctx.options.force)
    for pack in ctx.planned.packs:
        compiled, found = _build_pack(ctx, pack, writing)
        ctx = replace(ctx, packs=(*ctx.packs, compiled)).noting(found)
    return ctx


PASSES: tuple[Pass, ...] = (
    plan_verbs,
    imply_credentials,
    read_parts,
    check_packed,
    choose_servers,
    build_packs,
)
"""The compile after the front end, in order; ``plan_source`` runs the first (``PASSES[:1]``)."""


def run(ctx: CompileContext, passes: Iterable[Pass] = PASSES) -> CompileContext:
    """Run ``passes`` over ``ctx`` in order; returns the last context."""
    for pass_ in passes:
        ctx = pass_(ctx)
    return ctx


def _made_by(ctx: CompileContext) -> dict[str, Any]:
    """What a pack folder records of the compile that wrote it, so that another compile (another
    document, task or --split) never replaces it unasked: a --for pack and the API's one pack once
    shared packs/<api>."""
    return {"api": ctx.api.info.title, "for": ctx.planned.task, "split": ctx.options.split}


def _build_pack(ctx: CompileContext, pack: PackPlan, writing: bool) -> tuple[CompiledPack, list[Diagnostic]]:
    """One pack: derived, checked for size (C111), written and linted when ``writing``."""
    plan_, options = ctx.planned, ctx.options
    output, diags = assemble_pack(ctx.api, ctx.overrides, pack, plan_, options.split, ctx.servers)
    public_read = (
        output.manifest.binding is not None
        and output.manifest.binding.mode == "public"
        and all(v.access == "read" for v in output.verbs)
    )
    if len(output.verbs) < MIN_VERBS and not public_read:
        diags.append(small_pack(pack.id, len(output.verbs), plan_))
    directory = None
    if writing:
        from packc.lint import lint_pack

        # Lint runs on the new files before they are moved into place.
        directory, found = write_pack(
            Path(options.out_dir),
            output,
            repo=options.repo,
            check=lint_pack if options.lint else None,
            made_by=_made_by(ctx),
            force=options.force,
        )
        for d in found or []:
            # An undescribed argument of a written pack is the document's silence, one warning per
            # parameter of every verb: compile does not repeat it; packc lint on the pack lists it.
            if d.code != "M045":
                diags.append(Diagnostic(d.code, d.level, f"{pack.id}/{d.pointer}", d.message, d.fix))
    compiled = CompiledPack(
        pack.id,
        directory,
        tuple(v.name for v in output.verbs),
        {v.name: v.access for v in output.verbs},
    )
    return compiled, diags


# -- the public functions ------------------------------------------------------------------------


def plan_source(
    source: str | Path,
    *,
    split: bool = False,
    strict: bool = False,
    allow_remote_refs: bool = False,
    allow_outside: bool = False,
    overlay: str | Path | None = None,
    goal: str | None = None,
    allow_private: bool = False,
    include: str | Sequence[str] = (),
    exclude: str | Sequence[str] = (),
    options: CompileOptions | None = None,
) -> Plan:
    """Read a source and plan its verbs without writing anything (``packc plan``; ``goal``: ``--for``;
    ``allow_private``: ``--allow-private-addresses``; ``include``/``exclude``: ``--include``/``--exclude``,
    as in :func:`compile`; or all of them as ``options``)."""
    given = CompileOptions(
        split=split,
        strict=strict,
        allow_remote_refs=allow_remote_refs,
        allow_outside=allow_outside,
        overlay=overlay,
        goal=goal,
        allow_private=allow_private,
        include=hand_names(include, "include"),
        exclude=hand_names(exclude, "exclude"),
    )
    ctx = run(read_source(source, _one_of(options, given)), PASSES[:1])
    # Planning reads few operations' parameters, bodies or responses: the warnings about those
    # parts are what it read.
    return replace(ctx.planned, diagnostics=ctx.diagnostics)


def _one_of(options: CompileOptions | None, given: CompileOptions) -> CompileOptions:
    """``options=``, or the options the keyword arguments give; not both."""
    if options is None:
        return given
    if given != CompileOptions():
        raise UsageError("Pass options= or the keyword arguments it holds, not both.")
    return options


def compile(
    source: str | Path,
    out_dir: str | Path = "packs",
    *,
    split: bool = False,
    strict: bool = False,
    allow_remote_refs: bool = False,
    allow_outside: bool = False,
    overlay: str | Path | None = None,
    server: str | None = None,
    write: bool = True,
    lint: bool = True,
    repo: bool = False,
    goal: str | None = None,
    allow_private: bool = False,
    include: str | Sequence[str] = (),
    exclude: str | Sequence[str] = (),
    force: bool = False,
    options: CompileOptions | None = None,
) -> CompileResult:
    """Compile an OpenAPI document (path, URL or stub manifest) into one pack, or a family with ``split``.

    Args:
        source: a path or URL of the document, or of a stub ``surface.json``.
        out_dir: where pack directories are written (``<out_dir>/<pack id>/``).
        split: emit one pack per coherent group instead of the 12 best verbs.
        strict: fail on any validation error of the document.
        allow_remote_refs: follow ``$ref``s to other origins.
        allow_outside: follow ``$ref``s to files outside the source's folder.
        overlay: an OpenAPI Overlay 1.0 file applied before planning.
        server: a server URL that replaces the document's servers in every pack.
        write: write the packs (False: plan and derive only).
        lint: lint every written pack and report its findings.
        repo: make each pack directory its own installable repository (pyproject.toml, .gitignore,
            a launcher module and a smoke test; see ``packc.write._repo``).
        goal: a task in words (``--for``): the one pack holds the verbs that serve it (see
            ``packc.curate.goal``); a stub manifest's ``for`` gives one too. Not with ``split``.
        allow_private: let fetches reach loopback and private-network addresses
            (``--allow-private-addresses``; a source URL on such an address allows them anyway).
        include: operations a person keeps in the one pack (``--include``): verb names as ``packc plan``
            shows them (``refunds.create``), operationIds, or ``METHOD /path``; at most 12, not with ``split``.
        exclude: operations left out of every pack (``--exclude``), named the same way.
        force: replace a pack folder that another compile wrote (another document, ``goal`` or
            ``split``; ``--force``); without it that is refused, and nothing is written.
        options: all of the above (but ``source``) as one :class:`~packc.options.CompileOptions`,
            instead of the keyword arguments.

    Returns:
        The packs, what was left out and why, and the diagnostics.

    Raises:
        InputError: when the source cannot be read as an API.
        UsageError: for an unreadable overlay, an output directory that is not a pack, an empty
            ``goal``, ``goal`` with ``split``, an ``include``/``exclude`` name that matches no operation,
            or ``options`` with other keyword arguments.
    """
    given = CompileOptions(
        out_dir=out_dir,
        split=split,
        strict=strict,
        allow_remote_refs=allow_remote_refs,
        allow_outside=allow_outside,
        overlay=overlay,
        server=server,
        write=write,
        lint=lint,
        repo=repo,
        goal=goal,
        allow_private=allow_private,
        include=hand_names(include, "include"),
        exclude=hand_names(exclude, "exclude"),
        force=force,
    )
    ctx = run(read_source(source, _one_of(options, given)), PASSES)
    return CompileResult(ctx.packs, ctx.planned.left_out, ctx.diagnostics)
