"""Packs as MCP tools, without the MCP SDK: tool definitions (wire JSON), output schemas, results.

Everything here is plain data so that the benchmark and lint can use it without ``mcp`` installed;
``_server`` turns it into the SDK's models.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from packc_runtime.calling.openapi.operations import resolve
from packc_runtime.calling.pack import Pack
from packc_runtime.calling.results import Envelope
from packc_runtime.calling.send import IDEMPOTENT_METHODS
from packc_runtime.errors import InvalidPack
from packc_runtime.rules import unescape_token
from packc_runtime.text.patterns import linear
from packc_runtime.text.terminal import terminal_text

__all__ = [
    "DEFAULT_MAX_RESULT_BYTES",
    "OUTPUT_SCHEMA_MAX_BYTES",
    "ToolSpec",
    "build_tools",
    "card_line",
    "find_pack_dirs",
    "fit_and_render",
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
        children = (
            sorted(p for p in path.iterdir() if (p / "surface.json").is_file()) if path.is_dir() else []
        )
        if not children:
            raise InvalidPack(
                f"{path} holds no pack: give a pack directory (with surface.json) or a folder of packs."
            )
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


def _input_schema(args: Mapping[str, Any] | None) -> dict[str, Any]:
    schema = dict(args) if args is not None else {}
    schema["type"] = "object"  # MCP requires an object root; args schemas are objects already
    schema.setdefault("properties", {})
    return schema


def _definition(pack: Pack, verb: str, name: str, *, with_output_schema: bool) -> dict[str, Any]:
    declared = pack.verbs[verb]
    write = pack.is_write(verb)
    pack_name = pack.manifest.name or pack.id
    title = f"{pack_name}: {' '.join(verb.split('.'))}"
    description = declared.description or title
    if write:
        description += " Changes data: the server asks a person to approve the preview before sending."
    tool: dict[str, Any] = {
        "name": name,
        "title": title,
        "description": description,
        "inputSchema": _input_schema(pack.args_schema(verb)),
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
                raise InvalidPack(
                    f"Two verbs would both be served as tool {name!r}; rename one (x-packc verb)."
                )
            tools[name] = ToolSpec(
                name,
                pack,
                verb,
                pack.is_write(verb),
                _definition(pack, verb, name, with_output_schema=with_output_schema),
            )
    return tools


# --- output schemas: the envelope, with the document's success body where it gives one ---


def _success_body_schema(pack: Pack, verb: str) -> Any:
    op = pack.operations.get(verb)
    if op is None:
        return None
    node: Any = pack.document
    try:
        for token in op.pointer[2:].split("/"):
            node = node[unescape_token(token)]
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


def _inline(
    document: Mapping[str, Any], node: Any, oas30: bool, seen: tuple[str, ...], budget: list[int]
) -> Any:
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
    out = {
        k: _inline(document, v, oas30, seen, budget)
        for k, v in node.items()
        if not (oas30 and k in _OAS30_DROP)
    }
    # The host validates results against outputSchema with its own, unguarded regex engine, on texts
    # as long as a result: a document's pattern goes there only if it runs in linear time (issue 23:
    # ^(a|a)*$ hung the SDK's client for 20 s on a 34-character answer). Dropping one only loosens.
    if isinstance(out.get("pattern"), str) and not linear(out["pattern"]):
        del out["pattern"]
    keyed = out.get("patternProperties")
    if isinstance(keyed, Mapping) and not all(isinstance(k, str) and linear(k) for k in keyed):
        for loose in ("patternProperties", "additionalProperties", "unevaluatedProperties"):
            out.pop(loose, None)
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
            "ok": {"type": "boolean"},
            "status": {"type": ["integer", "null"]},
            "verb": {"type": ["string", "null"]},
            "title": {"type": ["string", "null"]},
            "body": {},
            "error": {"type": "object"},
            "truncated": {"type": "object"},
        },
        "required": ["ok"],
        # The document's body schema holds for a whole success; an error or a cut body is not one.
        "if": {
            "properties": {"ok": {"const": True}},
            "required": ["ok", "body"],
            "not": {"required": ["truncated"]},
        },
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

# One encoder for every dump: json.dumps with options builds a new one per call (the size cap dumps
# each item of a long list). One line, as the size cap counts it: indenting would add a third to a list
# of records.
_ENCODER = json.JSONEncoder(ensure_ascii=False, default=str)


def _dumps(value: Any) -> str:
    return _ENCODER.encode(value)


def _size(value: Any) -> int:
    return len(_ENCODER.encode(value).encode())


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


class _Sizes:
    """Byte sizes of the JSON of the envelope's own lists and objects, each dumped once per fit (the cut
    asks for a member's size to find the largest, then again as it cuts it)."""

    def __init__(self) -> None:
        self.known: dict[int, int] = {}

    def of(self, value: Any) -> int:
        if not isinstance(value, list | dict):
            return _size(value)
        found = self.known.get(id(value))  # the envelope holds them all for the whole fit: ids are stable
        if found is None:
            found = self.known[id(value)] = _size(value)
        return found


