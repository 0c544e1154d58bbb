"""The pack format: the typed model of surface.json and policy.json, lint, and the identifiers and templates both use."""
