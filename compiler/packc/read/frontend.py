"""The compiler front end: source (path, URL or stub manifest) → load → resolve → overlay → normalize → ``Api``."""

from __future__ import annotations

import gc
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from packc.errors import InputError
from packc.model import Api
from packc.read._fetch import is_url, origin_of, same_origin
from packc.read._load import Loaded, load_source
from packc.read._normalize import normalize
from packc.read._overlay import apply_overlay, care_changed, read_overlay
from packc.read._resolve import Layout, bundle_external_refs
from packc.read._swagger2 import convert_swagger2
from packc_runtime.calling.netguard import is_private_host, let_private, private_allowed, private_fetches
from packc_runtime.diagnostics import Diagnostic
from packc_runtime.format.manifest import Manifest, parse_manifest

__all__ = ["FrontEndResult", "read_api"]


@dataclass(frozen=True)
class FrontEndResult:
    """What the front end hands to planning: the model, the warnings, and the stub when one was read."""

    api: Api
    diagnostics: tuple[Diagnostic, ...]
    stub: Manifest | None  # set when the input was a stub surface.json (kind openapi)
    # operation keys whose x-packc access/destructive the --overlay changed: the user's decision
    care_by_overlay: frozenset[str] = frozenset()
    goal: str | None = None  # the stub's "for": the task its pack serves (``packc compile --for``)


def read_api(
    source: str | Path,
    *,
    allow_remote_refs: bool = False,
    allow_outside: bool = False,
    strict: bool = False,
    eager: bool = False,
    timeout: float = 30.0,
    max_bytes: int = 100 * 2**20,
    overlay: str | Path | None = None,
    allow_private: bool = False,
) -> FrontEndResult:
    """Read an OpenAPI document (or a stub manifest naming one) into the model.

    Args:
        source: a local path or an http(s) URL of a Swagger 2.0 / OpenAPI 3.x document (JSON or
            YAML), or of a stub ``surface.json`` with ``kind: openapi``.
        allow_remote_refs: follow ``$ref``s to other origins.
        allow_outside: follow ``$ref``s to local files outside the input's folder.
        strict: validate with openapi-spec-validator and fail on any error (implies ``eager``).
        eager: read every operation's parameters, request body and responses now, so
            ``diagnostics`` holds the whole document's warnings. Otherwise they are read on first
            use and what that reports is in ``api.deferred_diagnostics()``.
        timeout: seconds per fetch.
        max_bytes: size cap per document read.
        overlay: an OpenAPI Overlay 1.0 file (or URL) applied to the document (bundled, before
            validation and normalize), so its actions reach every part of the pack.
        allow_private: fetches may connect to loopback and private-network addresses
            (``--allow-private-addresses``; also inside ``_netguard.private_fetches(True)``). Without
            it they may only when the input URL itself is on one (``_netguard``).

    Returns:
        The model, warnings about the document, and the stub manifest if one was given.

    Raises:
        InputError: (with diagnostics) when there is no usable Api.
        UsageError: the overlay cannot be read.
    """
    # The cyclic garbage collector would walk the whole (acyclic) document again and again while
    # normalize allocates the model: on Microsoft Graph beta that is 40% of the time. The document
    # and the model hold no reference cycles, so it is paused for the call; the few cycles made
    # meanwhile (httpx, the strict validator) are collected once it is back on.
    collecting = gc.isenabled()
    gc.disable()
    # The user's own input may be on this machine or its network, and what it references with it;
    # a document from elsewhere (or a local file's remote refs) may not reach there (_netguard.py).
    private_ok = (
        allow_private
        or bool(private_allowed())
        or (isinstance(source, str) and is_url(source) and is_private_host(source))
    )
    try:
        with private_fetches(private_ok):
            return _read(
                source,
                allow_remote_refs=allow_remote_refs,
                allow_outside=allow_outside,
                strict=strict,
                eager=eager or strict,
                timeout=timeout,
                max_bytes=max_bytes,
                overlay=overlay,
            )
    except RecursionError:
        # Loading bounds nesting, but a long chain of bundled files can still nest deeply.
        raise InputError(
            f"{source}: nested too deeply",
            [
                Diagnostic(
                    "D004",
                    "error",
                    "#",
                    "The document (with what it references) is nested too deeply to read.",
                    "Flatten the document, e.g. move nested schemas into components and $ref them.",
                )
            ],
        ) from None
    finally:
        if collecting:
            gc.enable()


