"""The public ``compile`` function: source → front end → plan → derive → emit → lint."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from packc.build.checks import check_operations, silent_auth
from packc.build.derive import DerivedVerb, binding_for, derive_verb
from packc.build.hidden import hidden_values
from packc.build.implied import imply_security
from packc.curate.goal import check_goal
from packc.curate.ids import display_name
from packc.curate.plan import MIN_VERBS, LeftOut, PackPlan, Plan, plan
from packc.errors import InputError, UsageError
from packc.model import Api
from packc.read.overrides import IDENTIFIER_CODES, Overrides, collect_overrides
from packc.text import clean, shorten
from packc.write.cut import cut_document
from packc.write.emit import PackOutput, about, write_pack
from packc_runtime.diagnostics import Diagnostic, has_errors
from packc_runtime.format.manifest import Manifest, OpenApiSource, Policy, PolicyCommand

__all__ = ["CompileResult", "CompiledPack", "compile", "plan_source"]


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


def _goal(given: str | None, overrides: Overrides, split: bool, source: str | Path) -> str | None:
    """The task: ``--for`` (``goal=``), else the stub's ``for``; an empty one or one with ``split`` is refused.
    A stub's own ``for`` that says nothing, or is too long, is the stub's error (D013 at ``#/for``), not ``--for``'s."""
    if given is not None or overrides.goal is None:
        goal = check_goal(given)
        _no_split_goal(split, goal)
        return goal
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


def _hand_names(value: object, name: str) -> tuple[str, ...]:
    """``include=``/``exclude=``: a name, or names (a list, tuple or set; None for none), checked before
    anything is read."""
    if value is None:
        return ()
    if isinstance(value, str):
        value = (value,)
    if isinstance(value, (set, frozenset)):
        value = sorted(value, key=str)
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) and v.strip() for v in value):
        raise UsageError(
            f"{name}= takes operation names (a verb as packc plan shows it, an operationId or "
            f"'METHOD /path'), e.g. {name}=[\"refunds.create\"]; got {value!r:.80}"
        )
    return tuple(value)


def _no_split_goal(split: bool, goal: str | None) -> None:
    if split and goal is not None:
        raise UsageError(
            "--for picks the verbs of one pack for a task; --split covers every operation. Use one of them."
        )


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
) -> Plan:
    """Read a source and plan its verbs without writing anything (``packc plan``; ``goal``: ``--for``;
    ``allow_private``: ``--allow-private-addresses``; ``include``/``exclude``: ``--include``/``--exclude``,
    as in :func:`compile`)."""
    include, exclude = _hand_names(include, "include"), _hand_names(exclude, "exclude")
    check_goal(goal)
    _no_split_goal(split, goal)
    _api, overrides, diags = _front(
        source,
        strict=strict,
        allow_remote_refs=allow_remote_refs,
        allow_outside=allow_outside,
        overlay=overlay,
        allow_private=allow_private,
    )
    result = plan(
        _api,
        overrides,
        split=split,
        goal=_goal(goal, overrides, split, source),
        include=include,
        exclude=exclude,
    )
    # Planning reads no operation's parameters, body or responses: warnings about those parts
    # come only from what was read before.
    return replace(result, diagnostics=(*diags, *_api.deferred_diagnostics(), *result.diagnostics))


def _servers(api: Api, server: str | None) -> list[dict[str, Any]]:
    if server:
        return [{"url": server}]
    out = []
    for s in api.servers:
        entry: dict[str, Any] = {"url": s.url}
        if s.description:
            entry["description"] = shorten(clean(s.description), 200)
        if s.variables and "{" in s.url:
            entry["variables"] = {
                v.name: {"default": v.default, **({"enum": list(v.enum)} if v.enum else {})}
                for v in s.variables
            }
        out.append(entry)
    return out


def _pack(
    api: Api,
    overrides: Overrides,
    pack: PackPlan,
    plan_: Plan,
    split: bool,
    servers: Sequence[Mapping[str, Any]],
) -> tuple[PackOutput, list[Diagnostic]]:
    cli_bin = overrides.cli_bin if overrides.cli_bin and len(plan_.packs) == 1 else pack.id
    derived: list[DerivedVerb] = [derive_verb(api, v, cli_bin, overrides) for v in pack.verbs]
    diags = [d for v in derived for d in v.diagnostics]
    family = overrides.binding.family if overrides.binding and overrides.binding.family else plan_.api_id
    binding = binding_for(api, [v.op for v in derived], overrides, family)
    name = overrides.name or display_name(clean(api.info.title), plan_.api_id)
    if split and len(plan_.packs) > 1 and pack.group:
        name = f"{name}: {pack.group.replace('-', ' ')}"
    manifest = Manifest(
        id=pack.id,
        name=shorten(name, 80),
        kind="openapi",
        cliBin=cli_bin,
        transports=["cli", "json_exec", "mcp"],
        binding=binding,
        openapi=OpenApiSource(path="openapi.json"),
        verbs={v.name: v.verb for v in derived},
    )
    policy = Policy(
        surface_id=pack.id,
        commands={
            v.name: PolicyCommand(access=v.access, destructive=True)
            if v.destructive
            else PolicyCommand(access=v.access)
            for v in derived
        },
    )
    document = cut_document(api, [v.op for v in derived], {v.op.key: v.binding() for v in derived}, servers)
    return PackOutput(
        manifest, policy, document, tuple(derived), about(api.info.description), plan_.task, plan_.unmet
    ), diags


