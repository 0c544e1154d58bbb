"""Derive, per planned verb: args schema, cli[], description, titles, access, preview; per pack: binding."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from packc.build._access import Said, decide_care
from packc.build._cards import preview as preview_card
from packc.build._examples import name_hints, with_example
from packc.build._money import mime_args, minor_amounts, money_objects
from packc.build._schemas import inline_schema
from packc.build._titles import resource_phrase, titles
from packc.curate.plan import PlannedVerb
from packc.model import Api, MediaType, Operation, Parameter
from packc.read.overrides import Overrides
from packc.text import clean, sentence, shorten, snake
from packc_runtime.diagnostics import Diagnostic
from packc_runtime.format.manifest import Access, Binding, Verb
from packc_runtime.rules import RESERVED_HEADERS, escape_token, template_names

__all__ = ["ArgSpec", "DerivedVerb", "binding_for", "derive_verb", "scheme_keys"]

# Flags the pack CLI owns (--server-var too: the CLI reads --a-b as the argument a_b); an argument
# of that name would shadow them.
RESERVED_ARGS = {
    "confirm",
    "json",
    "server",
    "server_var",
    "help",
    "result",
}  # {{result}} means the call's result
DESC_LIMIT = 200

_ACTIONS = {
    "list": ("Listing", "Listed"),
    "get": ("Getting", "Got"),
    "create": ("Creating", "Created"),
    "update": ("Updating", "Updated"),
    "delete": ("Deleting", "Deleted"),
}


@dataclass(frozen=True, slots=True)
class ArgSpec:
    """One argument: its JSON Schema and where it goes in the request."""

    name: str
    location: str  # path | query | header | cookie | body
    original: str | None  # parameter name, body property name, or None for the whole body
    schema: Mapping[str, Any]
    required: bool
    file: bool = False
    wanted: bool = False  # required by its body's schema, though the body is optional: a preview shows it


@dataclass(frozen=True, slots=True)
class DerivedVerb:
    name: str
    op: Operation
    verb: Verb
    access: Access
    destructive: bool
    args: tuple[ArgSpec, ...]
    content_type: str | None  # the document's own content key of the chosen body media type
    idempotent: bool | None
    diagnostics: tuple[Diagnostic, ...] = field(default_factory=tuple)
    amounts: Mapping[str, str] = field(
        default_factory=dict
    )  # _money.minor_amounts: shown as money by the runtime
    money: Mapping[str, Mapping[str, str]] = field(
        default_factory=dict
    )  # _money.money_objects: the same for objects
    mime: tuple[str, ...] = ()  # _money.mime_args: whole emails, whose To and Subject a card shows

    def binding(self) -> dict[str, Any]:
        """The operation's ``x-packc-binding`` (contract)."""
        args: dict[str, Any] = {}
        for a in self.args:
            entry: dict[str, Any] = {"in": a.location, "name": a.original}
            if a.file:
                entry["file"] = True
            args[a.name] = entry
        out: dict[str, Any] = {"verb": self.name, "args": args, "contentType": self.content_type}
        if self.idempotent is not None:
            out["idempotent"] = self.idempotent
        if self.amounts:
            out["amounts"] = dict(self.amounts)
        if self.money:
            out["moneyObjects"] = {k: dict(v) for k, v in self.money.items()}
        if self.mime:
            out["mime"] = list(self.mime)
        return out


# --- args --------------------------------------------------------------------------------------------


def _unique(name: str, location: str, taken: set[str]) -> str:
    base = name or ("body" if location == "body" else "arg")
    if base in taken or base in RESERVED_ARGS:
        base = f"{location}_{base}"
    out, n = base, 2
    while out in taken:
        out = f"{base}_{n}"
        n += 1
    taken.add(out)
    return out


def _describe(schema: dict[str, Any], *texts: str) -> dict[str, Any]:
    for text in texts:
        plain = shorten(clean(text), DESC_LIMIT)
        if plain:
            return {**schema, "description": plain}
    return schema


