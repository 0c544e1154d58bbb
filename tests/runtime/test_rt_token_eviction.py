"""A long-lived pack keeps its OAuth2 token; a 401 evicts it and the call is tried once more with a
fresh token (issue 12, credentials item)."""

from __future__ import annotations

import httpx

from packc_runtime import load_pack
from servers import PACKS

ENV = {"AUTHZ_CLIENT_ID": "client-abc", "AUTHZ_CLIENT_SECRET": "s3cret-client-value"}
SERVER = "http://127.0.0.1:9/api"


class Api:
    """Issues tok-1, tok-2, ...; accepts only the tokens in ``valid`` (revoking is removing one)."""

    def __init__(self) -> None:
        self.issued = 0
        self.valid: set[str] = set()
        self.seen: list[str] = []
        self.honour_new = True  # False: tokens it issues are refused (a misconfigured client)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/oauth/token":
            self.issued += 1
            token = f"tok-{self.issued}"
            if self.honour_new:
                self.valid.add(token)
            return httpx.Response(
                200, json={"access_token": token, "token_type": "Bearer", "expires_in": 3600}
            )
        sent = request.headers.get("authorization", "")
        self.seen.append(sent)
        if sent.removeprefix("Bearer ") not in self.valid:
            return httpx.Response(401, json={"error": "invalid_token"})
        return httpx.Response(200, json={"ok": True})


def test_a_401_evicts_the_cached_token_and_retries_once_with_a_fresh_one() -> None:
    api = Api()
    with load_pack(PACKS / "authz", transport=httpx.MockTransport(api), environ=ENV) as pack:
        assert pack.call("whoami.oauth", {}, server=SERVER)["ok"]
        assert pack.call("whoami.oauth", {}, server=SERVER)["ok"]
        assert api.issued == 1  # cached between calls
        api.valid.clear()  # the API revokes tok-1 (rotation, an early expiry)
        envelope = pack.call("whoami.oauth", {}, server=SERVER)
        assert envelope["ok"], envelope
        assert api.issued == 2 and api.seen[-2:] == ["Bearer tok-1", "Bearer tok-2"]
        api.valid.clear()
        api.honour_new = False  # from now on every token is refused
        refused = pack.call("whoami.oauth", {}, server=SERVER)
    assert refused["error"]["code"] == "unauthorized"
    assert (
        api.seen[-2:] == ["Bearer tok-2", "Bearer tok-3"] and api.issued == 3
    )  # retried once, not in a loop
