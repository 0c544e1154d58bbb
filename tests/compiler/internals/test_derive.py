"""Derive: args (flattening, clashes, examples, refs), access, previews, binding."""

from __future__ import annotations

import re
from typing import Any

from jsonschema import Draft202012Validator

from compiler.helpers import make_api, op, path_param
from packc.build.derive import binding_for, derive_verb
from packc.curate.plan import plan
from packc.model import MediaType, OAuthFlow, Parameter, RequestBody, Response, SecurityScheme
from packc.read.overrides import OpOverride, Overrides

DOC: dict[str, Any] = {
    "components": {
        "schemas": {
            "Node": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}},
                },
            },
            "Money": {
                "type": "object",
                "required": ["amount"],
                "properties": {"amount": {"type": "number", "minimum": 5}},
            },
        }
    }
}


def _derive(
    *ops: Any, overrides: Overrides | None = None, doc: dict[str, Any] | None = None
) -> dict[str, Any]:
    api = make_api(*ops, document=doc or DOC)
    overrides = overrides or Overrides()
    result = plan(api, overrides)
    return {v.name: derive_verb(api, v, "zoo", overrides) for v in result.packs[0].verbs}


def _body(schema: Any, required: bool = True, content_type: str = "application/json") -> RequestBody:
    return RequestBody(required=required, content=(MediaType(content_type=content_type, schema=schema),))


def test_arguments_named_like_the_pack_clis_flags_take_their_location() -> None:
    o = op(
        "get",
        "/pets",
        parameters=tuple(
            Parameter(name=n, location="query", schema={"type": "string"})
            for n in ("server-var", "server", "help", "confirm", "serverVariable")
        ),
    )
    props = _derive(o)["pets.list"].verb.args["properties"]
    assert list(props) == [
        "query_server_var",
        "query_server",
        "query_help",
        "query_confirm",
        "server_variable",
    ]


def test_args_join_path_query_header_and_body_with_predictable_clash_names() -> None:
    o = op(
        "post",
        "/pets/{id}/visits",
        parameters=(
            path_param("id", {"type": "integer"}),
            Parameter(name="id", location="query", schema={"type": "string"}),
            Parameter(name="X-Trace", location="header", schema={"type": "string"}),
            Parameter(name="Authorization", location="header", schema={"type": "string"}),
            Parameter(name="Accept", location="header", schema={"type": "string"}),
            Parameter(name="json", location="query", schema={"type": "boolean"}),
        ),
        request_body=_body(
            {
                "type": "object",
                "required": ["id", "note"],
                "properties": {
                    "id": {"type": "string"},
                    "note": {"type": "string"},
                    "ro": {"type": "string", "readOnly": True},
                },
            }
        ),
    )
    d = _derive(o)["pets.visits.create"]
    props = d.verb.args["properties"]
    assert list(props) == ["id", "query_id", "x_trace", "query_json", "body_id", "note"]
    assert d.verb.args["required"] == ["id", "body_id", "note"]
    assert props["id"]["x-position"] == 0 and "x-position" not in props["note"]
    assert d.binding()["args"]["body_id"] == {"in": "body", "name": "id"}
    assert d.binding()["args"]["query_json"] == {"in": "query", "name": "json"}
    assert d.verb.cli == [
        "zoo",
        "pets",
        "visits",
        "create",
        "{{id}}",
        "--query_id",
        "{{query_id}}",
        "--x_trace",
        "{{x_trace}}",
        "--query_json",
        "{{query_json}}",
        "--body_id",
        "{{body_id}}",
        "--note",
        "{{note}}",
    ]
    assert d.content_type == "application/json"


def test_path_args_are_positional_in_path_order() -> None:
    o = op("get", "/a/{first}/b/{second}", parameters=(path_param("second"), path_param("first")))
    props = next(iter(_derive(o).values())).verb.args["properties"]
    assert [(k, v["x-position"]) for k, v in props.items()] == [("first", 0), ("second", 1)]


