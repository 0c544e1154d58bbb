"""Calling a verb: load a pack, validate args, build and send the request, shape the envelope (one adapter per pack kind)."""
