"""One home per rule (habit 17): no module but packc_runtime.rules writes its own HTTP method set,
``{name}`` template regex, ``{{name}}`` placeholder regex or JSON-pointer escaping."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_args

import pytest

from packc_runtime import rules

ROOT = Path(__file__).resolve().parents[2]
HOME = ROOT / "runtime" / "packc_runtime" / "rules.py"
_METHODS = frozenset(rules.HTTP_METHODS)
# Allowed by name, with the reason: not the set of methods but something else about them.
_ALLOWED = {
    ("compiler/packc/curate/naming.py", "_CLASH_ORDER"): "a preference order among clashing names",
}


def _strings(node: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def own_rules(source: str, where: str = "<snippet>") -> list[str]:
    """The rules ``source`` writes itself, each as ``line: what``."""
    found: list[str] = []
    tree = ast.parse(source)
    assigned = {
        id(value): target.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign | ast.AnnAssign)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name) and (value := node.value) is not None
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple | ast.List | ast.Set) or (
            isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple)
        ):
            # A method set: seven or eight of the methods in one literal (Swagger 2.0's seven too).
            if (
                len(_METHODS & set(_strings(node))) >= 7
                and (where, assigned.get(id(node), "")) not in _ALLOWED
            ):
                found.append(f"{node.lineno}: an HTTP method set")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if "\\{\\{" in node.value:
                found.append(f"{node.lineno}: a {{{{name}}}} placeholder regex")
            elif "\\{" in node.value:
                found.append(f"{node.lineno}: a {{name}} template regex")
            elif node.value in ("~0", "~1"):
                found.append(f"{node.lineno}: JSON-pointer escaping")
    return sorted(set(found), key=lambda f: int(f.split(":")[0]))


def _modules() -> list[Path]:
    return sorted(
        p
        for part in ("compiler/packc", "runtime/packc_runtime")
        for p in (ROOT / part).rglob("*.py")
        if p != HOME
    )


def test_no_module_but_the_home_writes_a_shared_rule() -> None:
    found = {
        str(p.relative_to(ROOT)): rules_
        for p in _modules()
        if (rules_ := own_rules(p.read_text(encoding="utf-8"), str(p.relative_to(ROOT))))
    }
    assert found == {}, "import these from packc_runtime.rules instead"


def test_the_home_itself_is_found_by_the_scanner() -> None:
    kinds = {f.split(": ", 1)[1] for f in own_rules(HOME.read_text(encoding="utf-8"))}
    assert kinds == {
        "an HTTP method set",
        "a {name} template regex",
        "a {{name}} placeholder regex",
        "JSON-pointer escaping",
    }


@pytest.mark.parametrize(
    ("snippet", "what"),
    [
        (
            'METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")',
            "an HTTP method set",
        ),
        ('M = frozenset({"get", "put", "post", "delete", "options", "head", "patch"})', "an HTTP method set"),
        (
            'M = Literal["get", "put", "post", "delete", "options", "head", "patch", "trace"]',
            "an HTTP method set",
        ),
        ('VAR = re.compile(r"\\{([^{}]+)\\}")', "a {name} template regex"),
        ('P = re.compile(r"\\{\\{\\s*(\\w+)\\s*\\}\\}")', "a {{name}} placeholder regex"),
        ('t = key.replace("~", "~0").replace("/", "~1")', "JSON-pointer escaping"),
        ('k = token.replace("~1", "/")', "JSON-pointer escaping"),
    ],
)
def test_the_scanner_finds_a_copy(snippet: str, what: str) -> None:
    assert [f.split(": ", 1)[1] for f in own_rules(snippet)] == [what]


def test_the_scanner_leaves_other_code_alone() -> None:
    snippet = 'READ = frozenset({"get", "head", "options"})\nX = re.compile(r"\\d{1,9}")\nT = "~/x"'
    assert own_rules(snippet) == []
    order = '_CLASH_ORDER = ("get", "post", "patch", "put", "delete", "head", "options", "trace")'
    assert own_rules(order, "compiler/packc/curate/naming.py") == []


def test_the_method_literal_and_tuple_agree() -> None:
    assert get_args(rules.HttpMethod) == rules.HTTP_METHODS
    assert set(rules.SWAGGER2_METHODS) == set(rules.HTTP_METHODS) - {"trace"}


@pytest.mark.parametrize("token", ["a", "a/b", "~", "~1", "a~/b", "/~0/", ""])
def test_pointer_tokens_round_trip(token: str) -> None:
    assert rules.unescape_token(rules.escape_token(token)) == token
    assert rules.unescape_token(rules.escape_token(token).replace("~", "%7E"), fragment=True) == token


def test_subschemas_walks_each_keyword_once_in_order() -> None:
    schema = {
        "type": "object",
        "properties": {"a/b": {"type": "string"}, "c": True},
        "allOf": [{"minProperties": 1}, 3],
        "items": [{"type": "integer"}],
        "not": {"const": 1},
        "enum": [{"type": "string"}],
    }
    assert [w for w, _ in rules.subschemas(schema)] == [
        "properties/a~1b",
        "properties/c",
        "allOf/0",
        "items/0",
        "not",
    ]


def test_the_two_template_grammars() -> None:
    assert rules.template_names("/a/{id}/b/{x-y}{z}") == ["id", "x-y", "z"]
    assert rules.template_names("/a/{b/c}") == []
    assert rules.PLACEHOLDER.findall("Get {{ id }} and {{result.a}} and {{1x}}") == ["id", "result.a", "1x"]
    assert [bool(rules.PLACEHOLDER_NAME.fullmatch(n)) for n in ("id", "result.a", "1x")] == [
        True,
        True,
        False,
    ]
