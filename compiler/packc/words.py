"""English for names and titles: singulars of resource words and the forms of action verbs.

Small, rule-based and deterministic (no dictionary download): what path words of real APIs need,
``addresses`` → ``address``, ``statuses`` → ``status``, ``policies`` → ``policy``, ``merge`` →
``merging``/``merged``.
"""

from __future__ import annotations

import functools

__all__ = ["SELF_WORDS", "VERBS", "gerund", "irregular", "is_plural", "past", "phrase", "singular"]

# Words that end in "s" and are singular (or the same in both numbers).
_SINGULAR_S = (
    "ss",
    "us",
    "is",
    "news",
    "series",
    "species",
    "settings",
    "analytics",
    "alias",
    "canvas",
    "gas",
    "atlas",
    "bias",
    "chaos",
    "lens",
    "sms",
    "dns",
    "https",
    "aws",
    "gps",
    "rss",
    "kubernetes",
)
_IRREGULAR = {
    "people": "person",
    "children": "child",
    "men": "man",
    "women": "woman",
    "data": "data",
    "media": "media",
    "criteria": "criterion",
    "indices": "index",
    "matrices": "matrix",
    "vertices": "vertex",
    "analyses": "analysis",
    "bases": "base",
    "leaves": "leaf",
    "knives": "knife",
    "halves": "half",
    "shelves": "shelf",
    "feet": "foot",
    "teeth": "tooth",
    "mice": "mouse",
    "geese": "goose",
    "quizzes": "quiz",
    "responses": "response",
    "licenses": "license",
    "cases": "case",
    "purchases": "purchase",
    "releases": "release",
    "databases": "database",
    "phases": "phase",
    "invoices": "invoice",
    "devices": "device",
    "prices": "price",
    "services": "service",
    "sources": "source",
    "resources": "resource",
    "spaces": "space",
    "places": "place",
    "courses": "course",
    "houses": "house",
    "pages": "page",
    "messages": "message",
    "images": "image",
    "packages": "package",
    "changes": "change",
    "ranges": "range",
    "badges": "badge",
    "edges": "edge",
    "bridges": "bridge",
    "charges": "charge",
    "pledges": "pledge",
    "stages": "stage",
    "usages": "usage",
    "languages": "language",
    "caches": "cache",
    "niches": "niche",
    "avalanches": "avalanche",
    "clauses": "clause",
    "pauses": "pause",
    "causes": "cause",
    "uses": "use",
    "excuses": "excuse",
    "domains": "domain",
    "movies": "movie",
    "cookies": "cookie",
    "zombies": "zombie",
    "calories": "calorie",
    "selfies": "selfie",
    "goodies": "goodie",
    "rookies": "rookie",
    "statuses": "status",
    "aliases": "alias",
    "buses": "bus",
    "canvases": "canvas",
    "gases": "gas",
    "biases": "bias",
    "lenses": "lens",
    "campuses": "campus",
    "viruses": "virus",
    "bonuses": "bonus",
    "censuses": "census",
    "consensuses": "consensus",
    "corpuses": "corpus",
    "focuses": "focus",
    "hashes": "hash",
    "apis": "api",
    "axes": "axis",
    "crises": "crisis",
    "theses": "thesis",
    "diagnoses": "diagnosis",
    "hypotheses": "hypothesis",
    "oases": "oasis",
    "synopses": "synopsis",
    "ellipses": "ellipsis",
    "parentheses": "parenthesis",
    "emphases": "emphasis",
    "appendices": "appendix",
    "addresses": "address",
    "indexes": "index",
    "businesses": "business",
    "processes": "process",
    "accesses": "access",
}
# Nouns in -ie, whose plurals the -ies rule would make -y (movies: movie, not movy).
_IE = frozenset(
    {
        "movie",
        "cookie",
        "zombie",
        "selfie",
        "rookie",
        "hoodie",
        "calorie",
        "genie",
        "goalie",
        "sortie",
        "freebie",
        "prairie",
        "smoothie",
        "brownie",
        "pie",
        "tie",
        "lie",
        "die",
        "birdie",
        "veggie",
        "auntie",
        "budgie",
        "eyrie",
        "lingerie",
        "newbie",
        "pixie",
        "specie",
        "techie",
        "yuppie",
    }
)
# Nouns in -s the same in both numbers, that a stemmer would cut (alias: not alia); singular's
# _SINGULAR_S keeps them too.
_SAME = frozenset({"alias", "canvas", "atlas", "bias", "series", "species", "news"})
_ES_AFTER = ("sses", "shes", "ches", "xes", "zzes")

