"""Reading a zip answer (``GET /games/export``, a night's games) as text, so the tests that read
every route as text (the twin games' leak test, the club key's) compare what is inside it."""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

#: The start of a game in a member's name (``2026-12-05-1942-toepen-<id>.json``), in club time.
STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}-\d{4}-")


def body_text(response: Any) -> str:
    """The response's body as text; a zip as each member's name (its time masked) and text, in order."""
    if response.mimetype != "application/zip":
        return str(response.get_data(as_text=True))
    bundle = zipfile.ZipFile(io.BytesIO(response.get_data()))
    return "".join(f"== {STAMP.sub('<stamp>-', name)}\n{bundle.read(name).decode('utf-8')}\n"
                   for name in bundle.namelist())
