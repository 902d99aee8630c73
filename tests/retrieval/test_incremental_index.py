"""A changed knowledge is indexed from the one in use, reusing the work on what did not change: the assistant
it gives answers exactly as one built from nothing over the same files (same chunks and vectors, same ranked
sections, same confidence and text), and a removed document is no longer answered."""

from __future__ import annotations

import json
import shutil
from functools import partial
from pathlib import Path

import numpy as np
import pytest

from bot.answering.assistant import Answer, Assistant
from bot.answering.in_use import AssistantInUse
from bot.answering.refresh import KnowledgeRefresh
from bot.config import PROJECT_ROOT
from bot.knowledge import KnowledgeBase, load_knowledge, loader
from bot.knowledge.chunks import chunk_knowledge
from bot.knowledge.loader import ReadCache
from bot.lang import LANGUAGES
from bot.reading.lexicon import Glossary
from bot.retrieval import knowledge_terms
from bot.retrieval.artifacts import make_index
from bot.retrieval.hybrid import page_name
from bot.retrieval.lexical import LexicalIndex
from bot.retrieval.readings import english_readings
from bot.retrieval.sentence_groups import SentenceGroups
from bot.text.language import edition_vocabulary
from bot.text.tokens import tokens
from tests.support.fakes import FakeEmbedder, lexical_model

DOCS = PROJECT_ROOT / "tests" / "docs"
RUNBOOK = "runbook/gpu-training-runbook.md"
SPANISH_RUNBOOK = "runbook/checkpoints-runbook.es.md"
NEW_SECTION = ("\n## Maintenance window\n\nThe maintenance window of cluster zeta-4821 starts every Sunday at 03:00 "
               "UTC. Jobs still running then are checkpointed and requeued by Kueue.\n")
ASK_NEW = "When does the maintenance window of cluster zeta-4821 start?"


@pytest.fixture
def knowledge(knowledge_copy: Path) -> Path:
    """The quiz and the real doc pages and runbooks of tests/docs, in a directory the test may change."""
    for source in [*DOCS.rglob("*.md"), *DOCS.rglob("*.mdx")]:
        if source.parent != DOCS:
            target = knowledge_copy / source.relative_to(DOCS)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, target)
    return knowledge_copy


@pytest.fixture
def read() -> ReadCache:
    """The refresh's cache of read files: an unchanged file gives back the same document."""
    return {}


def built(knowledge: KnowledgeBase) -> Assistant:
    embedder = FakeEmbedder()
    return Assistant(make_index(knowledge, embedder), embedder, model=lexical_model())


