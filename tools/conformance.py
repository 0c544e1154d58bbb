"""Conformance: compile a fixed corpus sample, call every verb against Prism, count what Prism rejects.

``python tools/conformance.py [--limit N] [--jobs 2]`` (``make conformance``). For each document of
tools/conformance-sample.txt: ``packc compile --split``; for each pack (at most ``--max-packs``):
Prism mocks the pack's own openapi.json with ``--errors`` (so it validates requests); dummy
credentials go in the pack's documented environment variables; every verb is called through
``packc call ... --confirm --server`` with its example args, through a recording proxy that keeps
Prism's verdict. Prints one row per document and the findings; writes out/conformance/report.json.
Exit 0 when nothing crashed (``--strict``: and Prism rejected nothing), else 1; 2 when Prism or the
corpus is missing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conformance_args import example_args
from conformance_forms import form_mismatches
from conformance_prism import prism_document
from conformance_proxy import Exchange, RecordingProxy
from conformance_sample import DEFAULT_CORPUS, SAMPLE_FILE, read_sample

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PRISM = ROOT / ".conformance" / "node_modules" / ".bin" / "prism"
DEFAULT_OUT = ROOT / "out" / "conformance"
PACKC = [sys.executable, "-m", "packc.cli"]
DUMMY = {
    "api_key": "conformance-key",
    "token": "conformance-token",
    "username": "conformance-user",
    "password": "conformance-password",
    "client_id": "conformance-id",
    "client_secret": "conformance-secret",
}
OUTCOMES = ("ok", "rejected", "not_called", "crash")
# `packc call` is a thin face over packc_runtime.faces.cli.call_main; calling that directly skips importing the
# compiler (about 0.8 s a call on 2 busy cores), which is also all a pack's own bin/ launcher imports.
_CALL_FALLBACK = (
    "import sys; from pathlib import Path; from packc_runtime.faces.cli import call_main; "
    "sys.exit(call_main(Path(sys.argv[1]), sys.argv[2], sys.argv[3], confirm=True, server=sys.argv[4]))"
)


def packc_call_available() -> bool:
    done = subprocess.run(
        [*PACKC, "call", "--help"], capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    return done.returncode == 0


def call_command(pack: Path, verb: str, args: dict[str, Any], server: str, *, via_packc: bool) -> list[str]:
    """``packc call PACK VERB --args JSON --confirm --server URL`` (or its fallback)."""
    if via_packc:
        return [*PACKC, "call", str(pack), verb, "--args", json.dumps(args), "--confirm", "--server", server]
    return [sys.executable, "-c", _CALL_FALLBACK, str(pack), verb, json.dumps(args), server]


ROUTE_PROBLEMS = {"NO_PATH_MATCHED_ERROR", "NO_METHOD_MATCHED_ERROR", "NO_SERVER_MATCHED_ERROR"}
# Problems with Prism's answer, not with the request: the document's own examples break its schemas,
# or it defines no response Prism can send. The request itself passed validation.
ANSWER_PROBLEMS = {
    "VIOLATIONS",
    "NO_RESPONSE_DEFINED",
    "NO_COMPLEX_OBJECT_TEXT",
    "NOT_FOUND",
    "NO_SERIALIZER",
}
SHOWN = 160  # characters of a request target in the findings


@dataclass
class VerbResult:
    pack: str
    verb: str
    outcome: str  # one of OUTCOMES
    reason: str = ""  # why rejected / not called / crashed: a stable short key
    detail: str = ""
    args: dict[str, Any] = field(default_factory=dict)
    synthesized: list[str] = field(default_factory=list)  # required args with no example
    exchanges: list[Exchange] = field(default_factory=list)
    route: str = ""  # the route-group prefix Prism's copy of the document gave the verb (conformance_prism)
    flagged: list[str] = field(default_factory=list)  # the compiler's C15x warnings about its operation
    form_check: str = (
        ""  # a urlencoded body decoded as Rack/Stripe do: "intact" or "mismatch" (else not checked)
    )

    def to_json(self) -> dict[str, Any]:
        return {
            "pack": self.pack,
            "verb": self.verb,
            "outcome": self.outcome,
            "reason": self.reason,
            "detail": self.detail,
            "args": self.args,
            "synthesized": self.synthesized,
            "exchanges": [e.to_json() for e in self.exchanges],
            "route": self.route,
            "flagged": self.flagged,
            "formCheck": self.form_check,
        }


@dataclass
class DocResult:
    doc: str
    compiled: str = "ok"  # "ok", "refused" (clean diagnostics), "crash"
    compile_detail: str = ""
    packs: int = 0
    packs_run: int = 0
    seconds: float = 0.0
    verbs: list[VerbResult] = field(default_factory=list)

    def count(self, outcome: str) -> int:
        return sum(1 for v in self.verbs if v.outcome == outcome)

    def to_json(self) -> dict[str, Any]:
        return {
            "doc": self.doc,
            "compiled": self.compiled,
            "compileDetail": self.compile_detail,
            "packs": self.packs,
            "packsRun": self.packs_run,
            "seconds": round(self.seconds, 1),
            "verbs": [v.to_json() for v in self.verbs],
        }


# ---- processes ----


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


_LIVE: set[subprocess.Popen[bytes]] = set()  # Prism processes running now, stopped on SIGTERM too
_LIVE_LOCK = threading.Lock()


def start_prism(prism: Path, document: Path, log: Path) -> tuple[subprocess.Popen[bytes], int, str]:
    """Start Prism and wait until it listens; returns (process, port, error or "")."""
    port = free_port()
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            [str(prism), "mock", "--errors", "-h", "127.0.0.1", "-p", str(port), str(document)],
            stdout=sink,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    with _LIVE_LOCK:
        _LIVE.add(proc)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            tail = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-3:]
            return proc, port, "prism exited: " + " / ".join(tail)[:400]
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc, port, ""
        except OSError:
            time.sleep(0.2)
    return proc, port, "prism did not listen within 60 s"


def stop(proc: subprocess.Popen[bytes]) -> None:
    with _LIVE_LOCK:
        _LIVE.discard(proc)
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def credentials_env(pack: Path, manifest: dict[str, Any], document: dict[str, Any]) -> dict[str, str]:
    """Dummy values for every credential slot the pack documents (packc_runtime.credentials.slots)."""
    from packc_runtime.credentials.slots import credential_slots
    from packc_runtime.format.manifest import parse_manifest

    model, _ = parse_manifest(manifest)
    if model is None:
        return {}
    return {slot.env: DUMMY[slot.kind] for slot in credential_slots(model, document)}


def _envelope(stdout: str) -> dict[str, Any] | None:
    for text in (stdout, stdout.strip().splitlines()[-1] if stdout.strip() else ""):
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict) and "ok" in value:
            return value
    return None


def classify(result: VerbResult, proc: subprocess.CompletedProcess[str] | None, timed_out: bool) -> None:
    """Fill ``outcome``, ``reason`` and ``detail`` from the call and the exchanges Prism saw."""
    rejected = [
        e for e in result.exchanges if e.violations or (e.problem and e.problem not in ANSWER_PROBLEMS)
    ]
    if timed_out or proc is None:
        result.outcome, result.reason, result.detail = "crash", "timeout", "packc call did not finish in 60 s"
        return
    envelope = _envelope(proc.stdout)
    if "Traceback (most recent call last)" in proc.stderr or envelope is None:
        result.outcome, result.reason = "crash", "traceback" if "Traceback" in proc.stderr else "no_envelope"
        result.detail = (proc.stderr.strip().splitlines() or [proc.stdout.strip()[:200]])[-1][:400]
        return
    if rejected:
        first = rejected[0]
        result.outcome = "rejected"
        codes = {str(v.get("code")) for v in first.violations}
        if first.problem in ROUTE_PROBLEMS:
            result.reason, result.detail = (
                "route",
                f"{first.problem} for {first.method} {first.target[:SHOWN]}",
            )
        elif first.problem == "UNAUTHORIZED" or "401" in codes:
            result.reason = "security"
            result.detail = f"security requirements not met; headers sent: {', '.join(first.headers)}"
        elif first.violations:
            result.reason = "validation"
            result.detail = "; ".join(
                f"{'.'.join(map(str, v.get('location', [])))}: {v.get('message')}" for v in first.violations
            )[:600]
        else:
            result.reason, result.detail = "prism_" + first.problem.lower(), f"{first.status} {first.problem}"
        return
    if any(not e.stand_in for e in result.exchanges):  # Prism saw the call itself, not only a token request
        result.outcome = "ok"
        answers = sorted({e.problem for e in result.exchanges if e.problem})
        result.detail = f"Prism could not answer: {', '.join(answers)}" if answers else ""
        return
    error: dict[str, Any] = envelope["error"] if isinstance(envelope.get("error"), dict) else {}
    result.outcome = "not_called"
    result.reason = str(
        error.get("code") or ("answered_without_request" if envelope.get("ok") else "unknown")
    )
    result.detail = str(error.get("message", ""))[:400]


def _encoding(document: dict[str, Any], key: str, media: str) -> dict[str, Any]:
    """The ``encoding`` map of the operation's request body in ``media`` (``key``: ``METHOD /path``)."""
    method, _, path = key.partition(" ")
    op = ((document.get("paths") or {}).get(path) or {}).get(method.lower()) or {}
    body = op.get("requestBody") if isinstance(op, dict) else None
    content = body.get("content") if isinstance(body, dict) else None
    found = content.get(media) if isinstance(content, dict) else None
    encoding = found.get("encoding") if isinstance(found, dict) else None
    return encoding if isinstance(encoding, dict) else {}