def test_every_argument_has_an_example_that_validates() -> None:
    o = op(
        "post",
        "/things",
        parameters=(
            Parameter(name="when", location="query", schema={"type": "string", "format": "date-time"}),
            Parameter(
                name="n",
                location="query",
                schema={"type": "integer", "minimum": 10, "maximum": 20, "multipleOf": 7},
            ),
            Parameter(
                name="code", location="query", schema={"type": "string", "pattern": "^[A-Z]{2}-[0-9]{3}$"}
            ),
            Parameter(name="kind", location="query", schema={"type": "string", "enum": ["b", "a"]}),
            Parameter(name="bad", location="query", schema={"type": "integer"}, examples=()),
        ),
        request_body=_body(
            {
                "type": "object",
                "properties": {
                    "tree": {"$ref": "#/components/schemas/Node"},
                    "maybe": {"type": "string", "nullable": True, "minLength": 3},
                    "either": {"oneOf": [{"$ref": "#/components/schemas/Money"}, {"type": "boolean"}]},
                    "low": {"type": "number", "minimum": 0, "exclusiveMinimum": True},
                },
            }
        ),
    )
    props = _derive(o)["things.create"].verb.args["properties"]
    for name, prop in props.items():
        assert prop.get("examples"), name
        Draft202012Validator.check_schema(prop)
        assert Draft202012Validator(prop).is_valid(prop["examples"][0]), name
    assert props["n"]["examples"] == [14] and props["kind"]["examples"] == ["b"]
    assert props["maybe"]["type"] == ["string", "null"]
    assert props["low"]["exclusiveMinimum"] == 0 and "minimum" not in props["low"]
    assert "$ref" not in str(props)  # self-contained


def test_cycles_are_cut_with_a_note() -> None:
    o = op("post", "/nodes", request_body=_body({"$ref": "#/components/schemas/Node"}))
    d = _derive(o)["nodes.create"]
    assert any(x.code == "C122" for x in d.diagnostics)
    assert "Recursive" in str(d.verb.args["properties"]["children"])


def test_non_object_and_binary_bodies_become_one_body_arg() -> None:
    arr = op("post", "/batch", request_body=_body({"type": "array", "items": {"type": "integer"}}))
    binary = op(
        "put",
        "/files/{id}",
        parameters=(path_param("id"),),
        request_body=_body({"type": "string", "format": "binary"}, content_type="application/octet-stream"),
    )
    derived = _derive(arr, binary)
    a = derived["batch.create"]
    assert list(a.verb.args["properties"]) == ["body"] and a.binding()["args"]["body"] == {
        "in": "body",
        "name": None,
    }
    b = derived["files.update"]
    assert b.binding()["args"]["body"] == {"in": "body", "name": None, "file": True}
    assert b.content_type == "application/octet-stream"


def test_access_policy_and_destructive() -> None:
    ok = (Response(status="200", content=(MediaType(content_type="application/json", schema={}),)),)
    ops = [
        op("get", "/pets"),
        op("post", "/pets/search", operation_id="searchPets", responses=ok),
        op("post", "/pets/report", summary="Build a report. Read-only."),
        op("post", "/pets", responses=(Response(status="201"),)),
        op("delete", "/pets/{id}", parameters=(path_param("id"),)),
        op("head", "/pets"),
    ]
    d = _derive(*ops)
    access = {k: (v.access, v.destructive) for k, v in d.items()}
    assert access == {
        "pets.list": ("read", False),
        "pets.search": ("read", False),
        "pets.report": ("read", False),
        "pets.create": ("write", False),
        "pets.delete": ("write", True),
        "pets.head": ("read", False),
    }
    assert all((v.verb.preview is None) == (v.access == "read") for v in d.values())


def test_rpc_style_keys_name_by_operation_and_read_by_action() -> None:
    # AWS JSON protocol: every operation is a POST to "/" told apart by a header, keyed by a fragment.
    ok = (Response(status="200", content=(MediaType(content_type="application/json", schema={}),)),)
    key = "/#X-Amz-Target=Svc.{}"
    ops = [
        op("post", key.format(n), operation_id=n, responses=ok)
        for n in ("CreateTable", "GetTable", "ListTables", "DeleteTable", "DescribeLimits", "TagResource")
    ]
    ops.append(op("post", "/#Action=StopInstances", responses=ok))  # no operationId: the fragment names it
    d = _derive(*ops)
    access = {k: (v.access, v.destructive) for k, v in d.items()}
    assert access == {
        "table.create": ("write", False),
        "table.get": ("read", False),
        "tables.list": ("read", False),
        "table.delete": ("write", True),
        "limits.describe": ("read", False),
        "resource.tag": ("write", False),
        "instances.stop": ("write", False),
    }
    # flickr: the key's query names the operation
    flickr = _derive(
        op("get", "/rest?method=flickr.photos.getInfo"), op("get", "/rest?method=flickr.photos.search")
    )
    assert sorted(flickr) == ["flickr.photos.get_info", "flickr.photos.search"]


def _props(*names: str) -> RequestBody:
    return _body(
        {"type": "object", "required": list(names), "properties": {n: {"type": "string"} for n in names}}
    )


