"""Whether two runs wrote the same outputs: every file of two `python -m grader grade` output
folders compared byte for byte, after masking only what measures time (`seconds`, `started`,
`execution_time` in JSON; `time="..."` in JUnit; the class report's start and timing section)
and the order students finished in (results.json's list, JUnit's test suites).

    python tests/same_outputs.py BEFORE AFTER      # exit 0: the same; 1: the files that differ

A restructuring should leave a run's outputs unchanged for a fixed seed: grade the same class
with the same --seed before and after, and compare.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

TIMES = ("seconds", "started", "execution_time")
SUITE = re.compile(rb"<testsuite .*?</testsuite>|<testsuite [^>]*/>", re.S)


def _untimed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: ("T" if k in TIMES else _untimed(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def comparable(path: Path) -> bytes:
    """``path``'s bytes with its timings masked and completion order undone."""
    data = path.read_bytes()
    if path.suffix == ".json":
        doc = _untimed(json.loads(data))
        if isinstance(doc, dict):
            for key, value in doc.items():
                if isinstance(value, list) and value and all(isinstance(v, dict) and "student" in v for v in value):
                    doc[key] = sorted(value, key=lambda v: v["student"])
        return json.dumps(doc, sort_keys=True).encode()
    if path.suffix == ".xml":
        data = re.sub(rb'time="[0-9.]+"', b'time="T"', data)
        return SUITE.sub(b"", data) + b"".join(sorted(SUITE.findall(data)))
    if path.name == "report.html":
        data = re.sub(rb"started [0-9T:+-]+", b"started T", data)
        return re.sub(rb'(<h2 id="time">.*?)(?=<h2)', b"T", data, flags=re.S)
    return data


def differences(before: Path, after: Path) -> list[str]:
    files = {side: {p.relative_to(side) for p in side.rglob("*") if p.is_file()} for side in (before, after)}
    found = [f"only in {side}: {name}" for side in (before, after)
             for name in sorted(files[side] - files[after if side == before else before])]
    return found + [f"differs: {name}" for name in sorted(files[before] & files[after])
                    if comparable(before / name) != comparable(after / name)]


def main(argv: list[str]) -> int:
    if len(argv) != 2 or not all(Path(a).is_dir() for a in argv):
        print("usage: python tests/same_outputs.py BEFORE_OUT AFTER_OUT (two output folders)", file=sys.stderr)
        return 2
    before, after = (Path(a) for a in argv)
    found = differences(before, after)
    for line in found:
        print(line)
    print(f"{len({p for p in before.rglob('*') if p.is_file()})} files; {len(found)} differences")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