def _risky_warning(patterns: Sequence[str], where: str, what: str, diags: list[Diagnostic]) -> None:
    for pattern in dict.fromkeys(patterns):
        shown = pattern if len(pattern) <= 60 else pattern[:57] + "..."
        diags.append(
            Diagnostic(
                "C157",
                "warning",
                where,
                f"The pattern {shown!r} of {what} can backtrack for exponential time (text it can read in more than "
                "one way, repeated: nested repeats, overlapping alternatives); args leave it out and nothing runs it.",
                "Nothing to do; the server still checks it. To have packc check it, rewrite it so that every text "
                "matches it in one way only (no nested repeats, alternatives that start differently).",
            )
        )


def _param_schema(api: Api, p: Parameter, diags: list[Diagnostic]) -> dict[str, Any]:
    raw = p.schema if p.schema is not None else (p.content.schema if p.content else None)
    schema, cut, risky = inline_schema(api, raw if raw is not None else {"type": "string"})
    _risky_warning(risky, p.pointer, repr(p.name), diags)
    if cut:
        diags.append(
            Diagnostic(
                "C122",
                "warning",
                p.pointer,
                f"The schema of {p.name!r} is recursive or very large; cut to {{}} in args.",
                "Nothing to do; the runtime still sends what the document allows.",
            )
        )
    if not isinstance(schema, dict):
        schema = {} if schema is True else {"not": {}}
    if p.deprecated:
        schema["deprecated"] = True
    return schema


def _path_order(path: str) -> list[str]:
    return template_names(path)


def _pick_media(content: Sequence[MediaType]) -> MediaType | None:
    def rank(m: MediaType) -> int:
        ct = m.content_type
        if ct == "application/json":
            return 0
        if ct.endswith("+json") or ct.endswith("/json"):
            return 1
        if ct == "application/x-www-form-urlencoded":
            return 2
        if ct == "multipart/form-data":
            return 3
        return 4

    return min(content, key=rank) if content else None


def _merged_object(api: Api, schema: Any) -> tuple[dict[str, Any], list[str]] | None:
    """Properties and required names of an object body (allOf merged), or None when not an object."""
    node = api.deref(schema)
    if not isinstance(node, Mapping):
        return None
    props: dict[str, Any] = {}
    required: list[str] = []
    parts = [node, *[api.deref(p) for p in node.get("allOf", []) if isinstance(node.get("allOf"), list)]]
    for part in parts:
        if not isinstance(part, Mapping):
            continue
        if isinstance(part.get("properties"), Mapping):
            props.update(part["properties"])
        if isinstance(part.get("required"), list):
            required += [r for r in part["required"] if isinstance(r, str)]
    if not props:
        return None
    if any(k in node for k in ("oneOf", "anyOf")) or node.get("type") not in (None, "object"):
        return None
    return props, required


def _is_file(media: MediaType, schema: Any) -> bool:
    ct = media.content_type
    if (
        isinstance(schema, Mapping)
        and schema.get("type") == "string"
        and schema.get("format") in ("binary", "base64")
    ):
        return True
    if isinstance(schema, Mapping) and schema.get("format") == "file":  # Swagger 2.0 `type: file`, converted
        return True
    return schema is None and not (ct.endswith("json") or ct.startswith("text/") or "form" in ct)


