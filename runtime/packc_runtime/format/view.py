"""The pack format as the runtime reads it: light, frozen, typed views of ``surface.json`` and ``policy.json``.

The same fields, names, optionality and literal values as the pydantic models of ``manifest.py``
(tests/lint/test_view.py holds the two in step), for the paths that must not import pydantic: a
verb call's start-up reads its pack here. Reading never fails and validates nothing: a field that
is missing or of the wrong type reads as its default (or as absent when it has none), an entry of
a list or an object of the wrong type is left out, and a required field reads as the fallback its
class names. A pack is checked before it is read (format/check.py, which ``load_pack`` runs); lint
(the pydantic models) reports every finding.

Standard library only, and no dataclasses: both cost a verb call's cold start. It reads parsed JSON,
so an object is a ``dict`` (an ABC check for ``Mapping`` would double the time a pack takes to read).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, NoReturn, TypeVar, get_args

__all__ = [
    "ACCESSES",
    "BINDING_MODES",
    "HUBS",
    "KINDS",
    "PLANES",
    "PREVIEW_KINDS",
    "TRANSPORTS",
    "WORKSPACE_MODES",
    "Access",
    "BindingMode",
    "BindingView",
    "CommandView",
    "HcpBindingView",
    "HcpView",
    "HcpWrapView",
    "Hub",
    "Kind",
    "ManifestView",
    "OpenApiView",
    "PassThroughView",
    "Plane",
    "PolicyView",
    "PreviewKind",
    "PreviewView",
    "StimulusView",
    "TitleTemplates",
    "TitleView",
    "Transport",
    "TriggerView",
    "VerbView",
    "WorkspaceMode",
    "WorkspaceView",
    "WrapView",
]

# The format's closed sets: their one home (manifest.py's models use these).
Kind = Literal["wrap", "composite", "openapi", "sense_only"]
Plane = Literal["runtime", "control"]
Transport = Literal["cli", "json_exec", "mcp"]
BindingMode = Literal["public", "user", "local", "mothership", "mock"]
Hub = Literal["keyring", "local-credential", "public", "none"]
Access = Literal["read", "write"]
PreviewKind = Literal["message", "payment", "event", "removal", "publish", "record", "fields"]
WorkspaceMode = Literal["none", "project", "workspace", "ephemeral"]
TitleTemplates = str | tuple[str, ...]

KINDS: tuple[Kind, ...] = get_args(Kind)
PLANES: tuple[Plane, ...] = get_args(Plane)
TRANSPORTS: tuple[Transport, ...] = get_args(Transport)
BINDING_MODES: tuple[BindingMode, ...] = get_args(BindingMode)
HUBS: tuple[Hub, ...] = get_args(Hub)
ACCESSES: tuple[Access, ...] = get_args(Access)
PREVIEW_KINDS: tuple[PreviewKind, ...] = get_args(PreviewKind)
WORKSPACE_MODES: tuple[WorkspaceMode, ...] = get_args(WorkspaceMode)

_T = TypeVar("_T")
_V = TypeVar("_V", bound="_View")


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _strs(value: Any) -> tuple[str, ...] | None:
    return tuple(item for item in value if isinstance(item, str)) if isinstance(value, list) else None


def _str_map(value: Any) -> Mapping[str, str] | None:
    if not isinstance(value, dict):
        return None
    return {str(k): v for k, v in value.items() if isinstance(v, str)}


def _choice(value: Any, allowed: tuple[_T, ...]) -> _T | None:
    return value if isinstance(value, str) and value in allowed else None


def _choices(value: Any, allowed: tuple[_T, ...]) -> tuple[_T, ...] | None:
    if not isinstance(value, list):
        return None
    return tuple(item for item in value if isinstance(item, str) and item in allowed)


def _views(cls: type[_V], value: Any) -> dict[str, _V]:
    """An object of objects as views; an entry that is not an object is left out."""
    if not isinstance(value, dict):
        return {}
    return {str(k): cls.read(v) for k, v in value.items() if isinstance(v, dict)}


def _view(cls: type[_V], value: Any) -> _V | None:
    return cls.read(value) if isinstance(value, dict) else None


class _View:
    """A frozen record with ``__slots__``; ``read`` builds one from parsed JSON, never failing."""

    __slots__: tuple[str, ...] = ()

    def __init__(self, **fields: Any) -> None:
        for name in self.__slots__:
            object.__setattr__(self, name, fields[name])

    @classmethod
    def read(cls: type[_V], data: Mapping[str, Any]) -> _V:
        raise NotImplementedError

    def __setattr__(self, name: str, value: Any) -> NoReturn:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and all(
            getattr(self, name) == getattr(other, name) for name in self.__slots__
        )

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"


class WorkspaceView(_View):
    __slots__ = ("mode",)
    mode: WorkspaceMode

    @classmethod
    def read(cls, data: Mapping[str, Any]) -> WorkspaceView:
        return cls(mode=_choice(data.get("mode"), WORKSPACE_MODES) or "none")


class WrapView(_View):
    """``wrap``; ``bin`` reads as ``""`` when it is missing."""

    __slots__ = ("agent_env", "argv_template", "bin", "json_flag", "workspace")
    bin: str
    json_flag: tuple[str, ...]
    argv_template: tuple[str, ...]
    agent_env: Mapping[str, str] | None
    workspace: WorkspaceView | None

    @classmethod
    def read(cls, data: Mapping[str, Any]) -> WrapView:
        json_flag, argv_template = _strs(data.get("json_flag")), _strs(data.get("argv_template"))
        return cls(
            bin=_str(data.get("bin")) or "",
            json_flag=("--json",) if json_flag is None else json_flag,
            argv_template=("{{verb}}",) if argv_template is None else argv_template,
            agent_env=_str_map(data.get("agent_env")),
            workspace=_view(WorkspaceView, data.get("workspace")),
        )


class OpenApiView(_View):
    __slots__ = ("path", "url")
    url: str | None
    path: str | None

    @classmethod
    def read(cls, data: Mapping[str, Any]) -> OpenApiView:
        return cls(url=_str(data.get("url")), path=_str(data.get("path")))


class PassThroughView(_View):
    """``pass_through``; ``maxArgv`` reads as 0 when it is missing."""

    __slots__ = ("allowedSubcommands", "maxArgv")
    allowedSubcommands: tuple[str, ...]
    maxArgv: int

    @classmethod
    def read(cls, data: Mapping[str, Any]) -> PassThroughView:
        max_argv = data.get("maxArgv")
        return cls(
            allowedSubcommands=_strs(data.get("allowedSubcommands")) or (),
            maxArgv=max_argv if isinstance(max_argv, int) and not isinstance(max_argv, bool) else 0,
        )


class BindingView(_View):
    __slots__ = ("connect_provider_id", "family", "hub", "mode")
    mode: BindingMode | None
    hub: Hub | None
    family: str | None
    connect_provider_id: str | None

    @classmethod
    def read(cls, data: Mapping[str, Any]) -> BindingView:
        return cls(
            mode=_choice(data.get("mode"), BINDING_MODES),
            hub=_choice(data.get("hub"), HUBS),
            family=_str(data.get("family")),
            connect_provider_id=_str(data.get("connect_provider_id")),
        )


class TitleView(_View):
    __slots__ = ("done", "live")
    live: TitleTemplates | None
    done: TitleTemplates | None

    @classmethod
    def read(cls, data: Mapping[str, Any]) -> TitleView:
        return cls(live=_templates(data.get("live")), done=_templates(data.get("done")))


def _templates(value: Any) -> TitleTemplates | None:
    return value if isinstance(value, str) else _strs(value)


class PreviewView(_View):
    """``preview``; ``kind`` reads as ``fields`` when it is missing or not one of the kinds."""

    __slots__ = ("fields", "kind", "title")
    kind: PreviewKind
    title: str | None
    fields: Mapping[str, str] | None

    @classmethod
    def read(cls, data: Mapping[str, Any]) -> PreviewView:
        return cls(
            kind=_choice(data.get("kind"), PREVIEW_KINDS) or "fields",
            title=_str(data.get("title")),
            fields=_str_map(data.get("fields")),
        )


class VerbView(_View):
    """One entry of ``verbs``. ``args`` is the JSON Schema as the pack holds it (not copied)."""

    __slots__ = ("args", "cli", "description", "json_flag", "policy", "preview", "title")
    description: str | None
    cli: tuple[str, ...] | None
    args: Mapping[str, Any] | None
    json_flag: tuple[str, ...] | None
    title: TitleView | None
    policy: Access | None
    preview: PreviewView | None

    @classmethod
    def read(cls, data: Mapping[str, Any]) -> VerbView:
        args = data.get("args")
        return cls(
            description=_str(data.get("description")),
            cli=_strs(data.get("cli")),
            args=args if isinstance(args, dict) else None,
            json_flag=_strs(data.get("json_flag")),
            title=_view(TitleView, data.get("title")),
            policy=_choice(data.get("policy"), ACCESSES),
            preview=_view(PreviewView, data.get("preview")),
        )


class TriggerView(_View):
    """One entry of ``stimulusTriggers``; ``ref`` reads as ``""`` when it is missing."""

    __slots__ = ("ref",)
    ref: str

    @classmethod
    def read(cls, data: Mapping[str, Any]) -> TriggerView:
        return cls(ref=_str(data.get("ref")) or "")


class HcpBindingView(_View):
    __slots__ = ("hub", "mode")
    mode: BindingMode | None
    hub: Hub | None

    @classmethod
    def read(cls, data: Mapping[str, Any]) -> HcpBindingView:
        return cls(mode=_choice(data.get("mode"), BINDING_MODES), hub=_choice(data.get("hub"), HUBS))


class HcpWrapView(_View):
    __slots__ = ("bin",)
    bin: str

    @classmethod
    def read(cls, data: Mapping[str, Any]) -> HcpWrapView:
        return cls(bin=_str(data.get("bin")) or "")


class HcpView(_View):
    """``hcp``, the protocol metadata; ``hcp`` reads as 1 and ``pack_id`` as ``""`` when missing."""

    __slots__ = ("adapter_kind", "binding", "hcp", "pack_id", "plane", "transports", "wrap")
    hcp: Literal[1]
    pack_id: str
    adapter_kind: Kind | None
    binding: HcpBindingView | None
    wrap: HcpWrapView | None
    plane: Plane | None
    transports: tuple[Transport, ...] | None

    @classmethod
    def read(cls, data: Mapping[str, Any]) -> HcpView:
        return cls(
            hcp=1,
            pack_id=_str(data.get("pack_id")) or "",
            adapter_kind=_choice(data.get("adapter_kind"), KINDS),
            binding=_view(HcpBindingView, data.get("binding")),
            wrap=_view(HcpWrapView, data.get("wrap")),
            plane=_choice(data.get("plane"), PLANES),
            transports=_choices(data.get("transports"), TRANSPORTS),
        )


class ManifestView(_View):
    """``surface.json``. ``kind`` is read from ``kind``, else its alias ``adapter_kind``; ``id`` reads
    as ``""`` when it is missing."""

    __slots__ = (
        "binding",
        "cliBin",
        "hcp",
        "id",
        "kind",
        "name",
        "openapi",
        "pass_through",
        "plane",
        "skill_url",
        "stimulusTriggers",
        "transports",
        "verbs",
        "wrap",
    )
    id: str
    name: str | None
    kind: Kind
    cliBin: str | None
    plane: Plane
    transports: tuple[Transport, ...] | None
    skill_url: str | None
    binding: BindingView | None
    wrap: WrapView | None
    openapi: OpenApiView | None
    pass_through: PassThroughView | None
    verbs: Mapping[str, VerbView]
    stimulusTriggers: tuple[TriggerView, ...] | None
    hcp: HcpView | None

    @classmethod
    def read(cls, data: Mapping[str, Any]) -> ManifestView:
        triggers = data.get("stimulusTriggers")
        return cls(
            id=_str(data.get("id")) or "",
            name=_str(data.get("name")),
            kind=_choice(data["kind"] if "kind" in data else data.get("adapter_kind"), KINDS) or "composite",
            cliBin=_str(data.get("cliBin")),
            plane=_choice(data.get("plane"), PLANES) or "runtime",
            transports=_choices(data.get("transports"), TRANSPORTS),
            skill_url=_str(data.get("skill_url")),
            binding=_view(BindingView, data.get("binding")),
            wrap=_view(WrapView, data.get("wrap")),
            openapi=_view(OpenApiView, data.get("openapi")),
            pass_through=_view(PassThroughView, data.get("pass_through")),
            verbs=_views(VerbView, data.get("verbs")),
            stimulusTriggers=(
                tuple(TriggerView.read(t) for t in triggers if isinstance(t, dict))
                if isinstance(triggers, list)
                else None
            ),
            hcp=_view(HcpView, data.get("hcp")),
        )


class CommandView(_View):
    """One row of ``policy.json`` ``commands``. A row without a valid ``access`` is left out of
    :attr:`PolicyView.commands`, so the verb's own hint decides (as for a verb with no row)."""

    __slots__ = ("access", "destructive")
    access: Access
    destructive: bool | None

    @classmethod
    def read(cls, data: Mapping[str, Any]) -> CommandView:
        destructive = data.get("destructive")
        return cls(
            access=_choice(data.get("access"), ACCESSES) or "write",
            destructive=destructive if isinstance(destructive, bool) else None,
        )


class StimulusView(_View):
    __slots__ = ("description",)
    description: str | None

    @classmethod
    def read(cls, data: Mapping[str, Any]) -> StimulusView:
        return cls(description=_str(data.get("description")))


class PolicyView(_View):
    """``policy.json``: authoritative access rows. ``surface_id`` reads as ``""`` when missing."""

    __slots__ = ("commands", "stimuli", "surface_id")
    surface_id: str
    commands: Mapping[str, CommandView]
    stimuli: Mapping[str, StimulusView] | None

    @classmethod
    def read(cls, data: Mapping[str, Any]) -> PolicyView:
        commands = data.get("commands")
        rows = (
            {
                str(verb): CommandView.read(row)
                for verb, row in commands.items()
                if isinstance(row, dict) and _choice(row.get("access"), ACCESSES) is not None
            }
            if isinstance(commands, dict)
            else {}
        )
        stimuli = data.get("stimuli")
        return cls(
            surface_id=_str(data.get("surface_id")) or "",
            commands=rows,
            stimuli=_views(StimulusView, stimuli) if isinstance(stimuli, dict) else None,
        )
