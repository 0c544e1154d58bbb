"""Keep secrets out of output: redact known secret values and secret query keys, in text and logs."""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote, quote_plus

__all__ = [
    "MASK",
    "Redactor",
    "install_log_filter",
    "is_credential_parameter",
    "is_secret_argument",
    "masked_repr",
    "remove_log_filter",
]

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
# Names that match the pattern above but name no secret: a page or resume token, a key that makes a
# request idempotent or picks a record, what kind of token a response holds, a date or an id that
# an auth header carries (FAPI's ``x-fapi-auth-date``), which provider signs in.
_NOT_SECRET = re.compile(
    r"(.*_)?(page|next|continuation|resume|sync|cursor|idempotency|client_request|request|sort|"
    r"partition|row|primary|record|object|cache|dedup(lication)?|csrf|xsrf|client)_(token|key)|"
    r"(.*_)?token_type|.*_auth_(date|project_id|provider|method|type)|x_authentication_provider",
    re.I,
)

# The caller's own credential taken as a parameter (issue 24): Slack's ``token``, Google's ``key``
# and ``access_token``, ``api_key``, ``X-API-Key``, ``X-Postmark-Server-Token``. Narrower than a
# secret: a new user's ``password`` or a store's ``shopify_api_key`` in a body is a secret argument
# (hidden in cards) the caller types, not the credential the pack holds. ``token`` and ``key`` alone
# are credentials only when the description says so ("Authentication token", "Your API key");
# elsewhere they are a record's key or a token the API handed out (``/verify {token}``).
_CREDENTIAL = re.compile(
    r"(x_)?(api_key|apikey|api_token|access_token|auth_token|auth_key|app_key|app_token|"
    r"[a-z0-9]+(_[a-z0-9]+)*_(api_key|apikey|api_token|access_token|auth_token|server_token|"
    r"account_token|app_token|app_key))|"
    r"x_([a-z0-9]+_)*(token|key|secret|authorization|authentication)|api_secret",
    re.I,
)
# A secret the caller supplies per request, not the caller's credential: an encryption key (S3's
# SSE-C ``x-amz-server-side-encryption-customer-key``), a token that makes a retry idempotent.
# ``X-Apideck-Downstream-Authorization`` is a credential for another service, passed through.
_NOT_CREDENTIAL = re.compile(r".*(encryption|client_token|signing|public|private|license|downstream).*", re.I)
_PLAIN = frozenset({"token", "key"})
_SAYS_CREDENTIAL = re.compile(
    r"\b(api[ _-]?key|(application|app|master|account|developer|user|access|secret) key|"
    r"auth\w*|credential\w*|(access|api|bearer|security) token|bearer|secret|identif(y|ies) your)\b",
    re.I,
)
_WORD_BREAK = re.compile(r"([a-z0-9])([A-Z])")
_NOT_WORD = re.compile(r"[^A-Za-z0-9]+")


def _words(name: str) -> str:
    """``X-API-Key``, ``apiKey``, ``api-key`` -> ``x_api_key``, ``api_key``, ``api_key``."""
    return _NOT_WORD.sub("_", _WORD_BREAK.sub(r"\1_\2", name)).strip("_").lower()


def is_secret_argument(name: str) -> bool:
    """Whether an argument's name says it carries a secret (its value is never shown)."""
    if _NOT_SECRET.fullmatch(name) is not None:
        return False
    return _SECRET_ARGUMENT.fullmatch(name) is not None or is_credential_parameter(name)


def is_credential_parameter(name: str, description: str = "", *, unsecured: bool = False) -> bool:
    """Whether a query, header, cookie or body field named ``name`` is the caller's own credential.

    The compiler makes such a parameter the pack's credential instead of an argument
    (``packc/build/implied.py``, C172); the name is read without case, ``-`` or camelCase
    (``X-Api-Key``, ``apiKey``). A path parameter is never one: the caller decides where to apply it.
    A bare ``token`` or ``key`` is one when ``description`` says so, or when it says nothing and the
    operation names no credential (``unsecured``: visualcrossing's, opencage's ``?key=``).
    """
    words = _words(name)
    if not words or _NOT_SECRET.fullmatch(words) is not None:
        return False
    if words in _PLAIN:
        described = (description or "").strip()
        return _SAYS_CREDENTIAL.search(described) is not None or (unsecured and not described)
    return _CREDENTIAL.fullmatch(words) is not None and _NOT_CREDENTIAL.fullmatch(words) is None


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
