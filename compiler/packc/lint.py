"""The lint stage: ``packc lint``. The checks live in ``packc_runtime.lint`` so packs can lint themselves."""

from packc_runtime.lint import CODES, lint_pack

__all__ = ["CODES", "lint_pack"]
