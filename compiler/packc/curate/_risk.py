"""Risk a task must ask for: operations that destroy, move money, change who owns a thing, or write as
an admin, and whether some clause of the task asks for that very act.

A ``--for`` pack is a person's errand. Sharing a word with the task ("refund a customer's payment"
and a treasury outbound payment) is no reason to hand an agent a verb that sends money, gives a
repository away or disconnects a shared channel: such a verb goes in only when a clause says to do
that act. The judgment reads the operation the way build's care does (a DELETE or a destroying word
in its action; a money action, or a create of a money thing) before build runs; ownership and admin
are read from the operation's own words. Plain English, no vendor's vocabulary.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from packc.curate._shape import Shape, noun_of, same_noun, stem, words
from packc.curate._task import Clause
from packc.curate._task_words import intents
from packc.model import Operation
from packc.words import singular

__all__ = ["Risk", "admin_words", "risk_of", "unasked"]

# The words that make a write destructive (as in build's care), and those a task removes with.
_DESTROYS = frozenset({"remove", "destroy", "purge", "erase", "wipe", "delete", "revoke", "drop"})
_REMOVES = frozenset(
    {"end", "stop", "terminate", "kill", "detach", "disconnect", "leave", "uninstall", "erase", "expire"}
)
# An action that moves money, and the act it is (a refund, a payout...).
_MONEY_ACTIONS = {
    "capture": "capture",
    "pay": "pay",
    "refund": "refund",
    "payout": "payout",
    "transfer": "transfer",
    "charge": "pay",
    "withdraw": "payout",
    "disburse": "payout",
}
# A thing whose create moves money, and the act that is.
_MONEY_THINGS = {
    "charge": "pay",
    "payment": "pay",
    "payout": "payout",
    "transfer": "transfer",
    "refund": "refund",
    "capture": "capture",
    "disbursement": "payout",
    "remittance": "transfer",
    "withdrawal": "payout",
    "wire": "transfer",
}
_READ_METHODS = frozenset({"get", "head", "options"})
# The acts a task's own verbs ask for: "charge a customer" pays; "send money" transfers.
_ASKS_MONEY = {
    "refund": {"refund"},
    "pay": {"pay", "capture"},
    "charge": {"pay", "capture"},
    "bill": {"pay"},
    "collect": {"pay", "capture"},
    "purchase": {"pay"},
    "buy": {"pay"},
    "checkout": {"pay"},
    "capture": {"capture"},
    "transfer": {"transfer", "payout"},
    "wire": {"transfer"},
    "payout": {"payout"},
    "withdraw": {"payout"},
    "disburse": {"payout"},
}
# A clause that makes its thing: "create a payout", "issue a refund" (not "refund a payment").
_MAKES = frozenset(
    {
        "create",
        "make",
        "add",
        "new",
        "send",
        "submit",
        "issue",
        "take",
        "process",
        "initiate",
        "start",
        "give",
    }
)
_OWNER = frozenset({"owner", "ownership", "owners"})
_ADMIN = frozenset({"admin", "admins", "administer", "administrator", "administration"})


@dataclass(frozen=True, slots=True)
class Risk:
    """What an operation risks: ``kind`` (destructive, money, ownership, admin) and, for money, the act."""

    kind: str
    act: str = ""

    def reason(self) -> str:
        """Why a task pack leaves it out, for ``packc plan``."""
        said = {
            "destructive": "it deletes or revokes, and no part of the task asks to remove that",
            "money": f"it moves money (a {self.act}), and no part of the task asks for a {self.act}",
            "ownership": "it changes who owns a thing, and no part of the task asks to transfer it",
            "admin": "it is an admin write, and the task does not say it acts as an admin",
        }[self.kind]
        return f"{said}; say it in the task, or --include it"


def admin_words(op: Operation) -> bool:
    """The operation's path, operationId or tags say admin."""
    return bool({"admin", "admins"} & set(words(f"{op.path} {op.operation_id or ''} {' '.join(op.tags)}")))


def risk_of(op: Operation, s: Shape, admin_api: bool = False) -> Risk | None:
    """The risk an operation carries (None: an everyday read or write). ``admin_api``: most of the
    API's operations say admin (Google's /admin/directory): the word names the API, not a privilege."""
    if op.method in _READ_METHODS:
        return None
    action = [w.lower() for w in words(s.action)]
    doing = {*action, *(w.lower() for w in words(s.verb))}
    # An RPC key names its act in the operationId (DynamoDB's DeleteTable): build's name carries it.
    named = set(words(op.operation_id or "")) if "#" in op.path or "?" in op.path or ":" in op.path else set()
    if op.method == "delete" or (doing | named) & _DESTROYS:
        return Risk("destructive")
    act = _money_act(s, action)
    if act:
        return Risk("money", act)
    own = {w.lower() for w in words(" ".join((s.action, s.object, *s.resource[-1:])))}
    if own & _OWNER or "transfer" in doing:
        return Risk("ownership")
    if not admin_api and admin_words(op):
        return Risk("admin")
    return None


def _money_act(s: Shape, action: Sequence[str]) -> str:
    if action and action[0] in _MONEY_ACTIONS and (action[0] != "transfer" or _money_noun(s)):
        return _MONEY_ACTIONS[action[0]]
    if s.action in ("create", "confirm"):
        return _money_noun(s)
    return ""


def _money_noun(s: Shape) -> str:
    """The money act a create of the resource is: a payment pays, a refund refunds."""
    named = [seg for seg in s.resource if seg != "{}"][-1:] + ([s.object] if s.object else [])
    for seg in named:
        last = singular("_".join(w.lower() for w in words(seg)))
        for part in (last, last.rpartition("_")[2]):
            if part in _MONEY_THINGS:
                return _MONEY_THINGS[part]
    return ""


def unasked(
    risk: Risk, s: Shape, clauses: Sequence[Clause], goal_words: Collection[str], named: Collection[str]
) -> bool:
    """True when no clause of the task asks for the act ``risk`` is: a removal of what the operation
    acts on (``named``: the task's word stems and their groups), the money act, a transfer or a
    change of owner, an admin's act."""
    said = {stem(w) for w in goal_words} | set(goal_words)
    verbs = {v for c in clauses for v in c.verbs}
    if risk.kind == "destructive":
        removes = bool(_REMOVES & said) or "delete" in {i for w in goal_words for i in intents(w)}
        own = {stem(w) for w in words(s.action)} & said  # "revoke a token": the act itself
        noun = noun_of(s.resource)
        names = not noun or not noun[-1].isalpha() or any(same_noun(noun[-1], t) for t in named)
        return not (own or (removes and names))
    if risk.kind == "money":
        asked = {a for v in verbs for a in _ASKS_MONEY.get(v, ())}
        for c in clauses:  # "create a payout", "make a payment": a create of the money thing
            if set(c.verbs) & _MAKES:
                asked |= {act for w in c.objects if (act := _MONEY_THINGS.get(singular(w), ""))}
        return risk.act not in asked
    if risk.kind == "ownership":
        return not ("transfer" in verbs or said & _OWNER)
    return not said & _ADMIN
