"""Credentials and sign-in: slots bound to origins, where values come from, applying them, OAuth2 tokens, redaction."""
