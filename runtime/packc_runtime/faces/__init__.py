"""The faces a pack is used through: its own CLI and `packc call/exec/connect`, and MCP."""
