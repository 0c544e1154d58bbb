"""The demo Petstore API (specs/demo/petstore.yaml) as a small in-memory HTTP server on 127.0.0.1.

Run it as ``python specs/demo/server.py [--port N] [--api-key KEY]``; it prints its base URL on
the first line of stdout (``--port 0``, the default, picks a free port). Standard library only, so
it runs before anything is installed. Validation is written by hand from the document, on purpose:
the server is an independent second reading of the spec, not a projection of the same code.
"""

from __future__ import annotations

import argparse
import hmac
import json
import re
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

BASE_PATH = "/v1"
DEFAULT_API_KEY = "demo-key"
MAX_BODY = 64 * 1024
SPECIES = ("dog", "cat", "bird", "rabbit")
STATUSES = ("available", "pending", "adopted")
SORT_KEYS = ("id", "name")

JSON = Any


class ApiError(Exception):
    """An error answer: HTTP status plus the document's ``Error`` body."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


class Store:
    """The shelter's records, in memory; every method holds the lock for its whole run."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.pets: dict[int, dict[str, JSON]] = {
            1: {"id": 1, "name": "Mittens", "species": "cat", "tag": "tabby", "status": "available", "ownerId": None},
            2: {"id": 2, "name": "Rex", "species": "dog", "tag": None, "status": "available", "ownerId": None},
            3: {"id": 3, "name": "Tweety", "species": "bird", "tag": "canary", "status": "adopted", "ownerId": 1},
            4: {"id": 4, "name": "Clover", "species": "rabbit", "tag": None, "status": "pending", "ownerId": None},
        }
        self.owners: dict[int, dict[str, JSON]] = {
            1: {"id": 1, "name": "Ada Lovelace", "email": "ada@example.org", "petIds": [3]},
        }
        self.next_pet = 5
        self.next_owner = 2

    def pet(self, pet_id: int) -> dict[str, JSON]:
        if pet_id not in self.pets:
            raise ApiError(404, "not_found", f"No pet with id {pet_id}.")
        return self.pets[pet_id]

    def owner(self, owner_id: int) -> dict[str, JSON]:
        if owner_id not in self.owners:
            raise ApiError(404, "not_found", f"No owner with id {owner_id}.")
        return self.owners[owner_id]


# ---- input checks (each mirrors a constraint written in petstore.yaml) ----

def _one(query: dict[str, list[str]], name: str) -> str | None:
    values = query.get(name)
    if not values:
        return None
    if len(values) > 1:
        raise ApiError(400, "bad_request", f"Query parameter {name} is given more than once.")
    return values[0]


def _enum(value: str | None, name: str, allowed: tuple[str, ...]) -> str | None:
    if value is not None and value not in allowed:
        raise ApiError(400, "bad_request", f"{name} must be one of {', '.join(allowed)}.")
    return value


def _int(text: str, name: str, low: int, high: int | None = None) -> int:
    if not re.fullmatch(r"-?[0-9]{1,18}", text):
        raise ApiError(400, "bad_request", f"{name} must be an integer.")
    value = int(text)
    if value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise ApiError(400, "bad_request", f"{name} must be {bound}.")
    return value


def _string(body: dict[str, JSON], name: str, *, max_length: int, required: bool) -> str | None:
    if name not in body:
        if required:
            raise ApiError(400, "bad_request", f"{name} is required.")
        return None
    value = body[name]
    if not isinstance(value, str) or not 1 <= len(value) <= max_length:
        raise ApiError(400, "bad_request", f"{name} must be a string of 1 to {max_length} characters.")
    return value


def _object(body: JSON, allowed: tuple[str, ...]) -> dict[str, JSON]:
    if not isinstance(body, dict):
        raise ApiError(400, "bad_request", "The body must be a JSON object.")
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        raise ApiError(400, "bad_request", f"Unknown field(s): {', '.join(unknown)}.")
    return body


def _email(body: dict[str, JSON]) -> str:
    value = _string(body, "email", max_length=254, required=True)
    assert value is not None
    if not re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", value):
        raise ApiError(400, "bad_request", "email must be an email address.")
    return value


# ---- operations: (store, path ids, query, body) -> (status, body) ----

Result = tuple[int, JSON]


def list_pets(store: Store, ids: list[int], query: dict[str, list[str]], body: JSON) -> Result:
    status = _enum(_one(query, "status"), "status", STATUSES)
    species = _enum(_one(query, "species"), "species", SPECIES)
    sort = _enum(_one(query, "sort"), "sort", SORT_KEYS) or "id"
    limit_text = _one(query, "limit")
    limit = 20 if limit_text is None else _int(limit_text, "limit", 1, 100)
    pets = [
        p for p in store.pets.values()
        if (status is None or p["status"] == status) and (species is None or p["species"] == species)
    ]
    pets.sort(key=lambda p: (p[sort], p["id"]))
    return 200, pets[:limit]