def test_preview_kinds_follow_what_the_operation_does() -> None:
    ops = [
        op("delete", "/pets/{id}", parameters=(path_param("id"),)),
        op("post", "/payments", request_body=_props("amount", "currency", "payee")),
        op("post", "/messages", request_body=_props("to", "text")),
        op("post", "/events", request_body=_props("title", "start", "end")),
        op("post", "/apps/{id}/deploy", parameters=(path_param("id"),)),
        op("post", "/notes", request_body=_props("title")),
        op("post", "/pets/{id}/adopt", parameters=(path_param("id"),)),
    ]
    kinds = {k: v.verb.preview.kind for k, v in _derive(*ops).items() if v.verb.preview}
    assert kinds == {
        "pets.delete": "removal",
        "payments.create": "payment",
        "messages.create": "message",
        "events.create": "event",
        "apps.deploy": "publish",
        "notes.create": "record",
        "pets.adopt": "fields",
    }
    pay = _derive(ops[1])["payments.create"].verb.preview
    assert pay is not None and pay.fields == {
        "amount": "{{amount}}",
        "currency": "{{currency}}",
        "to": "{{payee}}",
    }


def test_x_packc_forces_access_and_preview() -> None:
    o = op("post", "/pets/{id}/adopt", parameters=(path_param("id"),))
    ov = Overrides(ops={o.key: OpOverride(access="write", preview="payment", idempotent=True)})
    d = _derive(o, overrides=ov)["pets.adopt"]
    assert d.verb.preview is not None and d.verb.preview.kind == "payment"
    assert d.binding()["idempotent"] is True
    # The document's access: read does not lower a POST whose words do not say it reads (issue 23);
    # the user's --overlay does.
    kept = _derive(o, overrides=Overrides(ops={o.key: OpOverride(access="read")}))["pets.adopt"]
    assert kept.access == "write"
    read = _derive(o, overrides=Overrides(ops={o.key: OpOverride(access="read", by_user=True)}))["pets.adopt"]
    assert read.access == "read" and read.verb.preview is None


def test_titles_have_placeholders_and_a_fallback() -> None:
    d = _derive(op("get", "/pets/{id}", parameters=(path_param("id"),)))["pets.get"]
    assert d.verb.title is not None
    assert d.verb.title.live == ["Getting pet {{id}}", "Getting pet"]
    assert d.verb.title.done == ["Got pet {{id}}", "Got pet"]


def _q(*names: str, required: bool = False) -> tuple[Parameter, ...]:
    return tuple(
        Parameter(name=n, location="query", required=required, schema={"type": "string"}) for n in names
    )


def _titles(*ops: Any) -> dict[str, list[str]]:
    return {k: list(v.verb.title.live) for k, v in _derive(*ops).items() if v.verb.title is not None}


def test_titles_of_rpc_methods_read_as_english() -> None:
    got = _titles(
        op("get", "/conversations.info", parameters=_q("token", "channel")),
        op("get", "/conversations.history", parameters=_q("channel")),
        op("get", "/conversations.members", parameters=_q("channel")),
        op("get", "/users.getPresence", parameters=_q("user")),
        op("post", "/chat.postMessage", request_body=_props("channel", "text")),
    )
    assert got == {
        "conversations.info": ["Getting conversation info"],
        "conversations.history": ["Listing conversation history"],  # a history is many things
        "conversations.members": ["Listing conversation members"],
        "users.get_presence": ["Getting user presence"],
        "chat.post_message": ["Posting message to {{channel}}", "Posting chat message"],
    }


def test_search_titles_say_what_is_searched() -> None:
    got = _titles(
        op("get", "/v1/customers/search", parameters=_q("query", required=True)),
        op("get", "/search/issues", parameters=_q("q", required=True)),
    )
    assert got == {"customers.search": ["Searching customers"], "issues.search": ["Searching issues"]}


def test_titles_name_the_parent_the_parameters_identify() -> None:
    # The account's SIP domains: "SIP" qualifies the domain, the account is what AccountSid names.
    path = "/2010-04-01/Accounts/{AccountSid}/SIP/Domains.json"
    got = _titles(
        op("post", path, parameters=(path_param("AccountSid"),), request_body=_props("domain_name")),
        op("get", "/user/repos"),
        op("get", "/v1/checkout/sessions"),
    )
    assert got == {
        "sip.domains.create": ["Creating SIP domain for account {{account_sid}}", "Creating SIP domain"],
        "user.repos.list": ["Listing your repositories"],
        "checkout.sessions.list": ["Listing checkout sessions"],
    }


def test_the_callers_own_object_is_the_current_one() -> None:
    assert _titles(op("get", "/users/me"), op("get", "/users")) == {
        "users.me": ["Getting the current user"],
        "users.list": ["Listing users"],
    }
    assert _titles(op("patch", "/users/me"), op("get", "/users/me/settings"), op("get", "/me/playlists")) == {
        "users.me.update": ["Updating the current user"],
        "users.me.settings": ["Getting your settings"],
        "me.playlists.list": ["Listing your playlists"],
    }
    # GET /me whose answer has no schema (only examples) is still one object: me.get, never me.list.
    assert set(_titles(op("get", "/me"), op("get", "/teams"))) == {"me.get", "teams.list"}


