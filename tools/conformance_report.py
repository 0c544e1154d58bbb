"""The conformance table and findings, as text for a person (the JSON report is the full record)."""

from __future__ import annotations

from collections import Counter
from typing import Any

MAX_LISTED = 40


def _row(cells: list[str], widths: list[int]) -> str:
    return "  ".join(
        c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
    )


def table(docs: list[dict[str, Any]]) -> str:
    """One row per document, then the totals."""
    head = ["document", "compile", "packs", "verbs", "ok", "rejected", "not called", "crash", "s"]
    rows = []
    totals = Counter[str]()
    for doc in docs:
        verbs = doc["verbs"]
        counts = Counter(v["outcome"] for v in verbs)
        crash = counts["crash"] + (1 if doc["compiled"] == "crash" else 0)
        rows.append(
            [
                doc["doc"],
                doc["compiled"],
                f"{doc['packsRun']}/{doc['packs']}",
                str(len(verbs)),
                str(counts["ok"]),
                str(counts["rejected"]),
                str(counts["not_called"]),
                str(crash),
                f"{doc['seconds']:.0f}",
            ]
        )
        totals.update(
            {
                "verbs": len(verbs),
                "ok": counts["ok"],
                "rejected": counts["rejected"],
                "not_called": counts["not_called"],
                "crash": crash,
                "packs": doc["packsRun"],
                "compiled": int(doc["compiled"] == "ok"),
                "seconds": int(doc["seconds"]),
            }
        )
    rows.append(
        [
            f"TOTAL ({len(docs)} documents, {totals['compiled']} compiled)",
            "",
            str(totals["packs"]),
            str(totals["verbs"]),
            str(totals["ok"]),
            str(totals["rejected"]),
            str(totals["not_called"]),
            str(totals["crash"]),
            str(totals["seconds"]),
        ]
    )
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    lines = [_row(head, widths), "  ".join("-" * w for w in widths)]
    lines += [_row(r, widths) for r in rows]
    return "\n".join(lines)


def findings(docs: list[dict[str, Any]]) -> str:
    """Rejected requests (each one), why verbs were not called (grouped), crashes (each one)."""
    out: list[str] = []
    rejected = [(d["doc"], v) for d in docs for v in d["verbs"] if v["outcome"] == "rejected"]
    reasons = Counter(v["reason"] for _, v in rejected)
    out.append(
        f"Rejected by Prism: {len(rejected)} "
        f"({', '.join(f'{k} {n}' for k, n in sorted(reasons.items())) or 'none'})"
    )
    flagged = Counter(code for _, v in rejected for code in v.get("flagged") or [])
    if flagged:
        out.append(
            f"  of which the compiler warned that the document cannot be met as written: "
            f"{sum(1 for _, v in rejected if v.get('flagged'))} "
            f"({', '.join(f'{k} {n}' for k, n in sorted(flagged.items()))})"
        )
    for doc, v in rejected[:MAX_LISTED]:
        request = v["exchanges"][0]["request"][:160] if v["exchanges"] else "?"
        warned = f" (compile warned: {', '.join(v['flagged'])})" if v.get("flagged") else ""
        out.append(f"  [{v['reason']}] {doc} {v['pack']} {v['verb']}{warned}: {request}")
        out.append(f"      {v['detail']}")
    if len(rejected) > MAX_LISTED:
        out.append(f"  ... {len(rejected) - MAX_LISTED} more in the JSON report")
    not_called = Counter(v["reason"] for d in docs for v in d["verbs"] if v["outcome"] == "not_called")
    out.append(f"Not called: {sum(not_called.values())}")
    for reason, n in not_called.most_common():
        example = next(
            f"{d['doc']} {v['verb']}: {v['detail']}"
            for d in docs
            for v in d["verbs"]
            if v["outcome"] == "not_called" and v["reason"] == reason
        )
        out.append(f"  {n:4d}  {reason}  (e.g. {example[:200]})")
    refused = [d for d in docs if d["compiled"] == "refused"]
    out.append(f"Compile refused (clean diagnostics): {len(refused)}")
    for d in refused:
        out.append(f"  {d['doc']}: {d['compileDetail']}")
    crashes = [(d["doc"], "compile", d["compileDetail"]) for d in docs if d["compiled"] == "crash"]
    crashes += [
        (d["doc"], f"{v['pack']} {v['verb']}", f"{v['reason']}: {v['detail']}")
        for d in docs
        for v in d["verbs"]
        if v["outcome"] == "crash"
    ]
    out.append(f"Crashes: {len(crashes)}")
    for doc, where, detail in crashes:
        out.append(f"  {doc} {where}: {detail}")
    synthesized = sum(1 for d in docs for v in d["verbs"] if v["synthesized"])
    out.append(f"Verbs called with a synthesized value for a required arg that had no example: {synthesized}")
    return "\n".join(out)
