"""Knowledge gaps as stored: what goes in, how near-identical entries are counted together, what is never
kept (user ids), retention, and the switch that turns recording off. On SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

import sqlalchemy as sa

from bot.answering.assistant import Answer
from bot.answering.knowledge_gaps import KnowledgeGaps
from bot.knowledge.citations import Citation
from bot.reading.keys import words_key
from bot.storage import Stores
from tests.support.quiz_helpers import Clock

SLURM = Citation(question=13, title="slotsPerWorker", excerpt="", snippet=None, source="quiz.en.md", score=1.0)


def unanswered(lang: str = "en") -> Answer:
    return Answer(answered=False, language=lang, text="I don't know", citations=[])  # type: ignore[arg-type]


def partial(*terms: str) -> Answer:
    return Answer(answered=True, language="en", text="...", citations=[SLURM], uncovered=list(terms))


def gaps_of(store: Stores, clock: Clock, **options: object) -> KnowledgeGaps:
    return KnowledgeGaps(store.gaps, clock=clock, **options)  # type: ignore[arg-type]


def test_near_identical_questions_count_together_per_language(store: Stores, clock: Clock) -> None:
    gaps = gaps_of(store, clock)
    gaps.record_answer("How do I configure Ray Train for multi-node GPU training?", unanswered())
    clock.advance(minutes=5)
    gaps.record_answer("how to configure ray train for multi node gpu training", unanswered())
    gaps.record_answer("How can I configure Ray Train for multi-node GPU training on EKS?", unanswered())  # near
    gaps.record_answer("¿Cómo configuro Ray Train para entrenar en varios nodos?", unanswered("es"))
    gaps.record_answer("What is the capital of Australia?", unanswered())
    gaps.record_answer("What is the capital of France?", unanswered())  # shares a word: not near
    listed = gaps.listing()
    assert [(g.lang, g.count) for g in listed][0] == ("en", 3)
    assert sorted((g.lang, g.count) for g in listed[1:]) == [("en", 1), ("en", 1), ("es", 1)]
    top = listed[0]
    assert top.text == "How can I configure Ray Train for multi-node GPU training on EKS?"  # the latest wording
    assert top.last_seen == clock.now and top.first_seen == clock.now - timedelta(minutes=5)


def test_uncovered_terms_of_partial_answers_and_downvotes_go_in(store: Stores, clock: Clock) -> None:
    gaps = gaps_of(store, clock)
    gaps.record_answer("MPIJob or PyTorchJob for 8 GPUs per node?", partial("PyTorchJob"))
    gaps.record_answer("Is a PyTorchJob better than slotsPerWorker?", partial("PyTorchJob"))
    gaps.record_answer("How do I set slotsPerWorker?", partial())  # fully answered: no gap
    assert not gaps.shows_gap(partial()) and gaps.shows_gap(partial("PyTorchJob")) and gaps.shows_gap(unanswered())
    assert not gaps_of(store, clock, enabled=False).shows_gap(unanswered())
    gaps.record_downvote("How do I set slotsPerWorker?", cited=13, lang="en")
    gaps.record_downvote("how do i set slotsperworker", cited=13, lang="en")
    by_kind = {g.kind: g for g in gaps.listing()}
    assert set(by_kind) == {"uncovered", "downvoted"}
    assert (by_kind["uncovered"].text, by_kind["uncovered"].count, by_kind["uncovered"].question) == (
        "PyTorchJob", 2, 13)
    assert by_kind["uncovered"].example == "Is a PyTorchJob better than slotsPerWorker?"
    assert (by_kind["downvoted"].count, by_kind["downvoted"].question) == (2, 13)


def test_a_downvoted_document_answer_names_its_section_and_no_quiz_number(store: Stores, clock: Clock) -> None:
    gaps = gaps_of(store, clock)
    section = "GPU training on EKS › GPU quotas › Requesting a quota increase"
    gaps.record_downvote("How do I get more GPUs?", cited=8, lang="en", section=section)
    gaps.record_downvote("how do i get more gpus", cited=8, lang="en", section=section)
    (gap,) = gaps.listing()
    assert (gap.kind, gap.text.lower().rstrip("?"), gap.count, gap.question, gap.example) == (
        "downvoted", "how do i get more gpus", 2, None, section)


def test_nothing_identifies_who_asked(store: Stores, clock: Clock) -> None:
    gaps_of(store, clock).record_answer("<@U12345> how do I use a PyTorchJob?", unanswered())
    with store.database.engine.connect() as conn:
        columns = {c["name"] for c in sa.inspect(conn).get_columns("knowledge_gaps")}
        rows = [dict(r._mapping) for r in conn.execute(sa.text("SELECT * FROM knowledge_gaps"))]
    assert not {c for c in columns if "user" in c or "team" in c or "channel" in c}
    assert "U12345" not in str(rows) and rows[0]["text"] == "how do I use a PyTorchJob?"


def test_a_forwarded_emails_signature_and_notice_are_never_kept(store: Stores, clock: Clock) -> None:
    """A question relayed from e-mail is kept as what it asks: the sender's name, title, phone and the
    confidentiality notice under it are not stored with it."""
    forwarded = ("Fwd: BioNeMo licensing\nFrom: Valentina Ortiz\nSent: Friday, March 7, 2025 5:21 PM\n\n"
                 "How much does the NVIDIA AI Enterprise license cost per GPU?\n\nThanks a lot,\nLaura Camacho R.\n"
                 "Executive Assistant\nPhone: +57 601 555 0142 ext. 210\n\nCONFIDENTIALITY NOTICE: This e-mail and "
                 "any attachments are confidential.")
    gaps_of(store, clock).record_answer(forwarded, unanswered())
    with store.database.engine.connect() as conn:
        rows = [dict(r._mapping) for r in conn.execute(sa.text("SELECT * FROM knowledge_gaps"))]
    assert rows[0]["text"] == ("BioNeMo licensing. How much does the NVIDIA AI Enterprise license cost per GPU?")
    assert not {"Valentina", "Laura", "0142", "CONFIDENTIALITY", "Friday"} & set(str(rows).replace(".", " ").split())


def test_gaps_are_kept_for_the_retention_period_only(store: Stores, clock: Clock) -> None:
    gaps = gaps_of(store, clock, retention_days=30)
    gaps.record_answer("How do I use a PyTorchJob?", unanswered())
    clock.advance(days=20)
    gaps.record_answer("What is Ray Train?", unanswered())
    clock.advance(days=15)  # the first is 35 days old, the second 15
    assert [g.text for g in gaps.listing()] == ["What is Ray Train?"]  # never shown past retention
    assert gaps.prune() == 1
    with store.database.engine.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM knowledge_gaps")).scalar() == 1
    gaps.record_answer("How do I use a PyTorchJob?", unanswered())  # seen again: a new group
    assert {(g.text, g.count) for g in gaps.listing()} == {("What is Ray Train?", 1),
                                                           ("How do I use a PyTorchJob?", 1)}


def test_recording_can_be_turned_off(store: Stores, clock: Clock) -> None:
    gaps = gaps_of(store, clock, enabled=False)
    gaps.record_answer("How do I use a PyTorchJob?", unanswered())
    gaps.record_answer("MPIJob or PyTorchJob?", partial("PyTorchJob"))
    gaps.record_downvote("How do I set slotsPerWorker?", cited=13, lang="en")
    assert gaps.listing() == []


def test_the_key_ignores_case_order_plurals_and_stop_words() -> None:
    assert words_key("How do I use a PyTorchJob?", "en") == words_key("pytorchjobs: how to use", "en")
    assert words_key("¿Cómo uso los PyTorchJob?", "es") == words_key("cómo usar un pytorchjob", "es")
    assert words_key("How do I use a PyTorchJob?", "en") != words_key("How do I use a TFJob?", "en")
    assert len(words_key("word " * 200 + " ".join(f"w{i}" for i in range(300)), "en")) <= 255
