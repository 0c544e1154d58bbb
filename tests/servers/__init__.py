"""Test servers for the runtime (ASGI apps run with uvicorn on 127.0.0.1)."""
