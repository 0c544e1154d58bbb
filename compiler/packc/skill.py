"""packc's own skill file (the Agent Skills format): how a coding agent builds a pack with packc.

It ships inside the package (``agent_skill/packc/SKILL.md``); ``packc skill`` prints it and
``packc skill --install DIR`` writes ``DIR/packc/SKILL.md``.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from packc.errors import UsageError

__all__ = ["SKILL_NAME", "install_skill", "skill_text"]

SKILL_NAME = "packc"  # the skill's folder name, as its front matter's name must be


def skill_text() -> str:
    """The text of packc's ``SKILL.md``."""
    return (
        resources.files("packc").joinpath("agent_skill", SKILL_NAME, "SKILL.md").read_text(encoding="utf-8")
    )


def install_skill(directory: str | Path, *, force: bool = False) -> Path:
    """Write ``directory/packc/SKILL.md`` (the folders are made); the same file already there is kept.

    Returns:
        The path of the file.

    Raises:
        UsageError: a different file is there and ``force`` is not given, or a folder is in the way.
    """
    target = Path(directory) / SKILL_NAME / "SKILL.md"
    text = skill_text()
    if target.is_symlink() or (target.exists() and not target.is_file()):
        raise UsageError(f"{target} is not a regular file; remove it first")
    if target.exists() and target.read_text(encoding="utf-8", errors="replace") != text and not force:
        raise UsageError(f"{target} exists and differs from packc's skill; pass --force to replace it")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from None
    return target
