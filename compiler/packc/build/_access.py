"""Access: how much care a verb needs (read, write, write + destructive), its HTTP method first.

The method sets the floor: GET, HEAD and OPTIONS read; POST writes unless judged a read; PUT and
PATCH write; DELETE writes and is destructive. Anything may raise care (``x-packc: {access: write}``
on a GET, ``destructive: true``). Lowering it is where a hostile document would strike (a DELETE
marked read is sent without a person's confirmation), so:

- PUT, PATCH and DELETE are never read, and DELETE is always destructive, whoever says otherwise
  (the document, an overlay, a stub manifest): the request is refused with warning C171.
- A POST may be a read (search and RPC-style APIs, where every call is a POST). The document or a
  stub manifest (its ``x-packc.access``, a stub verb's ``policy``) lowers one only where the
  operation's own words say it reads (its summary, a search/query name, an RPC get/list action: the
  same judgement that makes a POST a read unmarked), with warning C170 so the person compiling sees
  it; any other marking is ignored with C171 ("Create a note", "Make a note", "Wipe the device"). A
  stub is not trusted as the user's even when it is a local file: a pack directory is often someone
  else's (a cloned pack repository). Only an ``--overlay`` the user passes makes a POST a read
  without a warning.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from packc.model import Operation
from packc.text import snake
from packc_runtime.calling.openapi.operations import DESTRUCTIVE_METHODS, NEVER_READ_METHODS
from packc_runtime.diagnostics import Diagnostic
from packc_runtime.format.manifest import Access

__all__ = ["Care", "Said", "decide_care"]

_READ_METHODS = frozenset({"get", "head", "options"})
_NEVER_READ = frozenset(m.lower() for m in NEVER_READ_METHODS)  # the runtime and lint hold the same rule
_READ_WORDS = {"search", "query", "find", "lookup", "count", "filter"}  # a POST named so may only read
_RPC_READS = {"get", "list", "describe", "search", "query", "lookup"}
_DESTRUCTIVE_WORDS = {"remove", "destroy", "purge", "erase", "wipe", "delete", "revoke", "drop"}
# Actions a name may end in that always write (create, send, upload...): no text makes them reads.
_WRITE_ACTIONS = {
    "create",
    "insert",
    "add",
    "update",
    "patch",
    "replace",
    "delete",
    "remove",
    "send",
    "upload",
    "post",
    "put",
    "set",
    "write",
    "import",
    "publish",
    "copy",
    "move",
    "cancel",
    "approve",
    "pay",
    "charge",
    "refund",
    "transfer",
    "merge",
    "invite",
    "share",
}
_SAYS_READ = re.compile(r"\bread[- ]only\b|\bdoes not (modify|change)\b", re.I)


@dataclass(frozen=True, slots=True)
class Said:
    """What one source said about a verb's care, and where (a JSON pointer for diagnostics)."""

    access: Access | None = None
    destructive: bool | None = None
    by_user: bool = False  # an --overlay, not the document or a stub manifest
    where: str = ""
    source: str = "the document marks it x-packc access: read"  # who lowered it, for C170


@dataclass(frozen=True, slots=True)
class Care:
    """The verb's access, whether it is destructive, and the warnings deciding them gave."""

    access: Access
    destructive: bool
    diagnostics: tuple[Diagnostic, ...] = ()


def _words(op: Operation, name: str) -> set[str]:
    text = " ".join(
        [
            name.replace(".", " "),
            snake(op.operation_id or "").replace("_", " "),
            snake(op.path).replace("_", " "),
        ]
    )
    return set(text.split())


def _says_writes(op: Operation, name: str) -> str | None:
    """Why an operation's own words say it writes (None: they do not): a 201/202/204 answer, an
    action in its name that always writes, or a summary that opens with one ("Create a note")."""
    if {r.status for r in op.responses} & {"201", "202", "204"}:
        return "it answers 201, 202 or 204"
    if set(name.rsplit(".", 1)[-1].split("_")) & _WRITE_ACTIONS:
        return "its name's action writes"
    first = (op.summary.split() or [""])[0].lower().strip(".,:;")
    if {first, first[:-1] if first.endswith("s") else "", first[:-2] if first.endswith("es") else ""} & (
        _WRITE_ACTIONS
    ):
        return f"its summary opens with {first!r}"
    return None


