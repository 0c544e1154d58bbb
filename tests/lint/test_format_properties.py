"""Hypothesis: manifests round-trip byte-identically; lint never raises on arbitrary JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from packc.lint import lint_pack
from packc_runtime.format.manifest import Manifest, Policy, dump_json, parse_manifest, parse_policy

names = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
verb_names = st.lists(names, min_size=1, max_size=3).map(".".join)
text = st.text(max_size=20)
templates = text | st.lists(text, max_size=3)

args_schema = st.builds(
    lambda props, req: {"type": "object", "properties": props, "required": sorted(set(req) & set(props))},
    st.dictionaries(
        names,
        st.fixed_dictionaries(
            {"type": st.just("string")},
            optional={"description": text, "examples": st.lists(text, max_size=2)},
        ),
        max_size=4,
    ),
    st.lists(names, max_size=3),
)
verbs = st.fixed_dictionaries(
    {},
    optional={
        "description": text,
        "cli": st.lists(text, max_size=4),
        "args": args_schema,
        "json_flag": st.lists(text, max_size=2),
        "policy": st.sampled_from(["read", "write"]),
        "title": st.fixed_dictionaries({}, optional={"live": templates, "done": templates}),
        "preview": st.fixed_dictionaries(
            {
                "kind": st.sampled_from(
                    ["message", "payment", "event", "removal", "publish", "record", "fields"]
                )
            },
            optional={"title": text, "fields": st.dictionaries(names, text, max_size=3)},
        ),
    },
)
kinds = st.sampled_from(["wrap", "composite", "openapi", "sense_only"])
manifests = st.fixed_dictionaries(
    {"id": names, "verbs": st.dictionaries(verb_names, verbs, max_size=4)},
    optional={
        "name": text,
        "kind": kinds,
        "cliBin": names,
        "plane": st.sampled_from(["runtime", "control"]),
        "transports": st.lists(st.sampled_from(["cli", "json_exec", "mcp"]), max_size=3),
        "skill_url": st.just("https://example.com/HARNESS.md"),
        "binding": st.fixed_dictionaries(
            {},
            optional={
                "mode": st.sampled_from(["public", "user", "local", "mothership", "mock"]),
                "hub": st.sampled_from(["keyring", "local-credential", "public", "none"]),
                "family": names,
                "connect_provider_id": names,
            },
        ),
        "wrap": st.fixed_dictionaries(
            {"bin": names},
            optional={
                "json_flag": st.lists(text, max_size=2),
                "argv_template": st.lists(text, max_size=2),
                "agent_env": st.dictionaries(names, text, max_size=2),
                "workspace": st.fixed_dictionaries(
                    {"mode": st.sampled_from(["none", "project", "workspace", "ephemeral"])}
                ),
            },
        ),
        "openapi": st.one_of(
            st.fixed_dictionaries({"path": names}),
            st.fixed_dictionaries({"url": st.just("https://x.test/o.json")}),
        ),
        "pass_through": st.fixed_dictionaries(
            {"allowedSubcommands": st.lists(names, max_size=3), "maxArgv": st.integers(0, 64)}
        ),
        "stimulusTriggers": st.lists(st.fixed_dictionaries({"ref": verb_names}), max_size=2),
    },
)


@settings(max_examples=100, deadline=None)
@given(manifests)
def test_manifest_round_trips_byte_identically(data: dict[str, Any]) -> None:
    model, diagnostics = parse_manifest(data)
    assert model is not None, diagnostics
    first = dump_json(model.to_json())
    again, _ = parse_manifest(json.loads(first))
    assert again is not None
    assert dump_json(again.to_json()) == first
    assert first.endswith("\n")
    assert again.derived_hcp().pack_id == data["id"]


@settings(max_examples=50, deadline=None)
@given(
    names,
    st.dictionaries(
        verb_names,
        st.fixed_dictionaries(
            {"access": st.sampled_from(["read", "write"])}, optional={"destructive": st.booleans()}
        ),
        max_size=4,
    ),
)
def test_policy_round_trips(surface_id: str, commands: dict[str, Any]) -> None:
    model, _ = parse_policy({"surface_id": surface_id, "commands": commands})
    assert model is not None
    text = dump_json(model.to_json())
    assert dump_json(Policy.model_validate_json(text).to_json()) == text


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=30,
)
# Arbitrary JSON, and arbitrary JSON grafted onto plausible manifests, so deep checks run too.
surfaces = json_values | manifests.flatmap(
    lambda m: st.dictionaries(
        st.sampled_from([*sorted(Manifest.model_fields), "kind"]), json_values, max_size=3
    ).map(lambda extra: {**m, **extra})
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(surfaces, json_values)
def test_lint_never_raises(tmp_path: Path, surface: Any, policy: Any) -> None:
    (tmp_path / "surface.json").write_text(json.dumps(surface))
    (tmp_path / "policy.json").write_text(json.dumps(policy))
    findings = lint_pack(tmp_path)
    assert all(f.code.startswith("M") and f.pointer for f in findings)
