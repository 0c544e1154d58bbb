"""The words the ranking's signals look for: signature verbs, admin and plumbing marks, directory nouns."""

from __future__ import annotations

import re

__all__ = ["ADMIN", "ADMIN_TEXT", "DIRECTORY", "EVERYDAY_VERBS", "PLUMBING", "SIGNATURE_VERBS"]

# Verbs an agent is usually asked to do: an API's signature actions (send a message, search, merge),
# and, less so, the everyday create and list.
SIGNATURE_VERBS = frozenset(
    {
        "send",
        "post",
        "search",
        "merge",
        "reply",
        "publish",
        "upload",
        "confirm",
        "capture",
        "refund",
        "approve",
        "comment",
        "share",
        "query",
        "invite",
        "assign",
        "transition",
        "deploy",
        "pay",
        "charge",
        "transfer",
        "translate",
        "transcribe",
    }
)
EVERYDAY_VERBS = frozenset({"create", "list"})
ADMIN = frozenset(
    {
        "admin",
        "admins",
        "administrator",
        "enterprise",
        "enterprises",
        "internal",
        "beta",
        "preview",
        "experimental",
        "legacy",
        "deprecated",
        "alpha",
        "sandbox",
        "test",
        "testing",
        "helpers",
    }
)
PLUMBING = frozenset(
    {
        "settings",
        "setting",
        "permissions",
        "permission",
        "audit",
        "billing",
        "webhook",
        "webhooks",
        "hook",
        "hooks",
        "oauth",
        "token",
        "tokens",
        "secret",
        "secrets",
        "keys",
        "rulesets",
        "configuration",
        "configurations",
        "config",
        "migrations",
        "credentials",
        "credential",
        "runners",
        "runner",
        "usage",
        "quotas",
        "limits",
        "logs",
        "metrics",
        "reports",
        "field",
        "fields",
        "property",
        "properties",
        "metadata",
        "schema",
        "schemas",
        "multipart",
        "presign",
        "presigned",
        "chunk",
        "chunked",
    }
)
# Who is in the API's directory: creating or removing them is an administrator's chore, not an agent's
# everyday work (Stripe Connect accounts, Jira users, GitHub teams, Trello organizations).
DIRECTORY = frozenset(
    {
        "user",
        "team",
        "group",
        "organization",
        "org",
        "member",
        "account",
        "workspace",
        "tenant",
        "role",
        "subaccount",
    }
)
ADMIN_TEXT = re.compile(r"\b(admin|administrators?|enterprise)\b", re.I)
