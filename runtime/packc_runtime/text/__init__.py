"""Untrusted text: one escaping layer per output language, the terminal layer, and document regexes run safely."""
