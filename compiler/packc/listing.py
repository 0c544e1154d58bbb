"""``packc plan`` in pieces: every operation as one row, filtered and paged, so an agent finds the
few operations a task needs in an API of a thousand without reading the whole plan."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packc.build.care import CARES, CareWord, care_word
from packc.curate.naming import name_operations
from packc.curate.plan import Plan, PlannedVerb
from packc.errors import UsageError
from packc.model import Api
from packc.options import CompileOptions
from packc.read.overrides import OpOverride, Overrides
from packc.text import sentence

__all__ = ["COLUMNS", "MAX_PER_PAGE", "Listing", "Query", "Row", "list_plan", "listing", "rows_of"]

MAX_PER_PAGE = 500
SUMMARY_LIMIT = 100
# The compact form's columns, in the order each operation's line holds them.
COLUMNS = ("verb", "method", "path", "care", "summary", "rank")


@dataclass(frozen=True, slots=True)
class Query:
    """What to show: ``--resource``, ``--search``, ``--care`` (all must hold), and which page.

    Raises:
        UsageError: a page below 1, a page size outside 1..500, an unknown care, empty words.
    """

    resource: str | None = None
    search: str | None = None
    care: str | None = None
    page: int = 1
    per_page: int = 50

    def __post_init__(self) -> None:
        if self.page < 1:
            raise UsageError(f"--page counts from 1, not {self.page}")
        if not 1 <= self.per_page <= MAX_PER_PAGE:
            raise UsageError(f"--per-page is 1 to {MAX_PER_PAGE}, not {self.per_page}")
        if self.care is not None and self.care not in CARES:
            raise UsageError(f"--care is one of {', '.join(CARES)}, not {self.care!r:.40}")
        for flag, value in (("--resource", self.resource), ("--search", self.search)):
            if value is not None and not value.strip():
                raise UsageError(f"{flag} needs words")

    def matches(self, row: Row) -> bool:
        """True when the row holds every filter."""
        if self.care is not None and row.care != self.care:
            return False
        if self.resource is not None and not _of_resource(row, self.resource.strip().lower()):
            return False
        if self.search is not None:
            text = " ".join([row.verb, row.operation_id or "", row.path, row.summary, *row.tags]).lower()
            return all(word in text for word in self.search.lower().split())
        return True


@dataclass(frozen=True, slots=True)
class Row:
    """One operation: its verb name, request, care, a cleaned summary, its rank in the API, and where
    the plan put it (a pack's id, or None with the reason it was left out)."""

    verb: str
    method: str
    path: str
    operation_id: str | None
    care: CareWord
    summary: str
    rank: int
    score: int | None
    pack: str | None
    reason: str
    resource: tuple[str, ...]
    tags: tuple[str, ...]

    def line(self) -> list[Any]:
        """The compact form: the values of :data:`COLUMNS`."""
        return [self.verb, self.method, self.path, self.care, self.summary, self.rank]

    def to_json(self) -> dict[str, Any]:
        return {
            "verb": self.verb,
            "method": self.method,
            "path": self.path,
            "operationId": self.operation_id,
            "care": self.care,
            "summary": self.summary,
            "rank": self.rank,
            "score": self.score,
            "pack": self.pack,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class Listing:
    """One page of the rows that match a query, with the totals an agent pages by."""

    api: str
    total: int  # operations in the plan
    matched: int  # of them, those the query matches
    page: int
    per_page: int
    rows: tuple[Row, ...]

    @property
    def pages(self) -> int:
        return max(1, -(-self.matched // self.per_page))

    def head(self) -> dict[str, Any]:
        return {
            "api": self.api,
            "total": self.total,
            "matched": self.matched,
            "page": self.page,
            "pages": self.pages,
            "per_page": self.per_page,
        }

    def to_json(self) -> dict[str, Any]:
        return {**self.head(), "operations": [r.to_json() for r in self.rows]}

    def compact_json(self) -> str:
        """The compact form as JSON text: the totals, the columns, then one line per operation."""
        head = json.dumps({**self.head(), "columns": list(COLUMNS)}, ensure_ascii=False)
        lines = ",\n".join("  " + json.dumps(r.line(), ensure_ascii=False) for r in self.rows)
        return head[:-1] + ', "operations": [\n' + lines + ("\n" if lines else "") + "]}"


def _of_resource(row: Row, wanted: str) -> bool:
    """``issues`` matches ``issues.list``, ``repos.issues.create`` and ``GET /repos/{o}/{r}/issues``;
    ``repos.issues`` matches the names that start with it."""
    words = row.verb.split(".")
    segments = [s.lower() for s in row.path.split("/") if s and not s.startswith("{")]
    return (
        row.verb.startswith(wanted + ".")
        or wanted in words[:-1]
        or wanted in row.resource
        or wanted in segments
    )


def rows_of(api: Api, overrides: Overrides, plan: Plan) -> list[Row]:
    """Every operation the plan named, best ranked first (rank 1 is the plan's best)."""
    shapes = {op.key: (res, act) for op, res, act in name_operations(api, api.operations)}
    found: list[tuple[PlannedVerb, str | None, str, int | None]] = []
    for pack in plan.packs:
        found += [(v, pack.id, "", v.score) for v in pack.verbs]
    for lo in plan.left_out:
        res, act = shapes.get(lo.op.key, ((), ""))
        ov = overrides.ops.get(lo.op.key, OpOverride())
        pv = PlannedVerb(lo.name, lo.op, res, act, lo.score or 0, override=ov)
        found.append((pv, None, lo.reason, lo.score))
    # Ranked best first; what was never ranked (excluded, not among a stub's verbs) after, by name.
    found.sort(key=lambda f: (f[3] is None, -(f[3] or 0), f[0].name, f[0].op.key))
    return [
        Row(
            pv.name,
            pv.op.method.upper(),
            pv.op.path,
            pv.op.operation_id,
            care_word(pv),
            sentence(pv.op.summary or pv.op.description, SUMMARY_LIMIT),
            rank,
            score,
            pack,
            reason,
            pv.resource,
            pv.op.tags,
        )
        for rank, (pv, pack, reason, score) in enumerate(found, start=1)
    ]


def listing(rows: Sequence[Row], api_id: str, query: Query) -> Listing:
    """The page of ``rows`` the query asks for."""
    matched = [r for r in rows if query.matches(r)]
    start = (query.page - 1) * query.per_page
    return Listing(
        api_id,
        len(rows),
        len(matched),
        query.page,
        query.per_page,
        tuple(matched[start : start + query.per_page]),
    )


def list_plan(source: str | Path, query: Query, options: CompileOptions | None = None) -> Listing:
    """Plan ``source`` (as ``packc plan`` does, with ``options``) and return the page ``query`` asks for.

    Raises:
        InputError: the source cannot be read.
        UsageError: as :func:`packc.plan_source`.
    """
    from packc.pipeline import PASSES, read_source, run

    ctx = run(read_source(source, options or CompileOptions()), PASSES[:1])
    return listing(rows_of(ctx.api, ctx.overrides, ctx.planned), ctx.planned.api_id, query)
