"""Winnowed fingerprints of a token sequence (Schleimer, Wilkerson and Aiken 2003, the method of
MOSS and copydetect): every run of ``K + W - 1`` tokens two programs share gives both at least
one common fingerprint, which keeps the lines it covers."""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np

from ..records.code import Print

K = 5  # tokens per k-gram
W = 4  # k-grams per window
_BASE = np.uint64(0x9E3779B97F4A7C15)  # an odd multiplier for the k-gram hash (the golden ratio's)


def prints(texts: Sequence[str], lines: Sequence[int]) -> tuple[Print, ...]:
    if len(texts) < K:
        return ()
    ids = np.fromiter((_token_id(text) for text in texts), dtype=np.uint64, count=len(texts))
    n = len(texts) - K + 1
    hashes = np.zeros(n, dtype=np.uint64)
    for j in range(K):  # sum of id * BASE ** (K - 1 - j), wrapping at 2 ** 64
        hashes = hashes * _BASE + ids[j:j + n]
    at = np.lib.stride_tricks.sliding_window_view(np.asarray(lines), K)
    first, last = at.min(axis=1), at.max(axis=1)  # reordered statements: a k-gram's lines need not be in order
    return tuple((int(hashes[j]), int(first[j]), int(last[j])) for j in winnow(hashes))


_IDS: dict[str, int] = {}


def _token_id(text: str) -> int:
    # Two 32-bit checksums in one 64-bit number: stable across processes (unlike ``hash``), so
    # that a run's report does not depend on the interpreter's hash seed. Cached: a class
    # repeats a few hundred tokens.
    found = _IDS.get(text)
    if found is None:
        data = text.encode()
        found = _IDS[text] = zlib.crc32(data) << 32 | zlib.adler32(data)
    return found


def winnow(hashes: Sequence[int] | np.ndarray, window: int = W) -> list[int]:
    """The positions winnowing keeps: the rightmost smallest hash of every window, in order
    (with the rightmost minimum, a later window never picks an earlier position)."""
    values = np.asarray(hashes, dtype=np.uint64)
    if len(values) <= window:
        return [] if not len(values) else [len(values) - 1 - int(np.argmin(values[::-1]))]
    windows = np.lib.stride_tricks.sliding_window_view(values, window)
    at = np.arange(len(windows)) + window - 1 - np.argmin(windows[:, ::-1], axis=1)
    return at[np.concatenate(([True], at[1:] != at[:-1]))].tolist()
