"""Writing a pack: surface.json, policy.json, HARNESS.md, the cut document, README, launcher and repo files, under OUT_DIR only."""