# Verbs that act: an action word of a path (POST /pulls/{n}/merge) and a name's leading verb.
# Words a path uses for the caller itself (GET /me, /self, /whoami): one object, never a list.
SELF_WORDS = frozenset({"me", "myself", "self", "whoami", "viewer", "identity"})

VERBS = frozenset(
    {
        "accept",
        "acknowledge",
        "activate",
        "add",
        "apply",
        "approve",
        "archive",
        "assign",
        "associate",
        "attach",
        "authorize",
        "authenticate",
        "block",
        "cancel",
        "capture",
        "check",
        "claim",
        "clone",
        "close",
        "commit",
        "complete",
        "confirm",
        "connect",
        "convert",
        "copy",
        "create",
        "deactivate",
        "decline",
        "delete",
        "deliver",
        "deny",
        "deploy",
        "detach",
        "disable",
        "disconnect",
        "dismiss",
        "dispatch",
        "download",
        "duplicate",
        "enable",
        "end",
        "enqueue",
        "execute",
        "expire",
        "export",
        "fail",
        "finalize",
        "follow",
        "fork",
        "generate",
        "grant",
        "hide",
        "import",
        "install",
        "invite",
        "invoke",
        "join",
        "leave",
        "link",
        "lock",
        "login",
        "logout",
        "mark",
        "merge",
        "move",
        "mute",
        "notify",
        "open",
        "pause",
        "pay",
        "ping",
        "pin",
        "post",
        "preview",
        "process",
        "promote",
        "publish",
        "purge",
        "push",
        "query",
        "redeliver",
        "redeem",
        "refresh",
        "refund",
        "reject",
        "release",
        "reload",
        "remove",
        "rename",
        "render",
        "reopen",
        "replace",
        "reply",
        "report",
        "request",
        "rerun",
        "reserve",
        "reset",
        "resend",
        "resolve",
        "restart",
        "restore",
        "resume",
        "retry",
        "return",
        "reverse",
        "revoke",
        "rotate",
        "run",
        "save",
        "scan",
        "schedule",
        "search",
        "send",
        "set",
        "share",
        "sign",
        "simulate",
        "skip",
        "snooze",
        "sort",
        "star",
        "start",
        "stop",
        "submit",
        "subscribe",
        "suspend",
        "sync",
        "test",
        "transfer",
        "trigger",
        "unarchive",
        "unassign",
        "unblock",
        "undo",
        "unfollow",
        "uninstall",
        "unlink",
        "unlock",
        "unmute",
        "unpin",
        "unpublish",
        "unstar",
        "unsubscribe",
        "unsuspend",
        "update",
        "upgrade",
        "upload",
        "validate",
        "verify",
        "void",
        "watch",
        "withdraw",
    }
)
_IRREGULAR_PAST = {
    "send": "sent",
    "get": "got",
    "run": "ran",
    "rerun": "reran",
    "set": "set",
    "put": "put",
    "find": "found",
    "make": "made",
    "read": "read",
    "write": "wrote",
    "pay": "paid",
    "leave": "left",
    "begin": "began",
    "sign": "signed",
    "login": "logged in",
    "logout": "logged out",
    "undo": "undid",
    "resend": "resent",
    "split": "split",
    "reset": "reset",
    "upset": "upset",
    "shut": "shut",
    "cut": "cut",
    "hide": "hid",
    "unhide": "unhid",
    "take": "took",
    "give": "gave",
    "buy": "bought",
}
_IRREGULAR_GERUND = {
    "login": "logging in",
    "logout": "logging out",
    "be": "being",
    "see": "seeing",
    "free": "freeing",
    "agree": "agreeing",
    "die": "dying",
    "lie": "lying",
    "tie": "tying",
}
# Short verbs that double their last consonant (stop → stopped); longer ones say so here.
_DOUBLE = {
    "stop",
    "star",
    "unstar",
    "pin",
    "unpin",
    "ship",
    "plan",
    "drop",
    "run",
    "rerun",
    "get",
    "set",
    "reset",
    "put",
    "cut",
    "shut",
    "split",
    "begin",
    "submit",
    "commit",
    "permit",
    "admit",
    "snap",
    "tag",
    "untag",
    "skip",
    "swap",
    "zip",
    "unzip",
    "chat",
    "wrap",
    "map",
    "tap",
    "grab",
    "log",
    "flag",
    "mute",
    "rob",
    "transfer",
    "refer",
    "prefer",
    "occur",
    "control",
    "patrol",
    "compel",
    "expel",
    "propel",
    "rebel",
}
_VOWELS = "aeiou"


