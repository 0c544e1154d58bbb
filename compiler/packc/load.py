"""Load stage: read a path or URL into bytes and parse JSON or YAML into plain JSON values, safely."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlsplit

import httpx
import yaml

from packc_runtime.diagnostics import Diagnostic, pointer

from .errors import InputError

__all__ = [
    "MAX_DEPTH",
    "MAX_NODES",
    "Loaded",
    "fetch",
    "is_url",
    "load_source",
    "parse_document",
]

# Nesting beyond this is refused; real documents stay far below (Microsoft Graph beta: 35) and the
# later stages may recurse once or twice per level without nearing Python's limit of 1,000.
MAX_DEPTH = 256
# Nodes after YAML aliases are expanded; the figure OpenAPI.NET uses, well above Graph beta's 1.53 M.
MAX_NODES = 5_000_000
# Diagnostics of one kind per document beyond this are summarised, so a noisy file cannot flood output.
_MAX_REPEATS = 20

_YAML_11_BOOLS = frozenset(
    ["yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF"]
)


@dataclass(frozen=True, slots=True)
class Loaded:
    """A parsed document: the JSON value, where it came from, and what parsing noticed."""

    data: Any
    location: str  # an absolute path or an http(s) URL
    text: str  # the decoded text (kept for cheap pre-scans such as "any external $ref?")
    diagnostics: tuple[Diagnostic, ...]


def is_url(source: str) -> bool:
    """True for an http(s) URL."""
    try:
        return urlsplit(source).scheme.lower() in ("http", "https")
    except ValueError:  # e.g. "http://[::1": not a usable URL
        return False


def fetch(source: str | Path, *, timeout: float, max_bytes: int) -> tuple[bytes, str]:
    """Read a local file or an http(s) URL, refusing more than ``max_bytes``.

    Returns:
        The bytes and the canonical location (an absolute path or the final URL after redirects).
    """
    text_source = str(source)
    if isinstance(source, str) and is_url(source):
        return _fetch_url(source, timeout=timeout, max_bytes=max_bytes)
    if isinstance(source, str) and "://" in source:
        raise InputError(f"{source}: only local paths and http(s) URLs can be read",
                         [_read_error(text_source, "Only local paths and http(s) URLs can be read.")])
    try:
        path = Path(source).expanduser().resolve()
    except (OSError, ValueError, RuntimeError):
        raise InputError(f"{text_source!r}: not a usable path",
                         [_read_error(text_source, "The source is not a usable path.")]) from None
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise InputError(f"{path}: not a file", [_read_error(str(path), "The source is not a file.")])
        if size > max_bytes:
            raise InputError(f"{path}: {size} bytes is more than the limit of {max_bytes}",
                             [_too_large(str(path), max_bytes)])
        return path.read_bytes(), str(path)
    except ValueError:
        raise InputError(f"{path}: not a usable path", [_read_error(str(path), "The source is not a usable path.")]) from None
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}",
                         [_read_error(str(path), f"The file cannot be read ({exc.strerror or exc}).")]) from None


def _fetch_url(url: str, *, timeout: float, max_bytes: int) -> tuple[bytes, str]:
    chunks: list[bytes] = []
    size = 0
    # httpx's timeout measures inactivity (a byte every few seconds keeps a call alive), so the
    # whole download also has a deadline; only encodings we can inflate with a cap are accepted.
    deadline = time.monotonic() + 2 * timeout
    headers = {"Accept": "application/json, application/yaml, */*", "Accept-Encoding": "gzip, deflate"}
    try:
        with httpx.Client(timeout=timeout, follow_redirects=True, max_redirects=5) as client, \
                client.stream("GET", url, headers=headers) as resp:
            if resp.status_code >= 400:
                raise InputError(f"{url}: HTTP {resp.status_code}",
                                 [_read_error(url, f"The server answered HTTP {resp.status_code}.")])
            final = str(resp.url)
            for chunk in resp.iter_raw():
                size += len(chunk)
                if size > max_bytes:
                    raise InputError(f"{url}: more than {max_bytes} bytes", [_too_large(url, max_bytes)])
                chunks.append(chunk)
                if time.monotonic() > deadline:
                    raise InputError(f"{url}: download took longer than {2 * timeout:g} s", [_read_error(
                        url, f"The download took longer than {2 * timeout:g} s.")])
            encoding = resp.headers.get("content-encoding", "identity").lower()
    except (httpx.HTTPError, httpx.InvalidURL, httpx.StreamError) as exc:  # InvalidURL is no HTTPError
        raise InputError(f"{url}: {type(exc).__name__}: {exc}",
                         [_read_error(url, f"The URL cannot be fetched ({type(exc).__name__}).")]) from None
    raw = b"".join(chunks)
    if encoding not in ("identity", ""):
        raw = _decompress(raw, encoding, url, max_bytes)
    return raw, final


def _decompress(raw: bytes, encoding: str, url: str, max_bytes: int) -> bytes:
    # Raw bytes were read so the size cap applies before decompression too; decompress with a cap,
    # because a small gzip body can expand a thousandfold.
    import zlib

    if encoding not in ("gzip", "deflate", "x-gzip"):
        raise InputError(f"{url}: unsupported content-encoding {encoding}",
                         [_read_error(url, f"The server used content-encoding {encoding!r}.")])
    wbits = 16 + zlib.MAX_WBITS if "gzip" in encoding else zlib.MAX_WBITS
    try:
        inflater = zlib.decompressobj(wbits)
        out = inflater.decompress(raw, max_bytes + 1)
    except zlib.error:
        raise InputError(f"{url}: corrupt {encoding} body",
                         [_read_error(url, f"The {encoding} body is corrupt.")]) from None
    if len(out) > max_bytes or inflater.unconsumed_tail:
        raise InputError(f"{url}: more than {max_bytes} bytes", [_too_large(url, max_bytes)])
    return out


def _read_error(location: str, message: str) -> Diagnostic:
    return Diagnostic("D001", "error", f"{location}#", message, "Check the path or URL and that it is reachable.")


def _too_large(location: str, max_bytes: int) -> Diagnostic:
    return Diagnostic("D002", "error", f"{location}#", f"The document is larger than the limit of {max_bytes} bytes.",
                      "Raise the size limit if the document is trusted, or cut it down.")


def load_source(source: str | Path, *, timeout: float, max_bytes: int) -> Loaded:
    """Fetch and parse one document (the load stage)."""
    raw, location = fetch(source, timeout=timeout, max_bytes=max_bytes)
    return parse_document(raw, location)


def parse_document(raw: bytes, location: str) -> Loaded:
    """Parse JSON or YAML bytes into JSON values; refuses bombs, deep nesting and unsafe tags.

    Raises:
        InputError: the bytes are not a JSON or YAML document this compiler can read safely.
    """
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{location}: not UTF-8 text", [Diagnostic(
            "D003", "error", f"{location}#", f"The document is not UTF-8 text (byte {exc.start}).",
            "Save the document as UTF-8.")]) from None
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        parsed = _parse_json(text, location)
        if parsed is not None:
            return parsed
        # Not valid JSON: YAML flow style is a superset, so fall through and let YAML try.
    data, diagnostics = _parse_yaml(text, location)
    return Loaded(data, location, text, tuple(diagnostics))


# ---------------------------------------------------------------------------------------------- JSON

def _parse_json(text: str, location: str) -> Loaded | None:
    try:
        data = json.loads(text, parse_constant=str)
    except RecursionError:
        raise InputError(f"{location}: nested too deeply", [_too_deep(f"{location}#")]) from None
    except ValueError:
        return None
    too_deep, keys = _scan(data)
    if too_deep:
        raise InputError(f"{location}: nested more than {MAX_DEPTH} levels deep", [_too_deep(f"{location}#")])
    diagnostics: list[Diagnostic] = []
    # Every key in the text ends in '":' (or '" :'), so the text holds at least as many of those as
    # there are keys; fewer keys in the result means a duplicate, or a '":' inside a string value.
    # Only then parse again with a hook that names them: the hook costs ~50% on big documents.
    if keys < text.count('":') + len(_SPACED_COLON.findall(text)):
        duplicates = _duplicate_keys(text)
        for key in duplicates[:_MAX_REPEATS]:
            diagnostics.append(Diagnostic(
                "D008", "warning", f"{location}#", f"The key {key!r} appears twice in one object; the last value is used.",
                "Remove the duplicate key."))
        if len(duplicates) > _MAX_REPEATS:
            diagnostics.append(_more("D008", f"{location}#", len(duplicates) - _MAX_REPEATS))
    return Loaded(data, location, text, tuple(diagnostics))


_SPACED_COLON = re.compile(r'"\s+:')


def _duplicate_keys(text: str) -> list[str]:
    duplicates: list[str] = []

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(pairs)
        if len(out) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    duplicates.append(key)
                seen.add(key)
        return out

    json.loads(text, object_pairs_hook=pairs_hook, parse_constant=str)
    return duplicates


class _TooDeep(Exception):
    pass


def _scan(data: Any) -> tuple[bool, int]:
    """Whether any node is nested deeper than MAX_DEPTH, and the number of object keys.

    Recursive (a Python-to-Python call is cheap and the depth is bounded by MAX_DEPTH, far below the
    interpreter's limit): about twice as fast as an explicit stack of (node, depth) tuples.
    """
    dict_, list_ = dict, list

    def in_dict(node: dict[str, Any], depth: int) -> int:
        if depth > MAX_DEPTH:
            raise _TooDeep
        keys = len(node)
        for child in node.values():
            kind = type(child)
            if kind is dict_:
                keys += in_dict(child, depth + 1)
            elif kind is list_:
                keys += in_list(child, depth + 1)
        return keys

    def in_list(node: list[Any], depth: int) -> int:
        if depth > MAX_DEPTH:
            raise _TooDeep
        keys = 0
        for child in node:
            kind = type(child)
            if kind is dict_:
                keys += in_dict(child, depth + 1)
            elif kind is list_:
                keys += in_list(child, depth + 1)
        return keys

    try:
        if type(data) is dict_:
            return False, in_dict(data, 1)
        if type(data) is list_:
            return False, in_list(data, 1)
    except _TooDeep:
        return True, 0
    return False, 0


def _more(code: str, where: str, count: int) -> Diagnostic:
    return Diagnostic(code, "warning", where, f"{count} more warning(s) like the ones above are not listed.",
                      "Fix the ones listed and read the document again.")


def _too_deep(where: str) -> Diagnostic:
    return Diagnostic("D004", "error", where, f"The document is nested more than {MAX_DEPTH} levels deep.",
                      "Flatten the document, e.g. move nested schemas into components and $ref them.")


# ---------------------------------------------------------------------------------------------- YAML

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
_add("tag:yaml.org,2002:float",
     r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?)$", "-+0123456789.")
_add("tag:yaml.org,2002:null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""])  # type: ignore[arg-type]
_add("tag:yaml.org,2002:merge", r"^(?:<<)$", "<")

_T = "tag:yaml.org,2002:"
_STR_TAGS = frozenset({_T + "str", _T + "binary", _T + "timestamp"})


def _parse_yaml(text: str, location: str) -> tuple[Any, list[Diagnostic]]:
    loader = _CoreLoader(text)
    try:
        try:
            root = loader.get_single_node()
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
            problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            if "nesting depth" in str(problem):
                raise InputError(f"{location}: nested too deeply", [_too_deep(f"{location}#")]) from None
            raise InputError(f"{location}: not valid JSON or YAML{where}: {problem}", [Diagnostic(
                "D003", "error", f"{location}#", f"The document is not valid JSON or YAML{where}: {problem}.",
                "Fix the syntax at that place.")]) from None
        except RecursionError:
            raise InputError(f"{location}: nested too deeply", [_too_deep(f"{location}#")]) from None
    finally:
        loader.dispose()
    if root is None:
        raise InputError(f"{location}: empty document", [Diagnostic(
            "D003", "error", f"{location}#", "The document is empty.", "Give a JSON or YAML OpenAPI document.")])
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
            if count > _MAX_REPEATS:
                self.diagnostics.append(_more(code, f"{self.location}#", count - _MAX_REPEATS))
        return value

    def _where(self) -> str:
        return pointer(*self._path, base=f"{self.location}#")

    def _note(self, code: str, message: str, fix: str) -> None:
        count = self._counts.get(code, 0) + 1
        self._counts[code] = count
        if count <= _MAX_REPEATS:
            self.diagnostics.append(Diagnostic(code, "warning", self._where(), message, fix))

    def _bomb(self) -> None:
        raise InputError(f"{self.location}: YAML aliases expand to more than {MAX_NODES} nodes", [Diagnostic(
            "D005", "error", self._where(),
            f"YAML aliases expand this document to more than {MAX_NODES:,} nodes (an alias bomb).",
            "Remove the nested aliases, or expand them into a plain document if it is trusted.")])

    def _node(self, node: yaml.Node, depth: int) -> tuple[Any, int, int]:
        key = id(node)
        done = self._done.get(key)
        if done is not None:
            if depth + done[2] - 1 > MAX_DEPTH:
                raise InputError(f"{self.location}: nested too deeply", [_too_deep(self._where())])
            return done
        if key in self._active:
            raise InputError(f"{self.location}: a YAML alias refers to itself", [Diagnostic(
                "D006", "error", self._where(), "A YAML alias refers to a node that contains it (a cycle).",
                "Replace the recursive alias with a $ref.")])
        if depth > MAX_DEPTH:
            raise InputError(f"{self.location}: nested too deeply", [_too_deep(self._where())])
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
            raise InputError(f"{self.location}: unsafe YAML tag {tag}", [Diagnostic(
                "D007", "error", self._where(), f"The YAML tag {tag!r} asks to build a Python object.",
                "Remove the tag; an OpenAPI document holds plain data only.")])
        if not tag.startswith(_T):
            self._note("D007", f"The YAML tag {tag!r} is not a standard tag; it is ignored.",
                       "Remove the tag; an OpenAPI document holds plain data only.")

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
                self._note("D008", f"The key {key!r} appears twice in one mapping; the last value is used.",
                           "Remove the duplicate key.")
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
                self._note("D003", "A YAML merge key (<<) must refer to a mapping; it is ignored.",
                           "Point << at a mapping anchor.")
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
            self._note("D010", f"The key {node.value!r} is not a string; it is read as the string {text!r}.",
                       "Quote the key.")
            self._path.pop()
            return str(text)
        self._note("D010", "A mapping key is a collection; it is read as a string.", "Use a plain string key.")
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
                self._note("D009", f"The plain value {text!r} is read as a string (YAML 1.2), not as a boolean.",
                           f"Quote it ('{text}') if a string is meant, or write true/false.")
            return text
        convert = _SCALARS.get(tag)
        if convert is None:
            self._check_tag(node, _T + "str")
            return text
        try:
            return convert(text)
        except ValueError:
            self._note("D003", f"The value {text!r} does not match its tag {tag!r}; it is read as a string.",
                       "Fix the value or remove the tag.")
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
