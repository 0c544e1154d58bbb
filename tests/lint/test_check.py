"""The runtime's standard-library check of a pack (format/check.py) against the pydantic models.

The runtime refuses a pack with ``invalid_pack`` where lint's models refuse it, without importing
pydantic: on generated manifests and policies, the check and the models accept and refuse alike.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from test_format_properties import json_values, manifests, surfaces
from test_view import EVERY_FIELD

from packc_runtime.format import manifest as models
from packc_runtime.format.check import manifest_problem, policy_problem, shape_problem


def _agree(data: Any) -> None:
    model, diags = models.parse_manifest(data)
    found = shape_problem(data)
    assert (model is None) == (found is not None), (data, found, diags)


@settings(max_examples=300, deadline=None)
@given(surfaces)
def test_the_check_refuses_what_the_models_refuse(data: Any) -> None:
    _agree(data)


# One field of a valid manifest set to a JSON value of every kind: each path the models check.
_PATHS = [
    ("id",),
    ("name",),
    ("kind",),
    ("adapter_kind",),
    ("plane",),
    ("transports",),
    ("transports", 0),
    ("skill_url",),
    ("binding",),
    ("binding", "mode"),
    ("binding", "bogus"),
    ("wrap",),
    ("wrap", "bin"),
    ("wrap", "json_flag"),
    ("wrap", "argv_template", 0),
    ("wrap", "agent_env"),
    ("wrap", "agent_env", "X"),
    ("wrap", "workspace"),
    ("wrap", "workspace", "mode"),
    ("openapi",),
    ("pass_through", "maxArgv"),
    ("pass_through", "allowedSubcommands"),
    ("verbs",),
    ("verbs", "transfer"),
    ("verbs", "transfer", "args"),
    ("verbs", "transfer", "cli"),
    ("verbs", "transfer", "title", "live"),
    ("verbs", "transfer", "title", "live", 0),
    ("verbs", "transfer", "policy"),
    ("verbs", "transfer", "preview", "kind"),
    ("verbs", "transfer", "preview", "fields", "x"),
    ("verbs", "transfer", "bogus"),
    ("stimulusTriggers",),
    ("stimulusTriggers", 0, "ref"),
    ("hcp",),
    ("hcp", "hcp"),
    ("hcp", "pack_id"),
    ("hcp", "bogus"),
    ("hcp", "transports"),
    ("hcp", "binding", "mode"),
    ("hcp", "wrap", "bin"),
    ("bogus",),
]
_VALUES = [
    None,
    True,
    False,
    0,
    1,
    1.0,
    4,
    -1,
    2.5,
    "",
    "x",
    "4",
    "wrap",
    "cli",
    [],
    ["x"],
    [1],
    {},
    {"a": 1},
]


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(_PATHS), st.sampled_from(_VALUES))
def test_the_check_agrees_field_by_field(path: tuple[Any, ...], value: Any) -> None:
    data = copy.deepcopy(EVERY_FIELD)
    where: Any = data
    for token in path[:-1]:
        where = where[token]
    if (isinstance(where, list) and path[-1] >= len(where)) or not isinstance(where, list | dict):
        return
    where[path[-1]] = value
    _agree(data)


@settings(max_examples=100, deadline=None)
@given(manifests)
def test_the_check_accepts_every_valid_manifest(data: dict[str, Any]) -> None:
    assert shape_problem(data) is None


@settings(max_examples=150, deadline=None)
@given(
    json_values
    | st.fixed_dictionaries(
        {"surface_id": st.text(max_size=3)},
        optional={
            "commands": st.dictionaries(
                st.text(max_size=3),
                json_values
                | st.fixed_dictionaries(
                    {"access": st.sampled_from(["read", "write", "x"])}, optional={"destructive": json_values}
                ),
                max_size=2,
            ),
            "stimuli": json_values | st.dictionaries(st.text(max_size=3), json_values, max_size=2),
            "bogus": json_values,
        },
    )
)
def test_the_policy_check_refuses_what_the_model_refuses(data: Any) -> None:
    model, _ = models.parse_policy(data)
    assert (model is None) == (policy_problem(data) is not None), data


def test_hcp_metadata_is_checked_against_the_manifest() -> None:
    assert manifest_problem(EVERY_FIELD) is None
    for field, value, pointer in [
        ("pack_id", "other", "surface.json#/hcp/pack_id"),
        ("hcp", 7, "surface.json#/hcp/hcp"),
        ("bogus", True, "surface.json#/hcp/bogus"),
        ("transports", ["cli"], "surface.json#/hcp/transports"),
        ("plane", "control", "surface.json#/hcp/plane"),
        ("adapter_kind", "openapi", "surface.json#/hcp/adapter_kind"),
        ("wrap", {"bin": "other"}, "surface.json#/hcp/wrap"),
        ("binding", {"mode": "public"}, "surface.json#/hcp/binding"),
    ]:
        data = copy.deepcopy(EVERY_FIELD)
        data["hcp"][field] = value
        found = manifest_problem(data)
        assert found is not None and found[0] == pointer, (field, found)
    derived = {k: v for k, v in EVERY_FIELD.items() if k != "hcp"}
    assert manifest_problem(derived) is None
