"""Test servers for the runtime (ASGI apps run with uvicorn on 127.0.0.1), and where the fixture packs are."""

from pathlib import Path

PACKS = Path(__file__).resolve().parents[1] / "fixtures" / "packs"
# The fixture packs' document server: nothing listens there; MockTransport tests answer for it.
FIXTURE_ORIGIN = "http://127.0.0.1:9"