@functools.lru_cache(maxsize=1 << 14)
def singular(word: str) -> str:
    """The singular of a lower-case English noun (the last word of a snake_case name)."""
    head, _, last = word.rpartition("_")
    if not last:
        return word
    out = _singular_word(last)
    return f"{head}_{out}" if head else out


def irregular(word: str) -> str | None:
    """The singular of a lower-case noun the regular rules get wrong (``people``, ``buses``, ``ties``),
    else None. The one noun table: :func:`singular` and the curation's ``stem`` both read it."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word in _SAME:
        return word
    if word.endswith("ies") and word[:-1] in _IE:
        return word[:-1]
    return None


def _singular_word(word: str) -> str:
    known = irregular(word)
    if known is not None:
        return known
    if len(word) <= 2 or not word.endswith("s") or word.endswith(_SINGULAR_S):
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(_ES_AFTER):
        return word[:-2]
    return word[:-1]


def is_plural(word: str) -> bool:
    """Whether a lower-case word (the last of a snake_case name) reads as a plural noun."""
    last = word.rpartition("_")[2]
    return last in _IRREGULAR or _singular_word(last) != last


def _double(verb: str) -> bool:
    return verb in _DOUBLE


def past(verb: str) -> str:
    """The simple past of an action verb: ``merge`` → ``merged``, ``send`` → ``sent``, ``copy`` → ``copied``."""
    if verb in _IRREGULAR_PAST:
        return _IRREGULAR_PAST[verb]
    if verb.endswith("e"):
        return verb + "d"
    if verb.endswith("y") and len(verb) > 1 and verb[-2] not in _VOWELS:
        return verb[:-1] + "ied"
    if _double(verb) and not verb.endswith("e"):
        return verb + verb[-1] + "ed"
    return verb + "ed"


def gerund(verb: str) -> str:
    """The -ing form: ``merge`` → ``merging``, ``stop`` → ``stopping``, ``copy`` → ``copying``."""
    if verb in _IRREGULAR_GERUND:
        return _IRREGULAR_GERUND[verb]
    if verb.endswith("ie"):
        return verb[:-2] + "ying"
    if verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")) and len(verb) > 2:
        return verb[:-1] + "ing"
    if _double(verb):
        return verb + verb[-1] + "ing"
    return verb + "ing"


# Abbreviations of path words that a title spells out.
_SPELLED = {
    "pull": "pull request",
    "repo": "repository",
    "org": "organization",
    "env": "environment",
    "config": "configuration",
    "msg": "message",
    "sub": "subscription",
    "pr": "pull request",
}


def phrase(words: str) -> str:
    """A snake_case resource word as title words: ``pull`` → ``pull request``, ``update_branch`` → ``update branch``."""
    words_ = [w for w in words.split("_") if w]
    # "pull" → "pull request", but not in "pull_request" (already spelled out).
    parts = [
        w
        if i + 1 < len(words_)
        and _SPELLED.get(w, w).rpartition(" ")[2] in (words_[i + 1], singular(words_[i + 1]))
        else _SPELLED.get(w, w)
        for i, w in enumerate(words_)
    ]
    return " ".join(parts)