def test_the_caller_and_a_sent_message() -> None:
    one = {"200": {"content": {"application/json": {"schema": {"type": "object", "properties": {"id": {}}}}}}}
    doc = {**DOC, "paths": {"/v1/account": {"get": {"responses": one}}}}
    derived = _derive(
        op("get", "/v1/account"),
        op("get", "/v1/accounts/{a}", parameters=(path_param("a"),)),
        op(
            "post",
            "/Accounts/{sid}/Messages.json",
            parameters=(path_param("sid"),),
            request_body=_props("To", "Body"),
        ),
        doc=doc,
    )
    got = {k: list(v.verb.title.live) for k, v in derived.items() if v.verb.title is not None}
    assert got == {
        "account.get": ["Getting the current account"],  # /account alone: the caller's
        "accounts.get": ["Getting account {{a}}", "Getting account"],
        "accounts.messages.create": ["Sending message to {{to}}", "Sending message"],
    }


def test_an_invitation_names_who_and_where() -> None:
    body = _body(
        {"type": "object", "properties": {"channel": {"type": "string"}, "users": {"type": "string"}}},
        required=False,
    )
    d = _derive(op("post", "/conversations.invite", parameters=_q("token"), request_body=body))[
        "conversations.invite"
    ]
    assert d.verb.title is not None and d.verb.title.live == [
        "Inviting {{users}} to {{channel}}",
        "Inviting to conversation",
    ]
    card = d.verb.preview
    assert card is not None and card.title == "Invite {{users}} to {{channel}}"
    assert card.fields == {"users": "{{users}}", "channel": "{{channel}}"}  # never the token


def test_only_people_put_into_something_make_an_invitation() -> None:
    def form(*names: str) -> RequestBody:
        return _body({"type": "object", "properties": {n: {"type": "string"} for n in names}}, required=False)

    got = _derive(
        op("post", "/conversations.kick", request_body=form("channel", "user")),
        op("post", "/admin.users.assign", request_body=form("team_id", "user_id")),
        op("post", "/dnd.endDnd"),
        op("post", "/admin.conversations.setConversationPrefs", request_body=form("channel_id", "prefs")),
    )
    live = {
        k: (v.verb.title.live[0] if v.verb.title else "", v.verb.preview.title if v.verb.preview else "")
        for k, v in got.items()
    }
    assert live == {
        "conversations.kick": ("Kicking {{user}} from {{channel}}", "Kick {{user}} from {{channel}}"),
        # The users are what is assigned, not where: no "to admin user".
        "admin.users.assign": ("Assigning admin user", "Assign admin user"),
        # What the resource says is not said twice.
        "dnd.end_dnd": ("Ending dnd", "End dnd"),
        "admin.conversations.set_conversation_prefs": (
            "Setting admin conversation prefs",
            "Set prefs of admin conversation",
        ),
    }


def test_previews_show_what_the_body_requires_even_when_the_body_is_optional() -> None:
    # Twilio's forms: the body is optional, its schema requires To and From.
    body = _body(
        {
            "type": "object",
            "required": ["To", "From"],
            "properties": {
                "To": {"type": "string"},
                "From": {"type": "string"},
                "Timeout": {"type": "integer"},
            },
        },
        required=False,
    )
    card = _derive(op("post", "/calls", request_body=body))["calls.create"].verb.preview
    assert card is not None and card.fields == {"to": "{{to}}", "from": "{{from}}"}
    assert card.title == "Call {{to}} from {{from}}"  # placing a call rings someone: the card says who


def test_a_card_names_the_thing_created_when_the_document_leaves_it_optional() -> None:
    # Twilio: buying a number takes a PhoneNumber or an AreaCode, so the schema requires neither.
    body = _body(
        {
            "type": "object",
            "properties": {
                "PhoneNumber": {"type": "string"},
                "AreaCode": {"type": "string"},
                "FriendlyName": {"type": "string"},
                "VoiceUrl": {"type": "string"},
            },
        },
        required=False,
    )
    card = _derive(op("post", "/incoming_phone_numbers", request_body=body))[
        "incoming_phone_numbers.create"
    ].verb.preview
    assert card is not None and card.fields == {
        "phone_number": "{{phone_number}}",
        "friendly_name": "{{friendly_name}}",
    }


