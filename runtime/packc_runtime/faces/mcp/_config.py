"""``--print-config HOST``: the snippet that registers a served pack in an MCP host's configuration.

Every host starts the server as a subprocess over stdio; they differ in the file and its shape:

| host | file | shape |
|---|---|---|
| claude-desktop | ``claude_desktop_config.json`` | ``{"mcpServers": {NAME: {"command", "args"}}}`` |
| claude-code | ``.mcp.json`` in the project | ``{"mcpServers": {NAME: {"type": "stdio", "command", "args"}}}`` |
| cursor | ``~/.cursor/mcp.json`` or ``.cursor/mcp.json`` | ``{"mcpServers": {NAME: {"command", "args"}}}`` |
| windsurf | ``~/.codeium/windsurf/mcp_config.json`` | ``{"mcpServers": {NAME: {"command", "args"}}}`` |
| gemini-cli | ``~/.gemini/settings.json`` | ``{"mcpServers": {NAME: {"command", "args"}}}`` |
| vscode | ``.vscode/mcp.json`` | ``{"inputs": [...], "servers": {NAME: {"type": "stdio", "command", "args", "env"}}}`` |

The command is this Python interpreter with absolute paths, so the host's own PATH does not matter.
Secrets never go into these files: VS Code prompts for them (``promptString`` inputs, stored by the
editor); for the others a person runs ``connect`` once and the server reads the OS keyring.

With ``--http`` the snippet points the host at the running server's URL instead (``http_snippet``),
with the header ``Authorization: Bearer <secret>`` the server requires; the secret is not written
either: the host reads it from ``PACKC_MCP_TOKEN`` in its environment (each host's own interpolation
syntax), or VS Code prompts for it. Claude Desktop's file has no HTTP entries (stdio only).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from packc_runtime.credentials.slots import CredentialSlot
from packc_runtime.faces.mcp._auth import TOKEN_ENV

__all__ = ["HOSTS", "HTTP_HOSTS", "config_snippet", "http_snippet"]

HOSTS: dict[str, str] = {
    "claude-desktop": "claude_desktop_config.json (Settings > Developer > Edit Config)",
    "claude-code": ".mcp.json at the project root (or: claude mcp add NAME -- COMMAND ARGS...)",
    "cursor": "~/.cursor/mcp.json, or .cursor/mcp.json in the project",
    "windsurf": "~/.codeium/windsurf/mcp_config.json",
    "gemini-cli": "~/.gemini/settings.json",
    "vscode": ".vscode/mcp.json in the workspace (or the user mcp.json)",
}


def _input_id(env: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", env.lower()).strip("-")


def config_snippet(
    host: str, name: str, command: Sequence[str], slots: Sequence[CredentialSlot]
) -> dict[str, Any]:
    """The JSON object to merge into ``host``'s configuration file.

    Raises:
        KeyError: ``host`` is not one of :data:`HOSTS`.
    """
    if host not in HOSTS:
        raise KeyError(host)
    entry: dict[str, Any] = {"command": command[0], "args": list(command[1:])}
    if host == "vscode":
        inputs = [
            {
                "type": "promptString",
                "id": _input_id(s.env),
                "description": f"{s.env}: {s.description}",
                "password": True,
            }
            for s in slots
        ]
        server: dict[str, Any] = {"type": "stdio", **entry}
        if slots:
            server["env"] = {s.env: "${input:" + _input_id(s.env) + "}" for s in slots}
        return {"inputs": inputs, "servers": {name: server}} if inputs else {"servers": {name: server}}
    if host == "claude-code":
        entry = {"type": "stdio", **entry}
    return {"mcpServers": {name: entry}}


def render_snippet(host: str, name: str, command: Sequence[str], slots: Sequence[CredentialSlot]) -> str:
    """The snippet as indented JSON."""
    return json.dumps(config_snippet(host, name, command, slots), indent=2, ensure_ascii=False)


#: Per host: the key holding the URL, extra fixed keys, and how its file reads an environment variable.
HTTP_HOSTS: dict[str, tuple[str, dict[str, str], str]] = {
    "claude-code": ("url", {"type": "http"}, "${%s}"),
    "cursor": ("url", {}, "${env:%s}"),
    "windsurf": ("serverUrl", {}, "${env:%s}"),
    "gemini-cli": ("httpUrl", {}, "${%s}"),
    "vscode": ("url", {"type": "http"}, "${input:%s}"),
}
_VSCODE_INPUT = "packc-mcp-token"


def http_snippet(host: str, name: str, url: str) -> dict[str, Any]:
    """The JSON object that points ``host`` at a ``packc serve --http`` server, with its bearer header.

    Raises:
        KeyError: ``host`` cannot be given an HTTP server in its file (claude-desktop) or is unknown.
    """
    key, fixed, variable = HTTP_HOSTS[host]
    secret_ref = variable % (_VSCODE_INPUT if host == "vscode" else TOKEN_ENV)
    server = {**fixed, key: url, "headers": {"Authorization": "Bearer " + secret_ref}}
    if host == "vscode":
        prompt = {
            "type": "promptString",
            "id": _VSCODE_INPUT,
            "password": True,
            "description": f"The bearer secret of packc serve for {name} (its --token-file)",
        }
        return {"inputs": [prompt], "servers": {name: server}}
    return {"mcpServers": {name: server}}