def _post_reads(op: Operation, name: str) -> str | None:
    """Why a POST looks like a read (None: it does not), judged from the document's own text."""
    answers = any(s in ("200", "2XX") and r.content for r in op.responses for s in [r.status])
    if _says_writes(op, name) is not None:
        return None  # files.create, messages.send, a 201: its own words say it writes, whatever else
    # Only what the text says of the operation itself: its summary, or its description's first sentence
    # (Drive's files.create mentions "the read-only fileExtension property" further down).
    lead = re.split(r"(?<=[.!?])\s", op.description.strip(), maxsplit=1)[0] if op.description else ""
    if _SAYS_READ.search(f"{op.summary} {lead}"):
        return "its summary says it only reads"
    if not answers:
        return None
    if _words(op, name) & _READ_WORDS:
        return "its name says it searches or queries"
    # An RPC-style key (AWS "/#X-Amz-Target=Svc.GetTable", flickr "?method=...getInfo") names its
    # operation, and every operation is a POST: a get/list/describe action there is a read.
    if ("#" in op.path or "?" in op.path) and name.rsplit(".", 1)[-1].split("_")[0] in _RPC_READS:
        return "its RPC action is a get, list or describe"
    return None


def decide_care(op: Operation, name: str, said: Said) -> Care:
    """The care verb ``name`` (calling ``op``) needs, given what the document or the user said."""
    where = said.where or op.pointer or f"#/paths/{op.path}"
    method = op.method
    upper = method.upper()
    diags: list[Diagnostic] = []
    if upper in DESTRUCTIVE_METHODS:
        if said.access == "read" or said.destructive is False:
            diags.append(
                Diagnostic(
                    "C171",
                    "warning",
                    where,
                    f"{upper} {op.path} is marked {'read' if said.access == 'read' else 'not destructive'}; "
                    "a DELETE is always a destructive write, so it is ignored.",
                    "Remove the marking; a DELETE always needs a person's confirmation.",
                )
            )
        return Care("write", True, tuple(diags))
    raised_destructive = said.destructive is True
    if said.access == "read" and not raised_destructive:
        if method in _NEVER_READ:
            diags.append(
                Diagnostic(
                    "C171",
                    "warning",
                    where,
                    f"{upper} {op.path} is marked read; a {upper} always writes, so it is ignored.",
                    f"Remove access: read; a {upper} always needs a person's confirmation.",
                )
            )
        elif method in _READ_METHODS:
            return Care("read", False)
        elif not said.by_user and (method != "post" or _post_reads(op, name) is None):
            # The document (or a stub, which counts as one) lowers a POST only where its own words say
            # it reads: "Create a note", "Make a note" or "Wipe the device" marked read would be sent
            # unconfirmed (issue 23). Only the user's --overlay lowers any other.
            writes = _says_writes(op, name)
            said_why = f"but {writes}" if writes else "but its own words do not say it only reads"
            diags.append(
                Diagnostic(
                    "C171",
                    "warning",
                    where,
                    f"{upper} {op.path} is marked read, {said_why}; it stays a write.",
                    "Only an --overlay you pass makes it a read; or say in its summary that it only reads.",
                )
            )
        else:  # a POST, or an unusual method: a read only because someone said so
            if not said.by_user:
                diags.append(_c170(op, where, said.source))
            return Care("read", False, tuple(diags))
    if said.access == "write" or raised_destructive or method not in _READ_METHODS:
        if said.access is None and not raised_destructive and method == "post":
            why = _post_reads(op, name)
            if why is not None:
                return Care("read", False, (_c170(op, op.pointer or where, why),))
        words = set(name.split(".")[-1].split("_"))
        destructive = raised_destructive or (said.destructive is None and bool(words & _DESTRUCTIVE_WORDS))
        return Care("write", destructive, tuple(diags))
    return Care("read", False)


def _c170(op: Operation, where: str, why: str) -> Diagnostic:
    return Diagnostic(
        "C170",
        "warning",
        where,
        f"{op.method.upper()} {op.path} is packed as a read ({why}): it is sent without a person's confirmation.",
        "If it changes anything, set x-packc access: write on it (in the document or an --overlay), or policy: "
        "write in the stub manifest.",
    )
