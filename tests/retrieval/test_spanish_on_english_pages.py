"""A Spanish question about a page written only in English is searched said in English as well, since the
embedding model is English; the quiz, which has a Spanish edition, is searched as before."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from bot.answering.assistant import Assistant
from bot.knowledge import load_knowledge
from bot.retrieval.artifacts import build_index, load_index
from tests.conftest import KNOWLEDGE, TEST_DOCS
from tests.support.fakes import FakeEmbedder

SPANISH = "¿Cómo pido un aumento de la cuota de GPUs para mi equipo?"


@pytest.fixture(scope="module")
def with_runbook(tmp_path_factory: pytest.TempPathFactory) -> Assistant:
    root = tmp_path_factory.mktemp("runbook-knowledge")
    knowledge = root / "knowledge"
    shutil.copytree(KNOWLEDGE, knowledge)
    shutil.copy(TEST_DOCS / "runbook" / "gpu-training-runbook.md", knowledge / "gpu-training-runbook.md")
    kb = load_knowledge(knowledge)
    build_index(kb, root / "index", FakeEmbedder())
    return Assistant(load_index(kb, root / "index", FakeEmbedder(), rebuild=False), FakeEmbedder())


def counted(assistant: Assistant) -> tuple[Assistant, FakeEmbedder]:
    """The same index, with an embedder of its own: the test sees each of its calls."""
    embedder = FakeEmbedder()
    return Assistant(assistant.index, embedder), embedder


def test_a_spanish_question_is_embedded_said_in_english_as_well(with_runbook: Assistant) -> None:
    assistant, embedder = counted(with_runbook)
    english = "How do I request a GPU quota increase?"
    [spanish_retrieval, _] = assistant.retrieve_many([(SPANISH, "es"), (english, "en")])
    said = assistant.retriever.analyze(SPANISH, "es").english_text
    assert {"request", "increase", "quota", "GPUs"} <= set(said.split())
    # The questions together, then the readings together (a few words each, not padded to a question's length);
    # the English question has none.
    assert len(embedder.calls) == 2 and len(embedder.calls[0]) == 2 and embedder.calls[1] == [said]
    assert spanish_retrieval.english_vector is not None


def test_only_the_pages_written_in_english_alone_are_searched_with_it(with_runbook: Assistant) -> None:
    assistant = with_runbook
    analysis = assistant.retriever.analyze(SPANISH, "es")
    vector, english = assistant.embedder.encode([analysis.search_text, analysis.english_text])
    plain = assistant.retriever.retrieve(analysis, vector, "es")
    read = assistant.retriever.retrieve(analysis, vector, "es", english)
    chunks = assistant.index.chunks
    runbook = np.array([c.doc_id == "gpu-training-runbook" for c in chunks])
    assert (read.chunk_dense[~runbook] == plain.chunk_dense[~runbook]).all()  # the quiz as before
    assert (read.chunk_dense[runbook] >= plain.chunk_dense[runbook]).all()
    section = next(s for s in read.ranked if s.key[0] == "gpu-training-runbook")
    title = assistant.knowledge.question(*section.key, "es").path[-1]
    assert title == "Requesting a quota increase"  # said in English, it finds the section that answers
    before = next(s for s in plain.ranked if s.key == section.key)
    assert section.score > before.score


def test_a_quiz_alone_embeds_nothing_more(fake_index_dir: Path) -> None:
    embedder = FakeEmbedder()
    assistant = Assistant(load_index(load_knowledge(KNOWLEDGE), fake_index_dir, embedder, rebuild=False), embedder)
    [retrieval] = assistant.retrieve_many([(SPANISH, "es")])
    assert embedder.calls == [[assistant.retriever.analyze(SPANISH, "es").search_text]]
    assert retrieval.english_vector is None


@pytest.mark.parametrize(("spanish", "english"), [
    ("¿De qué fuentes descubre el operador los nodos automáticamente?", {"source", "discover", "automatically"}),
    ("¿Qué eventos de advertencia salen cuando falla la limpieza?", {"event", "warning", "cleanup"}),
    ("¿Cuáles son los prerrequisitos y quién es el propietario del recurso?", {"prerequisite", "owner"}),
    ("¿Cada cuánto reintenta si el token caduca?", {"retry", "expire"}),
])
def test_the_everyday_words_of_documentation_are_said_in_english(
        with_runbook: Assistant, spanish: str, english: set[str]) -> None:
    # A page's words are ordinary ones as much as names: a Spanish question that asks with them reaches an English
    # page only when they are read in English too.
    said = with_runbook.retriever.analyze(spanish, "es").english_text
    assert english <= set(said.split()), said


@pytest.fixture(scope="module")
def with_both_runbooks(tmp_path_factory: pytest.TempPathFactory) -> Assistant:
    """The English runbook beside one written in Spanish alone, whose English reading the English index holds too."""
    root = tmp_path_factory.mktemp("both-runbooks")
    knowledge = root / "knowledge"
    shutil.copytree(KNOWLEDGE, knowledge)
    for name in ("gpu-training-runbook.md", "checkpoints-runbook.es.md"):
        shutil.copy(TEST_DOCS / "runbook" / name, knowledge / name)
    kb = load_knowledge(knowledge)
    build_index(kb, root / "index", FakeEmbedder())
    return Assistant(load_index(kb, root / "index", FakeEmbedder(), rebuild=False), FakeEmbedder())


def test_a_spanish_page_does_not_draw_spanish_questions_by_their_function_words(
        with_both_runbooks: Assistant, with_runbook: Assistant) -> None:
    # "¿Cómo pido … de la cuota … para mi equipo?": "de", "la", "para", "mi" are no English words. Read as English
    # terms they matched only the Spanish page's own text in the English index, which made it the English
    # index's best match for every Spanish question and left the English page a fraction of that.
    [beside] = with_both_runbooks.retrieve_many([(SPANISH, "es")])
    [alone] = with_runbook.retrieve_many([(SPANISH, "es")])
    english_terms = with_both_runbooks.retriever.analyze(SPANISH, "es").search_terms("en")
    assert not {"de", "la", "para", "mi", "un"} & set(english_terms)
    assert {"quota", "request"} <= set(english_terms)
    first = beside.ranked[0]
    assert first.key[0] == "gpu-training-runbook"
    assert with_both_runbooks.knowledge.question(*first.key, "es").path[-1] == "Requesting a quota increase"
    # The English page's lexical evidence is what it is without the Spanish page beside it.
    section = next(s for s in alone.ranked if s.key == first.key)
    assert first.lexical == pytest.approx(section.lexical, abs=0.05)
