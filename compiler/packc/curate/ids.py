"""Pack ids and display names: the API's brand, as a person would name the pack.

The brand comes from the server host's registrable-domain label (``api.github.com`` → ``github``,
``slack.com/api`` → ``slack``), else the ``x-logo`` URL, and joins what the title says beyond it
(``Twilio - Chat`` → ``twilio-chat``, HubSpot's ``CRM cards`` → ``hubspot-crm-cards``). Ids are cut
by whole words, never mid-word, and fit the identifier grammar ``[a-z][a-z0-9]*(-[a-z0-9]+)*``.
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from collections.abc import Mapping, Sequence
from urllib.parse import urlparse

from packc.model import Api

__all__ = ["ID_WORDS", "api_id", "api_slug", "brand", "cut_id", "display_name"]

ID_WORDS = 30  # characters an API id keeps (whole words)

# Title words that say what the document is, not what the API is.
_NOISE = re.compile(
    r"^(api|apis|rest|restful|openapi|swagger|spec|specs|specification|definitions?|official|"
    r"extensions?|http|https|the|service|services|web|json|endpoints?|reference|docs?|"
    r"v\d+([._]\d+)*[a-z]*\d*|\d+([._]\d+)+)$"
)
_META = re.compile(r"\b(official|openapi|swagger|spec|specification|definitions?|extensions?)\b", re.I)
# Registrable domains of platforms and hosting, whose label names no API owner.
_PLATFORMS = {
    "amazonaws.com",
    "azure-api.net",
    "azurewebsites.net",
    "cloudapp.net",
    "azure.com",
    "herokuapp.com",
    "appspot.com",
    "cloudfunctions.net",
    "googleusercontent.com",
    "githubusercontent.com",
    "googleapis.com",
    "example.com",
    "example.org",
    "example.net",
    "ngrok.io",
    "ngrok-free.app",
    "vercel.app",
    "netlify.app",
    "github.io",
    "gitlab.io",
    "cloudfront.net",
    "firebaseapp.com",
    "web.app",
    "run.app",
    "onrender.com",
    "fly.dev",
    "workers.dev",
    "pages.dev",
    "blogspot.com",
    "wordpress.com",
    "twimg.com",
    "tumblr.com",
    "imgur.com",
    "wikimedia.org",
    "gstatic.com",
    "myshopify.com",
    "akamaized.net",
    "fastly.net",
    "s3.amazonaws.com",
}
_RESERVED_TLDS = {"example", "test", "local", "localhost", "invalid", "internal", "lan", "home"}
# Second-level suffixes under a country code: the brand is the label before them.
_SECOND_LEVEL = {"co", "com", "net", "org", "gov", "ac", "edu", "ne", "or", "go", "gob", "nic"}
# Hosts whose first path segment names the account (the logo ``twitter.com/stripe/profile_image``).
_ACCOUNT_HOSTS = {
    "twitter.com",
    "x.com",
    "github.com",
    "gitlab.com",
    "facebook.com",
    "instagram.com",
    "linkedin.com",
    "medium.com",
}


def _words(text: str) -> list[str]:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    ascii_text = re.sub(r"['\u2019]s\b", "", ascii_text)  # GitHub's → github
    return [w for w in re.split(r"[^a-z0-9]+", ascii_text) if w]


def _label(host: str) -> str:
    """The registrable-domain label of a host (``api.stripe.com`` → ``stripe``, ``x.co.uk`` → ``x``)."""
    host = host.lower().rstrip(".")
    try:
        ipaddress.ip_address(host.strip("[]"))
        return ""
    except ValueError:
        pass
    labels = [x for x in host.split(".") if x]
    if len(labels) < 2 or labels[-1] in _RESERVED_TLDS or ".".join(labels[-2:]) in _PLATFORMS:
        return ""
    if len(labels) >= 3 and len(labels[-1]) == 2 and labels[-2] in _SECOND_LEVEL:
        return labels[-3]
    return labels[-2]


def _host_brand(url: str, account: bool = True) -> str:
    """The brand a URL names; with ``account``, a profile URL's account (a logo on ``twitter.com/stripe``).
    A server is the API itself: ``gitlab.com/api`` is GitLab's, not an account named "api"."""
    parsed = urlparse(url)
    host = parsed.hostname or ""
    if account and (host in _ACCOUNT_HOSTS or host.removeprefix("www.") in _ACCOUNT_HOSTS):
        first = next((s for s in parsed.path.split("/") if s), "")
        words = _words(first)
        return words[0] if len(words) == 1 else ""
    label = _label(host) if "{" not in host else ""
    words = _words(label)
    return words[0] if len(words) == 1 and not words[0].isdigit() else ""


