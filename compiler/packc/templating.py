"""``{{placeholder}}`` templates; the rules live in ``packc_runtime.templating``, shared with the runtime."""

from packc_runtime.templating import PLACEHOLDER, example_line, placeholders

__all__ = ["PLACEHOLDER", "example_line", "placeholders"]
