"""What an install downloads, measured from pip's own report: the size of each file that
``pip install --dry-run --report FILE`` would fetch, added up. A local file's size is read from
disk; a remote one's is the ``Content-Length`` of a HEAD request (nothing is downloaded).

    python3 -m venv /tmp/size && /tmp/size/bin/pip install --dry-run --quiet \\
        --report /tmp/size/report.json torch==2.13.0 -e . \\
        --extra-index-url https://download.pytorch.org/whl/cpu
    python3 benchmarks/download_size.py /tmp/size/report.json

prints the total in MB (10^6 bytes) and the largest files. Run from a fresh venv, pip reports
every package it would install; ``2.13.0+cpu`` outranks PyPI's ``2.13.0``, so torch is the CPU build.
"""

from __future__ import annotations

import json
import sys
import urllib.parse
import urllib.request
from pathlib import Path


def file_size(url: str) -> int:
    """The bytes behind ``url``: a ``file://`` path's size, else the server's Content-Length."""
    parsed = urllib.parse.urlparse(url)
    if parsed.scheme == "file":
        return Path(urllib.parse.unquote(parsed.path)).stat().st_size
    with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=60) as reply:
        return int(reply.headers["Content-Length"])


def downloads(report: dict) -> list[tuple[str, int]]:
    """(package, bytes) for each file of pip's installation report, a local project's folder
    (``-e .``, nothing to fetch) left out."""
    found = []
    for item in report["install"]:
        info = item["download_info"]
        if "dir_info" in info:
            continue
        found.append((item["metadata"]["name"], file_size(info["url"])))
    return found


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python3 benchmarks/download_size.py REPORT.json", file=sys.stderr)
        return 2
    sizes = downloads(json.loads(Path(argv[0]).read_text(encoding="utf-8")))
    total = sum(size for _, size in sizes)
    print(f"{total / 1e6:.0f} MB in {len(sizes)} files")
    for name, size in sorted(sizes, key=lambda pair: -pair[1])[:5]:
        print(f"  {name}: {size / 1e6:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