def brand(api: Api) -> str:
    """The API owner's one-word brand, or ``''``: the server host's registrable label (a platform
    host such as ``amazonaws.com`` or ``example.com`` names no one); the ``x-logo`` URL's when that
    label is an API domain of its own (``api.hubapi.com``, logo on ``hubspot.com``)."""
    host = next((b for b in (_host_brand(s.url, account=False) for s in api.servers) if b), "")
    if "api" not in host:
        return host
    # A host label that is itself an API domain (api.hubapi.com) yields to the logo's (hubspot).
    info = api.document.get("info")
    logo = info.get("x-logo") if isinstance(info, Mapping) else None
    if isinstance(logo, Mapping) and isinstance(logo.get("url"), str):
        return _host_brand(logo["url"]) or host
    return host


def _title_words(title: str) -> list[str]:
    head = re.split(r"\s[+(|]\s?|\s[\u2013\u2014]\s|\(", title, maxsplit=1)[
        0
    ]  # "... spec + Octokit extension"
    words = _words(head)
    kept = [w for w in words if not _NOISE.match(w)]
    return kept if kept else ([] if words and all(_NOISE.match(w) for w in words) else words)


def cut_id(text: str, limit: int) -> str:
    """``text`` (hyphen-joined words) cut to ``limit`` characters by dropping whole words from the end."""
    words = [w for w in text.split("-") if w]
    while len(words) > 1 and len("-".join(words)) > limit:
        words.pop()
    out = "-".join(words)
    return out if len(out) <= limit else out[:limit].rstrip("-")


def _spelled(words: Sequence[str], owner: str) -> int:
    """How many of the title's first words spell the brand: ``Square`` on squareup.com (1), ``City
    Context`` on citycontext.com (2); 0 when they do not (the brand then leads)."""
    for n in range(len(words), 0, -1):
        joined = "".join(words[:n])
        if joined == owner or (len(joined) >= 4 and owner.startswith(joined)):
            return n
    return 0


def api_slug(title: str, owner: str = "", vocabulary: Sequence[set[str]] = ()) -> str:
    """A pack id from an API title and its brand: ``GitHub v3 REST API`` → ``github``; the brand
    leads when the title does not name it (``CRM cards`` of hubspot → ``hubspot-crm-cards``), in
    the title's spelling when it names it another way (``Square Connect`` on squareup.com). With
    ``vocabulary`` (each operation's host, path and tag words), the title's words beyond the brand
    stay only when they name what most operations are about: a title that names one part of the
    API (SendGrid's whole API titled "Email Activity (beta)") gives the brand alone. ``api`` when
    nothing is left."""
    words = _title_words(title)
    if owner:
        n = _spelled(words, owner)
        # The title's spelling when it is shorter than the host's (square, not squareup); one word
        # when the title spaces the brand (citycontext, not city-context).
        spelled, rest = ("".join(words[:n]), words[n:]) if n else (owner, [w for w in words if w != owner])
        if rest and vocabulary and 2 * sum(1 for said in vocabulary if _about(rest, said)) < len(vocabulary):
            rest = []
        words = [spelled, *rest]
    out = cut_id("-".join(words), ID_WORDS)
    if out and out[0].isdigit():
        out = "n" + out
    return out or "api"


def _about(title: Sequence[str], said: set[str]) -> bool:
    return any(w in said or f"{w}s" in said or w.rstrip("s") in said for w in title)


def api_id(api: Api) -> str:
    """The pack id of an API (``--split`` packs add their group to it)."""
    hosts = {w for s in api.servers for w in _words(urlparse(s.url).hostname or "")}
    vocabulary = [
        hosts | set(_words(op.path)) | {w for t in op.tags for w in _words(t)} for op in api.operations
    ]
    return api_slug(api.info.title, brand(api), vocabulary)


def task_id(api: str, goal: str, limit: int) -> str:
    """The id of a ``--for`` pack: the API's id and the task's first words that name something
    (``slack`` + "post messages to a channel" → ``slack-post-messages-channel``: three words), so it never takes
    the folder of the API's one pack or of another task's. Deterministic: the same task, the same id."""
    from packc.curate._task_words import STOP  # the task's function words, read the way goal.py reads them

    words = [w for w in _words(goal) if w not in STOP and w != api][:3] or ["task"]
    return cut_id("-".join([api, *words]), limit)


def display_name(title: str, fallback: str) -> str:
    """The pack's display name: the title without what says it is a document (``GitHub's official
    OpenAPI spec + Octokit extension`` → ``GitHub``); the id when nothing is left."""
    head = re.split(r"\s[+(|]\s?|\s[\u2013\u2014]\s|\(", title, maxsplit=1)[0]
    head = _META.sub(" ", head)
    head = re.sub(r"['\u2019]s\s*$", "", " ".join(head.split())).strip(" -:,")
    # A title that ends by saying it is an API ("Twilio - Api", "Stripe API"): a README that says
    # "the Stripe API" would double it.
    while (cut := re.sub(r"(?i)[\s:,-]*\b(api|apis|rest|restful)$", "", head).strip(" -:,")) != head and cut:
        head = cut
    return head or fallback


def group_words(words: Sequence[str]) -> list[str]:
    """Words of a group key without version tokens (``api20100401-account`` → ``account``)."""
    out = [w for w in words if not re.fullmatch(r"(api)?v?\d+([._]\d+)*[a-z]*\d*", w)]
    return out or list(words)
