"""Reading a pack CLI's command line: which verb it calls (or the CLI's own words), and its
arguments, with the verb's ``cli[]`` as the grammar (docs/runtime.md, "Calling a verb")."""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from packc_runtime.calling.args import coerce_cli_value
from packc_runtime.errors import InvalidArgument, UnknownArgument
from packc_runtime.format.identifiers import RESERVED_VERBS
from packc_runtime.format.templating import cli_grammar
from packc_runtime.format.view import VerbView

if TYPE_CHECKING:
    from packc_runtime.calling.pack import Pack

__all__ = [
    "VERB_MARK",
    "Command",
    "Grammars",
    "flags_of",
    "grammars",
    "parse_verb_argv",
    "read_command",
    "server_variables",
]

VERB_MARK = "--"  # ``<cliBin> -- VERB-WORDS``: always a verb, never one of the CLI's own commands


def _match_verb(
    verbs: Container[str], tokens: Sequence[str], spoken: Mapping[tuple[str, ...], str] | None = None
) -> tuple[str | None, list[str]]:
    """The longest run of leading words (up to the first flag) that names a verb, by its name or by
    the command words its ``cli[]`` writes (``spoken``), and what follows it."""
    words = []
    for token in tokens:
        if token.startswith("-"):
            break
        words.append(token)
    for size in range(len(words), 0, -1):
        name = ".".join(words[:size])
        if name in verbs:
            return name, list(tokens[size:])
        if spoken and tuple(words[:size]) in spoken:
            return spoken[tuple(words[:size])], list(tokens[size:])
    return None, list(tokens)


class Grammars(NamedTuple):
    """What the pack's ``cli[]`` lines say about reading a command line (:func:`grammars`):
    ``spoken``, the command words of each verb whose ``cli[]`` writes it otherwise than its name
    (``ledger setup all -y`` is ``setup.apply``); ``literals``, each verb's literal tokens (``-y``)."""

    spoken: Mapping[tuple[str, ...], str]
    literals: Mapping[str, frozenset[str]]


def grammars(verbs: Mapping[str, VerbView]) -> Grammars:
    """The pack's :class:`Grammars`, so every line the pack prints calls the verb it was printed for."""
    spoken: dict[tuple[str, ...], str] = {}
    literals: dict[str, frozenset[str]] = {}
    for name, verb in verbs.items():
        if verb.cli:
            grammar = cli_grammar(verb.cli)
            literals[name] = frozenset(grammar.literals)
            words = grammar.words
            if words and ".".join(words) != name and ".".join(words) not in verbs:
                spoken.setdefault(words, name)
    return Grammars(spoken, literals)


class Command(NamedTuple):
    """What a pack CLI's command line asks for (:func:`read_command`).

    ``action``: ``verb`` (call ``verb`` with the tokens in ``rest``), ``help`` (show ``verb``'s
    form), ``usage`` (the verb list, asked for), ``missing`` (the verb list, as nothing was asked:
    exit 2), ``connect`` or ``mcp`` (the built-in command, its flags in ``rest``), ``unknown``
    (no verb: ``rest`` holds what was typed in its place).
    """

    action: Literal["verb", "help", "usage", "missing", "connect", "mcp", "unknown"]
    verb: str | None
    rest: list[str]


def flags_of(rest: Sequence[str]) -> Sequence[str]:
    """A verb's tokens before ``--``: after it every token is a value, ``--help`` and ``--json`` too."""
    return rest[: rest.index(VERB_MARK)] if VERB_MARK in rest else rest


def _verb_command(verb: str, rest: list[str], own: Container[str] = ()) -> Command:
    """``verb`` called, or its form asked for with ``--help``/``-h`` (unless its ``cli[]`` writes that
    token itself, as ``df -h`` does: ``own``)."""
    flags = [f for f in flags_of(rest) if f not in own]
    return Command("help" if "--help" in flags or "-h" in flags else "verb", verb, rest)


