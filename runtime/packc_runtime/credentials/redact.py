"""Keep secrets out of output: redact known secret values and secret query keys, in text and logs."""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote, quote_plus

__all__ = ["MASK", "Redactor", "install_log_filter", "is_secret_argument", "masked_repr", "remove_log_filter"]

MASK = "***"
# Query keys that carry secrets in many APIs, masked in any URL whatever the document says.
_SECRET_KEYS = (
    "api_key",
    "apikey",
    "api-key",
    "key",
    "token",
    "access_token",
    "auth",
    "secret",
    "client_secret",
    "password",
    "sig",
    "signature",
)

# Argument names that carry a credential passed as a plain argument (Slack's ``token``, Mandrill's
# ``key``, Postmark's ``X-Postmark-Server-Token`` header): a card never shows their value. The
# compiler leaves them out of card templates, the runtime out of a card's "sent with" list.
_SECRET_ARGUMENT = re.compile(
    r"(body_|header_|query_)?(token|access_token|auth_token|api_token|api_key|apikey|key|secret|"
    r"client_secret|password|passwd|authorization|credentials?|"
    r"x_[a-z0-9_]*(token|key|secret|auth[a-z_]*)|"
    r"[a-z0-9_]*_(api_key|apikey|server_token|account_token|auth_token|access_token|secret_key|"
    r"access_key|private_key|secret|password))",
    re.I,
)


def is_secret_argument(name: str) -> bool:
    """Whether an argument's name says it carries a credential (its value is never shown)."""
    return _SECRET_ARGUMENT.fullmatch(name) is not None


def masked_repr(record: Any, secrets: Iterable[str]) -> str:
    """``record``'s repr (a NamedTuple's) with the fields named in ``secrets`` shown as ``MASK`` when set.

    A token or client secret must not reach a traceback with locals, a debugger or an error tracker,
    all of which print values with ``repr``.
    """
    hidden = set(secrets)
    fields = ", ".join(
        f"{name}={MASK if name in hidden and value is not None else repr(value)}"
        for name, value in zip(record._fields, record, strict=True)
    )
    return f"{type(record).__name__}({fields})"


class Redactor:
    """Remembers secret values and query keys; ``redact`` masks them in any text or JSON value."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._secrets: set[str] = set()
        self._keys: set[str] = set(_SECRET_KEYS)
        self._pattern: re.Pattern[str] | None = None

    def __repr__(self) -> str:
        return f"Redactor({len(self._secrets)} secrets)"

    def add_secret(self, value: str) -> None:
        """Remember a secret; its raw and percent-encoded forms are masked from now on."""
        if len(value) < 4:  # masking one- to three-character strings would shred all text
            return
        with self._lock:
            self._secrets.update({value, quote(value, safe=""), quote_plus(value)})
            self._pattern = None

    def add_query_key(self, key: str) -> None:
        """Remember a query key whose value is a secret (an apiKey ``in: query``)."""
        with self._lock:
            self._keys.add(key.lower())
            self._pattern = None

    def _compiled(self) -> re.Pattern[str]:
        with self._lock:
            if self._pattern is None:
                keys = "|".join(re.escape(k) for k in sorted(self._keys, key=len, reverse=True))
                self._pattern = re.compile(rf"(?i)([?&;](?:{keys})=)[^&#\s\"']*")
            return self._pattern

    def redact_text(self, text: str) -> str:
        """Mask every remembered secret and every value of a secret query key."""
        if self._secrets:
            with self._lock:
                secrets = sorted(self._secrets, key=len, reverse=True)
            for secret in secrets:
                if secret in text:
                    text = text.replace(secret, MASK)
        if "=" not in text:  # no query value to mask: skip the regex (most strings of a body)
            return text
        return self._compiled().sub(lambda m: m.group(1) + MASK, text)

    def redact(self, value: Any) -> Any:
        """Redact strings anywhere inside a JSON-like value."""
        if isinstance(value, str):
            return self.redact_text(value)
        if isinstance(value, dict):
            return {self.redact_text(str(k)): self.redact(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.redact(v) for v in value]
        return value

    def secrets(self) -> Iterable[str]:
        """The remembered secrets (for tests and the log filter)."""
        with self._lock:
            return tuple(self._secrets)


class _RedactingFilter(logging.Filter):
    def __init__(self, redactor: Redactor) -> None:
        super().__init__()
        self.redactor = redactor

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed record: drop its arguments rather than leak them
            message = str(record.msg)
        record.msg = self.redactor.redact_text(message)
        record.args = None
        return True


_installed: dict[int, _RedactingFilter] = {}


def install_log_filter(redactor: Redactor) -> None:
    """Redact httpx's and httpcore's log records (httpx logs whole URLs, query keys included)."""
    if id(redactor) in _installed:
        return
    log_filter = _RedactingFilter(redactor)
    _installed[id(redactor)] = log_filter
    for name in ("httpx", "httpcore"):
        logging.getLogger(name).addFilter(log_filter)


def remove_log_filter(redactor: Redactor) -> None:
    """Undo :func:`install_log_filter` (when a pack is closed)."""
    log_filter = _installed.pop(id(redactor), None)
    if log_filter is not None:
        for name in ("httpx", "httpcore"):
            logging.getLogger(name).removeFilter(log_filter)
