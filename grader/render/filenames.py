"""File names derived from student ids, safe on any file system whatever the id holds."""

from __future__ import annotations

import hashlib
import re
import unicodedata

MAX_BYTES = 100  # well under the 255-byte limit of a name, with room for a suffix
# Path separators, NUL and what Windows forbids (results are often zipped and shared).
_FORBIDDEN = re.compile(r'[/\\:*?"<>|\x00-\x1f\x7f]')
_RESERVED = re.compile(r"^(con|prn|aux|nul|com[1-9]|lpt[1-9])(\..*)?$", re.IGNORECASE)


def safe_name(student: str) -> str:
    """``student`` itself when it is a plain, short name; otherwise a readable shortening
    plus a hash of the whole id, so that two ids never share a name."""
    name = unicodedata.normalize("NFC", student)
    name = "".join("_" if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp") else c for c in name)
    name = _FORBIDDEN.sub("_", name).strip(" .")
    if _RESERVED.match(name):
        name = f"_{name}"
    short = name.encode("utf-8")[:MAX_BYTES].decode("utf-8", errors="ignore")
    if short == student and short:
        return short
    digest = hashlib.sha256(student.encode("utf-8", errors="surrogateescape")).hexdigest()[:10]
    return f"{short}-{digest}" if short else digest
