"""The figures of answers from documents count what a person would see: a near-domain question is handled when
the bot declines it, or answers it opening with what the knowledge does not cover."""

from __future__ import annotations

import pytest

from bot.evaluation.documents import DocQuestion, DocResult, summarize_documents

PAGE = "public/volcano.md"


def near(q: str) -> DocQuestion:
    return DocQuestion(q=q, lang="en", source=PAGE, answerable=False, kind="near")


def test_a_near_domain_question_is_handled_when_declined_or_answered_naming_what_is_not_covered() -> None:
    results = [
        DocResult(near("How often does discovery resync?"), answered=False, confidence=0.1, source=None,
                  section=None),
        DocResult(near("Does it run on trn2.48xlarge?"), answered=True, confidence=0.6, source=PAGE,
                  section="Volcano", passage="…", uncovered=("trn2.48xlarge",)),
        DocResult(near("Which label key groups nodes by rack?"), answered=True, confidence=0.8, source=PAGE,
                  section="Volcano", passage="…"),
    ]
    assert [r.handled for r in results] == [True, True, False]
    summary = summarize_documents(results)
    assert summary[PAGE] == summary["all"] == summary["all en"]
    figures = summary["all"]
    assert isinstance(figures, dict)
    assert (figures["unanswerable"], figures["declined_right"], figures["handled"]) == (3, 0.333, 0.667)
    assert results[1].to_dict()["uncovered"] == ["trn2.48xlarge"]


def test_an_answerable_question_is_never_counted_as_handled() -> None:
    fair = DocQuestion(q="Which label key?", lang="en", source=PAGE, answerable=True)
    assert not DocResult(fair, answered=False, confidence=0.1, source=None, section=None).handled


def test_right_section_counts_only_questions_that_name_their_section() -> None:
    """A set written with the passage's strings only (no section) shows no right-section figure, not 0."""
    named = DocQuestion(q="Which queue?", lang="en", source=PAGE, answerable=True, section="Volcano › Queues")
    unnamed = DocQuestion(q="Which plugin?", lang="en", source=PAGE, answerable=True)

    def cited(question: DocQuestion) -> DocResult:
        return DocResult(question, answered=True, confidence=0.9, source=PAGE, section="Volcano › Queues",
                         passage="…")

    both = summarize_documents([cited(named), cited(unnamed)])["all"]
    alone = summarize_documents([cited(unnamed)])["all"]
    assert isinstance(both, dict) and isinstance(alone, dict)
    assert both["right_section"] == 1.0 and both["answered_right"] == 1.0
    assert alone["right_section"] is None and alone["answered_right"] == 1.0


def test_an_answerable_question_not_quoted_is_counted_where_its_answer_went() -> None:
    """Quoted, another section of the right page, another passage of the right section, another page or declined:
    each answerable question is in exactly one, and the shares add up to 1."""
    def asked(q: str, section: str = "") -> DocQuestion:
        return DocQuestion(q=q, lang="en", source=PAGE, answerable=True, section=section,
                           answer_contains=["minAvailable"])

    queues = "Volcano › Queues"
    results = [
        DocResult(asked("quoted", queues), True, 0.9, PAGE, queues, passage="set minAvailable to 4"),
        DocResult(asked("parent cited", queues), True, 0.9, PAGE, "Volcano", passage="Volcano schedules"),
        DocResult(asked("other passage", queues), True, 0.9, PAGE, queues, passage="a queue has a weight"),
        DocResult(asked("no section named"), True, 0.9, PAGE, "Volcano", passage="Volcano schedules"),
        DocResult(asked("other page", queues), True, 0.9, "public/kueue.md", "Kueue", passage="…"),
        DocResult(asked("declined", queues), False, 0.1, None, None),
    ]
    assert [(r.quoted, r.other_section, r.other_passage) for r in results] == [
        (True, False, False), (False, True, False), (False, False, True), (False, False, True),
        (False, False, False), (False, False, False)]
    figures = summarize_documents(results)["all"]
    assert isinstance(figures, dict)
    assert (figures["other_section"], figures["other_passage"]) == (0.167, 0.333)
    parts = ("quoted", "other_section", "other_passage", "wrong_source", "false_abstention")
    shares = [figures[k] for k in parts]
    assert all(isinstance(share, float) for share in shares)
    assert sum(share for share in shares if isinstance(share, float)) == pytest.approx(1.0, abs=0.003)  # rounded


def test_a_fair_question_declined_counts_as_suggested_when_the_closest_offered_is_its_page() -> None:
    """Declined, the right page offered as the closest ("did you mean", one click from the answer): counted among
    the declined; another page offered, or none, is not."""
    fair = DocQuestion(q="Which label key?", lang="en", source=PAGE, answerable=True)
    results = [
        DocResult(fair, answered=False, confidence=0.2, source=None, section=None, suggested=PAGE),
        DocResult(fair, answered=False, confidence=0.2, source=None, section=None, suggested="public/kueue.md"),
        DocResult(fair, answered=False, confidence=0.0, source=None, section=None),
        DocResult(fair, answered=True, confidence=0.9, source=PAGE, section="Volcano", passage="…"),
    ]
    assert [r.suggested_right for r in results] == [True, False, False, False]
    figures = summarize_documents(results)["all"]
    assert isinstance(figures, dict)
    assert (figures["false_abstention"], figures["suggested"]) == (0.75, 0.333)
    assert summarize_documents(results[3:])["all"]["suggested"] is None  # type: ignore[index]


def test_a_table_row_counts_as_quoted_when_the_answer_shows_it_with_its_header() -> None:
    """A question whose answer is a row of a table ("`subnetId` | string | Yes", as the page writes it) is quoted
    when the answer shows that row, as rows are shown: each cell after its column's name, on one line. Another
    row of the same table, or the cells spread over lines, is not that row."""
    def answered(passage: str) -> DocResult:
        question = DocQuestion(q="Which parameters are required?", lang="en", source=PAGE, answerable=True,
                               answer_contains=["`subnetId` | string | Yes"])
        return DocResult(question, True, 0.9, PAGE, "Volcano", passage=passage)

    assert answered("These apply to all types: Parameter: `subnetId` · Type: string · Required: Yes").quoted
    assert not answered("Parameter: `deploymentType` · Type: string · Required: No").quoted
    assert not answered("Parameter: `subnetId`\nType: string · Required: Yes").quoted