def test_previews_never_show_a_credential_argument() -> None:
    o = op("post", "/notes", parameters=_q("token", "api_key", required=True), request_body=_props("title"))
    card = _derive(o)["notes.create"].verb.preview
    assert card is not None and card.fields == {"title": "{{title}}"}
    # Mandrill's key in the body, Postmark's X-Postmark-Server-Token header, a partner's secret key.
    header = Parameter(
        name="X-Postmark-Server-Token", location="header", required=True, schema={"type": "string"}
    )
    o = op(
        "post", "/email", parameters=(header,), request_body=_props("key", "partner_secret_key", "subject")
    )
    card = _derive(o)["email.create"].verb.preview
    assert card is not None and card.fields == {"subject": "{{subject}}"}


def test_a_reply_address_is_no_recipient_and_a_customer_is_charged_not_paid() -> None:
    mail = _body(
        {
            "type": "object",
            "required": ["text"],
            "properties": {
                "reply_to": {"type": "string"},
                "to": {"type": "string"},
                "text": {"type": "string"},
            },
        }
    )
    card = _derive(op("post", "/messages", request_body=mail))["messages.create"].verb.preview
    assert card is not None and card.title == "Send message to {{to}}" and card.fields["to"] == "{{to}}"
    call = _body(
        {
            "type": "object",
            "required": ["link_to", "from"],
            "properties": {
                "link_to": {"type": "string"},
                "from": {"type": "string"},
                "to": {"type": "string"},
            },
        }
    )
    card = _derive(op("post", "/calls", request_body=call))["calls.create"].verb.preview
    assert card is not None and card.title == "Call {{to}} from {{from}}"
    money = _body(
        {
            "type": "object",
            "required": ["amount", "currency"],
            "properties": {
                "amount": {"type": "integer"},
                "currency": {"type": "string"},
                "customer": {"type": "string"},
                "channel": {"type": "string"},
            },
        }
    )
    card = _derive(op("post", "/payment_intents", request_body=money))["payment_intents.create"].verb.preview
    assert card is not None and card.title == "Charge {{amount}} {{currency}} to {{customer}}"
    adyen = _body(
        {
            "type": "object",
            "required": ["amount", "channel"],
            "properties": {
                "amount": {"type": "integer"},
                "currency": {"type": "string"},
                "channel": {"type": "string"},
            },
        }
    )
    card = _derive(op("post", "/payments", request_body=adyen))["payments.create"].verb.preview
    assert (
        card is not None and "channel" not in (card.title or "") and card.fields and "to" not in card.fields
    )


def test_binding_public_user_and_oauth_provider() -> None:
    public = make_api(op("get", "/a"))
    assert binding_for(public, public.operations, Overrides(), "zoo").model_dump(exclude_none=True) == {
        "mode": "public",
        "hub": "public",
    }
    secured = make_api(op("get", "/a"), secured=True)
    assert binding_for(secured, secured.operations, Overrides(), "zoo").model_dump(exclude_none=True) == {
        "mode": "user",
        "hub": "local-credential",
        "family": "zoo",
    }
    oauth = make_api(op("get", "/a", security=((("o", ("read",)),),)))
    oauth = type(oauth)(
        **{
            **{f: getattr(oauth, f) for f in oauth.__dataclass_fields__},
            "security_schemes": {
                "o": SecurityScheme(
                    key="o",
                    type="oauth2",
                    flows=(
                        OAuthFlow(
                            kind="authorizationCode", authorization_url="https://accounts.github.com/login"
                        ),
                    ),
                )
            },
        }
    )
    got = binding_for(oauth, oauth.operations, Overrides(), "zoo")
    assert got.mode == "user" and got.connect_provider_id == "github"


def test_result_and_negated_range_patterns_do_not_break_a_pack() -> None:
    o = op(
        "get",
        "/things",
        parameters=(
            Parameter(name="result", location="query", schema={"type": "string"}),
            Parameter(name="code", location="query", schema={"type": "string", "pattern": "^[^a-z0-9]+$"}),
        ),
    )
    props = _derive(o)["things.list"].verb.args["properties"]
    assert "result" not in props and "query_result" in props
    assert Draft202012Validator(props["code"]).is_valid(props["code"].get("examples", ["!"])[0])


def _example_args(d: Any) -> dict[str, Any]:
    return {n: p["examples"][0] for n, p in d.verb.args["properties"].items() if p.get("examples")}