def read_command(verbs: Container[str], argv: Sequence[str], cli: Grammars | None = None) -> Command:
    """The pack CLI's one rule for telling a verb from its own commands (docs/runtime.md, "Verbs
    and the CLI's own commands"):

    1. ``-- VERB-WORDS ...`` is always a verb (``--`` is never a verb's word): the explicit form.
    2. Leading words that name a verb call it, the longest match winning, even when the first word
       is a built-in one: ``help list`` calls ``help.list``, ``connect status`` ``connect.status``.
       Only a verb named exactly ``connect``, ``mcp`` or ``help`` (RESERVED_VERBS: packc never
       makes one, C103) needs rule 1, so ``<cliBin> connect``, which every credential error tells
       a person to run, is always the command.
    3. Otherwise the CLI's own commands: nothing, ``-h``, ``--help`` or ``help`` list the verbs;
       ``help VERB-WORDS`` shows one verb's form (as ``VERB-WORDS --help`` does); ``connect`` and
       ``mcp`` take flags only.
    4. Anything else, a word after ``help``, ``connect`` or ``mcp`` that names no verb included,
       is an unknown verb.
    """
    spoken = cli.spoken if cli else None
    if argv and argv[0] == VERB_MARK:
        verb, rest = _match_verb(verbs, argv[1:], spoken)
        if verb is not None:
            return _verb_command(verb, rest, cli.literals.get(verb, ()) if cli else ())
        return Command("unknown", None, list(argv[1:])) if len(argv) > 1 else Command("missing", None, [])
    if not argv:
        return Command("missing", None, [])
    if argv[0] in ("-h", "--help"):
        return Command("usage", None, list(argv[1:]))
    verb, rest = _match_verb(verbs, argv, spoken)
    if verb is not None and verb not in RESERVED_VERBS:
        return _verb_command(verb, rest, cli.literals.get(verb, ()) if cli else ())
    head, tail = argv[0], list(argv[1:])
    words = bool(tail) and not tail[0].startswith("-")
    if head == "help" and not words:
        return Command("usage", None, tail)
    if head == "help":
        verb, rest = _match_verb(verbs, tail, spoken)
        if verb is not None:
            return Command("help", verb, rest)
    elif head in ("connect", "mcp") and not words:
        return Command("connect" if head == "connect" else "mcp", None, tail)
    return Command("unknown", None, list(argv))


def parse_verb_argv(pack: Pack, verb: str, rest: Sequence[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Split a verb's command line into args (coerced by schema) and options (confirm/json/server).

    The verb's ``cli[]`` is the grammar (:func:`cli_grammar`): its bare ``{{name}}`` tokens are the
    positional values in order (``x-position`` where it has none), its ``--flag {{name}}`` and
    ``--flag={{name}}`` flags fill their argument, and its literal tokens (``-y``) are taken as
    written. Besides, ``--name value`` and ``--name=value`` fill any argument by its own name, a
    flag may repeat, and a boolean flag may stand alone.
    """
    declared = pack.verbs[verb]
    schema = pack.args_schema(verb) or {}
    props: Mapping[str, Any] = schema.get("properties") or {}
    grammar = cli_grammar(declared.cli) if declared.cli else None
    positional = [n for n in grammar.positional if n in props] if grammar else []
    if not positional:
        positional = [
            n
            for _, n in sorted(
                (p.get("x-position", 0), n)
                for n, p in props.items()
                if isinstance(p, Mapping) and isinstance(p.get("x-position"), int)
            )
        ]
    flags: Mapping[str, str] = grammar.flags if grammar else {}
    literals = set(grammar.literals) - {"--json"} if grammar else set()
    # A ``--confirm`` that cli[] writes itself (the ledger's) is the wrapped CLI's token: typed once, it
    # is that literal, never the person's confirmation; typed again, it is (docs/runtime.md).
    own_confirm = "--confirm" in literals
    raw: dict[str, list[str]] = {}
    options: dict[str, Any] = {"confirm": False, "json": False, "server": None, "server_variables": {}}
    bare: list[str] = []
    tokens = list(rest)
    i = 0
    while i < len(tokens):
        token = tokens[i]
        i += 1
        if token == "--":
            bare.extend(tokens[i:])
            break
        if token in literals:
            if token == "--confirm" and own_confirm:
                own_confirm = False
            elif token == "--confirm":
                options["confirm"] = True
            continue
        flag, eq, value = token.partition("=")
        if not token.startswith("--") and flag not in flags:
            bare.append(token)
            continue
        name = flag[2:] if flag.startswith("--") else flag
        if flag not in flags and name in ("confirm", "json") and not eq:
            options[name] = True
            continue
        key = flags.get(flag) or name.replace("-", "_")
        prop = props.get(key, {})
        is_bool = isinstance(prop, Mapping) and prop.get("type") == "boolean"
        if not eq:
            if is_bool and (i >= len(tokens) or tokens[i].startswith("--")):
                value = "true"
            elif i < len(tokens):
                value = tokens[i]
                i += 1
            else:
                raise InvalidArgument(f"Option {flag} needs a value.", argument=key)
        if flag not in flags and name == "server":
            options["server"] = value
            continue
        if flag not in flags and name == "server-var":
            options["server_variables"].update(server_variables([value]))
            continue
        raw.setdefault(key, []).append(value)
    slots = [n for n in positional if n not in raw]  # a slot given by name (--pet_id=-1) is filled
    if len(bare) > len(slots):
        extra = bare[len(slots) :]
        raise UnknownArgument(
            f"{verb} takes {len(slots)} positional value(s); unexpected: {' '.join(extra)}."
        )
    for name, value in zip(slots, bare, strict=False):
        raw[name] = [value]
    args = {name: coerce_cli_value(name, props.get(name) or {}, values) for name, values in raw.items()}
    return args, options


def server_variables(pairs: Sequence[str]) -> dict[str, str]:
    """``NAME=VALUE`` strings (``--server-var``) as a dict."""
    out = {}
    for pair in pairs:
        name, eq, value = pair.partition("=")
        if not eq or not name:
            raise InvalidArgument(f"--server-var needs NAME=VALUE, not {pair!r}.")
        out[name] = value
    return out
