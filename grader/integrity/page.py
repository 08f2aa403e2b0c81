"""``integrity.html``: a worklist: the listed pairs strongest first, the groups, the students who
handed in the instructor's solution, and each pair's code side by side.

Self-contained like the other pages (``grader.render.html.page``): the shared uncommon lines
are marked in both students' code, and the shared wrong outputs are said in words. It is
written for a person to look, and says so: it changes no grade.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from ..records.code import ItemCode
from ..render.html import esc, page
from ..render.words import counted
from .evidence import ItemEvidence, Pair
from .listing import why

_STYLE = """<style>
.pair { border-top: 1px solid #bbb; margin-top: 1.5em; }
.side { display: flex; gap: 1em; align-items: flex-start; }
.side > div { flex: 1; min-width: 0; }
.side pre { background: #f6f6f6; padding: .5em; overflow-x: auto; font-size: 12px; }
.side mark { background: #ffe08a; display: inline-block; width: 100%; }
.ln { color: #888; user-select: none; }
</style>"""


def integrity_page(assignment: str, flagged: Sequence[Pair], groups: Sequence[tuple[str, ...]],
                   code: Mapping[str, Mapping[str, ItemCode]], public: Mapping[str, Mapping[str, tuple[str, ...]]],
                   students: int, notes: Sequence[str],
                   solution: Mapping[str, tuple[str, ...]] | None = None) -> str:
    body = [_STYLE, f"<h1>Who shared work: {esc(assignment)}</h1>",
            f"<p>{counted(students, 'student')} compared; {counted(len(flagged), 'pair')} to look at. "
            "Each item's shared code and shared wrong outputs are weighed by how rarely the pairs of this class "
            "share as much (public code and the release's starter code set aside), and a pair is listed when this "
            "class would produce fewer than one pair that strong by chance (score 1 - that number: 0.5 or more). "
            "This page is for a person to look: it changes no grade, and similar work has innocent causes too.</p>"]
    if groups:
        body.append('<h2 id="clusters">Groups of three or more</h2><p>Joined by strong links only; each '
                    "student with the peer whose work is closest to theirs.</p><ul>")
        body += [f"<li>{esc(', '.join(f'{s} (closest: {peer})' for s, peer in _closest(g, flagged)))}</li>"
                 for g in groups]
        body.append("</ul>")
    if solution:
        body.append('<h2 id="solution">Matches the instructor\'s solution</h2><p>Code that holds nearly all of '
                    "the solution's own code beyond the starter code (names, layout and comments ignored, as between "
                    "students), on more items than this class's students do by chance: not a pair, but worth a "
                    "look.</p><ul>")
        ranked = sorted(solution.items(), key=lambda named: (-len(named[1]), named[0]))
        body += [f"<li>{esc(s)}: matches the instructor's solution on {counted(len(items), 'item')} "
                 f"({esc(', '.join(items))})</li>" for s, items in ranked]
        body.append("</ul>")
    body.append('<h2 id="pairs">Pairs</h2>')
    if flagged:
        body.append("<table><tr><th>#</th><th>student_a</th><th>student_b</th><th>score</th><th>items</th>"
                    "<th>why</th></tr>")
        body += [f'<tr><td><a href="#pair-{n}">{n}</a></td><td>{esc(p.a)}</td><td>{esc(p.b)}</td>'
                 f"<td>{p.score:.2f}</td><td>{esc('; '.join(e.item for e in p.listed))}</td>"
                 f"<td>{esc(why(p, flagged))}</td></tr>" for n, p in enumerate(flagged, start=1)]
        body.append("</table>")
    else:
        body.append("<p>No pair shares more than this class shares by chance.</p>")
    for n, p in enumerate(flagged, start=1):
        body += _pair(n, p, why(p, flagged), code.get(p.a, {}), code.get(p.b, {}))
    if public:
        body.append('<h2 id="public">Code that matches public code</h2>'
                    "<p>No evidence between students: where their code comes from (the --known-sources "
                    "files).</p><ul>")
        body += [f"<li>{esc(s)}: " + "; ".join(f"{esc(item)} matches public code: {esc(', '.join(names))}"
                                                for item, names in sorted(items.items())) + "</li>"
                 for s, items in sorted(public.items())]
        body.append("</ul>")
    if notes:
        body.append('<h2 id="notes">Not compared</h2><ul>')
        body += [f"<li>{esc(note)}</li>" for note in notes]
        body.append("</ul>")
    return page(f"Who shared work: {assignment}", body)


def _closest(group: Sequence[str], flagged: Sequence[Pair]) -> list[tuple[str, str]]:
    out = []
    for student in group:
        links = [(p.strength, p.b if p.a == student else p.a) for p in flagged if student in (p.a, p.b)]
        out.append((student, max(links)[1] if links else ""))
    return out


def _pair(n: int, p: Pair, reason: str, a: Mapping[str, ItemCode], b: Mapping[str, ItemCode]) -> list[str]:
    out = [f'<section class="pair" id="pair-{n}"><h2>{n}. {esc(p.a)} and {esc(p.b)} (score {p.score:.2f})</h2>',
           f"<p>They {esc(reason)}.</p>"]
    for e in p.listed:
        out.append(f"<h3>{esc(e.item)}</h3>")
        words = _behaviour(e)
        if words:
            out.append(f"<p>{esc(words)}</p>")
        if e.code > 0:
            out.append(f"<p>Their code for it shares what only 1 pair in {_one_in(e.code)} of this class shares "
                       "(the shared lines marked; helpers the item calls follow its definition).</p>")
        out.append('<div class="side">' + _column(p.a, a.get(e.item), e.lines_a)
                   + _column(p.b, b.get(e.item), e.lines_b) + "</div>")
    out.append("</section>")
    return out


def _one_in(rarity: float) -> str:
    return f"{math.exp(rarity):,.0f}"


def _behaviour(e: ItemEvidence) -> str:
    if not e.sharers:
        return ""
    others = e.sharers - 2
    text = "Both lost points here"
    raised = [name for name, error in e.checks if error]
    returned = [name for name, error in e.checks if not error]
    if raised:
        text += f"; {counted(len(raised), 'check')} raised an error ({', '.join(raised)})"
    if returned:
        text += f"; {counted(len(returned), 'check')} returned wrong values ({', '.join(returned)})"
    text += "; and their code returned the same values on every hidden check"
    text += f" (as did {counted(others, 'other student')})" if others else " (no one else did)"
    if e.explained:
        text += "; a known mistake explains those values, so it is no evidence"
    return text + "."


def _column(student: str, code: ItemCode | None, marked: Sequence[int]) -> str:
    if code is None:
        return f"<div><h4>{esc(student)}</h4><p>(no definition found)</p></div>"
    lines = code.source.splitlines()
    shown = set(marked)
    width = len(str(len(lines)))
    rows = []
    for number, line in enumerate(lines, start=1):
        text = f'<span class="ln">{number:>{width}}</span> {esc(line)}'
        rows.append(f"<mark>{text}</mark>" if number in shown else text)
    return (f"<div><h4>{esc(student)}: {esc(code.where)}</h4><pre>" + "\n".join(rows) + "</pre></div>")