def test_examples_pass_the_runtimes_own_validation() -> None:
    """Conformance findings: bhagavadgita, azure logic, mwaa, vtex nulls, visagecloud."""
    from packc.model import Example
    from packc_runtime.calling.args import validate_args

    doc = {
        "components": {
            "schemas": {
                "Base": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {"created": {"type": "string"}},
                },
                "Assembly": {
                    "type": "object",
                    "additionalProperties": False,
                    "allOf": [{"$ref": "#/components/schemas/Base"}],
                    "required": ["assemblyName"],
                    "properties": {"assemblyName": {"type": "string"}},
                },
            }
        }
    }
    o = op(
        "put",
        "/chapters/{chapter}/verses/{verse}",
        parameters=(
            path_param("chapter", {"type": "integer"}),
            path_param(
                "verse", {"type": "string", "enum": [1, 2, 3]}
            ),  # numbers for a string: become "1", ...
            Parameter(
                name="purposes",
                location="query",
                required=True,  # array-level enum of strings: dropped
                schema={"type": "array", "items": {"type": "string"}, "enum": ["A", "B"]},
            ),
            Parameter(
                name="code",
                location="query",
                required=True,
                schema={"type": "integer"},
                examples=(Example(value="not a number"),),
            ),
        ),
        request_body=_body(
            {
                "type": "object",
                "required": ["properties", "tags", "flag"],
                "properties": {
                    "properties": {"$ref": "#/components/schemas/Assembly"},
                    "tags": {
                        "type": "object",
                        "minProperties": 1,
                        "additionalProperties": {"type": "string", "minLength": 1},
                    },
                    "flag": {"type": "boolean", "nullable": True, "example": None},
                },
            }
        ),
    )
    d = _derive(o, doc=doc)["chapters.verses.update"]
    args = _example_args(d)
    assert set(args) == set(d.verb.args["required"])
    validate_args(d.name, d.verb.args, args)  # raises on any problem
    assert args["verse"] == "1" and args["code"] == 1 and args["flag"] is True
    assert args["tags"] == {"key": "example"} and args["properties"]["assemblyName"] == "example"


def test_required_object_query_parameter_example_is_not_empty() -> None:
    """seldon: ``{}`` for a required exploded object query parameter sends nothing."""
    o = op(
        "get",
        "/route",
        parameters=(
            Parameter(
                name="json",
                location="query",
                required=True,
                schema={
                    "type": "object",
                    "properties": {
                        "data": {
                            "type": "object",
                            "properties": {"names": {"type": "array", "items": {"type": "string"}}},
                        },
                        "strData": {"type": "string"},
                    },
                },
            ),
            Parameter(
                name="opt",
                location="query",
                schema={"type": "object", "properties": {"a": {"type": "string"}}},
            ),
        ),
    )
    props = _derive(o)["route.list"].verb.args["properties"]
    assert props["query_json"]["examples"] == [{"data": {}}]
    assert props["opt"]["examples"] == [{}]


def test_swagger2_file_body_is_a_file_path_arg() -> None:
    """ContentModerator: ``type: file`` converted to ``{"type": "object", "format": "file"}``."""
    o = op(
        "post", "/images", request_body=_body({"type": "object", "format": "file"}, content_type="image/gif")
    )
    form = op(
        "post",
        "/uploads",
        request_body=_body(
            {
                "type": "object",
                "properties": {"picture": {"type": "object", "format": "file"}, "note": {"type": "string"}},
            },
            content_type="multipart/form-data",
        ),
    )
    derived = _derive(o, form)
    d = derived["images.create"]
    assert d.verb.args["properties"]["body"]["type"] == "string"
    assert d.verb.args["properties"]["body"]["format"] == "binary"
    assert d.verb.args["properties"]["body"]["examples"] == ["./file.bin"]
    assert d.binding()["args"]["body"] == {"in": "body", "name": None, "file": True}
    u = derived["uploads.create"]
    assert u.verb.args["properties"]["picture"]["type"] == "string"
    assert u.binding()["args"]["picture"]["file"] is True


def test_a_cut_keeps_the_type_so_examples_still_fit() -> None:
    """azure jit: a port ``number`` cut by depth had no type, so the example ``"example"`` passed."""
    from packc.build._schemas import CUT_NOTE, inline_schema

    api = make_api(document={"components": {"schemas": {"Number": {"type": "integer", "format": "int32"}}}})
    for n in range(1, 20):
        deep: dict[str, Any] = {"$ref": "#/components/schemas/Number"}
        for _ in range(n):
            deep = {"type": "object", "required": ["x"], "properties": {"x": deep}}
        schema, cut, _risky = inline_schema(api, deep)
        if cut:
            break
    assert cut
    inner = schema
    while "properties" in inner:
        inner = inner["properties"]["x"]
    assert inner["description"] == CUT_NOTE and inner["type"] == "integer"  # an object cut stays open


def test_a_pattern_example_grows_a_repeat_to_reach_min_length() -> None:
    from packc.build._examples import example_for

    # AWS workmail: padding the 40-character match with "x" broke the pattern; no example at all was found.
    arn = {
        "type": "string",
        "minLength": 47,
        "maxLength": 562,
        "pattern": r"arn:aws:logs:[a-z\-0-9]*:[0-9]{12}:log-group:([\.\-_/#A-Za-z0-9]+):\*$",
    }
    found, value = example_for({"allOf": [arn, {"description": "The log group."}]})
    assert found and len(value) >= 47 and re.search(arn["pattern"], value)
    found, value = example_for({"type": "string", "pattern": "^[A-Z]{3}$", "minLength": 3})
    assert (found, value) == (True, "AAA")  # nothing to grow: the shortest match already fits


