"""A choice: the operations a person (or their agent) picked, written as the stub manifest packc
already compiles (``packc plan --write-choice FILE``), so the pick is one file, read back exactly."""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from packc.curate.naming import name_operations, resolve_names, scopes, unscoped
from packc.curate.plan import Plan
from packc.errors import UsageError
from packc.model import Api
from packc.options import CompileOptions
from packc.read.overrides import OpOverride, Overrides
from packc_runtime.format.manifest import dump_json

__all__ = ["choice_of", "write_choice"]


def _stub_names(api: Api, overrides: Overrides, plan: Plan) -> dict[str, str]:
    """Each packed operation's name as a stub says it: the name ``packc plan`` shows inside the pack
    when that picks it alone (the plan's matching rule, ``plan._check_stub_names``), else its
    API-wide name, so the choice names exactly the operations the plan kept."""
    named = [
        (op, res, act, overrides.ops.get(op.key, OpOverride()))
        for op, res, act in name_operations(api, api.operations)
    ]
    names = resolve_names(named, [])
    words = scopes(api.operations)
    exact = set(names.values())
    cuts = {op.key: unscoped(op, names[op.key], words) for op, *_ in named if op.key in names}
    shorts = Counter(cut for key, cut in cuts.items() if cut != names[key])
    out: dict[str, str] = {}
    for pack in plan.packs:
        for v in pack.verbs:
            own = names.get(v.op.key, v.name)
            short_ok = v.name == cuts.get(v.op.key) and v.name not in exact and shorts[v.name] == 1
            out[v.op.key] = v.name if v.name == own or short_ok else own
    return out


def choice_of(api: Api, overrides: Overrides, plan: Plan, file: str | Path) -> dict[str, Any]:
    """The stub manifest that picks exactly the one pack of ``plan``, to be written at ``file``: the
    pack's id, its document (relative to ``file``'s folder, or its URL) and one empty entry per verb,
    where a person may add a ``description``, ``title`` or ``preview`` card of their own.

    Raises:
        UsageError: the plan has no pack, or a family of them (a choice is one pack).
    """
    if len(plan.packs) != 1:
        raise UsageError(
            "a choice names the verbs of one pack; this plan has "
            + (f"{len(plan.packs)} (--split): leave out --split" if plan.packs else "none")
        )
    source = api.source
    if source.startswith(("http://", "https://")):
        where: dict[str, str] = {"url": source}
    else:
        where = {
            "path": Path(
                os.path.relpath(os.path.abspath(source), os.path.abspath(Path(file).parent))
            ).as_posix()
        }
    names = _stub_names(api, overrides, plan)
    stub: dict[str, Any] = {"id": plan.packs[0].id}
    if overrides.name:
        stub["name"] = overrides.name
    if overrides.cli_bin:
        stub["cliBin"] = overrides.cli_bin
    stub |= {"kind": "openapi", "openapi": where, "verbs": {names[v.op.key]: {} for v in plan.packs[0].verbs}}
    stub["verbs"] = dict(sorted(stub["verbs"].items()))
    return stub


def write_choice(
    source: str | Path, file: str | Path, options: CompileOptions | None = None
) -> tuple[Plan, dict[str, Any]]:
    """Plan ``source`` as ``packc plan`` does and write the one pack's choice to ``file``: with
    ``include`` (``--include``), exactly the operations it names; else the one pack's pick.

    Returns:
        The plan and the choice written.

    Raises:
        InputError: the source cannot be read.
        UsageError: as :func:`choice_of`, or the plan has errors (nothing is written then).
    """
    from packc.pipeline import PASSES, read_source, run

    ctx = run(read_source(source, options or CompileOptions()), PASSES[:1])
    plan = ctx.planned
    if any(d.level == "error" for d in ctx.diagnostics):
        raise UsageError("the plan has errors (see the diagnostics); no choice is written", ctx.diagnostics)
    if plan.packs and ctx.options.include:
        # --include names the choice exactly: the one pack's other verbs (the ranking's fill) stay out.
        picked = tuple(v for v in plan.packs[0].verbs if v.override.include and v.override.by_hand)
        plan = replace(plan, packs=(replace(plan.packs[0], verbs=picked),))
    stub = choice_of(ctx.api, ctx.overrides, plan, file)
    target = Path(file)
    partial = target.with_name(f".{target.name}.partial")
    partial.write_text(dump_json(stub), encoding="utf-8")
    partial.replace(target)
    return plan, stub