MAX_DEPTH = 64  # nesting a host's JSON parser and the SDK's models take: deeper is shown as JSON text
_MAX_WHERE = 120  # a note names where it cut in at most this many characters
_MAX_HOW = 1000  # and says how to get the rest in at most this many


def _at(where: str, key: str) -> str:
    """The name of member ``key`` of ``where`` in a note, bounded: a deep path keeps its end."""
    name = f"{where}.{key[:40]}" if where else key[:40]
    return name if len(name) <= _MAX_WHERE else "…" + name[-(_MAX_WHERE - 1) :]


def _too_deep(value: Any) -> bool:
    """Whether a list or object sits :data:`MAX_DEPTH` levels down in ``value`` (no copy is made)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, list | dict):
            if depth >= MAX_DEPTH:
                return True
            stack.extend((child, depth + 1) for child in (node.values() if isinstance(node, dict) else node))
    return False


def _shallow(value: Any, depth: int = 0) -> Any:
    """``value`` with anything nested deeper than :data:`MAX_DEPTH` replaced by its JSON text (or a
    marker when even that cannot be written): a hostile server's 450-level error body broke the SDK's
    serialization and a 200-level one the client's parser. Every result passes here, so an ordinary
    one is only looked at, never copied."""
    if not isinstance(value, list | dict) or (depth == 0 and not _too_deep(value)):
        return value
    if depth >= MAX_DEPTH:
        try:
            return _dumps(value)
        except (RecursionError, ValueError):
            return f"[packc: nested deeper than {MAX_DEPTH} levels, not shown]"
    if isinstance(value, list):
        items = [_shallow(v, depth + 1) for v in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    members = {k: _shallow(v, depth + 1) for k, v in value.items()}
    return value if all(members[k] is v for k, v in value.items()) else members


def _cut(value: Any, budget: int, where: str, notes: list[str], sizes: _Sizes) -> Any:
    """``value`` cut to about ``budget`` bytes of JSON, keeping its shape: a list keeps its first items,
    an object cuts its largest member, text keeps its start. ``notes`` says what was cut, where."""
    if sizes.of(value) <= budget:
        return value
    if isinstance(value, list):
        # json.dumps(list) is "[" + ", ".join(items) + "]": prefix sizes add up, each item dumped once
        # (a binary search over dumps of prefixes dumped the list about log2(n) times).
        k, size = 0, 2
        for item in value:
            size += sizes.of(item) + (2 if k else 0)
            if size > budget:
                break
            k += 1
        notes.append(f"{where or 'body'}: kept {k} of {len(value)} items")
        return value[:k]
    if isinstance(value, dict) and value:
        key = max(value, key=lambda name: sizes.of(value[name]))
        rest = {k: v for k, v in value.items() if k != key}
        room = budget - _size(rest) - len(json.dumps(key)) - 4
        if room > 64:
            return {
                **value,
                key: _cut(value[key], room, _at(where, str(key)), notes, sizes),
            }
    text = value if isinstance(value, str) else _dumps(value)
    k = _largest_prefix(len(text), lambda n: _size(text[:n]) <= budget)
    notes.append(
        f"{where or 'body'}: kept the first {k} of {len(text)} characters"
        + ("" if isinstance(value, str) else " of its JSON text")
    )
    return text[:k]


def _envelope_size(head: Mapping[str, Any], body_size: int) -> int:
    # json.dumps of the envelope is its head's with ', "body": <body>' before the closing brace.
    return _size(head) + len(', "body": ' if head else '"body": ') + body_size


def fit_envelope(envelope: Envelope, limit: int, *, how: str | Callable[[], str]) -> Envelope:
    """The envelope, its body cut to fit ``limit`` bytes of JSON, and a ``truncated`` object saying
    what was cut and ``how`` to get the rest (the CLI line, a narrower call; a callable is asked only
    when something is cut). Anything nested deeper than :data:`MAX_DEPTH` is shown as JSON text."""
    return _fit(cast(Envelope, _shallow(envelope)), limit, how, _Sizes())[0]


def _shrink(
    value: dict[str, Any], budget: int, where: str, notes: list[str], sizes: _Sizes
) -> dict[str, Any]:
    """``value`` with its largest members cut, one after another, until its JSON fits ``budget``
    bytes; an object member is shrunk the same way, so an error keeps its ``code`` and shape."""
    out = dict(value)
    for key in sorted(out, key=lambda name: sizes.of(value[name]), reverse=True):
        over = _size(out) - budget
        if over <= 0:
            break
        member = value[key]
        room = max(0, sizes.of(member) - over)
        name = _at(where, key)
        if isinstance(member, dict) and member:
            out[key] = _shrink(member, room, name, notes, sizes)
            if _size(out[key]) > room:  # its keys alone are too long: its JSON text, cut
                out[key] = _cut(_dumps(member), room, name, notes, sizes)
        else:
            out[key] = _cut(member, room, name, notes, sizes)
    return out


def _fit(
    envelope: Envelope,
    limit: int,
    how: str | Callable[[], str],
    sizes: _Sizes,
) -> tuple[Envelope, str | None]:
    """:func:`fit_envelope`, and the cut body's JSON text when it was cut (it was dumped for its size)."""
    head = {k: v for k, v in envelope.items() if k != "body"}
    if "body" in envelope:
        body_size = sizes.of(envelope["body"])
        if _envelope_size(head, body_size) <= limit:
            return envelope, None
    elif sizes.of(envelope) <= limit:
        return envelope, None
    how = how() if callable(how) else how
    if len(how) > _MAX_HOW:  # it may repeat the arguments: a 500 kB one must not outgrow the cap itself
        how = how[: _MAX_HOW - 1] + "…"
    notes: list[str] = []
    room = max(0, limit - len(how) - 1024)  # room for the marker object
    out: dict[str, Any] = dict(envelope)
    kept: str | None = None
    cut_bytes = kept_bytes = 0
    if "body" in envelope:
        out["body"] = _cut(envelope["body"], max(0, room - _size(head)), "", notes, sizes)
        kept = _dumps(out["body"])
        cut_bytes, kept_bytes = body_size, len(kept.encode())
    # What is not the body (an error's server body, its preview, a title filled from the answer) is
    # cut too: the cap holds for every result, not only a success's body (issue 23).
    fixed = {k: out[k] for k in ("ok", "status", "verb", "body") if k in out}
    rest = {k: v for k, v in envelope.items() if k not in fixed}
    if _size(fixed) + _size(rest) > room:
        out.update(_shrink(rest, room - _size(fixed), "", notes, sizes))
        error = envelope.get("error")
        if isinstance(error, dict) and not isinstance(out["error"], dict):  # an error stays an object
            out["error"] = {"code": str(error.get("code"))[:64], "message": out["error"]}
        if kept is None:  # no body: the sizes are the whole result's
            cut_bytes, kept_bytes = sizes.of(envelope), _size(out)
    if len(notes) > 20:
        notes[20:] = [f"and {len(notes) - 20} more"]
    out["truncated"] = {
        "limit": limit,
        "bodyBytes": cut_bytes,
        "keptBytes": kept_bytes,
        "cut": notes,
        "how": how,
    }
    return cast(Envelope, out), kept


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