def check_form(result: VerbResult, binding: dict[str, Any], encoding: dict[str, Any]) -> None:
    """A check Prism cannot make: the form body decoded as Rack/Stripe do carries each argument intact."""
    sent = [
        e
        for e in result.exchanges
        if not e.stand_in and e.content_type.startswith("application/x-www-form-urlencoded")
    ]
    if result.outcome != "ok" or not sent:
        return
    problems = form_mismatches(sent[0].raw, result.args, binding.get("args") or {}, encoding)
    result.form_check = "mismatch" if problems else "intact"
    if problems:
        result.outcome, result.reason, result.detail = "rejected", "form_decoding", "; ".join(problems)[:600]


def bindings(document: dict[str, Any]) -> dict[str, tuple[str, dict[str, Any]]]:
    """verb -> (its operation's key ``METHOD /path``, its ``x-packc-binding``)."""
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    for path, item in (document.get("paths") or {}).items():
        for method, op in item.items() if isinstance(item, dict) else []:
            binding = op.get("x-packc-binding") if isinstance(op, dict) else None
            if isinstance(binding, dict) and isinstance(binding.get("verb"), str):
                out[binding["verb"]] = (f"{method.upper()} {path}", binding)
    return out


def token_paths(document: dict[str, Any]) -> set[str]:
    """Paths of the relative OAuth2 client-credentials token URLs (the runtime resolves them against
    the server URL, here the proxy's): no operation of the document, so the proxy stands in."""
    from urllib.parse import urljoin, urlsplit

    schemes = (document.get("components") or {}).get("securitySchemes") or {}
    out = set()
    for scheme in schemes.values() if isinstance(schemes, dict) else []:
        flow = (
            ((scheme.get("flows") or {}).get("clientCredentials") or {}) if isinstance(scheme, dict) else {}
        )
        url = flow.get("tokenUrl") if isinstance(flow, dict) else None
        if isinstance(url, str) and url and not urlsplit(url).scheme:
            out.add(urlsplit(urljoin("http://proxy/", url)).path)
    return out