def _body_args(
    api: Api, op: Operation, taken: set[str], diags: list[Diagnostic]
) -> tuple[list[ArgSpec], str | None]:
    body = op.request_body
    media = _pick_media(body.content) if body else None
    if body is None or media is None:
        return [], None
    where = body.pointer or op.pointer + "/requestBody"
    # The key as the document spells it (with parameters), which the runtime looks up.
    content_type = media.key or media.content_type
    given = [e.value for e in media.examples]
    obj = _merged_object(api, media.schema)
    out: list[ArgSpec] = []
    if obj is not None:
        # A property the body's schema requires is a required argument, also when the document leaves
        # the body itself optional (OpenAPI's default, which most documents never change: Twilio's
        # forms). Sending that body without it is a request the server refuses; refused here instead,
        # as missing_argument, before anything is sent.
        props, required = obj
        for prop, raw in props.items():
            node = api.deref(raw)
            if isinstance(node, Mapping) and node.get("readOnly") is True:
                continue
            schema, cut, risky = inline_schema(api, raw)
            _risky_warning(risky, where, f"body property {prop!r}", diags)
            if not isinstance(schema, dict):
                schema = {} if schema is True else {"not": {}}
            file = (
                isinstance(node, Mapping)
                and node.get("format") in ("binary", "file")
                and "form" in media.content_type
            )
            if file:
                schema = {
                    "type": "string",
                    "format": "binary",
                    "description": f"Path of a file to upload as {prop!r}.",
                }
            name = _unique(snake(str(prop)), "body", taken)
            ex = [g[prop] for g in given if isinstance(g, Mapping) and prop in g]
            schema = with_example(
                schema,
                ex,
                f"{where}/content/{media.content_type}/schema/properties/{prop}",
                diags,
                required=prop in required,
                decode="form" in media.content_type,
                hints=name_hints(str(prop), schema),
            )
            if cut:
                diags.append(
                    Diagnostic(
                        "C122",
                        "warning",
                        where,
                        f"The schema of body property {prop!r} is recursive or very large; cut in args.",
                        "Nothing to do; the runtime still sends what the document allows.",
                    )
                )
            out.append(
                ArgSpec(
                    name,
                    "body",
                    str(prop),
                    schema,
                    prop in required,
                    file,
                    prop in required,
                )
            )
        return out, content_type
    if _is_file(media, api.deref(media.schema) if media.schema is not None else None):
        schema = {
            "type": "string",
            "format": "binary",
            "description": "Path of a file to send as the request body.",
        }
        schema = with_example(schema, ["./file.bin"], where, diags)
        return [
            ArgSpec(_unique("body", "body", taken), "body", None, schema, body.required, True)
        ], content_type
    inner, _cut, risky = inline_schema(api, media.schema if media.schema is not None else {})
    _risky_warning(risky, where, "the request body", diags)
    schema = inner if isinstance(inner, dict) else {}
    schema = _describe(schema, body.description, "The request body.")
    schema = with_example(schema, given, where, diags, required=body.required)
    return [ArgSpec(_unique("body", "body", taken), "body", None, schema, body.required)], content_type


def _without_credential_params(
    api: Api, op: Operation, requirements: Sequence[Any], params: list[Parameter], diags: list[Diagnostic]
) -> list[Parameter]:
    """``params`` without those an apiKey scheme of the operation sends (same place, same name).

    An argument there would be sent beside the credential or instead of it
    (``?api_key=ATTACKER&api_key=REAL``: many servers read the first; the name compared without
    case); the credential must win, so
    such a parameter is never an argument (C159). The runtime refuses one too (defence in depth).
    """
    sent: dict[tuple[str, str], str] = {}
    for req in requirements:
        for key, _scopes in req:
            scheme = api.security_schemes.get(key)
            if scheme is not None and scheme.type == "apiKey" and scheme.location:
                # Without case in every place: headers are case-insensitive, and some servers
                # (ASP.NET) read query keys and cookies so too (``?API_KEY=x&api_key=REAL``).
                sent.setdefault((scheme.location, scheme.param_name.casefold()), key)
    kept = []
    for p in params:
        key = sent.get((p.location, p.name.casefold()))
        if key is None:
            kept.append(p)
            continue
        diags.append(
            Diagnostic(
                "C159",
                "warning",
                p.pointer or op.pointer,
                f"The {p.location} parameter {p.name!r} is where scheme {key!r} sends its credential; "
                "it is not an argument, so no argument can stand beside or in place of the credential.",
                "Nothing to do: the credential fills it. Remove the parameter from the document to "
                "silence this.",
            )
        )
    return kept


