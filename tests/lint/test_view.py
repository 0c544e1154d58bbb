"""The light view of the pack format (format/view.py) against its pydantic models (format/manifest.py).

The runtime reads packs through the view (no pydantic on a verb call's start-up), lint through the
models: these tests keep the two one model. Same classes, field names, types, optionality, literal
values and defaults; and on every pack the models accept, the view reads the same values.
"""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from pydantic import BaseModel
from test_format_properties import json_values, manifests, surfaces

from packc_runtime.format import manifest as models
from packc_runtime.format import view

ROOT = Path(__file__).resolve().parents[2]

PAIRS: dict[type[view._View], type[BaseModel]] = {
    view.ManifestView: models.Manifest,
    view.WorkspaceView: models.Workspace,
    view.WrapView: models.WrapTarget,
    view.OpenApiView: models.OpenApiSource,
    view.PassThroughView: models.PassThrough,
    view.BindingView: models.Binding,
    view.TitleView: models.Title,
    view.PreviewView: models.Preview,
    view.VerbView: models.Verb,
    view.TriggerView: models.StimulusTrigger,
    view.HcpBindingView: models.HcpBinding,
    view.HcpWrapView: models.HcpWrap,
    view.HcpView: models.HcpMeta,
    view.PolicyView: models.Policy,
    view.CommandView: models.PolicyCommand,
    view.StimulusView: models.StimulusRow,
}
VIEW_OF = {model: view_cls for view_cls, model in PAIRS.items()}

# A surface.json that sets every field the reference defines (the pydantic model accepts it).
EVERY_FIELD: dict[str, Any] = {
    "id": "ledger",
    "name": "Ledger",
    "kind": "wrap",
    "cliBin": "ledger",
    "plane": "runtime",
    "transports": ["cli", "json_exec"],
    "skill_url": "https://example.com/HARNESS.md",
    "binding": {
        "mode": "local",
        "hub": "local-credential",
        "family": "ledger",
        "connect_provider_id": "bank",
    },
    "wrap": {
        "bin": "./bin/ledger.mjs",
        "json_flag": ["--json"],
        "argv_template": ["{{verb}}"],
        "agent_env": {"LEDGER_HOME": "."},
        "workspace": {"mode": "project"},
    },
    "pass_through": {"allowedSubcommands": ["status"], "maxArgv": 4},
    "verbs": {
        "transfer": {
            "description": "Pay a saved payee.",
            "cli": ["ledger", "transfer", "{{amount}}"],
            "args": {"type": "object", "properties": {"amount": {"type": "string"}}, "required": ["amount"]},
            "json_flag": [],
            "policy": "write",
            "title": {"live": ["Paying {{amount}}", "Paying"], "done": "Paid {{amount}}"},
            "preview": {"kind": "payment", "title": "Pay", "fields": {"amount": "{{amount}}"}},
        }
    },
    "stimulusTriggers": [{"ref": "binding.degraded"}],
    "hcp": {
        "hcp": 1,
        "pack_id": "ledger",
        "adapter_kind": "wrap",
        "binding": {"mode": "local", "hub": "local-credential"},
        "wrap": {"bin": "./bin/ledger.mjs"},
        "plane": "runtime",
        "transports": ["cli", "json_exec"],
    },
}


