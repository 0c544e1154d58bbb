"""Put one planned pack together: its verbs derived, manifest, policy and cut document (what emit writes)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from packc.build.derive import DerivedVerb, binding_for, derive_verb
from packc.curate.ids import display_name
from packc.curate.plan import MIN_VERBS, PackPlan, Plan
from packc.model import Api
from packc.read.overrides import Overrides
from packc.text import clean, shorten
from packc.write.cut import cut_document
from packc.write.emit import PackOutput, about
from packc_runtime.diagnostics import Diagnostic
from packc_runtime.format.manifest import Manifest, OpenApiSource, Policy, PolicyCommand

__all__ = ["assemble_pack", "pack_servers", "small_pack"]


def pack_servers(api: Api, server: str | None) -> list[dict[str, Any]]:
    """The servers every pack's cut document names: ``server`` (``--server``), else the document's."""
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


def assemble_pack(
    api: Api,
    overrides: Overrides,
    pack: PackPlan,
    plan_: Plan,
    split: bool,
    servers: Sequence[Mapping[str, Any]],
) -> tuple[PackOutput, list[Diagnostic]]:
    """One planned pack, its verbs derived, as emit writes it; and what deriving them reported."""
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


def small_pack(pack_id: str, n: int, plan_: Plan) -> Diagnostic:
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