def _read(
    source: str | Path,
    *,
    allow_remote_refs: bool,
    allow_outside: bool,
    strict: bool,
    eager: bool,
    timeout: float,
    max_bytes: int,
    overlay: str | Path | None,
) -> FrontEndResult:
    # A URL input's redirects stay on its origin unless remote refs are allowed (_fetch.py).
    loaded = load_source(source, timeout=timeout, max_bytes=max_bytes, any_origin=allow_remote_refs)
    diagnostics = list(loaded.diagnostics)
    stub: Manifest | None = None
    goal: str | None = None
    if _is_stub(loaded.data):
        goal = _stub_goal(loaded)
        stub, target = _stub_target(loaded, allow_remote_refs)
        # A fetched stub's document comes from the stub's own origin; a local stub is the user's file.
        home = origin_of(loaded.location) if is_url(loaded.location) else None
        if home is None and is_url(target) and is_private_host(target):
            let_private()  # a local stub's URL is the input the user compiles
        loaded = load_source(
            target, timeout=timeout, max_bytes=max_bytes, allowed_origin=home, any_origin=allow_remote_refs
        )
        diagnostics.extend(loaded.diagnostics)
    version = _version(loaded)
    layout: Layout = "2.0" if version.startswith("2") else "3"
    diagnostics += bundle_external_refs(
        loaded,
        layout=layout,
        allow_remote_refs=allow_remote_refs,
        allow_outside=allow_outside,
        timeout=timeout,
        max_bytes=max_bytes,
    )
    document: dict[str, Any] = loaded.data
    care: frozenset[str] = frozenset()
    if overlay is not None:
        with private_fetches(True):  # the overlay is the user's own choice, wherever it is
            actions, read = read_overlay(overlay, timeout=timeout, max_bytes=max_bytes)
        before = document
        document, applied = apply_overlay(document, actions)
        care = care_changed(before, document)
        diagnostics += [*read, *applied]
    if strict:
        from packc.read._validate import strict_diagnostics

        errors = strict_diagnostics(document, version)
        if errors:
            raise InputError(
                f"{loaded.location}: {len(errors)} error(s) in strict validation", [*diagnostics, *errors]
            )
    if layout == "2.0":
        document, converted = convert_swagger2(document)
        diagnostics += converted
    api, normalized = normalize(
        document,
        source=loaded.location,
        source_version=version,
        base_url=loaded.location if is_url(loaded.location) else None,
        eager=eager,
    )
    diagnostics += normalized
    return FrontEndResult(api=api, diagnostics=tuple(diagnostics), stub=stub, care_by_overlay=care, goal=goal)


def _is_stub(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and isinstance(data.get("openapi"), dict)
        and (data.get("kind") == "openapi" or data.get("adapter_kind") == "openapi")
    )


def _stub_goal(loaded: Loaded) -> str | None:
    """A stub's ``for`` (the task its pack serves): read, then taken out, since a manifest has no such field."""
    goal = loaded.data.pop("for", None)
    if goal is not None and not isinstance(goal, str):
        raise InputError(
            f'{loaded.location}: the stub\'s "for" is not text',
            [
                Diagnostic(
                    "D013",
                    "error",
                    f"{loaded.location}#/for",
                    'The stub\'s "for" must be a task in words.',
                    'Write "for": "triage issues and review pull requests".',
                )
            ],
        )
    return goal


def _stub_target(loaded: Loaded, allow_remote_refs: bool) -> tuple[Manifest, str]:
    manifest, problems = parse_manifest(loaded.data)
    if manifest is None or manifest.openapi is None:
        raise InputError(
            f"{loaded.location}: the stub manifest is not valid",
            [
                Diagnostic(
                    "D013",
                    "error",
                    f"{loaded.location}#",
                    "The stub surface.json is not a valid manifest.",
                    "Fix the fields the following diagnostics name.",
                ),
                *problems,
            ],
        )
    source = manifest.openapi
    if source.url:
        home = origin_of(loaded.location) if is_url(loaded.location) else None
        if home is not None and not allow_remote_refs and not same_origin(home, source.url):
            raise InputError(
                f"{loaded.location}: openapi.url {source.url} is on another origin",
                [
                    Diagnostic(
                        "D014",
                        "error",
                        f"{loaded.location}#/openapi/url",
                        f"The stub fetched from {home} names a document on another origin ({source.url}); it is not fetched.",
                        "Pass --allow-remote-refs if that origin is trusted, or compile the document's URL itself.",
                    )
                ],
            )
        return manifest, source.url
    assert source.path is not None  # the model requires exactly one of url or path
    if is_url(loaded.location):
        return manifest, urljoin(loaded.location, source.path)
    return manifest, str(Path(loaded.location).parent / source.path)


def _version(loaded: Loaded) -> str:
    data = loaded.data
    where = f"{loaded.location}#"
    if not isinstance(data, dict):
        raise InputError(
            f"{loaded.location}: not an OpenAPI document",
            [
                Diagnostic(
                    "D011",
                    "error",
                    where,
                    "The document is not an object, so it is not an OpenAPI document.",
                    "Give a Swagger 2.0 or OpenAPI 3.x document.",
                )
            ],
        )
    openapi, swagger = data.get("openapi"), data.get("swagger")
    if isinstance(openapi, str | int | float) and not isinstance(openapi, bool):
        version = str(openapi)
        if version.startswith(("3.0", "3.1")):
            return version
        if version.startswith("3."):
            # A later 3.x (3.2): read as 3.1, whose structure it keeps.
            return version
    elif isinstance(swagger, str | int | float) and str(swagger).startswith("2"):
        return "2.0"
    found = openapi if openapi is not None else swagger
    raise InputError(
        f"{loaded.location}: not a Swagger 2.0 or OpenAPI 3.x document",
        [
            Diagnostic(
                "D011",
                "error",
                where,
                f"The document declares no supported version (found {found!r}); packc reads Swagger 2.0 and OpenAPI 3.0/3.1.",
                "Set openapi: 3.0.3 (or swagger: '2.0') at the top, or convert the document.",
            )
        ],
    )
