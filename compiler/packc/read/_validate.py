"""Strict mode: validate a document with openapi-spec-validator (the one home of the validation libraries)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from openapi_spec_validator import (
    OpenAPIV2SpecValidator,
    OpenAPIV30SpecValidator,
    OpenAPIV31SpecValidator,
)

from packc_runtime.diagnostics import Diagnostic, pointer

__all__ = ["MAX_STRICT_ERRORS", "strict_diagnostics"]

MAX_STRICT_ERRORS = 50


def strict_diagnostics(document: Mapping[str, Any], version: str) -> list[Diagnostic]:
    """Validate ``document`` against the OpenAPI schema of ``version``; every problem is an error.

    The document must be bundled (all refs internal). This is slow on big documents (GitHub's spec
    takes seconds), which is why it runs only when asked for.

    Args:
        document: the document as read (Swagger 2.0 before conversion, or 3.x).
        version: its declared version, "2.0", "3.0.x" or "3.1.x".

    Returns:
        Error diagnostics (at most MAX_STRICT_ERRORS), empty when the document is valid.
    """
    paths = document.get("paths")
    if isinstance(paths, Mapping) and any(str(k).startswith("x-") for k in paths):
        # Extensions under paths are valid, but the validator crashes on them (KeyError); hide them.
        document = {**document, "paths": {k: v for k, v in paths.items() if not str(k).startswith("x-")}}
    if version.startswith("2"):
        validator: Any = OpenAPIV2SpecValidator(document)
    elif version.startswith("3.0"):
        validator = OpenAPIV30SpecValidator(document)
    else:
        validator = OpenAPIV31SpecValidator(document)
    out: list[Diagnostic] = []
    try:
        for error in validator.iter_errors():
            path = [str(p) for p in getattr(error, "absolute_path", ())]
            message = str(getattr(error, "message", error)).splitlines()[0]
            out.append(
                Diagnostic(
                    "D060",
                    "error",
                    pointer(*path),
                    f"Strict validation: {message}.",
                    "Fix the document where the pointer says, or compile without --strict.",
                )
            )
            if len(out) >= MAX_STRICT_ERRORS:
                break
    except RecursionError:
        out.append(
            Diagnostic(
                "D060",
                "error",
                "#",
                "Strict validation gave up: the document is nested too deeply.",
                "Compile without --strict.",
            )
        )
    except Exception as exc:  # the validator fails in its own ways on odd documents; report, never crash
        out.append(
            Diagnostic(
                "D060",
                "error",
                "#",
                f"Strict validation failed ({type(exc).__name__}).",
                "Compile without --strict, or fix the document.",
            )
        )
    return out