def questions() -> list[tuple[str, str]]:
    """The doc questions of tests/docs, the quiz's own held-out questions (a few) and the new section's."""
    asked = [(json.loads(line)["q"], json.loads(line)["lang"])
             for line in (DOCS / "questions.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    holdout = [(row["q"] if "q" in row else row["question"], row.get("lang", "en"))
               for row in map(json.loads, (PROJECT_ROOT / "tests" / "eval" / "holdout.jsonl").read_text(
                   encoding="utf-8").splitlines()[::12])]
    return [*asked[::3], *holdout, (ASK_NEW, "en"), ("¿Cuándo empieza la ventana de mantenimiento de zeta-4821?", "es")]


def same_answers(refreshed: Assistant, scratch: Assistant) -> None:
    """Both assistants hold the same index and answer every question the same way."""
    assert refreshed.index.chunks == scratch.index.chunks
    assert refreshed.index.sentences == scratch.index.sentences
    assert np.array_equal(refreshed.index.faiss_index.reconstruct_n(0, refreshed.index.faiss_index.ntotal),
                          scratch.index.faiss_index.reconstruct_n(0, scratch.index.faiss_index.ntotal))
    assert np.array_equal(refreshed.index.sentence_vectors, scratch.index.sentence_vectors)
    for question, lang in questions():
        mine: Answer = refreshed.answer(question, lang)
        theirs: Answer = scratch.answer(question, lang)
        assert mine.ranked == theirs.ranked, question
        assert mine.confidence == theirs.confidence, question
        assert mine.to_dict() == theirs.to_dict(), question


def same_knowledge_terms(refreshed: Assistant, scratch: Assistant) -> None:
    mine, theirs = refreshed.retriever.terms, scratch.retriever.terms
    assert {key: mine.terms_of(key) for key in mine.keys} == {key: theirs.terms_of(key) for key in theirs.keys}
    assert all(mine.postings(lang) == theirs.postings(lang) for lang in LANGUAGES)
    assert mine.everywhere == theirs.everywhere
    assert mine.languages == theirs.languages
    assert sorted(mine.spelling._words) == sorted(theirs.spelling._words)
    words = edition_vocabulary({lang: [c.indexed_text for c in scratch.index.chunks if c.lang == lang]
                                for lang in LANGUAGES})
    assert refreshed.retriever.edition_words == words == scratch.retriever.edition_words


def test_a_section_added_to_a_doc_is_answered_as_from_scratch(knowledge: Path, read: ReadCache) -> None:
    before = built(load_knowledge(knowledge, read))
    assert not before.answer(ASK_NEW, "en").answered
    path = knowledge / RUNBOOK
    path.write_text(path.read_text(encoding="utf-8") + NEW_SECTION, encoding="utf-8")
    changed = load_knowledge(knowledge, read)
    refreshed = before.with_knowledge(changed)
    scratch = built(load_knowledge(knowledge))
    answer = refreshed.answer(ASK_NEW, "en")
    assert answer.answered and "03:00 UTC" in answer.text
    assert answer.citations[0].section.endswith("Maintenance window")
    same_answers(refreshed, scratch)
    same_knowledge_terms(refreshed, scratch)


def test_edits_and_removals_in_a_row_answer_as_from_scratch(knowledge: Path, read: ReadCache) -> None:
    """A section edited in the middle of a Spanish doc (its later sections keep their text, not their
    place), then a doc removed, then one added back: after each, as built from nothing."""
    current = built(load_knowledge(knowledge, read))
    spanish = knowledge / SPANISH_RUNBOOK
    text = spanish.read_text(encoding="utf-8")
    heading = text.index("\n## ", text.index("\n## ") + 1)
    spanish.write_text(text[:heading] + "\n## Ventana de mantenimiento\n\nLa ventana de mantenimiento del "
                       "clúster zeta-4821 empieza cada domingo a las 03:00 UTC.\n" + text[heading:], encoding="utf-8")
    current = current.with_knowledge(load_knowledge(knowledge, read))
    same_answers(current, built(load_knowledge(knowledge)))
    same_knowledge_terms(current, built(load_knowledge(knowledge)))

    removed = knowledge / RUNBOOK
    kept = removed.read_text(encoding="utf-8")
    removed.unlink()
    current = current.with_knowledge(load_knowledge(knowledge, read))
    scratch = built(load_knowledge(knowledge))
    same_answers(current, scratch)
    same_knowledge_terms(current, scratch)

    removed.write_text(kept, encoding="utf-8")
    current = current.with_knowledge(load_knowledge(knowledge, read))
    scratch = built(load_knowledge(knowledge))
    same_answers(current, scratch)
    same_knowledge_terms(current, scratch)


def test_a_removed_doc_is_no_longer_answered(knowledge: Path, read: ReadCache) -> None:
    path = knowledge / RUNBOOK
    path.write_text(path.read_text(encoding="utf-8") + NEW_SECTION, encoding="utf-8")
    before = built(load_knowledge(knowledge, read))
    answer = before.answer(ASK_NEW, "en")
    assert answer.answered and answer.citations[0].doc_id == "runbook/gpu-training-runbook"
    path.unlink()
    after = before.with_knowledge(load_knowledge(knowledge, read))
    gone = after.answer(ASK_NEW, "en")
    assert not gone.answered
    assert all(c.doc_id != "runbook/gpu-training-runbook" for c in gone.citations)
    assert all(c.doc_id != "runbook/gpu-training-runbook" for c in after.index.chunks)
    terms = after.retriever.terms
    assert not any("zeta" in words for key in terms.keys for words in terms.terms_of(key).values())
    assert "zeta" not in after.retriever.vocabulary.everywhere.get("en", frozenset())


def test_unchanged_documents_are_not_read_again(knowledge: Path, read: ReadCache,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """What a refresh takes over: the unchanged documents' chunks are the same objects, only the changed
    document's text is embedded, and only its sections' terms are read."""
    embedder = FakeEmbedder()
    before = Assistant(make_index(load_knowledge(knowledge, read), embedder), embedder, model=lexical_model())
    path = knowledge / RUNBOOK
    path.write_text(path.read_text(encoding="utf-8") + NEW_SECTION, encoding="utf-8")
    embedder.calls.clear()
    terms_read: list[str] = []
    read_text = knowledge_terms._read_text

    def reading(lang: str, text: str) -> tuple[set[str], set[str]]:
        terms_read.append(text)
        return read_text(lang, text)

    monkeypatch.setattr(knowledge_terms, "_read_text", reading)
    after = before.with_knowledge(load_knowledge(knowledge, read))
    embedded = [text for call in embedder.calls for text in call]
    assert embedded and all(text in NEW_SECTION or "Maintenance window" in text for text in embedded)
    # The terms of the changed section only are read (as it was, to take them out, and as it is).
    both = [*before.index.chunks, *after.index.chunks]
    runbook = {c.text for c in both if c.doc_id == "runbook/gpu-training-runbook"}
    runbook.add(page_name("runbook/gpu-training-runbook"))  # the page's name, read with each of its sections
    assert terms_read and all(any(text in read for text in runbook) for read in terms_read)
    quiz = next(c for c in before.index.chunks if c.doc_id != "runbook/gpu-training-runbook")
    assert quiz in after.index.chunks


def test_bm25_scores_of_reused_tokens_are_those_of_a_fresh_index(knowledge: Path) -> None:
    """An index made from an earlier one (its tokens reused by text, half of them from another chunk list)
    scores as bm25s does over every chunk tokenised afresh, to the bit."""
    import bm25s

    chunks, _ = chunk_knowledge(load_knowledge(knowledge))
    english = english_readings(chunks, Glossary.bundled())
    half = len(chunks) // 2
    earlier = LexicalIndex(chunks[:half], english={i: t for i, t in english.items() if i < half})
    asked = [q for q, _ in questions()] + [chunks[i].text[:100] for i in range(0, len(chunks), 7)]
    before = [earlier.scores(partial(tokens, question)) for question in asked]
    lexical = LexicalIndex(chunks, english=english, previous=earlier)
    # The earlier index keeps answering while the next is made, from its own vocabulary, unchanged.
    for question, scores in zip(asked, before, strict=True):
        assert all(np.array_equal(earlier.scores(partial(tokens, question))[lang], scores[lang]) for lang in scores), \
            question
    for lang in ("es", "en"):
        ids = np.array([c.id for c in chunks if c.lang == lang or (lang == "en" and c.id in english)])
        corpus = [tokens(chunks[i].indexed_text if chunks[i].lang == lang
                         else f"{chunks[i].indexed_text}\n{english[int(i)]}", lang) for i in ids]
        engine = bm25s.BM25(k1=1.2, b=0.75)
        engine.index([doc or [""] for doc in corpus], show_progress=False)
        for question in asked:
            expected = np.zeros(len(chunks), dtype=np.float32)
            terms = tokens(question, lang)
            if terms:
                expected[ids] = engine.get_scores(terms)
            assert np.array_equal(lexical.scores(partial(tokens, question))[lang], expected), question


@pytest.mark.parametrize("number_bits", [24, 4])
def test_bm25_scores_are_bm25s_for_a_word_said_hundreds_of_times(number_bits: int,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A chunk's tokens are kept 4 bytes a (token, count) pair; a count past one byte (a log pasted into a runbook
    that says "checkpoint" 300 times), or a vocabulary past the bits of a pair's number (4 here, to make one),
    are kept whole: the scores are bm25s's over the token lists, to the bit, whichever way each chunk was kept."""
    import bm25s

    from bot.knowledge.chunks import Chunk
    from bot.retrieval import lexical

    monkeypatch.setattr(lexical, "_NUMBER_BITS", number_bits)
    texts = ["checkpoint " * 300 + "saved to FSx", "Checkpoints go to FSx for Lustre every 30 minutes.",
             "Restore a checkpoint with the restore job.", "NCCL needs EFA on p5 nodes.", ""]
    chunks = [Chunk(i, "docs/runbook", "en", i + 1, "explanation", f"Section {i}", "", text, "runbook.md", 1)
              for i, text in enumerate(texts)]
    index = LexicalIndex(chunks)
    engine = bm25s.BM25(k1=1.2, b=0.75)
    engine.index([tokens(c.indexed_text, "en") or [""] for c in chunks], show_progress=False)
    for question in ("checkpoint", "where are checkpoints saved", "EFA on p5", "lustre restore"):
        expected = engine.get_scores(tokens(question, "en"))
        assert np.array_equal(index.scores(partial(tokens, question))["en"], expected), question
    assert index.scores(partial(tokens, "checkpoint"))["en"][0] > 0


def test_sentence_groups_read_the_index_vectors_in_place(knowledge: Path) -> None:
    """Each question's and edition's sentence vectors are those (and in the order) of every sentence sorted by
    question and language; a document's are read without a copy of the index's array."""
    embedder = FakeEmbedder()
    index = make_index(load_knowledge(knowledge), embedder)
    groups = SentenceGroups.of(index)
    every = np.asarray(index.sentence_vectors)
    keys = [(s.doc_id, s.question, s.lang) for s in index.sentences]
    order = sorted(range(len(keys)), key=lambda i: (keys[i], i))
    for question in {k[:2] for k in keys}:
        rows = [i for i in order if keys[i][:2] == question]
        assert np.array_equal(groups.of_question(question), every[rows])
    for edition in set(keys):
        rows = [i for i in order if keys[i] == edition]
        ids, vectors = groups.of_edition(edition)
        assert ids == rows and np.array_equal(vectors, every[rows])
    assert any(len({k[2] for k in keys if k[:2] == q}) == 2 for q in {k[:2] for k in keys})  # the quiz's
    doc = next(k for k in keys if k[0].startswith("docs") or len({e[2] for e in keys if e[:2] == k[:2]}) == 1)
    assert np.shares_memory(groups.of_edition(doc)[1], index.sentence_vectors.base)


def test_the_first_change_after_a_start_parses_only_the_changed_file(knowledge: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A server starts from files read without the refresh's cache; its first change still reads only the
    changed file, and answers as from scratch."""
    in_use = AssistantInUse(built(load_knowledge(knowledge)))
    refresh = KnowledgeRefresh(knowledge, in_use)
    path = knowledge / RUNBOOK
    path.write_text(path.read_text(encoding="utf-8") + NEW_SECTION, encoding="utf-8")
    parsed: list[Path] = []
    read_document = loader.read_document

    def recorded(file: Path, *args: object, **kwargs: object) -> object:
        parsed.append(file)
        return read_document(file, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(loader, "read_document", recorded)
    fresh = refresh.check()
    assert fresh is not None and in_use.current() is fresh
    assert parsed == [path]
    assert fresh.answer(ASK_NEW, "en").answered
    monkeypatch.undo()
    same_answers(fresh, built(load_knowledge(knowledge)))


def test_replaced_definitions_go_without_the_cycle_collector() -> None:
    """What answers "what is X?" for a knowledge that was replaced is freed as soon as nothing uses it (during a
    refresh the cycle collector waits), with the cache of what was read about its questions."""
    import gc
    import weakref

    from bot.answering.definitions import Definitions

    definitions = Definitions([(("doc", 1), "sentence", "Gang scheduling starts a job's pods together.")], [])
    assert not definitions.defines(("doc", 1), [])
    definitions._read(("doc", 1))  # something read and cached
    gone = weakref.ref(definitions)
    gc.disable()
    try:
        del definitions
        assert gone() is None
    finally:
        gc.enable()
