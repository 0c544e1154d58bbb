"""The openapi adapter: a pack's operations and the exact HTTP request each becomes."""