def _args(api: Api, op: Operation, diags: list[Diagnostic]) -> tuple[list[ArgSpec], str | None]:
    taken: set[str] = set()
    params = [p for p in op.parameters if not (p.location == "header" and p.name.lower() in RESERVED_HEADERS)]
    requirements = op.security if op.security is not None else api.security
    credential_headers = {
        api.security_schemes[key].param_name.lower()
        for req in requirements
        for key, _scopes in req
        if key in api.security_schemes
        and api.security_schemes[key].type == "apiKey"
        and api.security_schemes[key].location == "header"
    }
    for p in op.parameters:
        if (
            p not in params and p.name.lower() not in credential_headers
        ):  # a credential: C156 says so, not C121
            diags.append(
                Diagnostic(
                    "C121",
                    "warning",
                    p.pointer or op.pointer,
                    f"Header parameter {p.name!r} is set by HTTP or the credentials; it is not an argument.",
                    "Remove it from the document, or leave it: it is ignored.",
                )
            )
    params = _without_credential_params(api, op, requirements, params, diags)
    order = _path_order(op.path)
    path_params = sorted(
        (p for p in params if p.location == "path"),
        key=lambda p: order.index(p.name) if p.name in order else len(order),
    )
    declared = {p.name for p in path_params}
    for missing in (n for n in order if n not in declared):  # template names the document forgot to declare
        path_params.append(Parameter(name=missing, location="path", required=True, schema={"type": "string"}))
    ordered = path_params + [p for p in params if p.location != "path"]
    out: list[ArgSpec] = []
    for p in ordered:
        schema = _param_schema(api, p, diags)
        schema = _describe(schema, p.description, schema.get("description", ""))
        given = [e.value for e in p.examples] + ([e.value for e in p.content.examples] if p.content else [])
        required = p.location == "path" or p.required
        fill = required and p.location in ("query", "header", "cookie")
        schema = with_example(
            schema,
            given,
            p.pointer or op.pointer,
            diags,
            required=required,
            fill=fill,
            decode=p.location in ("query", "path"),
            hints=name_hints(p.name, schema),
        )
        name = _unique(snake(p.name), p.location, taken)
        out.append(ArgSpec(name, p.location, p.name, schema, required))
    if op.method.lower() in ("get", "head") and op.request_body is not None:
        # HTTP gives a GET or HEAD body no meaning and many servers and proxies drop or refuse it
        # (Stripe's GET /v1/account declares an empty form body): it is never an argument.
        diags.append(
            Diagnostic(
                "C161",
                "warning",
                (op.request_body.pointer or op.pointer + "/requestBody"),
                f"A {op.method.upper()} operation declares a request body; HTTP gives it no meaning, "
                "so it is not an argument and nothing is sent as the body.",
                "Remove the requestBody, or make the operation a POST if it needs one.",
            )
        )
        return out, None
    body_args, content_type = _body_args(api, op, taken, diags)
    return out + body_args, content_type


def _args_schema(args: Sequence[ArgSpec]) -> dict[str, Any]:
    props: dict[str, Any] = {}
    position = 0
    for a in args:
        prop = dict(a.schema)
        if a.location == "path":
            prop["x-position"] = position
            position += 1
        props[a.name] = prop
    out: dict[str, Any] = {"type": "object", "properties": props}
    required = [a.name for a in args if a.required]
    if required:
        out["required"] = required
    return out


# --- access, words, titles, preview --------------------------------------------------------------


def _said(pv: PlannedVerb, stub: Verb | None, overrides: Overrides) -> Said:
    """What the operation's x-packc (or an overlay) says about care, else what a stub's verb says."""
    o = pv.override
    if o.access is not None or o.destructive is not None:
        where = (pv.op.pointer or f"#/paths/{pv.op.path}") + "/x-packc"
        return Said(o.access, o.destructive, by_user=o.by_user, where=where)
    if stub is not None and stub.policy is not None:
        # A stub is never the user's word on care, local or fetched (a cloned pack repository's
        # surface.json is someone else's): lowering care from it warns like the document (C170).
        return Said(
            stub.policy,
            None,
            where="surface.json#/verbs/" + escape_token(pv.name) + "/policy",
            source="the stub manifest's verb policy says read",
        )
    return Said()


def _description(pv: PlannedVerb, stub: Verb | None) -> str:
    for text in (
        pv.override.description,
        stub.description if stub else None,
        pv.op.summary,
        pv.op.description,
    ):
        out = sentence(text or "", DESC_LIMIT)
        if out:
            return out
    if pv.action in _ACTIONS:
        return f"{pv.action.capitalize()} {resource_phrase(pv.resource, plural=pv.action == 'list')}."
    return f"Call {pv.op.method.upper()} {clean(pv.op.path)}."