def document_findings(source: Path) -> dict[str, list[str]]:
    """The compiler's warnings about what the document asks that no request can give as written
    (``packc.build.checks``, codes C15x), by operation key; read in-process, every operation, none capped."""
    from packc.build.checks import operation_findings
    from packc.errors import PackcError
    from packc.read.frontend import read_api

    try:
        api = read_api(source).api
    except PackcError:
        return {}
    return operation_findings(api, api.operations)


def run_pack(
    pack: Path, prism: Path, env_base: dict[str, str], via_packc: bool, findings: dict[str, list[str]]
) -> list[VerbResult]:
    """Start Prism on the pack's document and call each of its verbs once."""
    manifest = json.loads((pack / "surface.json").read_text(encoding="utf-8"))
    doc_file = pack / str((manifest.get("openapi") or {}).get("path") or "openapi.json")
    document = json.loads(doc_file.read_text(encoding="utf-8"))
    verbs = manifest.get("verbs") or {}
    prism_doc, routes = prism_document(document)  # a copy Prism can route and read, when needed
    if prism_doc is not None:
        doc_file = pack.parent / f"{pack.name}.prism.json"
        doc_file.write_text(json.dumps(prism_doc, indent=1, ensure_ascii=False), encoding="utf-8")
    proc, port, error = start_prism(prism, doc_file, pack.parent / f"{pack.name}.prism.log")
    results: list[VerbResult] = []
    proxy = RecordingProxy(f"http://127.0.0.1:{port}").start() if not error else None
    if proxy is not None:
        proxy.token_paths = token_paths(document)
    try:
        # The dummy values go to the local proxy only because its origin is named here (the CI opt-in).
        env = {
            **env_base,
            **credentials_env(pack, manifest, document),
            "PACKC_TRUSTED_ORIGINS": proxy.url if proxy is not None else "",
        }
        upload = pack.parent / "upload.bin"
        upload.write_bytes(b"GIF89a packc conformance upload\n")
        bound = bindings(document)
        for verb in sorted(verbs):
            key, binding = bound.get(verb, ("", {}))
            media = binding.get("contentType")
            json_body = media is None or "json" in str(media)
            args, synthesized = example_args(
                (verbs[verb] or {}).get("args"), None if json_body else str(upload)
            )
            result = VerbResult(
                pack.name,
                verb,
                "not_called",
                args=args,
                synthesized=synthesized,
                route=routes.get(verb, ""),
                flagged=findings.get(key, []),
            )
            results.append(result)
            if proxy is None:
                result.reason, result.detail = "prism_refused_document", error
                continue
            proxy.prefix = result.route
            mark = proxy.mark()
            command = call_command(pack, verb, args, proxy.url, via_packc=via_packc)
            try:
                done = subprocess.run(
                    command, capture_output=True, text=True, timeout=60, env=env, stdin=subprocess.DEVNULL
                )
                timed_out = False
            except subprocess.TimeoutExpired:
                done, timed_out = None, True
            result.exchanges = proxy.since(mark)
            classify(result, done, timed_out)
            if str(media).startswith("application/x-www-form-urlencoded"):
                check_form(result, binding, _encoding(document, key, str(media)))
    finally:
        if proxy is not None:
            proxy.stop()
        stop(proc)
    return results