def create_pet(store: Store, ids: list[int], query: dict[str, list[str]], body: JSON) -> Result:
    data = _object(body, ("name", "species", "tag"))
    name = _string(data, "name", max_length=64, required=True)
    if data.get("species") not in SPECIES:
        raise ApiError(400, "bad_request", f"species must be one of {', '.join(SPECIES)}.")
    tag = _string(data, "tag", max_length=64, required=False)
    pet = {"id": store.next_pet, "name": name, "species": data["species"], "tag": tag,
           "status": "available", "ownerId": None}
    store.pets[store.next_pet] = pet
    store.next_pet += 1
    return 201, pet


def get_pet(store: Store, ids: list[int], query: dict[str, list[str]], body: JSON) -> Result:
    return 200, store.pet(ids[0])


def update_pet(store: Store, ids: list[int], query: dict[str, list[str]], body: JSON) -> Result:
    data = _object(body, ("name", "tag", "status"))
    if not data:
        raise ApiError(400, "bad_request", "Give at least one field to change.")
    pet = store.pet(ids[0])
    name = _string(data, "name", max_length=64, required=False)
    tag = _string(data, "tag", max_length=64, required=False)
    status = data.get("status")
    if "status" in data and status not in STATUSES:
        raise ApiError(400, "bad_request", f"status must be one of {', '.join(STATUSES)}.")
    if name is not None:
        pet["name"] = name
    if tag is not None:
        pet["tag"] = tag
    if status is not None:
        pet["status"] = status
    return 200, pet


def delete_pet(store: Store, ids: list[int], query: dict[str, list[str]], body: JSON) -> Result:
    pet = store.pet(ids[0])
    owner = store.owners.get(pet["ownerId"]) if pet["ownerId"] is not None else None
    if owner is not None:
        owner["petIds"] = [i for i in owner["petIds"] if i != pet["id"]]
    del store.pets[pet["id"]]
    return 204, None


def adopt_pet(store: Store, ids: list[int], query: dict[str, list[str]], body: JSON) -> Result:
    data = _object(body, ("ownerId",))
    owner_id = data.get("ownerId")
    if isinstance(owner_id, bool) or not isinstance(owner_id, int) or owner_id < 1:
        raise ApiError(400, "bad_request", "ownerId must be an integer of at least 1.")
    pet = store.pet(ids[0])
    owner = store.owner(owner_id)
    if pet["status"] != "available":
        raise ApiError(409, "conflict", f"Pet {pet['id']} is {pet['status']}, not available.")
    pet["status"] = "adopted"
    pet["ownerId"] = owner_id
    owner["petIds"].append(pet["id"])
    return 200, pet


def list_owners(store: Store, ids: list[int], query: dict[str, list[str]], body: JSON) -> Result:
    return 200, list(store.owners.values())


def create_owner(store: Store, ids: list[int], query: dict[str, list[str]], body: JSON) -> Result:
    data = _object(body, ("name", "email"))
    name = _string(data, "name", max_length=128, required=True)
    owner: dict[str, JSON] = {"id": store.next_owner, "name": name, "email": _email(data), "petIds": []}
    store.owners[store.next_owner] = owner
    store.next_owner += 1
    return 201, owner


def get_owner(store: Store, ids: list[int], query: dict[str, list[str]], body: JSON) -> Result:
    return 200, store.owner(ids[0])


Operation = Callable[[Store, list[int], dict[str, list[str]], JSON], Result]

# path pattern -> {method: (operation, takes a JSON body)}
ROUTES: list[tuple[re.Pattern[str], tuple[str, ...], dict[str, tuple[Operation, bool]]]] = [
    (re.compile(r"/pets"), (), {"GET": (list_pets, False), "POST": (create_pet, True)}),
    (re.compile(r"/pets/([^/]+)"), ("petId",),
     {"GET": (get_pet, False), "PATCH": (update_pet, True), "DELETE": (delete_pet, False)}),
    (re.compile(r"/pets/([^/]+)/adopt"), ("petId",), {"POST": (adopt_pet, True)}),
    (re.compile(r"/owners"), (), {"GET": (list_owners, False), "POST": (create_owner, True)}),
    (re.compile(r"/owners/([^/]+)"), ("ownerId",), {"GET": (get_owner, False)}),
]


