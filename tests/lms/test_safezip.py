"""A zip from elsewhere: unsafe members refused and listed, a cap on what is unpacked, a
broken zip as one line of error."""

from __future__ import annotations

import stat
import zipfile
from pathlib import Path

import pytest

from grader.lms.safezip import SafeZip, ZipReadError


def make_zip(path: Path, members: dict[str, bytes], links: tuple[str, ...] = (),
             compression: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        for name in links:
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, "/etc/passwd")
    return path


def test_names_that_leave_the_folder_and_links_are_refused_and_listed(tmp_path: Path):
    path = make_zip(tmp_path / "d.zip", {"ok_1_2_a.ipynb": b"{}", "../evil_1_2_a.ipynb": b"x",
                                         "/abs_1_2_a.ipynb": b"x", "C:/win_1_2_a.ipynb": b"x",
                                         "a/../../b_1_2_a.ipynb": b"x"}, links=("link_1_2_a.ipynb",))
    download = SafeZip(path)
    assert [m.name for m in download.members] == ["ok_1_2_a.ipynb"]
    refused = "\n".join(download.refused)
    for name, why in (("../evil", "'..'"), ("/abs", "absolute"), ("C:/win", "absolute"), ("a/../../b", "'..'"),
                      ("link_1_2", "a link")):
        assert any(line.startswith(name) and why in line for line in download.refused), (name, refused)
    download.copy(download.members[0], tmp_path / "out.ipynb")
    assert (tmp_path / "out.ipynb").read_bytes() == b"{}"
    download.close()


def test_what_is_unpacked_is_capped(tmp_path: Path):
    path = make_zip(tmp_path / "d.zip", {"a_1_2_x.ipynb": b"0" * 5000, "b_1_3_x.ipynb": b"0" * 5000})
    download = SafeZip(path, max_total=8000)  # each fits, the two together do not
    download.copy(download.members[0], tmp_path / "a")
    with pytest.raises(ZipReadError, match=r"d.zip: b_1_3_x.ipynb unpacks to more than .* the cap"):
        download.copy(download.members[1], tmp_path / "b")
    download.close()


@pytest.mark.parametrize("content", [b"not a zip at all", b"PK\x03\x04 truncated", b""])
def test_a_broken_zip_is_one_line_naming_the_fix(tmp_path: Path, content: bytes):
    path = tmp_path / "d.zip"
    path.write_bytes(content)
    with pytest.raises(ZipReadError) as caught:
        SafeZip(path)
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"{path}: not a readable zip") and "download it again" in message


def test_a_corrupt_member_is_one_line(tmp_path: Path):
    path = make_zip(tmp_path / "d.zip", {"a_1_2_x.ipynb": b"0123456789" * 100}, compression=zipfile.ZIP_STORED)
    raw = bytearray(path.read_bytes())
    raw[raw.index(b"0123456789") + 5] ^= 0xFF  # its checksum no longer matches
    path.write_bytes(bytes(raw))
    download = SafeZip(path)
    with pytest.raises(ZipReadError, match="cannot be unpacked"):
        download.copy(download.members[0], tmp_path / "a")