def run_document(
    doc: str, corpus: Path, out: Path, prism: Path, max_packs: int, via_packc: bool
) -> DocResult:
    started = time.monotonic()
    result = DocResult(doc)
    target = out / doc.removesuffix(".json").replace("/", "__")
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    home = Path(tempfile.mkdtemp(prefix="conformance-", dir=target))
    env = {
        **os.environ,
        "PACKC_CREDENTIALS_FILE": str(home / "credentials.json"),
        "XDG_CONFIG_HOME": str(home),
        "PYTHONUNBUFFERED": "1",
    }
    try:
        done = subprocess.run(
            [*PACKC, "compile", str(corpus / doc), "-o", str(target / "packs"), "--split"],
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
            stdin=subprocess.DEVNULL,
        )
        if "Traceback (most recent call last)" in done.stderr:
            result.compiled, result.compile_detail = "crash", done.stderr.strip().splitlines()[-1][:400]
        elif done.returncode != 0:
            lines = done.stderr.strip().splitlines()
            errors = [line for line in lines if line.startswith("error")] or lines
            result.compiled, result.compile_detail = (
                "refused",
                (errors[0] if errors else f"exit {done.returncode}")[:400],
            )
    except subprocess.TimeoutExpired:
        result.compiled, result.compile_detail = "crash", "packc compile did not finish in 300 s"
    if result.compiled == "ok":
        packs = sorted(p.parent for p in (target / "packs").rglob("surface.json"))
        result.packs = len(packs)
        findings = document_findings(corpus / doc) if packs else {}
        for pack in packs[:max_packs]:
            result.packs_run += 1
            try:
                result.verbs.extend(run_pack(pack, prism, env, via_packc, findings))
            except (OSError, ValueError) as exc:  # unreadable pack files: the compiler wrote them wrong
                result.verbs.append(VerbResult(pack.name, "*", "crash", "pack_unreadable", str(exc)[:400]))
    result.seconds = time.monotonic() - started
    return result


