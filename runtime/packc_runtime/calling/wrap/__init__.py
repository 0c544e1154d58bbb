"""The wrap adapter: run a verb as one command of a local CLI, never through a shell."""
