"""Long code snippets are cut at a sensible line, with a count of what is left, in every surface."""

from __future__ import annotations

import pytest

from bot.answering.assistant import Answer
from bot.knowledge.citations import Citation, cut_code
from bot.slack import blocks

YAML = """requirements:
  - key: node.kubernetes.io/instance-type
    operator: In
    values: [p4d.24xlarge]
  - key: topology.kubernetes.io/zone
    operator: In
    values: [us-west-2a]
  - key: karpenter.sh/capacity-type
    operator: In
    values: [on-demand]"""


def test_a_short_snippet_is_kept_whole() -> None:
    assert cut_code(YAML, 20) == (YAML, 0)


def test_a_long_snippet_is_cut_where_a_block_ends_and_counts_the_rest() -> None:
    code, left = cut_code(YAML, 6)
    assert code.splitlines()[-1] == "    values: [p4d.24xlarge]"  # not in the middle of the next item
    assert left == len(YAML.splitlines()) - len(code.splitlines())
    assert YAML.startswith(code)


def test_a_snippet_of_long_lines_is_cut_between_lines_to_fit_characters() -> None:
    code = "\n".join("x" * 100 for _ in range(40))
    kept, left = cut_code(code, 40, max_chars=1000)
    assert all(line == "x" * 100 for line in kept.splitlines())
    assert len(kept) <= 1000 and left == 40 - len(kept.splitlines())


def test_slack_shows_the_cut_snippet_and_says_how_many_lines_are_left() -> None:
    long = "\n".join(f"step_{i}: run" for i in range(60))
    citation = Citation(5, "Which variable?", "Set these:", long, "quiz.en.md", 1.0)
    answer = Answer(answered=True, language="en", text="Set these:", citations=[citation])
    message = blocks.answer_message(answer)
    texts = [b["text"]["text"] if "text" in b else b["elements"][0]["text"] for b in message["blocks"]
             if b["type"] in ("section", "context")]
    code = next(t for t in texts if t.startswith("```"))
    assert code.endswith("step_15: run\n```")
    assert "… 44 more lines in question 5" in texts


# -- a citation's URL ------------------------------------------------------------------------------------


@pytest.mark.parametrize("url", [
    "javascript:alert(document.cookie)", "JavaScript:alert(1)", " javascript:alert(1)", "java\tscript:alert(1)",
    "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==", "vbscript:msgbox(1)", "file:///etc/passwd",
    "ftp://files.example.com/a", "https://", "http:///path-only", "//wiki.example.com/no-scheme", "wiki.example.com",
    "https://wiki.example.com/a b", "https://wiki.example.com/\x00", "https://wiki.example.com/\u202e", "",
])
def test_a_citation_keeps_no_url_but_a_plain_http_one(url: str) -> None:
    citation = Citation(5, "Title", "Excerpt.", None, "doc.md", 1.0, url=url)
    assert citation.url is None and citation.to_dict()["url"] is None


@pytest.mark.parametrize("url", [
    "https://wiki.example.com/ml-platform?team=a&page=2#quotas", "http://wiki.example.com", "HTTPS://Wiki.Example.com/X",
])
def test_a_citation_keeps_a_plain_http_url_as_written(url: str) -> None:
    citation = Citation(5, "Title", "Excerpt.", None, "doc.md", 1.0, url=url)
    assert citation.url == url and citation.to_dict()["url"] == url
