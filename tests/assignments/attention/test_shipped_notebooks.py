"""Every notebook the project ships (the bundle's, the sample class's, those in the sample LMS
downloads) has its cell ids as nbformat wants them: reading and validating it warns nothing
(no MissingIDFieldWarning), and nbformat's normalize has nothing to change."""

from __future__ import annotations

import json
import warnings
import zipfile
from pathlib import Path

import nbformat
import pytest
from bundle_support import BUNDLE_PATH
from nbformat.validator import normalize

ROOT = BUNDLE_PATH.parent


def shipped() -> dict[str, str]:
    """Each shipped notebook's text by where it is; the sample's broken upload, not JSON, left out."""
    found = {str(path.relative_to(ROOT)): path.read_text(encoding="utf-8") for path in sorted(ROOT.rglob("*.ipynb"))}
    for download in sorted((ROOT / "sample_lms").glob("*.zip")):
        with zipfile.ZipFile(download) as archive:
            found.update({f"{download.name}:{name}": archive.read(name).decode("utf-8")
                          for name in archive.namelist() if name.endswith(".ipynb")})
    return {where: text for where, text in found.items() if "broken" not in where}


@pytest.mark.parametrize("where", sorted(shipped()))
def test_a_shipped_notebook_has_normalised_cell_ids(where: str):
    text = shipped()[where]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # MissingIDFieldWarning, DuplicateCellId
        nbformat.validate(nbformat.reads(text, as_version=4))
        changes, _ = normalize(json.loads(text))
    assert changes == 0


def test_the_shipped_notebooks_are_found():
    names = [Path(where.split(":")[-1]).name for where in shipped()]
    assert names.count("attention_numpy.ipynb") >= 5 and len(names) >= 20
