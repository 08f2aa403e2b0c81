"""Reading a zip that came from elsewhere without trusting it: no member is written where its
name says (the caller names every target), members whose names would leave the folder
(``../``, absolute names, drive letters) or that are links are refused and listed, what is
unpacked is capped in size, and a broken zip is one line of error."""

from __future__ import annotations

import re
import stat
import time
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

# A notebook larger than this could not be graded anyway (grader.submissions.load reads at most 20 MiB).
MAX_MEMBER_BYTES = 20 * 1024 * 1024
# All that one download may unpack: a class of a thousand students' notebooks is a few hundred MiB.
MAX_TOTAL_BYTES = 2 * 1024 * 1024 * 1024
_CHUNK = 1 << 20
_DRIVE = re.compile(r"^[A-Za-z]:")


class ZipReadError(ValueError):
    """The zip cannot be read, or unpacks to more than the cap; the message names the fix."""


@dataclass(frozen=True)
class Member:
    name: str  # "/" separated, relative, without "." or ".." parts
    size: int  # as the zip declares it (what is read is counted again)
    mtime: float  # seconds since the epoch, from the zip's date and time (local time, as zips have)
    info: zipfile.ZipInfo


def unsafe_reason(info: zipfile.ZipInfo) -> str | None:
    """Why a member must not be unpacked, or None."""
    name = info.filename.replace("\\", "/")
    if name.startswith("/") or _DRIVE.match(name):
        return "an absolute name"
    if ".." in name.split("/"):
        return "a name with '..', which would leave the folder"
    if stat.S_ISLNK(info.external_attr >> 16):
        return "a link"
    if info.flag_bits & 0x1:
        return "encrypted"
    if info.file_size > MAX_MEMBER_BYTES:
        return f"{info.file_size // 1024 // 1024} MiB, more than {MAX_MEMBER_BYTES // 1024 // 1024} MiB"
    return None


class SafeZip:
    """A zip opened for reading: its safe ``members``, the ``refused`` ones with why, and
    ``copy`` to unpack one member to a path the caller chose."""

    def __init__(self, path: Path, max_total: int = MAX_TOTAL_BYTES) -> None:
        self.path = path
        self.max_total = max_total
        self.unpacked = 0
        try:
            self._zip = zipfile.ZipFile(path)
            infos = self._zip.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError) as exc:
            raise ZipReadError(f"{path}: not a readable zip ({exc}); download it again") from exc
        self.members: list[Member] = []
        self.refused: list[str] = []
        for info in infos:
            if info.is_dir():
                continue
            why = unsafe_reason(info)
            if why is not None:
                self.refused.append(f"{info.filename} ({why}; not unpacked)")
                continue
            parts = [p for p in info.filename.replace("\\", "/").split("/") if p not in ("", ".")]
            try:
                mtime = _epoch(info.date_time)
            except (ValueError, OverflowError):
                mtime = 0.0
            self.members.append(Member("/".join(parts), info.file_size, mtime, info))

    def copy(self, member: Member, target: Path) -> None:
        """Unpack ``member`` into ``target``, counting what is really read (a member may
        declare less than it holds) against the cap."""
        written = 0
        try:
            with self._zip.open(member.info) as source, open(target, "wb") as sink:
                while chunk := source.read(_CHUNK):
                    written += len(chunk)
                    self.unpacked += len(chunk)
                    if written > MAX_MEMBER_BYTES or self.unpacked > self.max_total:
                        raise ZipReadError(
                            f"{self.path}: {member.name} unpacks to more than it declares or than the cap "
                            f"({self.max_total // 1024 // 1024} MiB for the whole download); check the download")
                    sink.write(chunk)
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as exc:
            raise ZipReadError(f"{self.path}: {member.name} cannot be unpacked ({exc}); download it again") from exc

    def close(self) -> None:
        self._zip.close()


def _epoch(date_time: tuple[int, int, int, int, int, int]) -> float:
    return time.mktime((*date_time, 0, 0, -1))
