"""Block Kit rendering: Slack's limits on the longest messages, escaping, and nothing revealed too early."""

from __future__ import annotations

import json
import re
import string
from dataclasses import replace

import pytest

from bot.answering.assistant import Answer, Assistant
from bot.knowledge.citations import Citation, Part
from bot.lang import Lang
from bot.quiz import LeaderboardEntry, QuizOption, QuizPrompt, QuizResult, TopicTally, UserStats
from bot.slack import blocks
from bot.slack.texts import TEXTS, t
from tests.support.block_kit import all_texts, check_escaped, check_limits
from tests.support.slack_helpers import markup_texts

HOSTILE = "<!channel> <!here|here> <!everyone> <script>alert('x')</script> & <@U999> <http://evil|click> "


def citation(n: int, size: int) -> Citation:
    return Citation(question=n, title=HOSTILE * (size // 50), excerpt=HOSTILE * (size // 10),
                    snippet=("```\n" + HOSTILE) * (size // 10), source="quiz.md", score=0.9, doc_id="quiz")


def long_answer(size: int = 1000) -> Answer:
    return Answer(answered=True, language="en", text=HOSTILE * size, answer_line="B) " + HOSTILE * size,
                  citations=[citation(n, size) for n in (5, 6, 7)], uncovered=[HOSTILE] * 3,
                  caveat=("The knowledge base says nothing about " + HOSTILE * size) if size else None)


def long_prompt(options: int = 26) -> QuizPrompt:
    return QuizPrompt(attempt_id="x" * 22, doc_id="quiz", question=5, lang="es", prompt=HOSTILE * 500,
                      topic=HOSTILE * 20,
                      options=[QuizOption(string.ascii_uppercase[i], HOSTILE * 50) for i in range(options)],
                      reason="new")


def long_result(correct: bool, already: bool = False, lang: Lang = "en") -> QuizResult:
    return QuizResult(attempt_id="x" * 22, question=5, lang=lang, title=HOSTILE * 100, correct=correct,
                      choice="A", correct_choice="B", correct_text=HOSTILE * 100, explanation=HOSTILE * 1000,
                      citation=citation(5, 1000), already_answered=already)


@pytest.mark.parametrize("size", [0, 1, 60, 1000])
def test_answers_of_any_length_stay_within_limits_and_escaped(size: int) -> None:
    message = blocks.answer_message(long_answer(size))
    check_limits(message)
    check_escaped(message)


def test_quiz_and_result_messages_of_any_length_stay_within_limits_and_escaped() -> None:
    for message in (blocks.quiz_message(long_prompt()), blocks.quiz_message(long_prompt(2)),
                    blocks.result_message(long_result(True, lang="es")),
                    blocks.result_message(long_result(False, already=True))):
        check_limits(message)
        check_escaped(message)


def test_every_option_gets_a_button_even_past_25() -> None:
    message = blocks.quiz_message(long_prompt(26))
    choices = [e for b in message["blocks"] if b["type"] == "actions" for e in b["elements"]]
    assert [e["text"]["text"] for e in choices] == list(string.ascii_uppercase)


def test_stats_and_leaderboard_stay_within_limits() -> None:
    per_topic: dict[str, TopicTally] = {
        HOSTILE * 3 + str(i): {"answered": 3, "correct": 2, "accuracy": 0.6667} for i in range(200)
    }
    per_topic |= {HOSTILE * 3 + str(i): {"answered": 0, "correct": 0, "accuracy": None} for i in range(200, 400)}
    stats = UserStats(user="U1", answered=600, correct=400, accuracy=0.6667, current_streak=3, best_streak=9,
                      due=4, per_topic=per_topic)
    entries = [LeaderboardEntry(user=f"U{i:05d}", answered=10, correct=5, accuracy=0.5, best_streak=1)
               for i in range(500)]
    for message in (blocks.stats_message(stats, "en"), blocks.leaderboard_message(entries, "es"),
                    blocks.stats_message(UserStats("U1", 0, 0, 0.0, 0, 0, 0), "es"),
                    blocks.leaderboard_message([], "en")):
        check_limits(message)
        check_escaped(message)


def test_stats_list_the_topics_never_tried_apart() -> None:
    per_topic: dict[str, TopicTally] = {
        "Karpenter": {"answered": 2, "correct": 1, "accuracy": 0.5},
        "BF16": {"answered": 0, "correct": 0, "accuracy": None},
        "<MPIJob>": {"answered": 0, "correct": 0, "accuracy": None},
    }
    stats = UserStats(user="U1", answered=2, correct=1, accuracy=0.5, current_streak=1, best_streak=1, due=0,
                      per_topic=per_topic, lang="en")
    [topics] = [b["text"]["text"] for b in blocks.stats_message(stats, "en")["blocks"] if "By topic" in str(b)]
    assert topics.splitlines()[1:] == ["• Karpenter: 1/2 (50%)", "Not tried yet: BF16, &lt;MPIJob&gt;"]


def test_a_quiz_question_gives_nothing_away() -> None:
    prompt = QuizPrompt(attempt_id="opaque-id", doc_id="quiz", question=5, lang="en", prompt="Which variable?",
                        topic="EFA", options=[QuizOption(k, f"option {k}") for k in "ABCD"], reason="new")
    message = blocks.quiz_message(prompt)
    values = [json.loads(e["value"]) for b in message["blocks"] if b["type"] == "actions" for e in b["elements"]]
    assert values == [{"a": "opaque-id", "c": k} for k in "ABCD"]
    assert "option C" in message["blocks"][1]["text"]["text"]


@pytest.mark.parametrize(("correct", "mark", "word"), [(True, "✅", "Correct"), (False, "❌", "Not quite")])
def test_a_result_says_right_or_wrong_in_words(correct: bool, mark: str, word: str) -> None:
    result = QuizResult(attempt_id="a", question=5, lang="en", title="Which variable?", correct=correct,
                        choice="B" if correct else "A", correct_choice="B", correct_text="FI_PROVIDER=efa",
                        explanation="Set FI_PROVIDER.",
                        citation=Citation(5, "Which variable?", "", "export FI_PROVIDER=efa", "quiz.en.md", 1.0))
    message = blocks.result_message(result)
    assert message["text"].startswith(f"{mark} {word}") and "Which variable?" in message["text"]
    assert mark in message["blocks"][0]["text"]["text"] and word in message["blocks"][0]["text"]["text"]
    assert "```\nexport FI_PROVIDER=efa\n```" in all_texts(message)


def test_a_result_speaks_the_language_of_its_attempt() -> None:
    spanish = json.dumps(blocks.result_message(long_result(False, lang="es")), ensure_ascii=False)
    english = json.dumps(blocks.result_message(long_result(False, lang="en")), ensure_ascii=False)
    assert "❌ Incorrecto." in spanish and "Siguiente pregunta" in spanish and "Next question" not in spanish
    assert "❌ Not quite." in english and "Next question" in english and "Siguiente pregunta" not in english


def test_a_partial_answer_says_first_what_the_knowledge_does_not_cover() -> None:
    caveat = "The knowledge base says nothing about \u201c<PyTorchJob>\u201d. On MPIJob:"
    answer = Answer(answered=True, language="en", text=caveat + " In an MPIJob…", answer_line="C) x",
                    citations=[Citation(13, "slotsPerWorker?", "In an MPIJob…", None, "quiz.en.md", 1.0)],
                    uncovered=["<PyTorchJob>"], caveat=caveat)
    message = blocks.answer_message(answer)
    first = message["blocks"][0]["text"]["text"]
    assert "&lt;PyTorchJob&gt;" in first and "says nothing about" in first
    assert message["blocks"][1]["text"]["text"] == "In an MPIJob…"
    assert message["text"].startswith("The knowledge base says nothing about")
    check_escaped(message)


def test_an_unanswered_question_gets_no_citation_even_with_suggestions() -> None:
    answer = Answer(answered=False, language="en", text="I don't know.\nTopics: EFA.",
                    citations=[Citation(5, "Which variable?", "", None, "quiz.en.md", 0.3)])
    message = blocks.answer_message(answer)
    assert len(message["blocks"]) == 1 and "📖" not in json.dumps(message, ensure_ascii=False)


def test_answers_from_the_knowledge_stay_within_limits(fake_assistant: Assistant) -> None:
    for question in fake_assistant.knowledge.questions("es") + fake_assistant.knowledge.questions("en"):
        message = blocks.answer_message(fake_assistant.answer(question.title))
        check_limits(message)
        check_escaped(message)


def test_truncation_never_cuts_an_escape_in_half() -> None:
    for limit in range(2, 12):
        cut = blocks.truncate(blocks.escape("<<<<<<<<<<"), limit)
        assert len(cut) <= limit and cut.endswith("…")
        assert re.fullmatch(r"(&lt;)*…", cut), cut


def test_escape_and_mention() -> None:
    assert blocks.escape("<!channel> & <b>") == "&lt;!channel&gt; &amp; &lt;b&gt;"
    assert blocks.mention("U123ABC") == "<@U123ABC>"
    assert blocks.mention("<!here>") == "&lt;!here&gt;"


def test_both_languages_say_everything() -> None:
    assert set(TEXTS["es"]) == set(TEXTS["en"])
    for key in TEXTS["en"]:
        placeholders = {lang: set(re.findall(r"{(\w+)", TEXTS[lang][key])) for lang in ("es", "en")}
        assert placeholders["es"] == placeholders["en"], key
    assert t("fr", "thanks") == TEXTS["en"]["thanks"]


# -- citations of a document's sections -------------------------------------------------------------------

RUNBOOK_URL = "https://wiki.acme.internal/ml-platform/runbooks/gpu-training?tab=quotas&lang=en"
QUOTA_PATH = "GPU training on EKS — ML Platform runbook › GPU quotas › Requesting a quota increase"


def doc_citation(url: str | None = RUNBOOK_URL, *, section: str = QUOTA_PATH, snippet: str | None = None,
                 number: int = 7) -> Citation:
    return Citation(question=number, title=section.rsplit(" › ", 1)[-1], excerpt="Open a ticket in #ml-platform.",
                    snippet=snippet, source="runbook/gpu-training-runbook.md", score=0.8,
                    doc_id="runbook/gpu-training-runbook", section=section, url=url, lang="en")


def doc_answer(*citations: Citation, lang: Lang = "en") -> Answer:
    return Answer(answered=True, language=lang, text="Open a ticket in #ml-platform.", citations=list(citations))


def citation_line(message: dict) -> str:
    [line] = [e["text"] for b in message["blocks"] if b["type"] == "context" for e in b["elements"]
              if e["text"].startswith("📖")]
    return str(line.split("\n")[0])


def test_a_section_is_cited_by_its_heading_path_with_a_link_to_its_document() -> None:
    message = blocks.answer_message(doc_answer(doc_citation()))
    check_limits(message)
    link = RUNBOOK_URL.replace("&", "&amp;")
    assert citation_line(message) == f"📖 {QUOTA_PATH} · _<{link}|runbook/gpu-training-runbook.md>_"
    assert "Question 7" not in json.dumps(message, ensure_ascii=False)
    assert QUOTA_PATH in message["text"] and "<" not in message["text"]  # the fallback names it, unlinked


def test_a_section_without_a_url_names_its_source_as_text() -> None:
    message = blocks.answer_message(doc_answer(doc_citation(None)))
    check_limits(message)
    check_escaped(message)
    assert citation_line(message) == f"📖 {QUOTA_PATH} · _runbook/gpu-training-runbook.md_"


@pytest.mark.parametrize("url", [
    "javascript:alert(1)", "JavaScript://example.com/%0aalert(1)", "https://example.com/a>b",
    "https://example.com/x|<!channel>", "https://evil.example/|click here", "https://example.com/a b",
    "https://example.com/\n<!here>", "ftp://example.com/runbook", "https:///no-host", "mailto:a@example.com",
    "data:text/html,<script>", "https://example.com/" + "a" * blocks.URL_CHARS, "//example.com/x",
])
def test_a_url_that_is_not_plain_http_is_no_link_and_is_escaped(url: str) -> None:
    hostile = doc_citation(url, section="<!channel> Runbook › <http://evil|Quotas> & more")
    assert blocks.link_target(url) is None
    for message in (blocks.answer_message(doc_answer(hostile, doc_citation(url))),
                    blocks.answer_message(doc_answer(hostile), question=url)):
        check_limits(message)
        check_escaped(message)  # no link at all, and every <, > and & of the input escaped
    line = citation_line(blocks.answer_message(doc_answer(hostile)))
    assert line == ("📖 &lt;!channel&gt; Runbook › &lt;http://evil|Quotas&gt; &amp; more · "
                    "_runbook/gpu-training-runbook.md_")


def test_a_link_label_is_escaped() -> None:
    citation = Citation(question=1, title="t", excerpt="x", snippet=None, source="<b>&|x>.md", score=0.5,
                        doc_id="d", section="Doc › Part", url="https://example.com/d")
    assert citation_line(blocks.answer_message(doc_answer(citation))) == (
        "📖 Doc › Part · _<https://example.com/d|&lt;b&gt;&amp;|x&gt;.md>_")


def test_a_quiz_citation_renders_as_before() -> None:
    quiz = Citation(5, "Which variable enables EFA?", "Set FI_PROVIDER.", None, "eks-training-quiz.en.md", 1.0,
                    doc_id="eks-training-quiz")
    message = blocks.answer_message(Answer(answered=True, language="en", text="Set FI_PROVIDER.",
                                           answer_line="B) FI_PROVIDER=efa", citations=[quiz, doc_citation()]))
    context_text = [b for b in message["blocks"] if b["type"] == "context"][0]["elements"][0]["text"]
    assert context_text.split("\n") == [
        "📖 Question 5 · Which variable enables EFA? · _eks-training-quiz.en.md_",
        "*Quiz answer:* B) FI_PROVIDER=efa",
        f"Also: {QUOTA_PATH}",
    ]
    assert message["text"] == "Set FI_PROVIDER.\nQuestion 5: Which variable enables EFA?\nB) FI_PROVIDER=efa"
    actions = [e["action_id"] for b in message["blocks"] if b["type"] == "actions" for e in b["elements"]]
    assert actions == ["feedback_up", "feedback_down", "quiz_me"]


def test_an_answer_from_a_page_shows_where_first_then_the_quote_then_more_of_the_same_page() -> None:
    same_page = doc_citation(section="GPU training on EKS › GPU quotas › Default <quota>", number=3)
    other_page = Citation(2, "Restaurar", "", None, "runbook/checkpoints.es.md", 0.5, doc_id="runbook/checkpoints",
                          section="Checkpoints › Restaurar un checkpoint")
    quiz = Citation(5, "Which variable <enables> EFA?", "", None, "eks-training-quiz.es.md", 0.4)
    message = blocks.answer_message(doc_answer(doc_citation(), same_page, other_page, quiz, lang="es"))
    check_limits(message)
    kinds = [b["type"] for b in message["blocks"]]
    assert kinds[:2] == ["context", "section"]  # the heading path and link, then the quoted passage
    first = message["blocks"][0]["elements"][0]["text"]
    assert first == f"📖 {QUOTA_PATH} · _<{blocks.link_target(RUNBOOK_URL)}|runbook/gpu-training-runbook.md>_"
    assert message["blocks"][1]["text"]["text"] == "Open a ticket in #ml-platform."
    last = [b for b in message["blocks"] if b["type"] == "context"][-1]["elements"][0]["text"]
    assert last.split("\n") == [
        f"Más en esta página: <{blocks.link_target(RUNBOOK_URL)}|Default &lt;quota&gt;>",
        "También: Checkpoints › Restaurar un checkpoint; 5. Which variable &lt;enables&gt; EFA?",
    ]
    actions = [e["action_id"] for b in message["blocks"] if b["type"] == "actions" for e in b["elements"]]
    assert actions == ["feedback_up", "feedback_down"]  # a section offers no quiz


def test_a_section_quoted_beside_the_first_shows_under_its_own_heading_with_its_code() -> None:
    """A rule in a section and its details in a subsection: the second is quoted after the first (and its code),
    under its own heading path, escaped, and not named again among the other sections of the page."""
    child = replace(doc_citation(section=f"{QUOTA_PATH} › For <team> namespaces", number=8,
                                 snippet="kubectl get quota"),
                    excerpt="Each train-<team> namespace has its own ResourceQuota.")
    top = replace(doc_citation(snippet="kubectl describe quota"), beside=(child,))
    message = blocks.answer_message(doc_answer(top))
    check_limits(message)
    texts = [b["text"]["text"] if b["type"] == "section" else b["elements"][0]["text"] for b in message["blocks"]
             if b["type"] in ("section", "context")]
    first = texts.index("Open a ticket in #ml-platform.")
    heading = texts.index(f"📖 {QUOTA_PATH} › For &lt;team&gt; namespaces")
    assert first < heading and texts[heading + 1] == "Each train-&lt;team&gt; namespace has its own ResourceQuota."
    assert "kubectl describe quota" in texts[first + 1] and "kubectl get quota" in texts[heading + 2]
    assert "Más en esta página" not in all_texts(message) and "More in this page" not in all_texts(message)
    assert "Each train-&lt;team&gt; namespace" in message["text"]


def test_a_quote_of_two_code_blocks_shows_each_under_the_sentence_that_introduces_it() -> None:
    """"For llama.cpp …:" over its YAML, then "For diffusers instead …:" over its own, then what follows: the order
    of the page, each text escaped, each block fenced and cut on its own."""
    parts = (Part("For <llama.cpp> workloads:", "gpu_layers: 22", "yaml"),
             Part("For diffusers instead:", "\n".join(f"line {i}" for i in range(40)), "yaml"),
             Part("Restart the server after a change.", None))
    top = replace(doc_citation(snippet="gpu_layers: 22\n\nline 0"),
                  excerpt="For <llama.cpp> workloads:\nFor diffusers instead:\nRestart the server after a change.",
                  parts=parts)
    message = blocks.answer_message(doc_answer(top))
    check_limits(message)
    texts = [b["text"]["text"] if b["type"] == "section" else b["elements"][0]["text"] for b in message["blocks"]
             if b["type"] in ("section", "context")]
    first = texts.index("For &lt;llama.cpp&gt; workloads:")
    assert texts[first + 1] == "```\ngpu_layers: 22\n```"
    assert texts[first + 2] == "For diffusers instead:" and texts[first + 3].startswith("```\nline 0\n")
    assert "more lines in the section" in texts[first + 4]  # the second block cut, and said so
    assert texts[first + 5] == "Restart the server after a change."
    assert "For &lt;llama.cpp&gt; workloads:\nFor diffusers" in message["text"]  # the fallback: the excerpt


@pytest.mark.parametrize(("lang", "note"), [("en", "… 24 more lines in the section “Requesting a quota increase”"),
                                            ("es", "… 24 líneas más en la sección «Requesting a quota increase»")])
def test_a_cut_snippet_of_a_section_says_what_is_left_in_the_section(lang: Lang, note: str) -> None:
    snippet = "\n".join(f"line {i}" for i in range(40))
    message = blocks.answer_message(doc_answer(doc_citation(snippet=snippet), lang=lang))
    check_limits(message)
    assert note in all_texts(message)


def test_long_sections_and_urls_stay_within_limits() -> None:
    path = " › ".join([HOSTILE * 20] * 10)
    url = "https://example.com/?" + "a=1&" * 100
    citations = [doc_citation(url, section=path, snippet=("```\n" + HOSTILE) * 300) for _ in range(3)]
    message = blocks.answer_message(Answer(answered=True, language="en", text=HOSTILE * 100,
                                           citations=citations, caveat=HOSTILE * 100))
    check_limits(message)
    line = citation_line(message)
    assert line.endswith("|runbook/gpu-training-runbook.md>_")  # the link is never cut


# -- maintainers' notes and the forms that add to the knowledge --------------------------------------------


def test_notes_show_once_escaped_and_within_limits_in_answers_and_quiz_results() -> None:
    notes = ("Note one: " + HOSTILE * 25, "<!here> second *note*")
    noted = replace(citation(5, 60), notes=notes)
    answer = replace(long_answer(60), citations=[noted, citation(6, 60)])
    result = replace(long_result(False), notes=notes, citation=noted)
    for message, label in ((blocks.answer_message(answer), "Note from the maintainers"),
                           (blocks.result_message(result), "Note from the maintainers"),
                           (blocks.result_message(replace(result, lang="es")), "Nota de los mantenedores")):
        check_limits(message)
        check_escaped(message)
        shown = [text for text in all_texts(message) if label in text]
        assert len(shown) == 2 and shown[1] == f"📝 {label}: &lt;!here&gt; second *note*"
        assert shown[0].startswith(f"📝 {label}: Note one: &lt;!channel&gt;")
    plain = blocks.answer_message(replace(answer, citations=[citation(5, 60)]))
    assert not any("maintainers" in text for text in all_texts(plain))


def test_the_forms_keep_slacks_limits_and_show_what_people_wrote_as_plain_text() -> None:
    from bot.slack.knowledge_views import entry_modal, gap_prefill, message_prefill, note_modal
    from tests.support.slack_fake import modal_problem

    long = HOSTILE * 400
    forms = [
        entry_modal(gap_prefill(gap_id=7, text=long, example=long, lang="es"), "en"),
        entry_modal(message_prefill({"text": long + "\n" + long, "user": "U7"}, "en"), "es"),
        entry_modal(message_prefill({"text": "", "bot_id": "B1"}, "en"), "es"),
        note_modal(doc="d" * 500, question=12, lang="en", cited=long, ui="es"),
    ]
    for form in forms:
        assert modal_problem(form) is None, modal_problem(form)
        assert not any("script" in text or "<!" in text for text in markup_texts(form))
    assert "script" in json.dumps(forms[0], ensure_ascii=False)  # shown, as plain text


def test_a_messages_slack_markup_becomes_the_markdown_a_person_typed() -> None:
    from bot.slack.knowledge_views import message_prefill, slack_to_markdown

    text = ("*Tip* for <#C1|training>: <https://docs.aws.amazon.com/eks/|EKS docs> or <https://x.example/a>\n"
            "&lt;b&gt; &amp; `code` <!channel> <!subteam^S1|@ml-team> <@U999> <@U1|ana>\x07\n\n```\nx = 1\n```")
    assert slack_to_markdown(text) == (
        "*Tip* for #training: [EKS docs](https://docs.aws.amazon.com/eks/) or https://x.example/a\n"
        "<b> & `code`  @ml-team  ana\n\n```\nx = 1\n```")
    prefill = message_prefill({"text": text, "user": "U42"}, "en")
    assert prefill.title == "*Tip* for #training: [EKS docs](https://docs.aws.amazon.com/eks/) or https://x.example/a"
    assert prefill.credit == "U42" and prefill.cut_from is None
    assert message_prefill({"text": "x", "user": "<!here>"}, "en").credit is None