def _on_sigterm(signum: int, frame: object) -> None:
    # Worker threads cannot be interrupted; stop every Prism this run started, then leave at once.
    with _LIVE_LOCK:
        for proc in _LIVE:
            proc.kill()
    os._exit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    from conformance_report import findings, table

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="only the first N documents of the sample")
    parser.add_argument("--only", action="append", default=[], help="run this corpus path (repeatable)")
    parser.add_argument("--jobs", type=int, default=2, help="documents at a time (each runs one Prism)")
    parser.add_argument(
        "--max-packs", type=int, default=2, help="packs per document to call (in pack-id order)"
    )
    parser.add_argument("--sample", type=Path, default=SAMPLE_FILE)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--prism", type=Path, default=Path(os.environ.get("PRISM", DEFAULT_PRISM)))
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--strict", action="store_true", help="also fail when Prism rejected a request")
    parser.add_argument(
        "--via",
        choices=("runtime", "packc"),
        default="runtime",
        help="call verbs through packc_runtime's call_main (default) or the `packc call` command",
    )
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _on_sigterm)
    if not args.prism.exists():
        print(
            f"Prism not found at {args.prism}: npm install --prefix .conformance @stoplight/prism-cli",
            file=sys.stderr,
        )
        return 2
    if not args.corpus.is_dir():
        print(f"no corpus at {args.corpus}: run `make corpus`", file=sys.stderr)
        return 2
    docs = args.only or read_sample(args.sample)[: args.limit]
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    via_packc = args.via == "packc"
    if via_packc and not packc_call_available():
        print("`packc call` is not registered; use --via runtime", file=sys.stderr)
        return 2
    print(
        f"conformance: {len(docs)} documents, {args.jobs} at a time, Prism {args.prism}, calls through "
        + ("`packc call`" if via_packc else "packc_runtime.faces.cli.call_main"),
        flush=True,
    )

    def one(doc: str) -> DocResult:
        result = run_document(doc, args.corpus, args.out, args.prism, args.max_packs, via_packc)
        print(
            f"  {doc}: {result.compiled}, {len(result.verbs)} verbs, "
            f"{result.count('ok')} ok, {result.count('rejected')} rejected ({result.seconds:.0f} s)",
            flush=True,
        )
        return result

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = [r.to_json() for r in pool.map(one, docs)]
    report = {"documents": results, "seconds": round(time.monotonic() - started, 1)}
    (args.out / "report.json").write_text(
        json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    print()
    print(table(results))
    print()
    print(findings(results))
    print(f"\nreport: {args.out / 'report.json'} ({report['seconds']} s)")
    crashes = sum(1 for d in results if d["compiled"] == "crash")
    crashes += sum(1 for d in results for v in d["verbs"] if v["outcome"] == "crash")
    rejected = sum(1 for d in results for v in d["verbs"] if v["outcome"] == "rejected")
    return 1 if crashes or (args.strict and rejected) else 0


if __name__ == "__main__":
    sys.exit(main())