def test_an_object_whose_one_of_only_names_required_properties_gets_an_example() -> None:
    # urlbox.io's render body: `oneOf: [{required: [url]}, {required: [html]}]` beside its properties.
    # The options alone read as strings, so no example was found (C120) and the conformance run
    # had to make one up ('x', refused by the runtime before sending).
    from jsonschema import Draft202012Validator

    from packc.build._examples import example_for

    for key in ("oneOf", "anyOf"):
        schema = {
            "type": "object",
            key: [{"required": ["url"]}, {"required": ["html"]}],
            "properties": {
                "url": {"type": "string", "format": "uri"},
                "html": {"type": "string"},
                "width": {"type": "integer"},
            },
        }
        found, value = example_for(schema)
        assert found and Draft202012Validator(schema).is_valid(value)
        assert value == {"url": "https://example.com/item"}
    nested = {"type": "object", "properties": {"body": schema}, "required": ["body"]}
    assert example_for(nested) == (True, {"body": {"url": "https://example.com/item"}})
    assert example_for({"oneOf": [{"type": "integer"}, {"type": "string"}]}) == (
        True,
        1,
    )  # whole options: as before


def test_an_amount_in_the_smallest_unit_is_marked_for_the_runtime() -> None:
    from packc.build._money import minor_amounts
    from packc.build.derive import ArgSpec

    def arg(name: str, schema: dict[str, object]) -> ArgSpec:
        return ArgSpec(name, "body", name, schema, False)

    cents = arg(
        "amount",
        {"type": "integer", "description": "A positive integer in cents representing how much to charge."},
    )
    plain = arg("amount", {"type": "integer", "description": "How much to refund."})
    currency = arg("currency", {"type": "string"})
    assert minor_amounts([cents, currency]) == {"amount": "currency"}
    assert minor_amounts([cents]) == {"amount": ""}
    # Its own description says nothing: the document's convention (three or more amounts say so) decides.
    said = {
        "properties": {
            f"amount_{i}": {"type": "integer", "description": "in the smallest currency unit"}
            for i in range(3)
        }
    }
    assert minor_amounts([plain, currency], said) == {"amount": "currency"}
    assert minor_amounts([plain, currency], {"properties": {"amount": said["properties"]["amount_0"]}}) == {}
    assert minor_amounts([plain], said) == {}  # no currency beside it, and no money moves
    # A refund takes the currency of the charge: no currency argument, yet the amount is money, and
    # its card must not read as a bare number that looks like whole units (issue 24, item 6).
    assert minor_amounts([plain], said, payment=True) == {"amount": ""}
    assert (
        minor_amounts([arg("amount", {"type": "integer", "description": "in whole dollars"}), currency], said)
        == {}
    )
    assert minor_amounts([arg("amount", {"type": "string", "description": "in cents"}), currency]) == {}


def test_an_update_card_may_show_every_argument_it_is_given() -> None:
    body = _body(
        {
            "type": "object",
            "properties": {
                k: {"type": "string"}
                for k in ("first_name", "timezone", "dept", "job_title", "company", "pmi", "language")
            },
        }
    )
    card = _derive(op("patch", "/users/{userId}", parameters=(path_param("userId"),), request_body=body))[
        "users.update"
    ].verb.preview
    assert card is not None and {"timezone", "dept", "pmi", "language"} <= set(card.fields or {})


def test_a_money_object_in_the_smallest_unit_is_marked_for_the_runtime() -> None:
    # Square's amount_money {amount, currency}: "in the smallest denomination of the currency".
    pay = _body(
        {
            "type": "object",
            "required": ["amount_money"],
            "properties": {
                "amount_money": {
                    "type": "object",
                    "properties": {
                        "amount": {
                            "type": "integer",
                            "description": "The amount of money, in the smallest denomination of the "
                            "currency indicated by currency.",
                        },
                        "currency": {"type": "string"},
                    },
                }
            },
        }
    )
    verb = _derive(op("post", "/payments", request_body=pay))["payments.create"]
    assert verb.verb.preview is not None and verb.verb.preview.title == "Pay {{amount_money}}"
    assert verb.binding()["moneyObjects"] == {"amount_money": {"amount": "amount", "currency": "currency"}}
    whole = _body(
        {
            "type": "object",
            "required": ["amount"],
            "properties": {
                "amount": {
                    "type": "object",
                    "properties": {
                        "value": {"type": "integer", "description": "in dollars"},
                        "currency": {"type": "string"},
                    },
                }
            },
        }
    )
    assert (
        "moneyObjects"
        not in _derive(op("post", "/payments", request_body=whole))["payments.create"].binding()
    )


