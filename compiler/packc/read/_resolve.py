"""Resolve stage: bundle refs to other files into the document so every ``$ref`` is internal.

Internal refs are left alone (``Api.deref`` follows them lazily); only refs to other files or URLs
are followed, and only as far as the document reaches them. A document with no external ref at all
(checked on the raw text, which is cheap) is not walked.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote, urljoin, urlsplit

from packc.errors import InputError
from packc.model import resolve_pointer
from packc.read._fetch import PrivateRefused, RedirectRefused, is_url, origin_of, same_origin
from packc.read._load import Loaded, load_source
from packc_runtime.diagnostics import Diagnostic, escape_token
from packc_runtime.rules import SCHEMA_LIST_KEYWORDS, SCHEMA_MAP_KEYWORDS, SCHEMA_ONE_KEYWORDS, unescape_token

__all__ = ["Layout", "bundle_external_refs", "has_external_refs"]

Layout = Literal["2.0", "3"]

# A "$ref" key whose string value does not start with '#'. It starts with the literal so the regex
# engine can skip ahead fast; the character before it is checked in Python (a path key ending in
# "/$ref" is not a ref).
_EXTERNAL_REF = re.compile(r"""\$ref["']?\s*:\s*["']?[^"'#\s{\[]""")
_BEFORE_REF = frozenset(" \t\r\n{,\"'")
_NAME_SAFE = re.compile(r"[^A-Za-z0-9._-]+")
_MAX_DOCUMENTS = 500

# Where each kind of bundled object goes, by layout; a kind missing here is inlined at the ref.
_CONTAINERS: dict[Layout, dict[str, tuple[str, ...]]] = {
    "3": {
        kind: ("components", kind)
        for kind in (
            "schemas",
            "parameters",
            "requestBodies",
            "responses",
            "headers",
            "examples",
            "links",
            "callbacks",
            "securitySchemes",
        )
    },
    "2.0": {"schemas": ("definitions",), "parameters": ("parameters",), "responses": ("responses",)},
}
# Where a $ref is taken to point at a schema: under a keyword that holds subschemas, or OpenAPI's
# own ``schema`` (of a parameter, a header, a media type).
_SCHEMA_PARENTS = SCHEMA_LIST_KEYWORDS | SCHEMA_MAP_KEYWORDS
_SCHEMA_KEYS = SCHEMA_ONE_KEYWORDS | {"schema"}
_PARENT_KINDS = {
    "parameters": "parameters",
    "responses": "responses",
    "headers": "headers",
    "examples": "examples",
    "links": "links",
    "callbacks": "callbacks",
    "securitySchemes": "securitySchemes",
    "paths": "pathItems",
    "requestBodies": "requestBodies",
    "schemas": "schemas",
}


def has_external_refs(text: str) -> bool:
    """True when the raw text may hold a ``$ref`` to another file (false positives are harmless)."""
    return any(m.start() == 0 or text[m.start() - 1] in _BEFORE_REF for m in _EXTERNAL_REF.finditer(text))


def bundle_external_refs(
    root: Loaded,
    *,
    layout: Layout,
    allow_remote_refs: bool,
    allow_outside: bool,
    timeout: float,
    max_bytes: int,
    loader: Callable[[str], Loaded] | None = None,
) -> list[Diagnostic]:
    """Bundle what ``root.data`` reaches in other files into it, rewriting those refs in place.

    Args:
        root: the parsed input document (its ``data`` is changed in place).
        layout: where bundled objects go: ``components/*`` (3.x) or ``definitions`` etc. (2.0).
        allow_remote_refs: follow http(s) refs to any origin (same-origin refs of a URL input are
            always followed).
        allow_outside: follow local refs to files outside the input's folder.
        timeout: per-fetch timeout in seconds.
        max_bytes: size cap per referenced document.
        loader: reads one location (tests inject one); defaults to the load stage.

    Returns:
        Diagnostics for refs that could not or may not be followed; each such ref is replaced by
        an empty object (for a schema: "anything").
    """
    if not isinstance(root.data, dict) or not has_external_refs(root.text):
        return []
    # Each fetch (and each redirect it meets) stays on the root's origin unless remote refs are allowed.
    home = origin_of(root.location) if is_url(root.location) else None
    bundler = _Bundler(
        root,
        layout,
        allow_remote_refs,
        allow_outside,
        loader
        or (
            lambda loc: load_source(
                loc, timeout=timeout, max_bytes=max_bytes, allowed_origin=home, any_origin=allow_remote_refs
            )
        ),
    )
    bundler.walk(root.data, root.location, "", "", ())
    return bundler.diagnostics


@dataclass
class _Bundler:
    root: Loaded
    layout: Layout
    allow_remote_refs: bool
    allow_outside: bool
    loader: Callable[[str], Loaded]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    _docs: dict[str, Any] = field(default_factory=dict)
    _targets: dict[tuple[str, str], str] = field(default_factory=dict)  # (doc, pointer) -> internal ref
    _visited: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        self._docs[self.root.location] = self.root.data
        location = self.root.location
        self._root_is_url = is_url(location)
        self._root_origin = (origin_of(location) or "") if self._root_is_url else ""
        self._root_dir = Path(location).parent if not self._root_is_url else None

    def walk(self, node: Any, base: str, parent_key: str, key: str, path: tuple[str, ...]) -> None:
        """Visit ``node`` (belonging to document ``base``), rewriting refs that leave the root."""
        if isinstance(node, list):
            if id(node) in self._visited:
                return
            self._visited.add(id(node))
            for index, item in enumerate(node):
                self.walk(item, base, key, str(index), (*path, str(index)))
            return
        if not isinstance(node, dict) or id(node) in self._visited:
            return
        self._visited.add(id(node))
        ref = node.get("$ref")
        if isinstance(ref, str) and (base != self.root.location or not ref.startswith("#")):
            self._rewrite(node, ref, base, _kind_of(parent_key, key), path)
        for child_key, child in list(node.items()):
            if isinstance(child, (dict, list)):
                self.walk(child, base, key, child_key, (*path, child_key))

    def _where(self, path: tuple[str, ...]) -> str:
        return "#" + "".join("/" + escape_token(t) for t in path)

    def _warn(self, code: str, path: tuple[str, ...], message: str, fix: str) -> None:
        self.diagnostics.append(Diagnostic(code, "warning", self._where(path), message, fix))

    def _rewrite(self, holder: dict[str, Any], ref: str, base: str, kind: str, path: tuple[str, ...]) -> None:
        target = self._locate(ref, base, path)
        if target is None:
            holder.pop("$ref", None)  # an empty object: "any value" for a schema
            return
        location, fragment = target
        key = (location, fragment)
        internal = self._targets.get(key)
        if internal is not None:
            holder["$ref"] = internal
            return
        if location == self.root.location:
            holder["$ref"] = "#" + fragment
            return
        document = self._docs[location]
        value = resolve_pointer(document, "#" + fragment) if fragment else document
        if value is None:
            self._warn(
                "D020",
                path,
                f"The $ref {ref!r} points at nothing in {location}; it is read as an empty object.",
                "Fix the JSON pointer after '#'.",
            )
            holder.pop("$ref", None)
            return
        bundled_kind = _kind_from_pointer(fragment) or kind
        container_path = _CONTAINERS[self.layout].get(bundled_kind)
        if container_path is None or not isinstance(value, dict):
            # No components slot for it (a path item, or anything in 2.0 beyond the three kinds):
            # inline a shallow copy at the ref, then walk what it holds in its own file's context.
            del holder["$ref"]
            if isinstance(value, dict):
                for k, v in value.items():
                    holder.setdefault(k, v)
                for child_key, child in value.items():
                    self.walk(child, location, kind, child_key, (*path, child_key))
            else:
                self._warn(
                    "D020",
                    path,
                    f"The $ref {ref!r} points at a value that is not an object; it is ignored.",
                    "Point the $ref at an object.",
                )
            return
        container = self.root.data
        for token in container_path:
            nxt = container.get(token)
            if not isinstance(nxt, dict):
                nxt = {}
                container[token] = nxt
            container = nxt
        name = self._free_name(container, _name_for(fragment, location), value)
        container[name] = value
        internal = "#/" + "/".join(escape_token(t) for t in (*container_path, name))
        self._targets[key] = internal
        holder["$ref"] = internal
        self.walk(value, location, container_path[-1], name, (*container_path, name))

    def _free_name(self, container: dict[str, Any], name: str, value: Any) -> str:
        candidate, n = name, 1
        while candidate in container and container[candidate] is not value:
            n += 1
            candidate = f"{name}_{n}"
        return candidate

    def _locate(self, ref: str, base: str, path: tuple[str, ...]) -> tuple[str, str] | None:
        """Find and load the document a ref points into; None (with a diagnostic) when it may not."""
        try:
            return self._locate_checked(ref, base, path)
        except ValueError:  # urllib and pathlib reject malformed URLs, bad ports, NUL bytes
            self._warn(
                "D024",
                path,
                f"The $ref {ref[:200]!r} is not a valid reference.",
                "Fix the ref: a relative path or URL, then '#' and a JSON pointer.",
            )
            return None

    def _locate_checked(self, ref: str, base: str, path: tuple[str, ...]) -> tuple[str, str] | None:
        address, _, fragment = ref.partition("#")
        fragment = unquote(fragment)
        if not address:
            return base, fragment
        scheme = urlsplit(address).scheme.lower()
        if scheme == "file":
            self._warn(
                "D023",
                path,
                f"The $ref {ref!r} uses file://, which is never followed.",
                "Use a path relative to the referring file.",
            )
            return None
        if is_url(base) or scheme in ("http", "https"):
            location = urljoin(base, address) if is_url(base) else address
            if not is_url(location):
                self._warn(
                    "D021",
                    path,
                    f"The $ref {ref!r} is not an http(s) URL.",
                    "Use an http(s) or relative ref.",
                )
                return None
            on_root = self._root_is_url and same_origin(self._root_origin, location)
            if not (on_root or self.allow_remote_refs):
                self._warn(
                    "D021",
                    path,
                    f"The $ref {ref!r} points at another origin; remote refs are off.",
                    "Pass --allow-remote-refs if the referenced document is trusted.",
                )
                return None
            location = location.split("#", 1)[0]
        elif scheme:
            self._warn(
                "D021",
                path,
                f"The $ref {ref!r} uses the {scheme}: scheme, which is never followed.",
                "Use an http(s) or relative ref.",
            )
            return None
        else:
            resolved = (Path(base).parent / unquote(address)).resolve()
            assert self._root_dir is not None
            if not self.allow_outside and not resolved.is_relative_to(self._root_dir.resolve()):
                self._warn(
                    "D022",
                    path,
                    f"The $ref {ref!r} points outside the input's folder.",
                    "Move the file next to the input, or pass --allow-outside if it is trusted.",
                )
                return None
            location = str(resolved)
        if location not in self._docs:
            if len(self._docs) >= _MAX_DOCUMENTS:
                self._warn(
                    "D024",
                    path,
                    f"More than {_MAX_DOCUMENTS} documents are referenced; {ref!r} is not read.",
                    "Bundle the specification into fewer files.",
                )
                return None
            try:
                loaded = self.loader(location)
            except RedirectRefused as exc:
                self._warn(
                    "D026",
                    path,
                    f"The $ref {ref!r} leads to {exc.target} ({exc.reason}); it is not followed.",
                    "Pass --allow-remote-refs if that origin is trusted, or point the $ref at it directly.",
                )
                return None
            except PrivateRefused as exc:
                self._warn(
                    "D027",
                    path,
                    f"The $ref {ref!r} leads to {exc.refused}; it is not followed.",
                    "Pass --allow-private-addresses if the document is yours, or point the $ref elsewhere.",
                )
                return None
            except InputError as exc:
                self._warn(
                    "D024",
                    path,
                    f"The $ref {ref!r} cannot be read: {exc.message}.",
                    "Fix the path or URL of the referenced file.",
                )
                return None
            self.diagnostics.extend(loaded.diagnostics)
            self._docs[location] = loaded.data
        return location, fragment


def _kind_of(parent_key: str, key: str) -> str:
    """Guess what kind of object sits at ``key`` under ``parent_key`` (the ref's context)."""
    if parent_key in _SCHEMA_PARENTS or key in _SCHEMA_KEYS:
        return "schemas"
    if key == "requestBody":
        return "requestBodies"
    return _PARENT_KINDS.get(parent_key, "schemas")


def _kind_from_pointer(fragment: str) -> str | None:
    tokens = [t for t in fragment.split("/") if t]
    if len(tokens) >= 3 and tokens[0] == "components":
        return tokens[1] if tokens[1] in _CONTAINERS["3"] or tokens[1] == "pathItems" else None
    if len(tokens) >= 2 and tokens[0] in ("definitions", "parameters", "responses"):
        return "schemas" if tokens[0] == "definitions" else tokens[0]
    if len(tokens) >= 2 and tokens[0] == "paths":
        return "pathItems"
    return None


def _name_for(fragment: str, location: str) -> str:
    tokens = [t for t in fragment.split("/") if t]
    raw = unescape_token(tokens[-1]) if tokens else Path(urlsplit(location).path).stem
    name = _NAME_SAFE.sub("_", raw).strip("_")
    return name or "Bundled"
