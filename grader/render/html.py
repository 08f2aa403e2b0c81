"""What the HTML reporters share: a self-contained page (inline style and inline SVG, no
script and no external resource: it opens offline and survives being e-mailed), escaping,
and the heatmaps of an item's public example, drawn in this (trusted) process from the plain
tables that came back from the sandbox.

The heatmaps are SVG written here with Matplotlib's colour maps: a Matplotlib figure per
picture cost about 0.15 s (a dozen per student), which would have made the pictures a large
share of a class run; writing the cells as SVG costs a few milliseconds.
"""

from __future__ import annotations

import functools
import html
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from ..records.results import PICTURE_ENTRIES, Picture, Table

STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 62em; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.2em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.5em 0; } td, th { padding: 0.15em 0.6em; text-align: left; }
tr:nth-child(even) { background: #f6f6f6; } th { border-bottom: 1px solid #999; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.pass { color: #1a7f37; } .fail { color: #c62828; font-weight: 600; }
.problem { background: #fff4e5; border-left: 4px solid #f0a030; padding: 0.4em 0.8em; margin: 0.5em 0; }
.diagnosis { background: #eef4ff; border-left: 4px solid #3d6fd9; padding: 0.4em 0.8em; margin: 0.5em 0; }
pre { background: #f4f4f4; padding: 0.6em; overflow-x: auto; white-space: pre-wrap; }
figure { margin: 0.8em 0; } figcaption { font-size: 0.92em; color: #444; }
figure svg { max-width: 100%; height: auto; }
ul.checks { list-style: none; padding-left: 0.3em; }
"""

# How each kind of table is coloured: colour map and its fixed range, so that two pictures of
# a kind compare by eye.
_COLOURS = {"weights": ("viridis", 0.0, 1.0), "mask": ("cividis", 0.0, 1.0), "table": ("RdBu", -1.0, 1.0)}
_ANNOTATE_UP_TO = 6  # tables with at most this many rows and columns show their numbers too
_NAN = "#ff00ff"  # a NaN or infinite entry, in every colour map (the legend says so when there is one)


def esc(text: str) -> str:
    return html.escape(text, quote=True)


STUDENTS_NAMED = 12  # students named in a row of the class report before "and N more"


def who(names: Sequence[str]) -> str:
    """The first ``STUDENTS_NAMED`` of ``names``, escaped, and how many more there are."""
    shown = ", ".join(esc(s) for s in names[:STUDENTS_NAMED])
    return shown + (f" and {len(names) - STUDENTS_NAMED} more" if len(names) > STUDENTS_NAMED else "")


def page(title: str, body: Sequence[str], head: Sequence[str] = ()) -> str:
    """A whole HTML document: ``body`` and ``head`` (more of the head's elements, such as a
    content security policy, which counts only there) are already-escaped markup."""
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">', *head,
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title>", f"<style>{STYLE}</style>", "</head>", "<body>", *body, "</body>", "</html>",
    ]) + "\n"


def picture_figure(p: Picture, uid: str) -> str:
    """The student's table beside the expected one as inline SVG, the student's wrong entries
    outlined in red, and a caption that says in words what differs. ``uid``: an id unique in
    the page (for the colour scale's gradient)."""
    bounded = _bounded(p)
    if bounded is None:
        return f'<figure class="picture"><figcaption><code>{esc(p.title)}</code>: too large to draw</figcaption>' \
               "</figure>"
    p = bounded
    expected = _array(p.expected)
    student = _array(p.student) if p.student is not None else None
    rows, cols, cw, ch = _layout(p)
    margin_left, margin_top, gap = 34, _TOP, 50
    width, height = margin_left + cols * cw, margin_top + rows * ch
    outlined = _outlined(p)
    wrong = p.wrong[:_MAX_OUTLINED] if outlined else ()
    panels = [_panel(p, student, "your code", "student", cw, ch, 0, wrong),
              _panel(p, expected, "expected", "expected", cw, ch, width + gap, ())]
    scale = min(rows * ch, 200) if p.kind != "mask" else 32
    legend = _legend(p.kind, 2 * width + gap + 14, margin_top, scale, uid)
    total_w, total_h = 2 * width + gap + (120 if p.kind == "mask" else 80), height + 26
    if student is not None and not np.isfinite(student).all():  # the colour of NaN, said once
        legend += (f'<rect x="{2 * width + gap + 14}" y="{margin_top + scale + 14}" width="12" height="12" '
                   f'fill="{_NAN}"/><text x="{2 * width + gap + 30}" y="{margin_top + scale + 24}">NaN or inf</text>')
        total_w = max(total_w, 2 * width + gap + 110)
        total_h = max(total_h, margin_top + scale + 34)
    if p.wrong and not outlined:
        panels.append(_differences(p, p.wrong, rows, cols, cw, ch, total_w))
        total_w += width + 20
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w}" height="{total_h}" '
           f'viewBox="0 0 {total_w} {total_h}" font-family="sans-serif" font-size="11" shape-rendering="crispEdges" '
           'role="img" '
           f'aria-label="{esc(p.title)}: your code beside the expected {p.kind}">'
           + "".join(panels) + legend + "</svg>")
    return (f'<figure class="picture">{svg}<figcaption><code>{esc(p.title)}</code>: '
            f"{esc(describe(p))}</figcaption></figure>")


def _bounded(p: Picture) -> Picture | None:
    """``p`` as it may be drawn, whatever its result claims: None where the expected table is
    larger than a picture's (``PICTURE_ENTRIES``), without the student's table where that one
    is, and with only the wrong entries inside both tables. A page's work then follows from
    ``PICTURE_ENTRIES``, not from what a result holds."""
    if not _fits(p.expected):
        return None
    if p.student is not None and not _fits(p.student):
        return replace(p, student=None, wrong=(), note="your table is too large to draw")
    rows, cols = len(p.expected), len(p.expected[0]) if p.expected else 0
    if p.student is None or (len(p.student), len(p.student[0]) if p.student else 0) != (rows, cols):
        return replace(p, wrong=()) if p.wrong else p
    wrong = tuple((i, j) for i, j in p.wrong[:PICTURE_ENTRIES] if 0 <= i < rows and 0 <= j < cols)
    return p if wrong == p.wrong else replace(p, wrong=wrong)


def _fits(rows: Table) -> bool:
    """A table of at most ``PICTURE_ENTRIES`` rows and entries, each row as long as the first:
    counted from the lengths, before anything is built."""
    width = len(rows[0]) if rows else 0
    return (len(rows) <= PICTURE_ENTRIES and len(rows) * width <= PICTURE_ENTRIES
            and all(len(row) == width for row in rows))


def _layout(p: Picture) -> tuple[int, int, int, int]:
    """Rows and columns of the larger table, and the cells' width and height in pixels: as
    large as fits a panel of about 280 x 280 pixels (square unless it is a table)."""
    rows, cols = len(p.expected), len(p.expected[0]) if p.expected else 0
    if p.student is not None:
        rows, cols = max(rows, len(p.student)), max(cols, len(p.student[0]) if p.student else 0)
    cw = max(4, min(44, 280 // max(cols, 1)))
    ch = max(4, min(44, 280 // max(rows, 1)))
    if p.kind != "table":
        cw = ch = min(cw, ch)
    return rows, cols, cw, ch


def _outlined(p: Picture) -> bool:
    """Wrong cells are outlined when cells are 14 pixels or more; smaller ones get a third
    panel, the differences."""
    return min(_layout(p)[2:]) >= 14


_TOP = 50  # room above a panel for its label, the axes' names and the column numbers
_MAX_OUTLINED = 400


def _panel(p: Picture, values: np.ndarray | None, label: str, role: str, cw: int, ch: int, x0: int,
           wrong: Sequence[tuple[int, int]]) -> str:
    left, top, kind = x0 + 34, _TOP, p.kind
    parts = [f'<g class="{role}">', f'<text x="{left}" y="14" font-weight="bold">{esc(label)}</text>']
    if values is None:
        parts.append(f'<text x="{left}" y="{top + 20}">no table to show (see below)</text></g>')
        return "".join(parts)
    rows, cols = values.shape
    colours = _colours(values, kind)
    annotate = rows <= _ANNOTATE_UP_TO and cols <= _ANNOTATE_UP_TO
    for i in range(rows):
        for j in range(cols):
            parts.append(f'<rect x="{left + j * cw}" y="{top + i * ch}" width="{cw}" height="{ch}" '
                         f'fill="{colours[i][j]}"/>')
            if annotate:
                v = values[i, j]
                ink = "#fff" if _dark(v, kind) else "#000"
                parts.append(f'<text x="{left + j * cw + cw // 2}" y="{top + i * ch + ch // 2 + 4}" '
                             f'text-anchor="middle" fill="{ink}">{_cell_text(v, kind)}</text>')
    parts += _axes(p, left, top, rows, cols, cw, ch)
    parts += [f'<rect x="{left + j * cw + 1}" y="{top + i * ch + 1}" width="{cw - 2}" height="{ch - 2}" '
              'fill="none" stroke="#e00000" stroke-width="2.5"/>' for i, j in wrong if i < rows and j < cols]
    parts.append("</g>")
    return "".join(parts)


def _axes(p: Picture, left: int, top: int, rows: int, cols: int, cw: int, ch: int) -> list[str]:
    """A panel's row and column numbers (every few, for a large table) and the axes' names."""
    step_c, step_r = max(1, (cols + 7) // 8), max(1, (rows + 9) // 10)
    parts = [f'<text x="{left + j * cw + cw // 2}" y="{top - 4}" text-anchor="middle" fill="#555">{j}</text>'
             for j in range(0, cols, step_c)]
    parts += [f'<text x="{left - 4}" y="{top + i * ch + ch // 2 + 4}" text-anchor="end" fill="#555">{i}</text>'
              for i in range(0, rows, step_r)]
    parts.append(f'<text x="{left}" y="{top - 20}" fill="#555">{esc(p.columns)} &#8594;, '
                 f"{esc(p.rows)} &#8595;</text>")
    return parts


def _differences(p: Picture, wrong: Sequence[tuple[int, int]], rows: int, cols: int, cw: int, ch: int,
                 x0: int) -> str:
    """Where the student's table differs from the expected one: red cells on white, with the
    same row and column numbers as the two tables."""
    left, top = x0 + 34, _TOP
    parts = ['<g class="differences">', f'<text x="{left}" y="14" font-weight="bold">where they differ</text>',
             f'<rect x="{left}" y="{top}" width="{cols * cw}" height="{rows * ch}" fill="#fff" stroke="#999"/>',
             *_axes(p, left, top, rows, cols, cw, ch)]
    parts += [f'<rect x="{left + j * cw}" y="{top + i * ch}" width="{cw}" height="{ch}" fill="#e00000"/>'
              for i, j in wrong if i < rows and j < cols]
    parts.append("</g>")
    return "".join(parts)


def _legend(kind: str, x: int, y: int, height: int, uid: str) -> str:
    """The colour scale: a gradient of the kind's colour map, its ends labelled (a mask's
    two colours as two swatches)."""
    _, low, high = _COLOURS[kind]
    if kind == "mask":
        blocked, allowed = _colours(np.array([[low, high]]), kind)[0]
        return (f'<rect x="{x}" y="{y}" width="12" height="12" fill="{allowed}"/>'
                f'<text x="{x + 16}" y="{y + 10}">True: may attend</text>'
                f'<rect x="{x}" y="{y + 20}" width="12" height="12" fill="{blocked}"/>'
                f'<text x="{x + 16}" y="{y + 30}">False: blocked</text>')
    stops = _colours(np.linspace(low, high, 11)[::-1].reshape(1, -1), kind)[0]
    gradient = "".join(f'<stop offset="{k / 10:.1f}" stop-color="{c}"/>' for k, c in enumerate(stops))
    return (f'<defs><linearGradient id="{uid}" x1="0" y1="0" x2="0" y2="1">{gradient}</linearGradient></defs>'
            f'<rect x="{x}" y="{y}" width="12" height="{height}" fill="url(#{uid})"/>'
            f'<text x="{x + 16}" y="{y + 9}">{high:g}</text><text x="{x + 16}" y="{y + height}">{low:g}</text>')


def _colours(values: np.ndarray, kind: str) -> list[list[str]]:
    """Each entry's colour from Matplotlib's map for ``kind`` (256 steps); NaN or infinite in
    magenta."""
    _, low, high = _COLOURS[kind]
    with np.errstate(invalid="ignore"):
        steps = np.clip((np.nan_to_num(values, nan=low) - low) / (high - low) * 255, 0, 255).round().astype(int)
    table = _palette(kind)
    bad = ~np.isfinite(values)
    return [[_NAN if b else table[k] for k, b in zip(row, bad_row, strict=True)]
            for row, bad_row in zip(steps.tolist(), bad.tolist(), strict=True)]


@functools.cache
def _palette(kind: str) -> tuple[str, ...]:
    """The 256 colours of ``kind``'s map as ``#rrggbb`` (a colour map call costs more than a page)."""
    from matplotlib import colormaps

    rgb = (colormaps[_COLOURS[kind][0]](np.linspace(0.0, 1.0, 256))[:, :3] * 255).round().astype(int)
    return tuple(f"#{r:02x}{g:02x}{b:02x}" for r, g, b in rgb.tolist())


def describe(p: Picture) -> str:
    """The picture's verdict in words: which entries differ, as a student reads them."""
    if p.student is None:
        return p.note or "no table to show"
    if p.note:
        return f"your table has {p.note}"
    if not p.wrong:
        return "matches the expected pattern"
    expected, student = _array(p.expected), _array(p.student)
    first = [f"[{i}, {j}]" for i, j in p.wrong[:3]]
    more = f" (and {len(p.wrong) - 3} more)" if len(p.wrong) > 3 else ""
    marked = "outlined in red" if _outlined(p) else "in red on the right"
    if p.kind == "mask":
        seen = [(i, j) for i, j in p.wrong if student[i, j] and not expected[i, j]]
        hidden = [(i, j) for i, j in p.wrong if not student[i, j] and expected[i, j]]
        parts = []
        if seen:
            i, j = seen[0]
            parts.append(f"your mask lets {p.rows} {i} see {p.columns} {j}, which should be blocked"
                         + (f" ({len(seen)} such entries)" if len(seen) > 1 else ""))
        if hidden:
            i, j = hidden[0]
            parts.append(f"it blocks {p.columns} {j} for {p.rows} {i}, which should be allowed"
                         + (f" ({len(hidden)} such entries)" if len(hidden) > 1 else ""))
        return "; ".join(parts) + f"; {marked}"
    return f"{len(p.wrong)} of {expected.size} entries differ ({marked}), at {', '.join(first)}{more}"


def _array(rows: Table) -> np.ndarray:
    return np.array([[np.nan if v is None else v for v in row] for row in rows], dtype=np.float64).reshape(
        len(rows), -1 if rows and rows[0] else 0)


def _cell_text(value: float, kind: str) -> str:
    if not np.isfinite(value):
        return "nan"
    if kind == "mask":
        return "T" if value else "F"
    return f"{value:.2f}"


def _dark(value: float, kind: str) -> bool:
    """Whether ``value``'s colour is dark enough for white numbers on it."""
    _, low, high = _COLOURS[kind]
    if not np.isfinite(value):
        return False
    share = (value - low) / (high - low)
    return share < 0.55 if kind != "table" else abs(share - 0.5) > 0.35