def derive_verb(api: Api, pv: PlannedVerb, cli_bin: str, overrides: Overrides) -> DerivedVerb:
    """Everything a verb needs, from its planned operation."""
    diags: list[Diagnostic] = []
    stub = overrides.stub_verbs.get(pv.name) if overrides.stub_verbs else None
    args, content_type = _args(api, pv.op, diags)
    care = decide_care(pv.op, pv.name, _said(pv, stub, overrides))
    diags += care.diagnostics
    access, destructive = care.access, care.destructive
    cli = [cli_bin, *pv.name.split(".")]
    cli += [f"{{{{{a.name}}}}}" for a in args if a.location == "path"]
    for a in args:
        if a.location != "path":
            cli += [f"--{a.name}", f"{{{{{a.name}}}}}"]
    preview = None
    if access == "write":
        forced_kind = pv.override.preview or (stub.preview.kind if stub and stub.preview else None)
        preview = preview_card(pv, args, destructive, forced_kind)
    fields: dict[str, Any] = {
        "description": _description(pv, stub),
        "cli": cli,
        "args": _args_schema(args),
        "title": stub.title if stub and stub.title else titles(pv, args),
        "policy": access,
    }
    if preview is not None:
        fields["preview"] = preview
    verb = Verb(**fields)
    shown = " ".join([preview.title or "", *(preview.fields or {}).values()]) if preview is not None else ""
    amounts = {
        k: v
        for k, v in minor_amounts(
            args, api.document, payment=preview is not None and preview.kind == "payment"
        ).items()
        if f"{{{{{k}}}}}" in shown
    }  # what the card shows
    money = {k: v for k, v in money_objects(args, api.document).items() if f"{{{{{k}}}}}" in shown}
    mime = tuple(mime_args(args)) if preview is not None else ()
    return DerivedVerb(
        pv.name,
        pv.op,
        verb,
        access,
        destructive,
        tuple(args),
        content_type,
        pv.override.idempotent,
        tuple(diags),
        amounts,
        money,
        mime,
    )


# --- binding -----------------------------------------------------------------------------------------


def scheme_keys(api: Api, ops: Sequence[Operation]) -> list[str]:
    """Security scheme keys the operations may use (sorted), ignoring ones the document lacks."""
    keys: set[str] = set()
    for op in ops:
        for requirement in op.security if op.security is not None else api.security:
            keys |= {k for k, _ in requirement if k in api.security_schemes}
    return sorted(keys)


def _provider(api: Api, keys: Sequence[str]) -> str | None:
    for key in keys:
        scheme = api.security_schemes[key]
        if scheme.type in ("oauth2", "openIdConnect"):
            urls = [f.authorization_url or f.token_url for f in scheme.flows] + [scheme.openid_connect_url]
            for url in urls:
                host = urlparse(url).hostname or ""
                labels = [
                    x
                    for x in host.split(".")
                    if x not in ("www", "api", "auth", "oauth", "login", "accounts")
                ]
                if len(labels) >= 2:
                    return snake(labels[-2]).replace("_", "-") or None
            return None
    return None


def binding_for(api: Api, ops: Sequence[Operation], overrides: Overrides, family: str) -> Binding:
    """public when no operation needs credentials, else user + local-credential (environment, keyring or file) with a family."""
    keys = scheme_keys(api, ops)
    given = overrides.binding
    if not keys:
        base = Binding(mode="public", hub="public")
    else:
        provider = (
            _provider(api, keys) if any(api.security_schemes[k].type == "oauth2" for k in keys) else None
        )
        base = (
            Binding(mode="user", hub="local-credential", family=family, connect_provider_id=provider or None)
            if provider
            else Binding(mode="user", hub="local-credential", family=family)
        )
    if given is None:
        return base
    merged = {**base.model_dump(exclude_none=True), **given.model_dump(exclude_none=True)}
    return Binding(**merged)
