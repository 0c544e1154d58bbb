"""The security area's shared hostile inputs (``sec_ident_hostile``, ``sec_runtime_servers``) sit one
folder up; tests of internals import them by name as the area's own tests do."""

from __future__ import annotations

import sys
from pathlib import Path

AREA = str(Path(__file__).resolve().parents[1])
if AREA not in sys.path:
    sys.path.insert(0, AREA)
