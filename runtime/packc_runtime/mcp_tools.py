"""Packs as MCP tools, without the MCP SDK: tool definitions (wire JSON), output schemas, results.

Everything here is plain data so that the benchmark and lint can use it without ``mcp`` installed;
``mcp_server`` turns it into the SDK's models.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import InvalidPack
from .openapi import resolve
from .pack import Pack
from .send import IDEMPOTENT_METHODS
from .terminal import terminal_text

__all__ = [
    "DEFAULT_MAX_RESULT_BYTES",
    "OUTPUT_SCHEMA_MAX_BYTES",
    "ToolSpec",
    "build_tools",
    "card_line",
    "find_pack_dirs",
    "fit_envelope",
    "output_schema",
    "render_card",
    "render_text",
]

#: The default cap on one tool result meant for a model's context (the CLI's cap is 10 MiB).
DEFAULT_MAX_RESULT_BYTES = 100_000
#: An output schema larger than this is left out: tools/list is read into every conversation.
OUTPUT_SCHEMA_MAX_BYTES = 4096
_NAME_BAD = re.compile(r"[^A-Za-z0-9_.-]")
_NAME_MAX = 128
_OAS30_DROP = ("nullable", "discriminator", "xml", "externalDocs", "example")


@dataclass(frozen=True)
class ToolSpec:
    """One verb of one pack served as one tool; ``definition`` is its ``tools/list`` entry (wire JSON)."""

    name: str
    pack: Pack
    verb: str
    write: bool
    definition: dict[str, Any]


def find_pack_dirs(paths: Sequence[Path]) -> list[Path]:
    """Each path is a pack (holds surface.json) or a family folder whose sub-folders are packs.

    Raises:
        InvalidPack: a path is neither.
    """
    out: list[Path] = []
    for path in paths:
        if (path / "surface.json").is_file():
            out.append(path)
            continue
        children = sorted(p for p in path.iterdir() if (p / "surface.json").is_file()) if path.is_dir() else []
        if not children:
            raise InvalidPack(f"{path} holds no pack: give a pack directory (with surface.json) or a folder of packs.")
        out.extend(children)
    return out


def _safe_name(name: str) -> str:
    name = _NAME_BAD.sub("_", name) or "tool"
    if len(name) > _NAME_MAX:
        digest = hashlib.sha256(name.encode()).hexdigest()[:8]
        name = name[: _NAME_MAX - 9] + "_" + digest
    return name


def _idempotent(pack: Pack, verb: str) -> bool:
    op = pack.operations.get(verb)
    return op is not None and (op.method.upper() in IDEMPOTENT_METHODS or op.idempotent)


def _destructive(pack: Pack, verb: str) -> bool:
    return pack.is_destructive(verb)  # policy.json's flag, and always a DELETE


def _input_schema(declared: Mapping[str, Any]) -> dict[str, Any]:
    schema = declared.get("args")
    schema = dict(schema) if isinstance(schema, Mapping) else {}
    schema["type"] = "object"  # MCP requires an object root; args schemas are objects already
    schema.setdefault("properties", {})
    return schema


def _definition(pack: Pack, verb: str, name: str, *, with_output_schema: bool) -> dict[str, Any]:
    declared = pack.verbs[verb]
    write = pack.is_write(verb)
    pack_name = str(pack.manifest.get("name") or pack.id)
    title = f"{pack_name}: {' '.join(verb.split('.'))}"
    description = str(declared.get("description") or title)
    if write:
        description += " Changes data: the server asks a person to approve the preview before sending."
    tool: dict[str, Any] = {
        "name": name,
        "title": title,
        "description": description,
        "inputSchema": _input_schema(declared),
        "annotations": {
            "title": title,
            "readOnlyHint": not write,
            "destructiveHint": write and _destructive(pack, verb),
            "idempotentHint": _idempotent(pack, verb),
            "openWorldHint": True,
        },
    }
    if with_output_schema:
        schema = output_schema(pack, verb)
        if schema is not None:
            tool["outputSchema"] = schema
    return tool


def build_tools(packs: Sequence[Pack], *, with_output_schema: bool = True) -> dict[str, ToolSpec]:
    """Every verb of every pack as a tool, keyed by tool name.

    A verb name that more than one pack has is prefixed with its pack id (``stripe-charges.list``);
    names keep to MCP's ``[A-Za-z0-9_.-]``, at most 128 characters.

    Raises:
        InvalidPack: two packs share an id, or two tools would share a name.
    """
    ids = [p.id for p in packs]
    if len(set(ids)) != len(ids):
        twice = sorted({i for i in ids if ids.count(i) > 1})
        raise InvalidPack(f"Pack id(s) served twice: {', '.join(twice)}. Give each pack once.")
    owners: dict[str, int] = {}
    for pack in packs:
        for verb in pack.verbs:
            owners[verb] = owners.get(verb, 0) + 1
    tools: dict[str, ToolSpec] = {}
    for pack in packs:
        for verb in sorted(pack.verbs):
            name = _safe_name(f"{pack.id}.{verb}" if owners[verb] > 1 else verb)
            if name in tools:
                raise InvalidPack(f"Two verbs would both be served as tool {name!r}; rename one (x-packc verb).")
            tools[name] = ToolSpec(name, pack, verb, pack.is_write(verb),
                                   _definition(pack, verb, name, with_output_schema=with_output_schema))
    return tools


# --- output schemas: the envelope, with the document's success body where it gives one ---

def _success_body_schema(pack: Pack, verb: str) -> Any:
    op = pack.operations.get(verb)
    if op is None:
        return None
    node: Any = pack.document
    try:
        for token in op.pointer[2:].split("/"):
            node = node[token.replace("~1", "/").replace("~0", "~")]
        responses = resolve(pack.document, node.get("responses") or {})
    except (KeyError, TypeError, AttributeError, InvalidPack):
        return None
    codes = sorted(c for c in responses if str(c).startswith("2"))
    for code in codes[:1]:
        try:
            response = resolve(pack.document, responses[code])
        except InvalidPack:
            return None
        content = response.get("content") if isinstance(response, Mapping) else None
        for media, entry in (content or {}).items():
            if media.split(";")[0].strip() == "application/json" or media.endswith("+json"):
                return entry.get("schema") if isinstance(entry, Mapping) else None
    return None


def _inline(document: Mapping[str, Any], node: Any, oas30: bool, seen: tuple[str, ...], budget: list[int]) -> Any:
    """``node`` with internal refs inlined (a cycle becomes ``{}``), OpenAPI 3.0 keywords as JSON Schema."""
    budget[0] -= 1
    if budget[0] < 0:
        raise ValueError("too large")
    if isinstance(node, list):
        return [_inline(document, v, oas30, seen, budget) for v in node]
    if not isinstance(node, Mapping):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        if ref in seen:
            return {}
        return _inline(document, resolve(document, {"$ref": ref}), oas30, (*seen, ref), budget)
    out = {k: _inline(document, v, oas30, seen, budget) for k, v in node.items()
           if not (oas30 and k in _OAS30_DROP)}
    if oas30:
        if node.get("nullable") is True and isinstance(out.get("type"), str):
            out["type"] = [out["type"], "null"]
            if isinstance(out.get("enum"), list) and None not in out["enum"]:
                out["enum"] = [*out["enum"], None]
        for bound, limit in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
            if isinstance(node.get(bound), bool):
                flag = out.pop(bound)
                if flag and limit in out:
                    out[bound] = out.pop(limit)
    return out


def output_schema(pack: Pack, verb: str) -> dict[str, Any] | None:
    """The envelope's schema, its ``body`` the document's success schema; None when none is small and valid."""
    body = _success_body_schema(pack, verb)
    if not isinstance(body, Mapping):
        return None
    oas30 = str(pack.document.get("openapi", "")).startswith("3.0")
    try:
        inlined = _inline(pack.document, body, oas30, (), [2000])
    except (ValueError, InvalidPack, RecursionError):
        return None
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "ok": {"type": "boolean"}, "status": {"type": ["integer", "null"]},
            "verb": {"type": ["string", "null"]}, "title": {"type": ["string", "null"]},
            "body": {}, "error": {"type": "object"}, "truncated": {"type": "object"},
        },
        "required": ["ok"],
        # The document's body schema holds for a whole success; an error or a cut body is not one.
        "if": {"properties": {"ok": {"const": True}}, "required": ["ok", "body"],
               "not": {"required": ["truncated"]}},
        "then": {"properties": {"body": inlined}},
    }
    if len(json.dumps(schema, separators=(",", ":"))) > OUTPUT_SCHEMA_MAX_BYTES:
        return None
    from jsonschema import Draft202012Validator  # lazily: only when serving
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError:
        return None
    return schema


# --- results: the size cap and the readable text ---

def _dumps(value: Any) -> str:
    # One line, as the size cap counts it: indenting would add a third to a list of records.
    return json.dumps(value, ensure_ascii=False, default=str)


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, default=str).encode())


def _largest_prefix(length: int, fits: Any) -> int:
    """The largest k in [0, length] with ``fits(k)`` (``fits`` is monotone: true, then false)."""
    low, high = 0, length
    while low < high:
        mid = (low + high + 1) // 2
        if fits(mid):
            low = mid
        else:
            high = mid - 1
    return low


def _cut(value: Any, budget: int, where: str, notes: list[str]) -> Any:
    """``value`` cut to about ``budget`` bytes of JSON, keeping its shape: a list keeps its first items,
    an object cuts its largest member, text keeps its start. ``notes`` says what was cut, where."""
    if _size(value) <= budget:
        return value
    if isinstance(value, list):
        k = _largest_prefix(len(value), lambda n: _size(value[:n]) <= budget)
        notes.append(f"{where or 'body'}: kept {k} of {len(value)} items")
        return value[:k]
    if isinstance(value, dict) and value:
        key = max(value, key=lambda name: _size(value[name]))
        rest = {k: v for k, v in value.items() if k != key}
        room = budget - _size(rest) - len(json.dumps(key)) - 4
        if room > 64:
            return {**value, key: _cut(value[key], room, f"{where}.{key}" if where else str(key), notes)}
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    k = _largest_prefix(len(text), lambda n: _size(text[:n]) <= budget)
    notes.append(f"{where or 'body'}: kept the first {k} of {len(text)} characters" +
                 ("" if isinstance(value, str) else " of its JSON text"))
    return text[:k]


def fit_envelope(envelope: dict[str, Any], limit: int, *, how: str | Callable[[], str]) -> dict[str, Any]:
    """The envelope, its body cut to fit ``limit`` bytes of JSON, and a ``truncated`` object saying
    what was cut and ``how`` to get the rest (the CLI line, a narrower call; a callable is asked only
    when something is cut)."""
    size = _size(envelope)
    if size <= limit or "body" not in envelope:
        return envelope
    how = how() if callable(how) else how
    notes: list[str] = []
    head = {k: v for k, v in envelope.items() if k != "body"}
    budget = max(0, limit - _size(head) - len(how) - 1024)  # room for the marker object
    out = dict(envelope)
    out["body"] = _cut(envelope["body"], budget, "", notes)
    out["truncated"] = {"limit": limit, "bodyBytes": _size(envelope["body"]), "keptBytes": _size(out["body"]),
                        "cut": notes, "how": how}
    return out


def _error_lines(error: Mapping[str, Any]) -> list[str]:
    lines = [f"error {error.get('code')}: {error.get('message')}"]
    lines += [f"- unknown argument: {name}" for name in error.get("unknown") or []]
    lines += [f"- missing argument: {name}" for name in error.get("missing") or []]
    for item in error.get("invalid") or []:
        if isinstance(item, Mapping):
            lines.append(f"- invalid argument {item.get('argument')}: {item.get('message')}")
    return lines


def card_line(value: Any) -> str:
    """Card text as one line a person reads as it is: shown in JSON quotes, escaped, if it holds a
    line break, a control or a bidi character (an argument ``"x\\n  amount: 1.00"`` would otherwise
    add a line of its own to the card a person approves, or reorder what they read)."""
    text = str(value)
    if "\n" not in text and "\t" not in text and terminal_text(text) == text:
        return text
    return terminal_text(json.dumps(text, ensure_ascii=False))


def render_card(card: Mapping[str, Any]) -> list[str]:
    """A preview card as text lines: kind and title, then one line per field, each exactly one line."""
    lines = [f"{card_line(card.get('kind', 'fields'))}: {card_line(card.get('title') or '')}".rstrip()]
    fields = card.get("fields")
    for key, value in (fields.items() if isinstance(fields, Mapping) else ()):
        lines.append(f"  {card_line(key)}: {card_line(value)}")
    return lines


def render_text(envelope: Mapping[str, Any]) -> str:
    """The envelope as text a model (or a person) reads: title and status, then body or error."""
    if envelope.get("ok"):
        head = f"{envelope.get('title') or envelope.get('verb')} (HTTP {envelope.get('status')})"
        body = envelope.get("body")
        text = head if body is None else head + "\n" + (body if isinstance(body, str) else _dumps(body))
        cut = envelope.get("truncated")
        if isinstance(cut, Mapping) and "how" in cut:
            text += (f"\n[packc: result cut to {cut.get('keptBytes')} of {cut.get('bodyBytes')} bytes "
                     f"({'; '.join(cut.get('cut') or [])}); to get the rest: {cut['how']}]")
        return text
    error = envelope.get("error")
    error = error if isinstance(error, Mapping) else {}
    lines = _error_lines(error)
    if error.get("fix"):
        lines.append(f"fix: {error['fix']}")
    if isinstance(error.get("preview"), Mapping):
        lines += ["Preview of what would be sent:", *render_card(error["preview"])]
    if error.get("body") is not None:
        body = error["body"]
        lines.append("Server answered: " + (body if isinstance(body, str) else _dumps(body)))
    return "\n".join(lines)