def _shape(hint: Any) -> Any:
    """A type as a comparable shape: a list and a tuple are both a sequence, a dict and a Mapping a map,
    a model its view class, a union the set of its members, a Literal the set of its values."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Annotated:
        return _shape(args[0])
    if origin in (typing.Union, types.UnionType):
        return ("union", frozenset(_shape(a) for a in args))
    if origin is typing.Literal:
        return ("literal", frozenset(args))
    if origin in (list, tuple):
        assert origin is list or args[1] is Ellipsis, hint
        return ("sequence", _shape(args[0]))
    if origin in (dict, Mapping):
        return ("map", _shape(args[0]), _shape(args[1]))
    if isinstance(hint, type) and issubclass(hint, BaseModel):
        return ("record", VIEW_OF[hint].__name__)
    if isinstance(hint, type) and issubclass(hint, view._View):
        return ("record", hint.__name__)
    return hint


def _view_hints(cls: type[view._View]) -> dict[str, Any]:
    return {k: v for k, v in typing.get_type_hints(cls).items() if k != "__slots__"}


def _plain(value: Any) -> Any:
    """A view as the JSON values pydantic's ``model_dump`` gives (every field, tuples as lists)."""
    if isinstance(value, view._View):
        return {name: _plain(getattr(value, name)) for name in value.__slots__}
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def test_every_model_of_the_format_has_a_view() -> None:
    in_format = {
        obj
        for obj in vars(models).values()
        if isinstance(obj, type) and issubclass(obj, BaseModel) and obj.__module__ == models.__name__
    }
    assert in_format - {models._Strict} == set(VIEW_OF)
    assert {cls.__name__ for cls in PAIRS} <= set(view.__all__)


@pytest.mark.parametrize("view_cls", list(PAIRS), ids=lambda c: c.__name__)
def test_the_view_has_the_models_fields_types_and_defaults(view_cls: type[view._View]) -> None:
    model = PAIRS[view_cls]
    hints = _view_hints(view_cls)
    assert set(view_cls.__slots__) == set(hints) == set(model.model_fields)
    empty = view_cls.read({})
    for name, field in model.model_fields.items():
        assert _shape(hints[name]) == _shape(field.annotation), name
        if not field.is_required():  # an absent field reads as the model's default
            assert _plain(getattr(empty, name)) == field.get_default(call_default_factory=True), name


def test_the_literal_sets_have_one_home() -> None:
    for name in (
        "Kind",
        "Plane",
        "Transport",
        "BindingMode",
        "Hub",
        "Access",
        "PreviewKind",
        "WorkspaceMode",
    ):
        assert getattr(models, name) is getattr(view, name)


def _same(data: Mapping[str, Any]) -> None:
    model = models.Manifest.model_validate(data)
    assert _plain(view.ManifestView.read(data)) == model.model_dump(), data


def test_the_view_reads_every_field_as_the_model_does() -> None:
    _same(EVERY_FIELD)
    alias = {("adapter_kind" if k == "kind" else k): v for k, v in EVERY_FIELD.items()}
    _same(alias)


def test_the_view_reads_the_golden_and_fixture_packs_as_the_models_do() -> None:
    packs = sorted(
        {
            p.parent
            for p in (
                *ROOT.glob("tests/golden/**/surface.json"),
                *ROOT.glob("tests/fixtures/packs/*/surface.json"),
            )
        }
    )
    assert len(packs) >= 5
    for pack in packs:
        _same(json.loads((pack / "surface.json").read_text(encoding="utf-8")))
        policy = json.loads((pack / "policy.json").read_text(encoding="utf-8"))
        assert _plain(view.PolicyView.read(policy)) == models.Policy.model_validate(policy).model_dump()


@settings(max_examples=100, deadline=None)
@given(manifests)
def test_the_view_reads_any_valid_manifest_as_the_model_does(data: dict[str, Any]) -> None:
    _same(data)


@settings(max_examples=150, deadline=None)
@given(surfaces | json_values)
def test_the_view_never_fails_and_agrees_wherever_the_model_accepts(data: Any) -> None:
    if not isinstance(data, Mapping):
        return
    read = view.ManifestView.read(data)  # never raises: a wrong field reads as absent
    model, _ = models.parse_manifest(data)
    if model is not None:
        assert _plain(read) == model.model_dump()
    view.PolicyView.read(data)


def test_views_are_frozen() -> None:
    read = view.ManifestView.read(EVERY_FIELD)
    with pytest.raises(AttributeError):
        read.id = "other"  # type: ignore[misc]
    assert read == view.ManifestView.read(json.loads(json.dumps(EVERY_FIELD)))
