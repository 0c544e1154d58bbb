"""Building each verb of a pack: args schemas and examples, access, titles and cards, and the checks on the chosen operations."""