def render_card(card: Mapping[str, Any], *, sent_with: bool = True) -> list[str]:
    """A preview card as text lines: kind and title, one line per field, then the arguments the
    card's fields do not show (``sent_with``; left out where the caller lists every argument itself),
    each exactly one line."""
    lines = [f"{card_line(card.get('kind', 'fields'))}: {card_line(card.get('title') or '')}".rstrip()]
    fields = card.get("fields")
    for key, value in fields.items() if isinstance(fields, Mapping) else ():
        lines.append(f"  {card_line(key)}: {card_line(value)}")
    rest = card.get("sent_with") if sent_with else None
    if isinstance(rest, Mapping) and rest:
        lines.append("  sent with:")
        lines += [f"    {card_line(key)}: {card_line(value)}" for key, value in rest.items()]
    return lines


def fit_and_render(
    envelope: Envelope,
    limit: int,
    *,
    how: str | Callable[[], str],
) -> tuple[Envelope, str]:
    """:func:`fit_envelope` and :func:`render_text` of its result, the body's JSON dumped once for both
    (each dumped it: two thirds of a 30 KB result's handler time)."""
    envelope = cast(Envelope, _shallow(envelope))
    body = envelope.get("body")
    sizes = _Sizes()
    body_json = None
    if envelope.get("ok") and isinstance(body, list | dict):
        body_json = _dumps(body)
        sizes.known[id(body)] = len(body_json.encode())
    fitted, kept = _fit(envelope, limit, how, sizes)
    if not fitted.get("ok"):
        return fitted, render_text(fitted)
    return fitted, _ok_text(fitted, kept if fitted is not envelope else body_json)


def _ok_text(envelope: Mapping[str, Any], body_text: str | None) -> str:
    """An ok envelope's text; ``body_text`` the body's JSON when it is known already."""
    head = f"{envelope.get('title') or envelope.get('verb')} (HTTP {envelope.get('status')})"
    body = envelope.get("body")
    if body is not None:
        head += "\n" + (
            body if isinstance(body, str) else body_text if body_text is not None else _dumps(body)
        )
    cut = envelope.get("truncated")
    if isinstance(cut, Mapping) and "how" in cut:
        head += (
            f"\n[packc: result cut to {cut.get('keptBytes')} of {cut.get('bodyBytes')} bytes "
            f"({'; '.join(cut.get('cut') or [])}); to get the rest: {cut['how']}]"
        )
    return head


def render_text(envelope: Mapping[str, Any]) -> str:
    """The envelope as text a model (or a person) reads: title and status, then body or error."""
    if envelope.get("ok"):
        return _ok_text(envelope, None)
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
