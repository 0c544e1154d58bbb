"""A recording reverse proxy on 127.0.0.1: forwards each request to Prism and keeps what Prism said.

Prism answers an invalid request with the document's own error example (400, 401, 422 ...) and
puts the reason in an ``sl-violations`` header; a pack only shows the status, so the proxy sits
between the pack and Prism to keep the request as sent and Prism's verdict on it.

An OAuth2 token endpoint is not an operation of the document, so Prism cannot serve it: for the
relative ``tokenUrl`` paths the harness names (``token_paths``), the proxy itself answers a POST
with a dummy client-credentials token, and records the exchange as a stand-in's.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

# Request headers whose values are secrets; the record keeps their names only.
_SECRET_HEADERS = {"authorization", "cookie", "proxy-authorization"}
_HOP_HEADERS = {"connection", "keep-alive", "transfer-encoding", "te", "upgrade", "host", "content-length"}
BODY_EXCERPT = 300
_TOO_MANY = "Too many violations! "
STAND_IN_TOKEN = {"access_token": "conformance-access-token", "token_type": "Bearer", "expires_in": 3600}
# Prism's UNKNOWN problems that are about its own answer, not the request (which passed validation).
_ANSWER_ERRORS = ("Cannot find serializer",)


@dataclass
class Exchange:
    """One request as the pack sent it, and Prism's verdict."""

    method: str
    target: str  # path and query as sent
    headers: list[str]  # header names, lower-cased, sorted
    content_type: str
    body: str  # an excerpt
    status: int = 0
    violations: list[dict[str, Any]] = field(default_factory=list)  # Prism's errors about the request
    response_violations: int = 0  # Prism's errors about its own answer (the document's examples)
    problem: str = ""  # Prism's own problem type (NO_PATH_MATCHED_ERROR, UNAUTHORIZED, ...), if any
    stand_in: str = ""  # who answered instead of Prism ("oauth2 token"), if anyone
    raw: bytes = field(default=b"", repr=False)  # the whole body, for checks Prism cannot make (not reported)

    def to_json(self) -> dict[str, Any]:
        return {
            "request": f"{self.method} {self.target}",
            "headers": self.headers,
            "contentType": self.content_type,
            "body": self.body,
            "status": self.status,
            "violations": self.violations,
            "responseViolations": self.response_violations,
            "problem": self.problem,
            "standIn": self.stand_in,
        }


class RecordingProxy(ThreadingHTTPServer):
    """Serves on a free loopback port; ``exchanges`` grows by one per forwarded request."""

    daemon_threads = True

    def __init__(self, upstream: str) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.upstream = upstream.rstrip("/")
        # Prepended to the path forwarded (not the one recorded): the route group of the verb being
        # called, when Prism serves a document rewritten by conformance_routes.
        self.prefix = ""
        self.token_paths: set[str] = set()  # relative OAuth2 token URLs the proxy answers itself
        self.exchanges: list[Exchange] = []
        self.lock = threading.Lock()
        self.client = httpx.Client(timeout=30)
        self._thread = threading.Thread(
            target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def start(self) -> RecordingProxy:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
        self.client.close()
        self._thread.join(5)

    def mark(self) -> int:
        """The number of exchanges so far; pass it to :meth:`since` after a call."""
        with self.lock:
            return len(self.exchanges)

    def since(self, mark: int) -> list[Exchange]:
        with self.lock:
            return list(self.exchanges[mark:])


def _errors(items: Any) -> list[dict[str, Any]]:
    return (
        [v for v in items if isinstance(v, dict) and v.get("severity") == "Error"]
        if isinstance(items, list)
        else []
    )


def _expand(violation: dict[str, Any]) -> list[dict[str, Any]]:
    """Prism folds a long list into one ``request`` entry "Too many violations! [...]"; unfold it."""
    message = str(violation.get("message", ""))
    if not message.startswith(_TOO_MANY):
        return [violation]
    try:
        inner = json.loads(message[len(_TOO_MANY) :])
    except json.JSONDecodeError:
        # Prism cuts the folded list short; judge by which side its entries are located on.
        side = "request" if '"location":["request"' in message else "response"
        return [{**violation, "location": [side]}]
    return _errors(inner) or [violation]


def _judge(record: Exchange, answer: httpx.Response) -> None:
    """Fill the record's verdict from Prism's ``sl-violations`` header or its problem+json body."""
    header = answer.headers.get("sl-violations")
    found: list[dict[str, Any]] = []
    if header:
        try:
            found = _errors(json.loads(header))
        except json.JSONDecodeError:
            found = [{"location": ["request"], "code": "unparsed", "message": header[:BODY_EXCERPT]}]
    if answer.headers.get("content-type", "").startswith("application/problem+json"):
        try:
            problem = json.loads(answer.content)
        except json.JSONDecodeError:
            problem = {"type": "unparsed"}
        if isinstance(problem, dict):
            record.problem = str(problem.get("type", "")).rsplit("#", 1)[-1]
            said = f"{problem.get('title', '')} {problem.get('detail', '')}"
            if record.problem == "UNKNOWN" and any(e in said for e in _ANSWER_ERRORS):
                record.problem = "NO_SERIALIZER"  # e.g. a vendor media type Prism cannot write its example in
            # A 422 that Prism made up lists the request's errors in the body, located without "request";
            # a VIOLATIONS 500 lists both sides, located with "request" or "response".
            for v in _errors(problem.get("validation")):
                location = list(v.get("location") or [])
                if location[:1] not in (["request"], ["response"]):
                    location = ["request", *location]
                found.append({**v, "location": location})
    found = [item for v in found for item in _expand(v)]
    record.violations = [v for v in found if (v.get("location") or ["request"])[0] == "request"]
    record.response_violations = len(found) - len(record.violations)


class _Handler(BaseHTTPRequestHandler):
    server: RecordingProxy
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out as two writes: no 40 ms delayed-ACK stall

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the record is the log

    def _forward(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        headers = [(k, v) for k, v in self.headers.items() if k.lower() not in _HOP_HEADERS]
        record = Exchange(
            method=self.command,
            target=self.path,
            headers=sorted({k.lower() for k, _ in headers}),
            content_type=self.headers.get("Content-Type", ""),
            body=body[:BODY_EXCERPT].decode("utf-8", "replace"),
            raw=body,
        )
        if self.command == "POST" and self.path.partition("?")[0] in self.server.token_paths:
            record.status, record.stand_in = 200, "oauth2 token"
            with self.server.lock:
                self.server.exchanges.append(record)
            return self._reply(200, json.dumps(STAND_IN_TOKEN).encode(), "application/json")
        try:
            upstream = self.server.upstream + self.server.prefix + self.path
            answer = self.server.client.request(self.command, upstream, headers=headers, content=body)
            status, data = answer.status_code, answer.content
            _judge(record, answer)
            reply_type = answer.headers.get("content-type", "application/octet-stream")
        except httpx.HTTPError as exc:
            status, data, reply_type = 502, str(exc).encode(), "text/plain"
            record.problem = f"proxy: {type(exc).__name__}"
        record.status = status
        with self.server.lock:
            self.server.exchanges.append(record)
        self._reply(status, data, reply_type)

    def _reply(self, status: int, data: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = do_TRACE = _forward
