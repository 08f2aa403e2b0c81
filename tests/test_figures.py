"""The figures of the README and the install page, where they can be checked cheaply: the quick
start is two commands, and the download size is measured by pip's report (the command the page
gives), not by the size of the venv it leaves."""

from __future__ import annotations

import json
import re
from pathlib import Path

from readme_commands import ROOT, command_lines, quick_start

from benchmarks import download_size

INSTALL = ROOT / "docs" / "instructors" / "install.md"


def test_the_quick_start_is_two_commands():
    assert len(quick_start((ROOT / "README.md").read_text(encoding="utf-8"))) == 2


def test_the_download_figure_is_the_same_and_measured_by_pips_report():
    readme, install = ((path).read_text(encoding="utf-8") for path in (ROOT / "README.md", INSTALL))
    figures = [re.findall(r"downloads about (\d+) MB", " ".join(text.split())) for text in (readme, install)]
    assert figures[0] and figures[0] == figures[1][:1]
    # du measures what the wheels unpack to, not what they download.
    assert not re.search(r"download[^.]*du -sh", " ".join(install.split()) + " ".join(readme.split()))
    # The page's command: pip's dry run writes its report, the script adds up that report's files.
    commands = command_lines(install)
    report = [found.group(1) for line in commands if "pip install --dry-run" in line
              for found in [re.search(r"--report (\S+)", line)] if found]
    measure = [line for line in commands if "benchmarks/download_size.py" in line]
    assert len(report) == 1 and measure == [f"python3 benchmarks/download_size.py {report[0]}"]


def test_the_measure_adds_up_the_files_of_pips_report(tmp_path: Path):
    wheels = {"torch": 3000, "numpy": 500}
    install = [{"metadata": {"name": name}, "download_info": {"url": (tmp_path / f"{name}.whl").as_uri()}}
               for name in wheels]
    for name, size in wheels.items():
        (tmp_path / f"{name}.whl").write_bytes(b"x" * size)
    install.append({"metadata": {"name": "attention-autograder"},
                    "download_info": {"url": ROOT.as_uri(), "dir_info": {"editable": True}}})
    assert download_size.downloads({"install": install}) == [("torch", 3000), ("numpy", 500)]
    (tmp_path / "report.json").write_text(json.dumps({"install": install}))
    assert download_size.main([str(tmp_path / "report.json")]) == 0