def test_a_whole_email_argument_is_marked_and_its_send_card_names_no_false_recipient() -> None:
    raw = _body(
        {
            "type": "object",
            "properties": {
                "raw": {
                    "type": "string",
                    "format": "byte",
                    "description": "The entire email message in an RFC 2822 formatted and base64url encoded string.",
                }
            },
        }
    )
    ops = (op("post", "/users/{userId}/messages/send", parameters=(path_param("userId"),), request_body=raw),)
    verb = _derive(*ops)["users.messages.send"]
    card = verb.verb.preview
    assert card is not None and card.kind == "message" and card.title == "Send message"
    assert card.fields is not None and card.fields["message"] == "{{raw}}"
    assert verb.binding()["mime"] == ["raw"]


def test_a_date_range_makes_an_event_only_where_something_is_scheduled() -> None:
    # Plaid reads by POST with start_date/end_date; a calendar event's update is an update.
    ops = [
        op("post", "/transactions/get", request_body=_props("start_date", "end_date")),
        op(
            "put",
            "/events/{id}",
            parameters=(path_param("id"),),
            request_body=_props("start", "end", "status"),
        ),
        op("post", "/events", request_body=_props("title", "start", "end")),
    ]
    cards = {k: v.verb.preview for k, v in _derive(*ops).items() if v.verb.preview}
    assert cards["events.create"].kind == "event"
    assert cards["events.update"].kind == "record" and cards["events.update"].title == "Update event {{id}}"
    assert all(c.kind != "event" for k, c in cards.items() if k.startswith("transactions"))


def test_a_created_capture_moves_money_on_its_payment() -> None:
    # Adyen: POST /payments/{paymentPspReference}/captures with amount {value, currency} in minor units.
    body = _body(
        {
            "type": "object",
            "required": ["amount"],
            "properties": {
                "amount": {
                    "type": "object",
                    "properties": {
                        "value": {"type": "integer", "description": "The amount, in minor units."},
                        "currency": {"type": "string"},
                    },
                }
            },
        }
    )
    verb = _derive(
        op(
            "post",
            "/payments/{paymentPspReference}/captures",
            parameters=(path_param("paymentPspReference"),),
            request_body=body,
        )
    )["payments.captures.create"]
    card = verb.verb.preview
    assert card is not None and card.kind == "payment"
    assert card.title == "Capture {{amount}} on payment {{payment_psp_reference}}"
    assert verb.binding()["moneyObjects"] == {"amount": {"amount": "value", "currency": "currency"}}


def test_a_create_at_an_item_path_is_in_the_parent_its_key_names() -> None:
    # LaunchDarkly: POST /flags/{projectKey} "Creates a new feature flag" read "Update flag default".
    o = op(
        "post",
        "/flags/{projectKey}",
        summary="Creates a new feature flag.",
        parameters=(path_param("projectKey"),),
        request_body=_props("name", "key"),
    )
    verb = _derive(o)["flags.create"].verb
    assert (
        verb.preview is not None and verb.preview.title == "Create flag {{name}} in project {{project_key}}"
    )
    assert verb.title is not None and verb.title.live[0] == "Creating flag {{name}}"


def test_a_reserved_header_parameter_is_never_an_argument(tmp_path: Any) -> None:
    """Issue 22: a required ``Expect`` header compiled to a required ``--expect`` that HARNESS.md
    taught and the runtime silently dropped. Every header the runtime drops is no argument."""
    import json

    from compiler.helpers import write_doc
    from packc import compile
    from packc_runtime.rules import RESERVED_HEADERS

    headers = [*sorted(RESERVED_HEADERS), "X-Trace"]
    doc = {
        "openapi": "3.0.3",
        "info": {"title": "Zoo", "version": "1"},
        "servers": [{"url": "https://zoo.example.com"}],
        "paths": {
            "/pets": {
                "get": {
                    "operationId": "listPets",
                    "parameters": [
                        {"name": h.title(), "in": "header", "required": True, "schema": {"type": "string"}}
                        for h in headers
                    ],
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }
    result = compile(write_doc(tmp_path, doc), tmp_path / "out")
    assert result.ok, [str(d) for d in result.diagnostics]
    pack = result.packs[0].directory
    surface = json.loads((pack / "surface.json").read_text())
    (verb,) = surface["verbs"].values()
    assert set(verb["args"]["properties"]) == {"x_trace"}
    assert verb["args"]["required"] == ["x_trace"]
    harness = (pack / "HARNESS.md").read_text()
    assert re.search(r"--expect\b|`expect`", harness) is None and "--x_trace example" in harness
