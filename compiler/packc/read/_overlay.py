"""Overlay stage: an OpenAPI Overlay 1.0 applied to the raw document, before normalize reads it.

Because it runs on the document and not on the model, every action reaches every part of the
pack: an added parameter becomes an argument, a changed summary a description, an added
``security``/``securitySchemes`` the pack's credentials. Targets are simple JSONPath
(``$.paths['/pets'].get``, ``.*``/``[*]`` wildcards, ``[0]`` indexes); ``update`` merges into an
object and appends to an array (a list update appends each of its items); ``remove`` deletes.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from packc.errors import InputError, UsageError
from packc.read._load import load_source
from packc_runtime.diagnostics import Diagnostic
from packc_runtime.rules import HTTP_METHODS

__all__ = ["apply_overlay", "care_changed", "read_overlay"]

_SEGMENT = re.compile(
    r"""\.([A-Za-z_$][\w$-]*)|\[\s*'((?:[^'\\]|\\.)*)'\s*\]|\[\s*"((?:[^"\\]|\\.)*)"\s*\]|\[\s*(\d+)\s*\]|\.\*|\[\s*\*\s*\]"""
)


def read_overlay(
    source: str | Path, *, timeout: float = 30.0, max_bytes: int = 10 * 2**20
) -> tuple[Mapping[str, Any], tuple[Diagnostic, ...]]:
    """Read an overlay file (or URL) with the document loader and its bounds (size, depth, alias
    expansion, duplicate keys reported); returns it and what reading it noticed.

    Raises:
        UsageError: the overlay cannot be read or is not a mapping.
    """
    try:
        loaded = load_source(source, timeout=timeout, max_bytes=max_bytes)
    except InputError as exc:
        reasons = "; ".join(d.message for d in exc.diagnostics) or str(exc)
        raise UsageError(f"cannot read the overlay {source}: {reasons}", exc.diagnostics) from None
    if not isinstance(loaded.data, Mapping):
        raise UsageError(f"the overlay {source} is not a mapping")
    return cast(Mapping[str, Any], loaded.data), loaded.diagnostics


def _parse_path(target: str) -> list[str | int | None] | None:
    """``$.paths['/pets'].get`` → ``['paths', '/pets', 'get']``; ``*`` is None; unsupported → None."""
    if not target.startswith("$"):
        return None
    pos, out = 1, cast(list[str | int | None], [])
    while pos < len(target):
        m = _SEGMENT.match(target, pos)
        if m is None:
            return None
        if m.group(1) is not None:
            out.append(m.group(1))
        elif m.group(2) is not None:
            out.append(m.group(2).replace("\\'", "'"))
        elif m.group(3) is not None:
            out.append(m.group(3).replace('\\"', '"'))
        elif m.group(4) is not None:
            out.append(int(m.group(4)))
        else:
            out.append(None)
        pos = m.end()
    return out


def _select(
    node: Any, path: list[str | int | None], parent: Any = None, key: Any = None
) -> list[tuple[Any, Any, Any]]:
    """All (parent, key, node) triples the path reaches."""
    if not path:
        return [(parent, key, node)]
    head, rest = path[0], path[1:]
    found: list[tuple[Any, Any, Any]] = []
    if head is None:
        items = (
            list(node.items())
            if isinstance(node, dict)
            else list(enumerate(node))
            if isinstance(node, list)
            else []
        )
        for k, child in items:
            found += _select(child, rest, node, k)
    elif isinstance(node, dict) and isinstance(head, str) and head in node:  # noqa: SIM114
        found += _select(node[head], rest, node, head)
    elif isinstance(node, list) and isinstance(head, int) and head < len(node):
        found += _select(node[head], rest, node, head)
    return found


def _merge(target: Any, update: Any) -> Any:
    """Overlay 1.0's update: objects merge recursively, an array gets the update appended."""
    if isinstance(target, dict) and isinstance(update, Mapping):
        out = dict(target)
        for k, v in update.items():
            out[k] = _merge(out[k], v) if k in out else copy.deepcopy(v)
        return out
    if isinstance(target, list):
        return target + copy.deepcopy(update if isinstance(update, list) else [update])
    return copy.deepcopy(update)


def apply_overlay(
    document: dict[str, Any], overlay: Mapping[str, Any]
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """``document`` with the overlay's actions applied in order (a new value), and the problems."""
    diags: list[Diagnostic] = []
    doc = copy.deepcopy(document)
    actions = overlay.get("actions")
    if not isinstance(overlay.get("overlay"), str) or not isinstance(actions, list):
        diags.append(
            Diagnostic(
                "C140",
                "error",
                "overlay#",
                "Not an OpenAPI Overlay 1.0 document.",
                "Give it `overlay: 1.0.0`, `info` and a list of `actions`.",
            )
        )
        return doc, diags
    for i, action in enumerate(actions):
        where = f"overlay#/actions/{i}"
        target = action.get("target") if isinstance(action, Mapping) else None
        path = _parse_path(target) if isinstance(target, str) else None
        if path is None:
            diags.append(
                Diagnostic(
                    "C141",
                    "error",
                    where,
                    f"Unsupported or missing target {target!r}.",
                    "Use a simple JSONPath such as $.paths['/pets'].get.",
                )
            )
            continue
        hits = _select(doc, path)
        if not hits:
            diags.append(
                Diagnostic(
                    "C142",
                    "warning",
                    where,
                    f"Target {target} selects nothing.",
                    "Check the path and method spelling.",
                )
            )
            continue
        assert isinstance(action, Mapping)
        if action.get("remove") is True:
            for parent, key, _ in sorted(
                hits, key=lambda h: h[1] if isinstance(h[1], int) else 0, reverse=True
            ):
                if isinstance(parent, dict):
                    parent.pop(key, None)
                elif isinstance(parent, list):
                    del parent[key]
        elif "update" in action:
            for parent, key, node in hits:
                merged = _merge(node, action["update"])
                if parent is None:
                    doc = merged if isinstance(merged, dict) else doc
                else:
                    parent[key] = merged
    return doc, diags


def _care(document: Mapping[str, Any]) -> dict[str, tuple[object, object]]:
    """``METHOD /path`` -> the operation's ``x-packc`` (access, destructive)."""
    out: dict[str, tuple[object, object]] = {}
    paths = document.get("paths")
    for path, item in paths.items() if isinstance(paths, Mapping) else ():
        for method in HTTP_METHODS:
            op = item.get(method) if isinstance(item, Mapping) else None
            raw = op.get("x-packc") if isinstance(op, Mapping) else None
            if isinstance(raw, Mapping):
                out[f"{method.upper()} {path}"] = (raw.get("access"), raw.get("destructive"))
    return out


def care_changed(before: Mapping[str, Any], after: Mapping[str, Any]) -> frozenset[str]:
    """Keys (``METHOD /path``) of the operations whose ``x-packc`` access or destructive an overlay
    changed. An overlay is the user's own file, so what it says about care is the user's decision,
    which may lower a POST to read without a warning; the document's own ``x-packc`` may not."""
    old, new = _care(before), _care(after)
    return frozenset(key for key, value in new.items() if value != old.get(key, (None, None)))
