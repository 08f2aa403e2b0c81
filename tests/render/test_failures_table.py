"""The one table of failures both of the class report's sections draw: most students first,
each student once, the first student's words shown."""

from __future__ import annotations

from grader.render.mistakes import failures_table


def test_most_students_first_then_by_item_and_cut_at_the_limit() -> None:
    students = {("softmax", "b"): {"ann": "b for ann", "bob": "b for bob"},
                ("mask", "a"): {"cy": "a <for> cy"},
                ("softmax", "c"): {"dee": "c"}}
    labels = {("softmax", "b"): {"two", "one"}, ("mask", "a"): {"x"}, ("softmax", "c"): {"y"}}
    rows = failures_table(students, labels, ("message", "checks"), limit=2)
    assert rows[1] == ('<tr><th class="num">students</th><th>item: message</th><th>checks</th>'
                       "<th>who</th></tr>")
    assert rows[2].startswith('<tr><td class="num">2</td><td><code>softmax</code>: b for ann</td>'
                              "<td><code>one</code>, <code>two</code></td>")
    assert rows[3].startswith('<tr><td class="num">1</td><td><code>mask</code>: a &lt;for&gt; cy</td>')
    assert (rows[0], rows[-1], len(rows)) == ("<table>", "</table>", 5)