class DemoServer(ThreadingHTTPServer):
    """A threading HTTP server that owns one :class:`Store` and knows its API key."""

    daemon_threads = True

    def __init__(self, port: int = 0, api_key: str = DEFAULT_API_KEY, *, verbose: bool = False) -> None:
        super().__init__(("127.0.0.1", port), Handler)
        self.api_key = api_key
        self.verbose = verbose
        self.store = Store()

    @property
    def url(self) -> str:
        """The base URL that the document's paths hang off, e.g. ``http://127.0.0.1:8080/v1``."""
        return f"http://127.0.0.1:{self.server_address[1]}{BASE_PATH}"


class Handler(BaseHTTPRequestHandler):
    server: DemoServer
    protocol_version = "HTTP/1.1"
    server_version = "PetstoreDemo/1.2"
    disable_nagle_algorithm = True  # headers and body go out as two writes: no 40 ms delayed-ACK stall

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_PATCH(self) -> None:
        self._handle("PATCH")

    def do_DELETE(self) -> None:
        self._handle("DELETE")

    def do_PUT(self) -> None:
        self._handle("PUT")

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.verbose:
            sys.stderr.write(f"{self.address_string()} - {format % args}\n")

    def _handle(self, method: str) -> None:
        try:
            status, body = self._route(method)
        except ApiError as exc:
            status, body = exc.status, {"code": exc.code, "message": exc.message}
        self._send(status, body)

    def _route(self, method: str) -> Result:
        parts = urlsplit(self.path)
        # Read the body first, so that a keep-alive connection stays in step on every answer.
        raw = self._read_body()
        if not parts.path.startswith(BASE_PATH + "/"):
            raise ApiError(404, "not_found", f"No route {parts.path}.")
        path = parts.path[len(BASE_PATH):]
        for pattern, names, methods in ROUTES:
            match = pattern.fullmatch(path)
            if match is None:
                continue
            if method not in methods:
                raise ApiError(405, "method_not_allowed", f"{method} is not allowed on {parts.path}.")
            self._authorize()
            operation, takes_body = methods[method]
            ids = [_int(value, name, 1) for value, name in zip(match.groups(), names, strict=True)]
            query = parse_qs(parts.query, keep_blank_values=True)
            body = self._parse_body(raw) if takes_body else None
            with self.server.store.lock:
                return operation(self.server.store, ids, query, body)
        raise ApiError(404, "not_found", f"No route {parts.path}.")

    def _authorize(self) -> None:
        given = self.headers.get("X-API-Key")
        if given is None:
            raise ApiError(401, "unauthorized", "Send the API key in the X-API-Key header.")
        if not hmac.compare_digest(given.encode("utf-8", "replace"), self.server.api_key.encode("utf-8")):
            raise ApiError(401, "unauthorized", "The API key is not valid.")

    def _read_body(self) -> bytes:
        length_text = self.headers.get("Content-Length")
        if length_text is None:
            if self.headers.get("Transfer-Encoding"):
                self.close_connection = True
                raise ApiError(411, "length_required", "Send a Content-Length header.")
            return b""
        if not length_text.isdigit() or int(length_text) > MAX_BODY:
            self.close_connection = True
            raise ApiError(413, "too_large", f"The body must be at most {MAX_BODY} bytes.")
        return self.rfile.read(int(length_text))

    def _parse_body(self, raw: bytes) -> JSON:
        media = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if media != "application/json":
            raise ApiError(415, "unsupported_media_type", "Send the body as application/json.")
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            raise ApiError(400, "bad_request", "The body is not valid JSON.") from None

    def _send(self, status: int, body: JSON) -> None:
        data = b"" if status == 204 else json.dumps(body).encode("utf-8")
        self.send_response(status)
        if status != 204:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if data and self.command != "HEAD":
            self.wfile.write(data)


def main(argv: list[str] | None = None) -> int:
    """Serve until interrupted; prints the base URL first, so a parent process can read it."""
    parser = argparse.ArgumentParser(description="The packc demo Petstore API, in memory, on 127.0.0.1.")
    parser.add_argument("--port", type=int, default=0, help="port to bind (0: any free port)")
    parser.add_argument("--api-key", default=DEFAULT_API_KEY, help="the key clients send in X-API-Key")
    parser.add_argument("--verbose", action="store_true", help="log each request to stderr")
    args = parser.parse_args(argv)
    server = DemoServer(args.port, args.api_key, verbose=args.verbose)
    print(server.url, flush=True)  # noqa: T201 - the parent process reads the URL from stdout
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
