"""The MCP face: `packc serve` and `<cliBin> mcp` (the SDK is the optional `mcp` extra, imported by the server only)."""
