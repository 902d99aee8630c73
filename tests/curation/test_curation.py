"""Entries, notes and quiz questions added while the service runs: kept in the database (SQLite and
PostgreSQL), checked before anything is written, answered from after a refresh, on every replica, and the
same once exported to files."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import pytest

from bot.answering.assistant import Assistant
from bot.answering.in_use import AssistantInUse
from bot.answering.refresh import KnowledgeRefresh
from bot.config import load_settings
from bot.curation.service import Curation, EntryDraft
from bot.errors import InputError, StaleEditError, UnknownEntryError
from bot.quiz import QuizEngine
from bot.storage import Stores
from tests.support import knowledge_helpers
from tests.support.fakes import FakeEmbedder, lexical_model
from tests.support.knowledge_helpers import ASK_RUNBOOK, SLINKY_NOTE

RUNBOOK = EntryDraft(**knowledge_helpers.RUNBOOK)


class Replica:
    """One replica: its own assistant, refreshed from the knowledge files and the shared database."""

    def __init__(self, knowledge: Path, index: Path, stores: Stores) -> None:
        settings = load_settings(knowledge_dir=knowledge, index_dir=index, auto_rebuild=False)
        self.in_use = AssistantInUse(Assistant.from_settings(settings, embedder=FakeEmbedder(),
                                                             model=lexical_model()))
        self.curation = Curation(stores.entries, self.in_use.knowledge)
        self.refresh = KnowledgeRefresh(knowledge, self.in_use, extras=self.curation)

    @property
    def assistant(self) -> Assistant:
        return self.in_use.current()

    def ask(self, question: str, lang: str = "en") -> tuple[bool, str, str]:
        """(answered, the cited source, the text) after looking for changes."""
        self.refresh.check()
        answer = self.assistant.answer(question, lang)
        return answer.answered, answer.citations[0].source if answer.citations else "", answer.text


@pytest.fixture
def replica(knowledge_copy: Path, fake_index_dir: Path, store: Stores) -> Replica:
    return Replica(knowledge_copy, fake_index_dir, store)


def test_an_entry_is_answered_cited_and_stops_being_cited_when_deleted(replica: Replica) -> None:
    assert not replica.ask(ASK_RUNBOOK)[0]
    entry, created = replica.curation.add(RUNBOOK, by="U-admin")
    assert created and entry.version == 1
    answered, source, text = replica.ask(ASK_RUNBOOK)
    assert answered and source == f"entries/{entry.id}.md" and "64" in text
    top = replica.assistant.answer(ASK_RUNBOOK, "en").citations[0]
    assert (top.doc_id, top.section, top.title) == (f"entries/{entry.id}", RUNBOOK.title, RUNBOOK.title)
    assert top.snippet and "kubectl describe resourcequota" in top.snippet
    replica.curation.delete(entry.id, by="U-admin")
    answered, source, _ = replica.ask(ASK_RUNBOOK)
    assert source != f"entries/{entry.id}.md"
    replica.curation.restore(entry.id, by="U-other")  # a delete can be undone
    assert replica.ask(ASK_RUNBOOK)[1] == f"entries/{entry.id}.md"


def test_edits_keep_their_history_and_a_stale_edit_changes_nothing(replica: Replica) -> None:
    entry, _ = replica.curation.add(RUNBOOK, by="U1")
    edited = replica.curation.edit(entry.id, EntryDraft(**{**RUNBOOK.__dict__, "body": RUNBOOK.body.replace(
        "64", "96")}), version=1, by="U2")
    assert edited.version == 2 and "96" in edited.fields.body
    with pytest.raises(StaleEditError) as stale:  # another admin read version 1 before the first edit
        replica.curation.edit(entry.id, RUNBOOK, version=1, by="U3")
    assert stale.value.current == 2
    assert "96" in replica.ask(ASK_RUNBOOK)[2]
    history = replica.curation.history(entry.id)
    assert [(v.version, v.action, v.changed_by) for v in history] == [(1, "create", "U1"), (2, "edit", "U2")]
    assert "64" in history[0].fields.body  # the previous text
    with pytest.raises(UnknownEntryError):
        replica.curation.edit("nope", RUNBOOK, version=1, by="U2")


@pytest.mark.parametrize(("draft", "reason"), [
    (EntryDraft("", "body", "en"), "title is empty"),
    (EntryDraft("T", "x" * 20_001, "en"), "20001 characters"),
    (EntryDraft("T", "body \ud800 here", "en"), "not valid Unicode"),
    (EntryDraft("T", "body", "fr"), "lang must be"),
    (EntryDraft("T", "body", "en", options=("a", "b", "c")), "4 options"),
    (EntryDraft("T", "body", "en", options=("a", "b", "c", "d"), answer="E"), "answer must be"),
    (EntryDraft("T", "Intro.\n\n## 2. Another question\n\nbody", "en", options=("a", "b", "c", "d"), answer="A"),
     "does not read as knowledge"),
])
def test_bad_entries_are_refused_and_nothing_is_written(replica: Replica, store: Stores, draft: EntryDraft,
                                                        reason: str) -> None:
    before = store.entries.revision()
    with pytest.raises(InputError, match=reason):
        replica.curation.add(draft, by="U1")
    assert store.entries.revision() == before and store.entries.listing() == []


QUIZ = EntryDraft(**{**knowledge_helpers.QUIZ_ENTRY, "options": tuple(knowledge_helpers.QUIZ_ENTRY["options"])})
# Every character that ends a line somewhere: Python's str.splitlines, Unicode's line and paragraph separators,
# NEL, and the vertical tab and form feed a terminal moves down for.
LINE_BREAKS = ["\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]


@pytest.mark.parametrize("brk", LINE_BREAKS, ids=[f"U+{ord(b[-1]):04X}" for b in LINE_BREAKS])
def test_a_title_topic_or_option_with_any_line_break_is_refused(replica: Replica, store: Stores, brk: str) -> None:
    entry, _ = replica.curation.add(RUNBOOK, by="U1")
    before = store.entries.revision()
    options = list(QUIZ.options)
    options[1] = f"Node{brk}Set"
    for field, draft in [("title", replace(RUNBOOK, title=f"GPU quota{brk}## Injected heading")),
                         ("topic", replace(RUNBOOK, topic=f"Quotas{brk}Other")),
                         ("title", replace(QUIZ, title=f"Which kind{brk}does Slinky define?")),
                         ("option B", replace(QUIZ, options=tuple(options)))]:
        with pytest.raises(InputError, match=f"^{field} must be one line"):
            replica.curation.add(draft, by="U1")
        if field != "option B":
            with pytest.raises(InputError, match=f"^{field} must be one line"):
                replica.curation.edit(entry.id, replace(draft, options=(), answer=None), version=1, by="U1")
    assert store.entries.revision() == before and len(store.entries.listing()) == 1
    spaced, _ = replica.curation.add(replace(RUNBOOK, title=f"GPU quota{brk}"), by="U1")  # at an end: trimmed
    assert spaced.fields.title == "GPU quota"


def test_an_edit_cannot_turn_a_text_into_a_quiz_question_or_back(replica: Replica, store: Stores) -> None:
    text, _ = replica.curation.add(RUNBOOK, by="U1")
    quiz, _ = replica.curation.add(QUIZ, by="U1")
    before = store.entries.revision()
    with pytest.raises(InputError, match="is a text: add a quiz question as a new entry"):
        replica.curation.edit(text.id, QUIZ, version=1, by="U2")
    with pytest.raises(InputError, match="is a quiz question: an edit keeps its four options and answer"):
        replica.curation.edit(quiz.id, RUNBOOK, version=1, by="U2")
    assert store.entries.revision() == before
    assert [len(replica.curation.history(e.id)) for e in (text, quiz)] == [1, 1]
    assert replica.curation.edit(quiz.id, replace(QUIZ, answer="C"), version=1, by="U2").fields.answer == "C"


def test_a_form_submitted_twice_saves_one_entry(replica: Replica, store: Stores) -> None:
    first, created = replica.curation.add(RUNBOOK, by="U1", request_key="view-V123")
    again, created_again = replica.curation.add(RUNBOOK, by="U1", request_key="view-V123")
    assert created and not created_again and again.id == first.id
    assert len(store.entries.listing()) == 1


def test_a_note_shows_with_every_answer_and_quiz_result_citing_its_question(replica: Replica, store: Stores) -> None:
    note, _ = replica.curation.add_note(question=4, lang="en", text=SLINKY_NOTE, by="U-admin")
    replica.curation.add_note(question=4, lang="es", text="Las versiones actuales de Slinky usan NodeSet y Cluster.",
                              by="U-admin")
    replica.refresh.check()
    answer = replica.assistant.answer("Which Slinky CRD defines the Slurm compute nodes?", "en")
    assert answer.answered and answer.citations[0].question == 4
    assert answer.citations[0].notes == (SLINKY_NOTE,)  # the reader's language only
    assert f"Note from the maintainers: {SLINKY_NOTE}" in answer.text
    assert answer.citations[0].to_dict()["notes"] == [SLINKY_NOTE]
    quiz = QuizEngine(replica.assistant.knowledge, store.quiz)
    prompt = quiz.next_question("ana", question=4, lang="es")
    result = quiz.answer("ana", prompt.attempt_id, "A")
    assert result.notes == ("Las versiones actuales de Slinky usan NodeSet y Cluster.",)
    assert result.to_dict()["notes"] == list(result.notes)
    key = replica.assistant.knowledge.question("eks-training-quiz", 4, "en").answer
    assert result.correct_choice and key == replica.assistant.knowledge.question("eks-training-quiz", 4, "es").answer
    replica.curation.delete_note(note.id, by="U-admin")
    replica.refresh.check()
    english = replica.assistant.answer("Which Slinky CRD defines the Slurm compute nodes?", "en")
    assert english.citations[0].notes == ("Las versiones actuales de Slinky usan NodeSet y Cluster.",)  # another


def test_a_note_for_an_unknown_question_is_refused(replica: Replica, store: Stores) -> None:
    with pytest.raises(InputError, match="no question 99"):
        replica.curation.add_note(question=99, lang="en", text="x", by="U1")
    with pytest.raises(InputError, match="no question 1"):
        replica.curation.add_note(question=1, doc="nope", lang="en", text="x", by="U1")
    assert store.entries.notes() == []


def test_a_quiz_question_added_as_an_entry_is_drawn_by_the_quiz(replica: Replica, store: Stores) -> None:
    entry, _ = replica.curation.add(EntryDraft(
        title="Which kind does Slinky define for a set of Slurm compute nodes?",
        body="Current Slinky releases define `NodeSet` in the `slinky.slurm.net` group.", lang="en",
        topic="Slinky CRDs", options=("SlurmNodeSet", "NodeSet", "ComputeSet", "NodeGroup"), answer="B"), by="U1")
    replica.refresh.check()
    quiz = QuizEngine(replica.assistant.knowledge, store.quiz)
    assert (f"entries/{entry.id}", 1) in quiz.keys
    prompt = quiz.next_question("bea", topic="Slinky CRDs", lang="en")
    assert (prompt.doc_id, prompt.question, prompt.pool) == (f"entries/{entry.id}", 1, 1)
    assert [o.text for o in prompt.options if o.key] and "NodeSet" in {o.text for o in prompt.options}
    letter = next(o.key for o in prompt.options if o.text == "NodeSet")
    result = quiz.answer("bea", prompt.attempt_id, letter)
    assert result.correct and "slinky.slurm.net" in result.explanation


def test_every_replica_answers_from_an_entry_saved_on_another(knowledge_copy: Path, fake_index_dir: Path,
                                                               store: Stores) -> None:
    one, two = (Replica(knowledge_copy, fake_index_dir, store) for _ in range(2))
    entry, _ = one.curation.add(RUNBOOK, by="U1")
    assert two.ask(ASK_RUNBOOK)[1] == f"entries/{entry.id}.md"
    two.curation.delete(entry.id, by="U2")
    assert one.ask(ASK_RUNBOOK)[1] != f"entries/{entry.id}.md"


def test_exported_entries_and_notes_answer_as_they_do_from_the_database(
    replica: Replica, tmp_path: Path, knowledge_copy: Path
) -> None:
    replica.curation.add(RUNBOOK, by="U1")
    replica.curation.add_note(question=4, lang="en", text=SLINKY_NOTE, by="U1")
    replica.refresh.check()
    exported = tmp_path / "exported"
    exported.mkdir()
    for path in knowledge_copy.glob("*.md"):
        (exported / path.name).write_bytes(path.read_bytes())
    assert len(replica.curation.export(exported)) == 2
    settings = load_settings(knowledge_dir=exported, index_dir=tmp_path / "index", auto_rebuild=True)
    from_files = Assistant.from_settings(settings, embedder=FakeEmbedder(), model=lexical_model())
    for question in (ASK_RUNBOOK, "Which Slinky CRD defines the Slurm compute nodes?", "What is gang scheduling?"):
        assert from_files.answer(question, "en").to_dict() == replica.assistant.answer(question, "en").to_dict()


def test_each_change_is_logged_with_who_and_the_id_never_the_text(replica: Replica,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="bot.curation.service"):
        entry, _ = replica.curation.add(RUNBOOK, by="U-admin")
        replica.curation.delete(entry.id, by="U-admin")
    lines = [r for r in caplog.records if r.name == "bot.curation.service"]
    assert [(r.getMessage(), r.__dict__["entry"], r.__dict__["by"]) for r in lines] == [
        ("knowledge entry added", entry.id, "U-admin"), ("knowledge entry deleted", entry.id, "U-admin")]
    assert not any("research-train" in str(r.__dict__) or "quota" in str(r.__dict__) for r in lines)


def test_a_retried_note_saves_once_even_after_it_was_deleted(replica: Replica, store: Stores) -> None:
    note, created = replica.curation.add_note(question=4, lang="en", text=SLINKY_NOTE, by="U1", request_key="k1")
    replica.curation.delete_note(note.id, by="U1")
    again, created_again = replica.curation.add_note(question=4, lang="en", text=SLINKY_NOTE, by="U1",
                                                     request_key="k1")
    assert created and not created_again and again.id == note.id
    assert store.entries.notes() == []  # the retry does not bring the deleted note back
