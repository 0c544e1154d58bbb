"""The runtime's exceptions: one class per stable error code, each with its exit code.

    PackRuntimeError              base; ``code``, ``exit_code``, ``message``, ``status``, ``details``
    ├── InvalidPack               invalid_pack (exit 3): the pack directory cannot be used
    ├── UsageProblem              exit 2: the call itself is wrong
    │   ├── UnknownVerb           unknown_verb
    │   ├── UnknownArgument       unknown_argument
    │   ├── MissingArgument       missing_argument
    │   ├── InvalidArgument       invalid_argument
    │   ├── InvalidServer         invalid_server (a --server URL or server variable is refused)
    │   └── InvalidRequest        invalid_request (json_exec input is not a request object)
    ├── NotConfirmed              not_confirmed (exit 4): a write verb without confirmation
    ├── CredentialProblem         exit 5
    │   ├── MissingCredentials    missing_credentials
    │   ├── UnapprovedCredentials unapproved_credentials (an environment variable is set, but not
    │   │                         approved for the origin it would go to: ``connect --approve-env``)
    │   ├── Unauthorized          unauthorized (HTTP 401, or the token endpoint refused)
    │   └── Forbidden             forbidden (HTTP 403)
    ├── NotFound                  not_found (exit 6, HTTP 404)
    ├── RateLimited               rate_limited (exit 7, HTTP 429 after retries)
    ├── RequestRejected           request_rejected (exit 8, any other HTTP 4xx)
    ├── UpstreamError             upstream_error (exit 9, HTTP 5xx after retries)
    │   └── CommandFailed         command_failed (a wrapped CLI exited non-zero: ``exit_status``, ``stderr``)
    ├── TransportProblem          exit 10
    │   ├── Timeout               timeout (a timeout or the call's overall deadline)
    │   └── ConnectionFailed      connection_failed
    ├── InvalidResponse           invalid_response (exit 11): undecodable body, bad redirect
    ├── UnsafeRedirect            unsafe_redirect (exit 12): a redirect that may not be followed
    ├── UntrustedServer           untrusted_server (exit 12): credentials would go to a --server
    │                             origin that is not the document's, nor bound, approved or trusted
    ├── CredentialStoreError      credential_store (exit 13): keyring or credentials file refused
    ├── DownloadFailed            download_failed (exit 14): a binary body could not be saved safely
    ├── NoProject                 no_project (exit 15): a wrapped CLI runs in the caller's project,
    │                             and this runtime has none (``packc serve --http``)
    └── TransportNotListed        transport_not_listed (exit 16): the face called (cli, json_exec,
                                  mcp) is not in the pack's ``transports``

Messages never contain secrets: every message is redacted before it leaves the runtime.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ERROR_CLASSES",
    "CommandFailed",
    "ConnectionFailed",
    "CredentialProblem",
    "CredentialStoreError",
    "DownloadFailed",
    "Forbidden",
    "InsecureServer",
    "InvalidArgument",
    "InvalidPack",
    "InvalidRequest",
    "InvalidResponse",
    "InvalidServer",
    "MissingArgument",
    "MissingCredentials",
    "NoProject",
    "NotConfirmed",
    "NotFound",
    "OAuthFailed",
    "PackRuntimeError",
    "RateLimited",
    "RequestRejected",
    "Timeout",
    "TransportNotListed",
    "TransportProblem",
    "UnapprovedCredentials",
    "Unauthorized",
    "UnknownArgument",
    "UnknownVerb",
    "UnsafeRedirect",
    "UntrustedServer",
    "UpstreamError",
    "UsageProblem",
]


class PackRuntimeError(Exception):
    """Base of the runtime's errors; ``to_json`` is the envelope's ``error`` object."""

    code = "runtime_error"
    exit_code = 1

    def __init__(self, message: str, *, status: int | None = None, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.details = {k: v for k, v in details.items() if v is not None}

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, message={self.message!r})"

    def to_json(self) -> dict[str, Any]:
        """The ``error`` object of a failure envelope."""
        return {"code": self.code, "message": self.message, **self.details}


class InvalidPack(PackRuntimeError):
    code = "invalid_pack"
    exit_code = 3


class UsageProblem(PackRuntimeError):
    exit_code = 2


class UnknownVerb(UsageProblem):
    code = "unknown_verb"


class UnknownArgument(UsageProblem):
    code = "unknown_argument"


class MissingArgument(UsageProblem):
    code = "missing_argument"


class InvalidArgument(UsageProblem):
    code = "invalid_argument"


class InvalidServer(UsageProblem):
    code = "invalid_server"


class InvalidRequest(UsageProblem):
    code = "invalid_request"


class NotConfirmed(PackRuntimeError):
    code = "not_confirmed"
    exit_code = 4


class CredentialProblem(PackRuntimeError):
    exit_code = 5


class MissingCredentials(CredentialProblem):
    code = "missing_credentials"


class UnapprovedCredentials(CredentialProblem):
    code = "unapproved_credentials"


class Unauthorized(CredentialProblem):
    code = "unauthorized"


class OAuthFailed(CredentialProblem):
    """``connect`` could not sign in with OAuth2 (``reason``: timeout, access_denied, state_mismatch...)."""

    code = "oauth_failed"


class Forbidden(CredentialProblem):
    code = "forbidden"


class NotFound(PackRuntimeError):
    code = "not_found"
    exit_code = 6


class RateLimited(PackRuntimeError):
    code = "rate_limited"
    exit_code = 7


class RequestRejected(PackRuntimeError):
    code = "request_rejected"
    exit_code = 8


class UpstreamError(PackRuntimeError):
    code = "upstream_error"
    exit_code = 9


class CommandFailed(UpstreamError):
    """The wrapped CLI of a wrap pack exited non-zero (or was killed): its status and stderr's end."""

    code = "command_failed"


class TransportProblem(PackRuntimeError):
    exit_code = 10


class Timeout(TransportProblem):
    code = "timeout"


class ConnectionFailed(TransportProblem):
    code = "connection_failed"


class InvalidResponse(PackRuntimeError):
    code = "invalid_response"
    exit_code = 11


class UnsafeRedirect(PackRuntimeError):
    code = "unsafe_redirect"
    exit_code = 12


class UntrustedServer(PackRuntimeError):
    code = "untrusted_server"
    exit_code = 12


class InsecureServer(PackRuntimeError):
    code = "insecure_server"
    exit_code = 12


class CredentialStoreError(PackRuntimeError):
    code = "credential_store"
    exit_code = 13


class DownloadFailed(PackRuntimeError):
    """The download folder is not private to the user (or not writable): nothing was saved."""

    code = "download_failed"
    exit_code = 14


class NoProject(PackRuntimeError):
    """A ``project`` workspace command where the runtime has no project (docs/runtime.md)."""

    code = "no_project"
    exit_code = 15


class TransportNotListed(PackRuntimeError):
    """The pack's ``transports`` does not list the face it was called through (docs/runtime.md)."""

    code = "transport_not_listed"
    exit_code = 16


def _leaves() -> dict[str, type[PackRuntimeError]]:
    out: dict[str, type[PackRuntimeError]] = {}
    stack: list[type[PackRuntimeError]] = [PackRuntimeError]
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if "code" in cls.__dict__:
            out[cls.code] = cls
    return dict(sorted(out.items()))


#: Every stable error code and its class (the documented table is built from this).
ERROR_CLASSES: dict[str, type[PackRuntimeError]] = _leaves()
