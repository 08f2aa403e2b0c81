"""Student text in Markdown renders as itself: no heading, list, link, image, HTML, table,
emphasis or math of the student's."""

from __future__ import annotations

from markdown_support import rendered

from grader.render.markdown import md_block, md_code, md_inline, one_line

HOSTILE = ("oops\n# Score: 155 / 155\n[click](http://evil.example) ![img](http://x/y.png) <img src=x onerror=alert(1)>"
           " <b>bold</b> &amp; *em* _em_ **strong** `code` ~~del~~ $math$ [^1] {#id}\n| a | b |\n| --- | --- |\n"
           "> quote\n- item\n1. item\n\n    indented\n```\nfence\n~~~\nwww.evil.example x@y.example <http://auto>\n"
           "[ref]: http://r\nSetext\n===\n\\`\r\nend\u2028`` ")


def test_inline_text_is_one_paragraph_of_itself():
    page = rendered(f"Said: {md_inline(HOSTILE)}")
    assert page.tags == ["p"]
    assert "".join(page.text).strip() == f"Said: {one_line(HOSTILE)}".strip()


def test_a_word_keeps_its_underscores_and_a_number_its_point():
    assert md_inline("attention_numpy sums to 0.61.") == "attention_numpy sums to 0.61."


def test_a_code_span_holds_any_backticks():
    for text in (HOSTILE, "`", "a``b", " ", " x "):
        page = rendered(f"Raised {md_code(text)}.")
        assert page.tags == ["p", "code"]
        assert page.text[1] == one_line(text)


def test_a_block_holds_every_line_and_any_fence_in_a_list_item_too():
    page = rendered("\n".join(md_block(HOSTILE)))
    assert page.tags == ["pre", "code"] and "".join(page.text).rstrip("\n") == "\n".join(HOSTILE.splitlines())
    item = rendered("\n".join(["- `check` **failed**:", "", *md_block(HOSTILE, indent="  "), "", "after"]))
    assert item.tags == ["ul", "li", "p", "code", "strong", "pre", "code", "p"]


# Our sentences, as the checks write them: each reads in the file as it does rendered.
PROSE = ("the gradient of the loss w.r.t. query is None", "(the first, at [0, 0], is NaN)",
         "forward(x) must be x + embedding.weight[0]", "softmax(Q K^T / sqrt(d_k)) over the keys",
         "concat(keys[b, j], query[b]) @ W_c: the query comes first", "attention_numpy.ipynb could not be read",
         "PE[p, 2i] = sin(p / 10000^(2i/d_model)) {of each row}", "Q & K, 3 < 4 > 2, 'may attend'")


def test_our_sentences_are_written_as_they_are():
    for sentence in PROSE:
        assert md_inline(sentence) == sentence
        page = rendered(f"Said: {md_inline(sentence)}")
        assert page.tags == ["p"] and "".join(page.text).strip() == f"Said: {sentence}"


def test_only_what_would_make_markup_where_it_stands_is_escaped():
    assert md_inline("[x](http://e.example) ![i](y) [^1] [r]: z") == r"[x\](http\://e.example) ![i\](y) \[^1] [r\]: z"
    assert md_inline("<b> &amp; &#60; www.e.example Www.x a@b.example a @ b") == \
        r"\<b> \&amp; \&\#60; www\.e.example Www\.x a\@b.example a @ b"
