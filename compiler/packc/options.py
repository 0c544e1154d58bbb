"""What a compile is asked to do: one frozen ``CompileOptions``, built once by the CLI or the Python API.

``packc.compile`` and ``packc.plan_source`` take either their keyword arguments or ``options=``; the
CLI builds the options from its flags (``packc.cli``). Every value is checked here, when the options
are made, so a misuse fails before anything is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from packc.curate.goal import check_goal
from packc.errors import UsageError

__all__ = ["CompileOptions", "hand_names"]


@dataclass(frozen=True, slots=True)
class CompileOptions:
    """The options of one compile (``packc compile``) or plan (``packc plan``).

    Each field is the keyword argument of :func:`packc.compile` of the same name (see there);
    ``plan_source`` reads those that bear on a plan and ignores ``out_dir``, ``server``, ``write``,
    ``lint`` and ``repo``. ``include`` and ``exclude`` are tuples of names; a single name, a list or a
    set given instead is checked and kept as that tuple (see :func:`hand_names`).

    Raises:
        UsageError: for an ``include``/``exclude`` that is not names, an empty or overlong ``goal``,
            or ``goal`` with ``split``.
    """

    out_dir: str | Path = "packs"
    split: bool = False
    strict: bool = False
    allow_remote_refs: bool = False
    allow_outside: bool = False
    overlay: str | Path | None = None
    server: str | None = None
    write: bool = True
    lint: bool = True
    repo: bool = False
    goal: str | None = None
    allow_private: bool = False
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    force: bool = False

    def __post_init__(self) -> None:
        # Checked in the order compile always checked them; the names are kept as a tuple so the
        # options stay hashable and equal however they were given (a list from argparse, a set).
        # object.__setattr__ is the frozen dataclass's own way to settle a field while it is made.
        object.__setattr__(self, "include", hand_names(self.include, "include"))
        object.__setattr__(self, "exclude", hand_names(self.exclude, "exclude"))
        check_goal(self.goal)
        if self.split and self.goal is not None:
            raise UsageError(
                "--for picks the verbs of one pack for a task; --split covers every operation. Use one of them."
            )


def hand_names(value: object, name: str) -> tuple[str, ...]:
    """``include=``/``exclude=``: a name, or names (a list, tuple or set; None for none), checked before
    anything is read."""
    if value is None:
        return ()
    if isinstance(value, str):
        value = (value,)
    if isinstance(value, (set, frozenset)):
        value = sorted(value, key=str)
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) and v.strip() for v in value):
        raise UsageError(
            f"{name}= takes operation names (a verb as packc plan shows it, an operationId or "
            f"'METHOD /path'), e.g. {name}=[\"refunds.create\"]; got {value!r:.80}"
        )
    return tuple(value)
