"""Read YAML safely: libyaml composes, our builder makes JSON values by the YAML 1.2 core schema,
sharing aliased nodes while counting what they would expand to (bombs, cycles, depth, unsafe tags)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, ClassVar

import yaml

from packc.errors import InputError
from packc.read._limits import MAX_DEPTH, MAX_NODES, MAX_REPEATS, more, too_deep
from packc_runtime.diagnostics import Diagnostic, pointer

__all__ = ["parse_yaml"]

_YAML_11_BOOLS = frozenset(["yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF"])
_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _CoreLoader(_BaseLoader):  # type: ignore[misc]
    """A safe loader resolving plain scalars by the YAML 1.2 core schema.

    YAML 1.1 reads ``yes``/``no``/``on``/``off`` as booleans and ``2024-01-01`` as a date; OpenAPI 3.1
    asks for YAML 1.2, where they are strings. The composer is libyaml's (fast); construction is ours.
    """

    yaml_implicit_resolvers: ClassVar[dict[str | None, list[tuple[str, re.Pattern[str]]]]] = {}


def _add(tag: str, regexp: str, first: str) -> None:
    _CoreLoader.add_implicit_resolver(tag, re.compile(regexp), list(first))


_add("tag:yaml.org,2002:bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF")
_add("tag:yaml.org,2002:int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789")
_add(
    "tag:yaml.org,2002:float",
    r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?)$",
    "-+0123456789.",
)
_add("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""])  # type: ignore[arg-type]
_add("tag:yaml.org,2002:merge", r"^(?:<<)$", "<")

_T = "tag:yaml.org,2002:"
_STR_TAGS = frozenset({_T + "str", _T + "binary", _T + "timestamp"})


def parse_yaml(text: str, location: str) -> tuple[Any, list[Diagnostic]]:
    loader = _CoreLoader(text)
    try:
        try:
            root = loader.get_single_node()
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
            problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            if "nesting depth" in str(problem):
                raise InputError(f"{location}: nested too deeply", [too_deep(f"{location}#")]) from None
            raise InputError(
                f"{location}: not valid JSON or YAML{where}: {problem}",
                [
                    Diagnostic(
                        "D003",
                        "error",
                        f"{location}#",
                        f"The document is not valid JSON or YAML{where}: {problem}.",
                        "Fix the syntax at that place.",
                    )
                ],
            ) from None
        except RecursionError:
            raise InputError(f"{location}: nested too deeply", [too_deep(f"{location}#")]) from None
    finally:
        loader.dispose()
    if root is None:
        raise InputError(
            f"{location}: empty document",
            [
                Diagnostic(
                    "D003",
                    "error",
                    f"{location}#",
                    "The document is empty.",
                    "Give a JSON or YAML OpenAPI document.",
                )
            ],
        )
    builder = _Builder(location)
    data = builder.build(root)
    return data, builder.diagnostics


class _Builder:
    """Build JSON values from a YAML node graph, guarding against alias bombs and cycles.

    Each node is built once and shared wherever it is aliased (so loading stays linear), while the
    size it would have when expanded is counted, so a bomb is refused before any later walk expands it.
    """

    def __init__(self, location: str) -> None:
        self.location = location
        self.diagnostics: list[Diagnostic] = []
        self._counts: dict[str, int] = {}
        self._done: dict[int, tuple[Any, int, int]] = {}  # id(node) -> (value, expanded size, height)
        self._active: set[int] = set()
        self._path: list[str | int] = []

    def build(self, root: yaml.Node) -> Any:
        value, size, _ = self._node(root, 1)
        if size > MAX_NODES:
            self._bomb()
        for code, count in sorted(self._counts.items()):
            if count > MAX_REPEATS:
                self.diagnostics.append(more(code, f"{self.location}#", count - MAX_REPEATS))
        return value

    def _where(self) -> str:
        return pointer(*self._path, base=f"{self.location}#")

    def _note(self, code: str, message: str, fix: str) -> None:
        count = self._counts.get(code, 0) + 1
        self._counts[code] = count
        if count <= MAX_REPEATS:
            self.diagnostics.append(Diagnostic(code, "warning", self._where(), message, fix))

    def _bomb(self) -> None:
        raise InputError(
            f"{self.location}: YAML aliases expand to more than {MAX_NODES} nodes",
            [
                Diagnostic(
                    "D005",
                    "error",
                    self._where(),
                    f"YAML aliases expand this document to more than {MAX_NODES:,} nodes (an alias bomb).",
                    "Remove the nested aliases, or expand them into a plain document if it is trusted.",
                )
            ],
        )

    def _node(self, node: yaml.Node, depth: int) -> tuple[Any, int, int]:
        key = id(node)
        done = self._done.get(key)
        if done is not None:
            if depth + done[2] - 1 > MAX_DEPTH:
                raise InputError(f"{self.location}: nested too deeply", [too_deep(self._where())])
            return done
        if key in self._active:
            raise InputError(
                f"{self.location}: a YAML alias refers to itself",
                [
                    Diagnostic(
                        "D006",
                        "error",
                        self._where(),
                        "A YAML alias refers to a node that contains it (a cycle).",
                        "Replace the recursive alias with a $ref.",
                    )
                ],
            )
        if depth > MAX_DEPTH:
            raise InputError(f"{self.location}: nested too deeply", [too_deep(self._where())])
        self._active.add(key)
        if isinstance(node, yaml.MappingNode):
            result = self._mapping(node, depth)
        elif isinstance(node, yaml.SequenceNode):
            result = self._sequence(node, depth)
        else:
            result = (self._scalar(node), 1, 1)
        self._active.discard(key)
        if result[1] > MAX_NODES:
            self._bomb()
        self._done[key] = result
        return result

    def _check_tag(self, node: yaml.Node, expected: str) -> None:
        tag = node.tag or ""
        if tag == expected or tag in ("!", "?"):
            return
        if tag.startswith(_T + "python/") or tag.startswith("!!python") or "python" in tag:
            raise InputError(
                f"{self.location}: unsafe YAML tag {tag}",
                [
                    Diagnostic(
                        "D007",
                        "error",
                        self._where(),
                        f"The YAML tag {tag!r} asks to build a Python object.",
                        "Remove the tag; an OpenAPI document holds plain data only.",
                    )
                ],
            )
        if not tag.startswith(_T):
            self._note(
                "D007",
                f"The YAML tag {tag!r} is not a standard tag; it is ignored.",
                "Remove the tag; an OpenAPI document holds plain data only.",
            )

    def _mapping(self, node: yaml.MappingNode, depth: int) -> tuple[Any, int, int]:
        self._check_tag(node, _T + "map")
        out: dict[str, Any] = {}
        merged: dict[str, Any] = {}
        size, height = 1, 1
        for key_node, value_node in node.value:
            if key_node.tag == _T + "merge":
                value, sub, h = self._merge_source(value_node, depth)
                for k, v in value.items():
                    merged.setdefault(k, v)
                size, height = size + sub, max(height, h)
                continue
            key = self._key(key_node)
            if key in out:
                self._path.append(key)
                self._note(
                    "D008",
                    f"The key {key!r} appears twice in one mapping; the last value is used.",
                    "Remove the duplicate key.",
                )
                self._path.pop()
            self._path.append(key)
            value, sub, h = self._node(value_node, depth + 1)
            self._path.pop()
            out[key] = value
            size, height = size + sub, max(height, h + 1)
            if size > MAX_NODES:
                self._bomb()
        if merged:
            merged.update(out)
            out = merged
        return out, size, height

    def _merge_source(self, node: yaml.Node, depth: int) -> tuple[dict[str, Any], int, int]:
        sources = node.value if isinstance(node, yaml.SequenceNode) else [node]
        combined: dict[str, Any] = {}
        size, height = 0, 1
        for source in sources:
            value, sub, h = self._node(source, depth)
            if not isinstance(value, dict):
                self._note(
                    "D003",
                    "A YAML merge key (<<) must refer to a mapping; it is ignored.",
                    "Point << at a mapping anchor.",
                )
                continue
            for k, v in value.items():
                combined.setdefault(k, v)  # earlier sources win, as the merge-key spec says
            size, height = size + sub, max(height, h)
        return combined, size, height

    def _key(self, node: yaml.Node) -> str:
        if isinstance(node, yaml.ScalarNode):
            value = self._scalar(node)
            if isinstance(value, str):
                return value
            if isinstance(value, int) and not isinstance(value, bool):
                return str(node.value)  # unquoted status codes (200:) are common and unambiguous
            text = node.value if not isinstance(value, bool) else ("true" if value else "false")
            if value is None:
                text = "null"
            self._path.append(text)
            self._note(
                "D010",
                f"The key {node.value!r} is not a string; it is read as the string {text!r}.",
                "Quote the key.",
            )
            self._path.pop()
            return str(text)
        self._note(
            "D010", "A mapping key is a collection; it is read as a string.", "Use a plain string key."
        )
        return json.dumps(self._node(node, 1)[0], sort_keys=True)

    def _sequence(self, node: yaml.SequenceNode, depth: int) -> tuple[Any, int, int]:
        self._check_tag(node, _T + "seq")
        out: list[Any] = []
        size, height = 1, 1
        for index, item in enumerate(node.value):
            self._path.append(index)
            value, sub, h = self._node(item, depth + 1)
            self._path.pop()
            out.append(value)
            size, height = size + sub, max(height, h + 1)
            if size > MAX_NODES:
                self._bomb()
        return out, size, height

    def _scalar(self, node: yaml.Node) -> Any:
        tag, text = node.tag, str(node.value)
        if tag in _STR_TAGS:
            if not getattr(node, "style", None) and tag == _T + "str" and text in _YAML_11_BOOLS:
                self._note(
                    "D009",
                    f"The plain value {text!r} is read as a string (YAML 1.2), not as a boolean.",
                    f"Quote it ('{text}') if a string is meant, or write true/false.",
                )
            return text
        convert = _SCALARS.get(tag)
        if convert is None:
            self._check_tag(node, _T + "str")
            return text
        try:
            return convert(text)
        except ValueError:
            self._note(
                "D003",
                f"The value {text!r} does not match its tag {tag!r}; it is read as a string.",
                "Fix the value or remove the tag.",
            )
            return text


def _to_bool(text: str) -> bool:
    lowered = text.lower()
    if lowered in ("true", "yes", "on", "y"):
        return True
    if lowered in ("false", "no", "off", "n"):
        return False
    raise ValueError(text)


def _to_int(text: str) -> int:
    cleaned = text.replace("_", "")
    if cleaned.lower().startswith(("0o", "-0o", "+0o")):
        return int(cleaned.replace("0o", "").replace("0O", ""), 8)
    return int(cleaned, 0) if cleaned.lower().lstrip("+-").startswith("0x") else int(cleaned)


def _to_float(text: str) -> float:
    value = float(text.replace("_", ""))
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(text)  # JSON has no NaN or infinity
    return value


def _to_null(text: str) -> None:
    if text not in ("", "~", "null", "Null", "NULL"):
        raise ValueError(text)


_SCALARS: dict[str, Callable[[str], Any]] = {
    _T + "bool": _to_bool,
    _T + "int": _to_int,
    _T + "float": _to_float,
    _T + "null": _to_null,
}
