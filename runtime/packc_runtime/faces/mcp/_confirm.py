"""The approval a write verb needs before the MCP server sends it: the form, and what binds an answer.

A person approves one preview card, and that approval is good for exactly the arguments the card
was rendered from, once. On the handshake protocol (2025-11-25 and before) the server asks in the
middle of the ``tools/call`` and sends in the same call, so the arguments cannot change between
question and answer. On the stateless protocol (2026-07-28) the question goes back to the client
as an ``input_required`` result and the answer comes with a retried call: the state carried
between the two holds a digest of the tool and its arguments and a one-time nonce, and the SDK
seals it (authenticated encryption, bound to the tool name and arguments, with an expiry). An
answer is honoured only if the retried call's arguments give the same digest and the nonce was
never used; anything else is asked again.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, Literal

from packc_runtime.faces.mcp._tools import card_line, render_card

__all__ = [
    "APPROVE_FIELD",
    "ApprovalLedger",
    "Decision",
    "args_digest",
    "decision_of",
    "form_message",
    "form_schema",
]

APPROVE_FIELD = "approve"
Decision = Literal["accept", "decline", "cancel"]


def args_digest(tool: str, args: Mapping[str, Any]) -> str:
    """A digest of the tool name and its arguments (canonical JSON: sorted keys, no spaces)."""
    text = json.dumps([tool, args], sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def form_message(tool: str, card: Mapping[str, Any], args: Mapping[str, Any] | None = None) -> str:
    """The question shown to the person: the typed preview card, every argument that will be sent
    (a card shows what its template names: an order's card may leave out ``ship_to``, a member's
    ``role``, and the approval covers the arguments, not the card), and that nothing is sent otherwise."""
    lines = [f"Approve this change ({tool})?", *render_card(card, sent_with=args is None)]
    if args:
        lines += ["Sent with these arguments:"]
        lines += [f"  {card_line(key)}: {card_line(_shown(value))}" for key, value in sorted(args.items())]
    lines += ["", "Nothing is sent unless you approve."]
    return "\n".join(lines)


def _shown(value: Any) -> str:
    return (
        value
        if isinstance(value, str)
        else json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    )


def form_schema(card: Mapping[str, Any]) -> dict[str, Any]:
    """The form: one required yes/no field. The card is in the message; its values are not editable,
    so what the person approves is exactly what was shown."""
    title = card_line(card.get("title") or "this change")
    return {
        "type": "object",
        "properties": {
            APPROVE_FIELD: {
                "type": "boolean",
                "title": f"Send: {title}"[:200],
                "description": "Yes sends the request shown above; no sends nothing.",
                "default": False,
            }
        },
        "required": [APPROVE_FIELD],
    }


def decision_of(action: str, content: Mapping[str, Any] | None) -> Decision:
    """An elicitation answer as a decision: accept only when the person ticked yes."""
    if action == "accept":
        return "accept" if isinstance(content, Mapping) and content.get(APPROVE_FIELD) is True else "decline"
    return "decline" if action == "decline" else "cancel"


class ApprovalLedger:
    """The nonces of approvals asked on the stateless protocol; each may be answered once."""

    def __init__(self, capacity: int = 4096) -> None:
        self._pending: OrderedDict[str, str] = OrderedDict()  # nonce -> args digest
        self._capacity = capacity
        self._lock = threading.Lock()

    def issue(self, digest: str) -> str:
        """A fresh state string for a question about the call with ``digest``."""
        nonce = secrets.token_urlsafe(16)
        with self._lock:
            self._pending[nonce] = digest
            while len(self._pending) > self._capacity:
                self._pending.popitem(last=False)
        return json.dumps({"n": nonce, "d": digest}, separators=(",", ":"))

    def redeem(self, state: str | None, digest: str) -> bool:
        """True once for a state this ledger issued for exactly ``digest``; the nonce is spent either way."""
        try:
            data = json.loads(state or "")
            nonce, bound = str(data["n"]), str(data["d"])
        except (ValueError, KeyError, TypeError):
            return False
        with self._lock:
            issued = self._pending.pop(nonce, None)
        return (
            issued is not None
            and secrets.compare_digest(issued, bound)
            and secrets.compare_digest(bound, digest)
        )
