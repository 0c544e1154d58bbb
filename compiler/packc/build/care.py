"""The care an operation would need as a verb, in one word: what ``packc plan --care`` filters on."""

from __future__ import annotations

from typing import Literal

from packc.build._access import Said, decide_care
from packc.build._money import money_verb
from packc.curate.plan import PlannedVerb
from packc.words import singular

__all__ = ["CARES", "CareWord", "care_word"]

CareWord = Literal["read", "write", "destructive", "money"]
CARES: tuple[CareWord, ...] = ("read", "write", "destructive", "money")


def care_word(pv: PlannedVerb) -> CareWord:
    """``read``, ``write``, ``destructive`` or ``money`` (a write that moves money by its name: a
    charge, refund, payout, transfer), decided as the compile decides it from the document and its
    ``x-packc``; a stub's policy is not asked, so nothing here is lower than the pack's care."""
    o = pv.override
    care = decide_care(pv.op, pv.name, Said(o.access, o.destructive, by_user=o.by_user))
    if care.access == "read":
        return "read"
    if care.destructive:
        return "destructive"
    thing = singular(pv.resource[-1]) if pv.resource else ""
    return "money" if money_verb(pv, {*pv.resource, thing}) else "write"