def _small(pack_id: str, n: int, plan_: Plan) -> Diagnostic:
    """C111: why a pack that needs credentials or writes has fewer than 5 verbs (it is still written)."""
    total = sum(len(p.verbs) for p in plan_.packs) + sum(
        1 for lo in plan_.left_out if lo.reason.startswith("ranked")
    )
    excluded = sum(1 for lo in plan_.left_out if not lo.reason.startswith("ranked"))
    if total < MIN_VERBS:
        why = f"the document has only {total} operation(s) to make verbs of" + (
            f" ({excluded} more excluded by x-packc or the stub)" if excluded else ""
        )
        fix = "Nothing to do for a small API; include excluded operations if the pack needs them."
    else:
        why = "its group is small after splitting"
        fix = "Compile without --split, or move operations into this group (x-packc group)."
    return Diagnostic(
        "C111",
        "warning",
        f"{pack_id}/surface.json#/verbs",
        f"Pack {pack_id!r} has {n} verb(s), fewer than {MIN_VERBS}: {why}.",
        fix,
    )


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

    Returns:
        The packs, what was left out and why, and the diagnostics.

    Raises:
        InputError: when the source cannot be read as an API.
        UsageError: for an unreadable overlay, an output directory that is not a pack, an empty
            ``goal``, ``goal`` with ``split``, or an ``include``/``exclude`` name that matches no operation.
    """
    include, exclude = _hand_names(include, "include"), _hand_names(exclude, "exclude")
    check_goal(goal)
    _no_split_goal(split, goal)
    api, overrides, diags = _front(
        source,
        strict=strict,
        allow_remote_refs=allow_remote_refs,
        allow_outside=allow_outside,
        overlay=overlay,
        allow_private=allow_private,
    )
    # A name that would become a path, a command or code and is not a valid identifier: nothing
    # is written (the plan and the diagnostics are still returned).
    write = write and not any(d.code in IDENTIFIER_CODES and d.level == "error" for d in diags)
    front_end = len(diags)
    plan_ = plan(
        api,
        overrides,
        split=split,
        goal=_goal(goal, overrides, split, source),
        include=include,
        exclude=exclude,
    )
    diags += plan_.diagnostics
    api, plan_, implied = imply_security(api, plan_)
    diags += implied
    packed = [v.op for pack in plan_.packs for v in pack.verbs]
    diags += check_operations(api, packed)
    diags += silent_auth(api, packed)
    diags += hidden_values(api, packed)
    servers = _servers(api, server)
    if not servers:
        diags.append(
            Diagnostic(
                "C130",
                "warning",
                "#/servers",
                "The document names no server.",
                "Pass --server URL to packc compile, or --server to each call.",
            )
        )
    packs: list[CompiledPack] = []
    for pack in plan_.packs:
        output, more = _pack(api, overrides, pack, plan_, split, servers)
        diags += more
        public_read = (
            output.manifest.binding is not None
            and output.manifest.binding.mode == "public"
            and all(v.access == "read" for v in output.verbs)
        )
        if len(output.verbs) < MIN_VERBS and not public_read:
            diags.append(_small(pack.id, len(output.verbs), plan_))
        directory = None
        if write:
            from packc.lint import lint_pack

            # Lint runs on the new files before they are moved into place.
            directory, found = write_pack(Path(out_dir), output, repo=repo, check=lint_pack if lint else None)
            for d in found or []:
                diags.append(Diagnostic(d.code, d.level, f"{pack.id}/{d.pointer}", d.message, d.fix))
        packs.append(
            CompiledPack(
                pack.id,
                directory,
                tuple(v.name for v in output.verbs),
                {v.name: v.access for v in output.verbs},
            )
        )
    # The checks and derive read the selected operations' parameters, bodies and responses
    # (normalize defers them to first use); what reading them reported joins the front end's warnings.
    diags[front_end:front_end] = api.deferred_diagnostics()
    return CompileResult(tuple(packs), plan_.left_out, tuple(diags))
