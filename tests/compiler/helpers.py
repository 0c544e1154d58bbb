"""Build small Api values and documents by hand for the compiler's unit tests."""

from __future__ import annotations

from typing import Any

from packc.model import Api, Info, Operation, Parameter, SecurityScheme, Server


def op(method: str, path: str, **kw: Any) -> Operation:
    pointer = "#/paths/" + path.replace("~", "~0").replace("/", "~1") + "/" + method
    return Operation(method=method, path=path, pointer=pointer, **kw)  # type: ignore[arg-type]


def path_param(name: str, schema: dict[str, Any] | None = None) -> Parameter:
    return Parameter(name=name, location="path", required=True, schema=schema or {"type": "string"})


def make_api(
    *ops: Operation,
    title: str = "Zoo",
    secured: bool = False,
    document: dict[str, Any] | None = None,
    extensions: dict[str, Any] | None = None,
) -> Api:
    schemes = (
        {"key": SecurityScheme(key="key", type="apiKey", location="header", param_name="X-Key")}
        if secured
        else {}
    )
    return Api(
        source="memory",
        source_version="3.0.3",
        info=Info(title=title, version="1"),
        servers=(Server(url="https://zoo.example.com"),),
        security_schemes=schemes,
        security=((("key", ()),),) if secured else (),
        operations=ops,
        document=document or {},
        extensions=extensions or {},
    )


def write_doc(tmp_path: Any, doc: dict[str, Any], name: str = "api.json") -> Any:
    import json

    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path
