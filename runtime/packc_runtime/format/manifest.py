"""The pack format as typed models: ``surface.json`` and ``policy.json``, read and written.

Every field, alias, default and constraint of the manifest reference is here. Reading never
raises for a wrong pack: :func:`read_manifest` and :func:`read_policy` return diagnostics with a
code, a JSON pointer and a message. Writing is deterministic: fields in declared order, only the
fields that were set, two-space indent and a trailing newline.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from packc_runtime.diagnostics import Diagnostic, escape_token
from packc_runtime.format._jsontext import dumps_indented
from packc_runtime.format.view import (  # the closed sets' one home, shared with the light view
    Access,
    BindingMode,
    Hub,
    Kind,
    Plane,
    PreviewKind,
    Transport,
    WorkspaceMode,
)

__all__ = [
    "Access",
    "Binding",
    "BindingMode",
    "HcpBinding",
    "HcpMeta",
    "HcpWrap",
    "Hub",
    "Kind",
    "Manifest",
    "OpenApiSource",
    "PassThrough",
    "Plane",
    "Policy",
    "PolicyCommand",
    "Preview",
    "PreviewKind",
    "StimulusRow",
    "StimulusTrigger",
    "Title",
    "Transport",
    "Verb",
    "Workspace",
    "WorkspaceMode",
    "WrapTarget",
    "dump_json",
    "parse_manifest",
    "parse_policy",
    "read_manifest",
    "read_policy",
    "write_json",
]

TitleTemplates = str | list[str]

MANIFEST_FILE = "surface.json"
POLICY_FILE = "policy.json"


class _Strict(BaseModel):
    # strict: no coercion ("4" is not an integer, 1 is not true), so format/check.py, the runtime's
    # standard-library copy of these rules, can agree with the models exactly.
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True, strict=True)


class Workspace(_Strict):
    mode: WorkspaceMode = "none"


class WrapTarget(_Strict):
    bin: Annotated[str, Field(min_length=1)]
    json_flag: list[str] = Field(default_factory=lambda: ["--json"])
    argv_template: list[str] = Field(default_factory=lambda: ["{{verb}}"])
    agent_env: dict[str, str] | None = None
    workspace: Workspace | None = None


class OpenApiSource(_Strict):
    url: str | None = None
    path: str | None = None

    @model_validator(mode="after")
    def _one_of(self) -> OpenApiSource:
        if (self.url is None) == (self.path is None):
            raise ValueError("openapi needs exactly one of url or path")
        return self


class PassThrough(_Strict):
    allowedSubcommands: list[str]
    maxArgv: Annotated[int, Field(ge=0)]


class Binding(_Strict):
    mode: BindingMode | None = None
    hub: Hub | None = None
    family: str | None = None
    connect_provider_id: str | None = None


class Title(_Strict):
    live: TitleTemplates | None = None
    done: TitleTemplates | None = None


class Preview(_Strict):
    kind: PreviewKind
    title: str | None = None
    fields: dict[str, str] | None = None


class Verb(_Strict):
    description: str | None = None
    cli: list[str] | None = None
    args: dict[str, Any] | None = None
    json_flag: list[str] | None = None
    title: Title | None = None
    policy: Access | None = None
    preview: Preview | None = None


class StimulusTrigger(_Strict):
    ref: Annotated[str, Field(min_length=1)]


class HcpBinding(_Strict):
    mode: BindingMode | None = None
    hub: Hub | None = None


class HcpWrap(_Strict):
    bin: str


class HcpMeta(_Strict):
    """Protocol metadata; strictly validated (unknown fields fail)."""

    hcp: Literal[1]
    pack_id: str
    adapter_kind: Kind | None = None
    binding: HcpBinding | None = None
    wrap: HcpWrap | None = None
    plane: Plane | None = None
    transports: list[Transport] | None = None


class Manifest(_Strict):
    """``surface.json``."""

    id: str
    name: str | None = None
    kind: Kind = Field(default="composite", alias="adapter_kind")
    cliBin: str | None = None
    plane: Plane = "runtime"
    transports: list[Transport] | None = None
    skill_url: str | None = None
    binding: Binding | None = None
    wrap: WrapTarget | None = None
    openapi: OpenApiSource | None = None
    pass_through: PassThrough | None = None
    verbs: dict[str, Verb] = Field(default_factory=dict)
    stimulusTriggers: list[StimulusTrigger] | None = None
    hcp: HcpMeta | None = None

    @model_validator(mode="before")
    @classmethod
    def _kind_alias(cls, data: Any) -> Any:
        # Both spellings are accepted on input, one at a time; "kind" is what we write.
        if isinstance(data, dict) and "kind" in data and "adapter_kind" in data:
            raise ValueError("adapter_kind repeats kind (it is its alias): keep one")
        if isinstance(data, dict) and "kind" in data and "adapter_kind" not in data:
            data = {("adapter_kind" if k == "kind" else k): v for k, v in data.items()}
        return data

    def derived_hcp(self) -> HcpMeta:
        """The ``hcp`` metadata: the declared one, else one derived from the manifest."""
        if self.hcp is not None:
            return self.hcp
        binding = None
        if self.binding is not None and (self.binding.mode or self.binding.hub):
            binding = HcpBinding(mode=self.binding.mode, hub=self.binding.hub)
        return HcpMeta(
            hcp=1,
            pack_id=self.id,
            adapter_kind=self.kind,
            binding=binding,
            wrap=HcpWrap(bin=self.wrap.bin) if self.wrap else None,
            plane=self.plane,
            transports=list(self.transports) if self.transports else None,
        )

    def to_json(self) -> dict[str, Any]:
        """The manifest as a JSON-ready dict, ``kind`` spelled as the reference does."""
        data = self.model_dump(mode="json", by_alias=True, exclude_unset=True)
        if "adapter_kind" in data:
            data = {("kind" if k == "adapter_kind" else k): v for k, v in data.items()}
        return data


class PolicyCommand(_Strict):
    access: Access
    destructive: bool | None = None


class StimulusRow(_Strict):
    description: str | None = None


class Policy(_Strict):
    """``policy.json``: authoritative access rows."""

    surface_id: str
    commands: dict[str, PolicyCommand] = Field(default_factory=dict)
    stimuli: dict[str, StimulusRow] | None = None

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_unset=True)


def dump_json(data: Any) -> str:
    """Deterministic JSON text: two-space indent, UTF-8 kept, trailing newline.

    The same bytes as ``json.dumps(data, indent=2, ensure_ascii=False) + "\\n"``, written faster.
    """
    return dumps_indented(data) + "\n"


def write_json(path: Path, model: Manifest | Policy) -> None:
    """Write a manifest or policy file deterministically."""
    path.write_text(dump_json(model.to_json()), encoding="utf-8")


M = TypeVar("M", Manifest, Policy)

# Codes for reading a pack file; lint adds its own (see docs/lint-codes.md).
READ_CODES = {
    "missing": "M001",
    "json": "M002",
    "schema": "M003",
}


def _load(path: Path, file: str) -> tuple[Any, list[Diagnostic]]:
    where = f"{file}#"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, [
            Diagnostic("M001", "error", where, f"{file} is missing.", f"Create {file} in the pack directory.")
        ]
    except (OSError, UnicodeDecodeError) as exc:
        return None, [
            Diagnostic("M001", "error", where, f"{file} cannot be read: {exc}.", "Save it as UTF-8 text.")
        ]
    try:
        return json.loads(text), []
    except (json.JSONDecodeError, RecursionError) as exc:
        message = (
            f"{file} is not valid JSON: {exc}."
            if isinstance(exc, json.JSONDecodeError)
            else f"{file} is nested too deeply."
        )
        return None, [Diagnostic("M002", "error", where, message, "Fix the JSON syntax.")]


def _validation_diagnostics(file: str, exc: ValidationError) -> list[Diagnostic]:
    out = []
    for err in exc.errors(include_url=False):
        loc = [
            part
            for part in err["loc"]
            if not (
                isinstance(part, str) and part.startswith(("function-", "literal[", "list[", "str", "dict["))
            )
        ]
        ptr = f"{file}#" + "".join("/" + escape_token(p) for p in loc)
        ptr = ptr.replace("/adapter_kind", "/kind")
        kind = err["type"]
        msg = err["msg"].removeprefix("Value error, ")
        if kind == "extra_forbidden":
            msg = f"unknown field {str(loc[-1])!r}" if loc else "unknown field"
            fix = "Remove it: the reference defines no such field here."
        elif kind == "missing":
            fix = "Add the field."
        else:
            fix = "Use a value of the documented type."
        out.append(Diagnostic("M003", "error", ptr, msg[0].upper() + msg[1:] + ".", fix))
    return out


def _parse(model: type[M], data: Any, file: str) -> tuple[M | None, list[Diagnostic]]:
    if not isinstance(data, Mapping):
        return None, [
            Diagnostic(
                "M003", "error", f"{file}#", f"{file} must hold a JSON object.", "Wrap the fields in { }."
            )
        ]
    try:
        return model.model_validate(data), []
    except ValidationError as exc:
        return None, _validation_diagnostics(file, exc)
    except RecursionError:
        return None, [
            Diagnostic("M002", "error", f"{file}#", f"{file} is nested too deeply.", "Flatten the document.")
        ]


def parse_manifest(data: Any) -> tuple[Manifest | None, list[Diagnostic]]:
    """Validate a parsed ``surface.json``; returns the model or diagnostics (never raises)."""
    return _parse(Manifest, data, MANIFEST_FILE)


def parse_policy(data: Any) -> tuple[Policy | None, list[Diagnostic]]:
    """Validate a parsed ``policy.json``; returns the model or diagnostics (never raises)."""
    return _parse(Policy, data, POLICY_FILE)


def read_manifest(pack_dir: Path) -> tuple[Manifest | None, list[Diagnostic]]:
    """Read ``surface.json`` from a pack directory."""
    data, diags = _load(pack_dir / MANIFEST_FILE, MANIFEST_FILE)
    return (None, diags) if diags else parse_manifest(data)


def read_policy(pack_dir: Path) -> tuple[Policy | None, list[Diagnostic]]:
    """Read ``policy.json`` from a pack directory."""
    data, diags = _load(pack_dir / POLICY_FILE, POLICY_FILE)
    return (None, diags) if diags else parse_policy(data)
