"""The lint stage: ``packc lint``. The checks live in ``packc_runtime.format.lint`` so packs can lint themselves."""

from packc_runtime.format.lint import CODES, lint_pack

__all__ = ["CODES", "lint_pack"]
