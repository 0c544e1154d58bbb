"""The demo server: it does what petstore.yaml says, and every answer matches the document."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import httpx
import pytest

from .conftest import SERVER, SpecChecker


def test_reads_match_the_document(client: httpx.Client, spec_checker: SpecChecker) -> None:
    for path, params in [
        ("/pets", {}),
        ("/pets", {"status": "available", "species": "cat", "sort": "name", "limit": "10"}),
        ("/pets/1", {}),
        ("/owners", {}),
        ("/owners/1", {}),
    ]:
        response = client.get(path, params=params)
        assert response.status_code == 200, response.text
        spec_checker.check(response)


def test_list_filters_sorts_and_limits(client: httpx.Client) -> None:
    everyone = client.get("/pets").json()
    assert [p["id"] for p in everyone] == [1, 2, 3, 4]
    available = client.get("/pets", params={"status": "available", "sort": "name"}).json()
    assert [p["name"] for p in available] == ["Mittens", "Rex"]
    assert [p["id"] for p in client.get("/pets", params={"limit": 2}).json()] == [1, 2]
    assert [p["id"] for p in client.get("/pets", params={"species": "bird"}).json()] == [3]


@pytest.mark.parametrize(
    ("params", "word"),
    [
        ({"status": "lost"}, "status"),
        ({"limit": "0"}, "limit"),
        ({"limit": "101"}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"sort": "age"}, "sort"),
        ({"species": "fish"}, "species"),
    ],
)
def test_bad_query_values_are_refused(
    client: httpx.Client, spec_checker: SpecChecker, params: dict[str, str], word: str
) -> None:
    response = client.get("/pets", params=params)
    assert response.status_code == 400
    assert word in response.json()["message"]
    spec_checker.check_response(response)


@pytest.mark.parametrize("headers", [{}, {"X-API-Key": "wrong"}])
def test_api_key_is_required(server: Any, spec_checker: SpecChecker, headers: dict[str, str]) -> None:
    response = httpx.get(server.url + "/pets", headers=headers)
    assert response.status_code == 401
    assert response.json()["code"] == "unauthorized"
    spec_checker.check_response(response)


def test_pet_lifecycle(client: httpx.Client, spec_checker: SpecChecker) -> None:
    created = client.post("/pets", json={"name": "Biscuit", "species": "dog", "tag": "beagle"})
    assert created.status_code == 201
    spec_checker.check(created)
    pet = created.json()
    assert pet["status"] == "available" and pet["id"] == 5

    updated = client.patch(f"/pets/{pet['id']}", json={"tag": "senior"})
    assert updated.status_code == 200 and updated.json()["tag"] == "senior"
    assert updated.json()["name"] == "Biscuit"
    spec_checker.check(updated)

    adopted = client.post(f"/pets/{pet['id']}/adopt", json={"ownerId": 1})
    assert adopted.status_code == 200
    assert adopted.json()["status"] == "adopted" and adopted.json()["ownerId"] == 1
    spec_checker.check(adopted)
    assert pet["id"] in client.get("/owners/1").json()["petIds"]

    again = client.post(f"/pets/{pet['id']}/adopt", json={"ownerId": 1})
    assert again.status_code == 409
    spec_checker.check(again)

    deleted = client.delete(f"/pets/{pet['id']}")
    assert deleted.status_code == 204 and deleted.content == b""
    spec_checker.check(deleted)
    assert client.get(f"/pets/{pet['id']}").status_code == 404
    assert pet["id"] not in client.get("/owners/1").json()["petIds"]


def test_owner_registration(client: httpx.Client, spec_checker: SpecChecker) -> None:
    created = client.post("/owners", json={"name": "Grace Hopper", "email": "grace@example.org"})
    assert created.status_code == 201
    spec_checker.check(created)
    assert [o["name"] for o in client.get("/owners").json()] == ["Ada Lovelace", "Grace Hopper"]
    bad = client.post("/owners", json={"name": "Nobody", "email": "not-an-address"})
    assert bad.status_code == 400


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("POST", "/pets", {"name": "X"}, 400),  # species missing
        ("POST", "/pets", {"name": "X", "species": "dog", "age": 3}, 400),  # unknown field
        ("POST", "/pets", {"name": "", "species": "dog"}, 400),
        ("POST", "/pets", [1, 2], 400),
        ("PATCH", "/pets/1", {}, 400),  # minProperties 1
        ("PATCH", "/pets/1", {"status": "gone"}, 400),
        ("POST", "/pets/1/adopt", {"ownerId": "1"}, 400),
        ("POST", "/pets/1/adopt", {"ownerId": 99}, 404),
        ("POST", "/pets/4/adopt", {"ownerId": 1}, 409),  # pending, not available
        ("GET", "/pets/99", None, 404),
        ("GET", "/pets/abc", None, 400),
        ("GET", "/owners/0", None, 400),
        ("DELETE", "/pets/99", None, 404),
        ("PUT", "/pets/1", {"name": "X"}, 405),
        ("GET", "/cats", None, 404),
    ],
)
def test_wrong_requests_get_error_bodies(
    client: httpx.Client, method: str, path: str, body: Any, status: int
) -> None:
    response = client.request(method, path, json=body)
    assert response.status_code == status
    error = response.json()
    assert set(error) == {"code", "message"} and error["message"]


def test_body_must_be_json(client: httpx.Client) -> None:
    not_json = client.post("/pets", content=b"{", headers={"Content-Type": "application/json"})
    assert not_json.status_code == 400
    form = client.post("/pets", data={"name": "X", "species": "dog"})
    assert form.status_code == 415


def test_outside_the_base_path_is_not_found(server: Any) -> None:
    response = httpx.get(server.url.removesuffix("/v1") + "/pets", headers={"X-API-Key": server.api_key})
    assert response.status_code == 404


def test_runs_as_a_script_and_prints_its_url() -> None:
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), "--port", "0", "--api-key", "k"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        response = httpx.get(url + "/pets/1", headers={"X-API-Key": "k"}, timeout=5)
        assert response.json()["name"] == "Mittens"
    finally:
        proc.terminate()
        proc.wait(10)
