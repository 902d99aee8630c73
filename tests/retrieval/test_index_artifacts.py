"""The built index: what `build` writes, and `load` refusing (or rebuilding) a stale or damaged index."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from bot.answering.assistant import Assistant
from bot.embedding.onnx_backend import OnnxEmbedder, export_dir
from bot.errors import IndexArtifactError
from bot.knowledge import knowledge_digest, load_knowledge
from bot.knowledge.chunks import Chunk, Sentence
from bot.retrieval.artifacts import MANIFEST, build_index, load_index
from tests.support.api_helpers import free_port
from tests.support.fakes import FakeEmbedder, lexical_model
from tests.support.read_only import read_only
from tests.support.tiny_export import ELSEWHERE, write_tiny_export

ARTIFACTS = ("chunks.faiss", "sentences.npy", "chunks.json")
UNIQUE_WORD = "zorblaxiano"


@pytest.fixture
def built(knowledge_copy: Path, tmp_path: Path) -> Path:
    """An index of a writable knowledge copy, built with the fake embedder."""
    index_dir = tmp_path / "index"
    build_index(load_knowledge(knowledge_copy), index_dir, FakeEmbedder())
    return index_dir


def add_to_explanation(knowledge_dir: Path, number: int, sentence: str) -> None:
    """Append a paragraph to question `number` of the Spanish edition (before the next question)."""
    path = knowledge_dir / "eks-training-quiz.es.md"
    text = path.read_text(encoding="utf-8")
    marker = f"\n## {number + 1}. "
    assert marker in text
    path.write_text(text.replace(marker, f"\n{sentence}\n{marker}", 1), encoding="utf-8")


def refused(knowledge_dir: Path, index_dir: Path, embedder: FakeEmbedder, cause: str) -> None:
    """Loading is refused for `cause` (a part of the message), with the command that repairs it."""
    with pytest.raises(IndexArtifactError) as info:
        load_index(load_knowledge(knowledge_dir), index_dir, embedder, rebuild=False)
    message = str(info.value)
    assert cause in message and "run 'eksbot index build'" in message, message


def test_build_writes_manifest_and_artifacts(knowledge_copy: Path, built: Path) -> None:
    for name in (*ARTIFACTS, MANIFEST):
        assert (built / name).is_file(), name
        assert (built / name).stat().st_size > 0, name
    manifest = json.loads((built / MANIFEST).read_text(encoding="utf-8"))
    assert {"model_id", "dimension", "knowledge_digest", "built_at", "chunks"} <= set(manifest)
    assert manifest["model_id"] == "fake-embedder@1"
    assert manifest["dimension"] == 384
    assert manifest["knowledge_digest"] == knowledge_digest(knowledge_copy)
    built_at = datetime.fromisoformat(manifest["built_at"])
    assert built_at.tzinfo is not None
    meta = json.loads((built / "chunks.json").read_text(encoding="utf-8"))
    assert manifest["chunks"] == len(meta["chunks"]) > 0
    assert not [p.name for p in built.iterdir() if p.name.startswith(".build-")], "staging left behind"


def test_fresh_index_loads_without_rebuilding(knowledge_copy: Path, built: Path) -> None:
    embedder = FakeEmbedder()
    index = load_index(load_knowledge(knowledge_copy), built, embedder, rebuild=False)
    assert embedder.calls == [], "a fresh index must not be re-embedded"
    assert index.faiss_index.ntotal == len(index.chunks) == index.manifest.chunks
    assert len(index.sentence_vectors) == len(index.sentences)
    assert index.knowledge.digest == index.manifest.knowledge_digest


def test_refuses_index_when_knowledge_changed(knowledge_copy: Path, built: Path) -> None:
    add_to_explanation(knowledge_copy, 3, "Una frase nueva.")
    refused(knowledge_copy, built, FakeEmbedder(), f"stale index in {built}: the knowledge in {knowledge_copy} changed")


def test_refuses_index_when_a_knowledge_file_is_added(knowledge_copy: Path, built: Path) -> None:
    source = knowledge_copy / "eks-training-quiz.en.md"
    text = source.read_text(encoding="utf-8").replace("id: eks-training-quiz", "id: other-quiz")
    (knowledge_copy / "other-quiz.en.md").write_text(text, encoding="utf-8")
    refused(knowledge_copy, built, FakeEmbedder(), f"the knowledge in {knowledge_copy} changed")


def test_refuses_index_built_with_another_model(knowledge_copy: Path, built: Path) -> None:
    refused(knowledge_copy, built, FakeEmbedder(model_id="another-model@2"),
            "index was built with model fake-embedder@1, the setting is another-model@2")


def test_refuses_index_of_another_dimension(knowledge_copy: Path, built: Path) -> None:
    refused(knowledge_copy, built, FakeEmbedder(dimension=32), "index dimension 384 differs from the model's 32")


def test_refuses_a_missing_index(knowledge_copy: Path, tmp_path: Path) -> None:
    refused(knowledge_copy, tmp_path / "nowhere", FakeEmbedder(), f"no index in {tmp_path / 'nowhere'}")


def test_a_first_start_says_it_builds_the_index_not_to_run_a_command(
    knowledge_copy: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="bot.retrieval.artifacts")
    index = load_index(load_knowledge(knowledge_copy), tmp_path / "index", FakeEmbedder())
    assert index.manifest.chunks > 0
    said = [r.getMessage() for r in caplog.records]
    assert said[0] == f"building the index: no index in {tmp_path / 'index'} yet", said
    assert not [line for line in said if "eksbot index build" in line], said


def test_a_stale_index_is_rebuilt_saying_why(
    knowledge_copy: Path, built: Path, caplog: pytest.LogCaptureFixture
) -> None:
    add_to_explanation(knowledge_copy, 3, "Una frase nueva.")
    caplog.set_level(logging.INFO, logger="bot.retrieval.artifacts")
    load_index(load_knowledge(knowledge_copy), built, FakeEmbedder())
    said = [r.getMessage() for r in caplog.records]
    assert said[0] == f"building the index: the knowledge in {knowledge_copy} changed since the index was built"
    assert not [line for line in said if "eksbot index build" in line], said


DAMAGED = "index in {index} is damaged"


@pytest.mark.parametrize(("name", "cause"), [
    *((name, DAMAGED) for name in ARTIFACTS), (MANIFEST, "no index in {index}"),
])
def test_refuses_a_missing_artifact(knowledge_copy: Path, built: Path, name: str, cause: str) -> None:
    (built / name).unlink()
    refused(knowledge_copy, built, FakeEmbedder(), cause.format(index=built))


@pytest.mark.parametrize(("name", "cause"), [
    *((name, DAMAGED) for name in ARTIFACTS), (MANIFEST, "{index}/manifest.json is unreadable"),
])
def test_refuses_a_damaged_artifact(knowledge_copy: Path, built: Path, name: str, cause: str) -> None:
    (built / name).write_bytes(b"\x00garbage, not an index artifact\xff")
    refused(knowledge_copy, built, FakeEmbedder(), cause.format(index=built))


def test_refuses_a_truncated_chunk_list(knowledge_copy: Path, built: Path) -> None:
    meta_path = built / "chunks.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    meta["chunks"] = meta["chunks"][:-1]
    meta_path.write_text(json.dumps(meta), encoding="utf-8")
    refused(knowledge_copy, built, FakeEmbedder(), f"index in {built} is inconsistent")


def test_the_index_is_of_the_knowledge_given_not_of_the_files_now(knowledge_copy: Path, built: Path) -> None:
    knowledge = load_knowledge(knowledge_copy)
    add_to_explanation(knowledge_copy, 3, "Una frase escrita después de cargar.")
    index = load_index(knowledge, built, FakeEmbedder(), rebuild=False)  # what is served matches its index
    assert index.knowledge is knowledge
    assert index.manifest.knowledge_digest == knowledge.digest != knowledge_digest(knowledge_copy)


def test_rebuild_serves_the_changed_knowledge(knowledge_copy: Path, built: Path) -> None:
    embedder = FakeEmbedder()
    old = load_index(load_knowledge(knowledge_copy), built, embedder, rebuild=False)
    assert not any(UNIQUE_WORD in c.text for c in old.chunks)

    add_to_explanation(knowledge_copy, 9, f"El planificador {UNIQUE_WORD} espera a todos los pods del grupo.")
    index = load_index(load_knowledge(knowledge_copy), built, embedder, rebuild=True)
    assert index.manifest.knowledge_digest == knowledge_digest(knowledge_copy)
    assert index.manifest.knowledge_digest != old.manifest.knowledge_digest
    assert [c.question for c in index.chunks if UNIQUE_WORD in c.text] == [9]
    # The rebuilt index is now fresh for a load that may not rebuild.
    load_index(load_knowledge(knowledge_copy), built, FakeEmbedder(), rebuild=False)

    answer = Assistant(index, embedder, model=lexical_model()).answer(f"¿Qué hace el planificador {UNIQUE_WORD}?")
    assert answer.answered
    assert answer.citations[0].question == 9
    assert UNIQUE_WORD in answer.citations[0].excerpt


def test_rebuild_follows_a_model_change(knowledge_copy: Path, built: Path) -> None:
    other = FakeEmbedder(dimension=32, model_id="another-model@2")
    index = load_index(load_knowledge(knowledge_copy), built, other, rebuild=True)
    assert index.manifest.model_id == "another-model@2"
    assert index.manifest.dimension == index.faiss_index.d == 32
    refused(knowledge_copy, built, FakeEmbedder(), "index was built with model another-model@2")


@pytest.mark.parametrize("damage", ["missing", "garbage"])
@pytest.mark.parametrize("name", [*ARTIFACTS, MANIFEST])
def test_rebuild_repairs_a_broken_index(knowledge_copy: Path, built: Path, name: str, damage: str) -> None:
    """With rebuild allowed (the server's default), a broken index is rebuilt rather than fatal at start."""
    if damage == "missing":
        (built / name).unlink()
    else:
        (built / name).write_bytes(b"\x00garbage, not an index artifact\xff")
    index = load_index(load_knowledge(knowledge_copy), built, FakeEmbedder(), rebuild=True)
    assert index.faiss_index.ntotal == len(index.chunks) > 0
    load_index(load_knowledge(knowledge_copy), built, FakeEmbedder(), rebuild=False)


def _wider_sentences(index_dir: Path) -> None:
    vectors = np.load(index_dir / "sentences.npy")
    np.save(index_dir / "sentences.npy", np.hstack([vectors, vectors]))


def _float64_sentences(index_dir: Path) -> None:
    np.save(index_dir / "sentences.npy", np.load(index_dir / "sentences.npy").astype(np.float64))


def _flat_sentences(index_dir: Path) -> None:
    np.save(index_dir / "sentences.npy", np.load(index_dir / "sentences.npy").ravel())


def _chunk_field(name: str, value: object) -> Callable[[Path], None]:
    def damage(index_dir: Path) -> None:
        path = index_dir / "chunks.json"
        meta = json.loads(path.read_text(encoding="utf-8"))
        meta["chunks"][3][name] = value
        path.write_text(json.dumps(meta), encoding="utf-8")

    return damage


def _sentence_field(index_dir: Path) -> None:
    path = index_dir / "chunks.json"
    meta = json.loads(path.read_text(encoding="utf-8"))
    meta["sentences"][0]["text"] = ["not", "a", "string"]
    path.write_text(json.dumps(meta), encoding="utf-8")


DAMAGES = {
    "wider sentence vectors": (_wider_sentences, "sentence vectors of shape"),
    "float64 sentence vectors": (_float64_sentences, "float64"),
    "flat sentence vectors": (_flat_sentences, "sentence vectors of shape"),
    "a question number as text": (_chunk_field("question", "5"), "Chunk.question is str"),
    "a text as a number": (_chunk_field("text", 42), "Chunk.text is int"),
    "a null title": (_chunk_field("title", None), "Chunk.title is NoneType"),
    "an unknown kind": (_chunk_field("kind", "poem"), "Chunk.kind 'poem'"),
    "a sentence text as a list": (_sentence_field, "Sentence.text is list"),
}


@pytest.mark.parametrize("damage", DAMAGES)
def test_shapes_and_types_are_checked_on_load(knowledge_copy: Path, built: Path, damage: str) -> None:
    """A damaged artifact that still parses is refused on load (not by every query later), or rebuilt."""
    make, cause = DAMAGES[damage]
    make(built)
    refused(knowledge_copy, built, FakeEmbedder(), cause)
    index = load_index(load_knowledge(knowledge_copy), built, FakeEmbedder(), rebuild=True)
    assert Assistant(index, FakeEmbedder()).answer("How do I request EFA devices in a pod spec?").ranked[0] == 5


def test_only_the_rules_that_shape_the_index_make_it_stale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Editing how a token is made marks a built index stale; editing how chat markup is read does not."""
    import importlib

    from bot.retrieval import artifacts

    before = artifacts.pipeline_digest()
    hashed = {module.__name__ for module in artifacts.pipeline_modules()}
    assert {"bot.text.tokens", "bot.text.identifiers", "bot.knowledge.chunks"} <= hashed
    assert not {"bot.reading.markup", "bot.text.language"} & hashed
    tokens = importlib.import_module("bot.text.tokens")
    edited = tmp_path / "tokens.py"
    edited.write_text(Path(str(tokens.__file__)).read_text(encoding="utf-8") + "\n# a changed rule\n")
    monkeypatch.setattr(tokens, "__file__", str(edited))
    assert artifacts.pipeline_digest() != before


def test_the_word_lists_the_index_reads_are_hashed_with_its_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                ) -> None:
    """The stop words, finite verbs and Spanish inflections are data (`bot/data/rules/index-words.yaml`): editing
    them marks a built index stale; the rules of how people write, read only with a question, do not."""
    from bot.retrieval import artifacts
    from bot.text import words

    hashed = artifacts.pipeline_data()
    assert words.WORDS_FILE in hashed and "bot.text.words" in {m.__name__ for m in artifacts.pipeline_modules()}
    assert not {"en.yaml", "es.yaml"} & {path.name for path in hashed}
    before = artifacts.pipeline_digest()
    edited = tmp_path / "index-words.yaml"
    edited.write_text(words.WORDS_FILE.read_text(encoding="utf-8").replace("get need want", "get need"))
    monkeypatch.setattr(words, "WORDS_FILE", edited)
    assert artifacts.pipeline_digest() != before



def test_sentence_vectors_are_held_as_half_floats_and_an_index_of_float32_ones_still_loads(
        knowledge_copy: Path, built: Path) -> None:
    """The sentence vectors take half the memory; an index written before (float32 vectors) is read as it
    is, without a rebuild, and gives the same sentences within float16's precision."""
    embedder = FakeEmbedder()
    written = np.load(built / "sentences.npy")
    assert written.dtype == np.float16
    index = load_index(load_knowledge(knowledge_copy), built, embedder, rebuild=False)
    assert index.sentence_vectors.dtype == np.float16
    assert np.array_equal(index.sentence_vectors, written)
    staged = built / "staged.npy"  # written aside and moved in place, as a build does
    np.save(staged, written.astype(np.float32))
    staged.replace(built / "sentences.npy")
    older = load_index(load_knowledge(knowledge_copy), built, embedder, rebuild=False)
    assert embedder.calls == [], "an index of float32 sentence vectors must not be rebuilt"
    assert older.sentence_vectors.dtype == np.float16
    assert np.array_equal(older.sentence_vectors, index.sentence_vectors)
    exact = embedder.encode([s.text for s in index.sentences])
    assert np.abs(np.asarray(index.sentence_vectors, dtype=np.float32) - exact).max() < 1e-3


def test_a_loaded_index_holds_each_repeated_text_once(knowledge_copy: Path, built: Path) -> None:
    """A document's id and language, repeated in each of its chunks and sentences, are one string in memory
    (what keeps a large knowledge's index small), and the texts read are those written."""
    index = load_index(load_knowledge(knowledge_copy), built, FakeEmbedder(), rebuild=False)
    records: list[Chunk | Sentence] = [*index.chunks, *index.sentences]
    assert len({id(r.doc_id) for r in records}) == len({r.doc_id for r in records})
    assert len({id(r.lang) for r in records}) == len({r.lang for r in records}) == 2
    paragraphs: dict[str, str] = {}
    for block in (b for d in index.knowledge.documents for q in d.questions for b in q.blocks):
        paragraphs.setdefault(block.text, block.text)
    same = [c for c in index.chunks if c.text in paragraphs]
    assert same and all(c.text is paragraphs[c.text] for c in same), "a chunk that is a paragraph holds its text"
    written = json.loads((built / "chunks.json").read_text(encoding="utf-8"))
    assert [c.to_dict() for c in index.chunks] == written["chunks"]
    assert [s.to_dict() for s in index.sentences] == written["sentences"]
    # A sentence is a place in its paragraph: no sentence holds a string of its own.
    assert {id(text) for text in index.sentences._sources} <= {id(text) for text in paragraphs.values()}


def test_a_sentence_its_paragraphs_do_not_hold_is_read_as_written(knowledge_copy: Path, built: Path) -> None:
    """An index whose sentences are not all pieces of their paragraphs (written by other code, or by hand) loads
    without a rebuild and reads each sentence as it was written."""
    path = built / "chunks.json"
    meta = json.loads(path.read_text(encoding="utf-8"))
    meta["sentences"][3]["text"] = "A sentence no paragraph holds."
    path.write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
    embedder = FakeEmbedder()
    index = load_index(load_knowledge(knowledge_copy), built, embedder, rebuild=False)
    assert embedder.calls == []
    assert [s.to_dict() for s in index.sentences] == meta["sentences"]
    assert index.sentences.text(3) == "A sentence no paragraph holds."


def test_chunk_vectors_are_held_as_half_floats_and_an_index_of_float32_ones_still_loads(
        knowledge_copy: Path, built: Path) -> None:
    """The dense search reads half floats, scoring as float32 would within 1e-4; an index written before
    (a flat index of float32 vectors) loads without a rebuild and searches the same."""
    import faiss

    embedder = FakeEmbedder()
    index = load_index(load_knowledge(knowledge_copy), built, embedder, rebuild=False)
    assert isinstance(index.faiss_index, faiss.IndexScalarQuantizer)
    exact = embedder.encode([c.indexed_text for c in index.chunks])
    query = embedder.encode(["How do I request EFA devices in a pod spec?"])
    scores, ids = index.faiss_index.search(query, 10)
    assert np.abs(scores[0] - exact[ids[0]] @ query[0]).max() < 1e-4
    flat = faiss.IndexFlatIP(index.faiss_index.d)
    flat.add(index.faiss_index.reconstruct_n(0, index.faiss_index.ntotal))
    faiss.write_index(flat, str(built / "chunks.faiss"))
    embedder.calls.clear()
    older = load_index(load_knowledge(knowledge_copy), built, embedder, rebuild=False)
    assert embedder.calls == [], "an index of float32 chunk vectors must not be rebuilt"
    assert isinstance(older.faiss_index, faiss.IndexScalarQuantizer)
    assert np.array_equal(older.faiss_index.search(query, 10)[1], ids)


def test_an_index_built_again_leaves_the_loaded_one_as_it_was(knowledge_copy: Path, built: Path) -> None:
    """The sentence vectors are read from the index's file on demand: building the index again in the same
    directory while a server answers from it (each file written aside and moved in place) does not change
    what the server reads."""
    knowledge = load_knowledge(knowledge_copy)
    index = load_index(knowledge, built, FakeEmbedder(), rebuild=False)
    before = np.array(index.sentence_vectors)

    class Other(FakeEmbedder):
        def encode(self, texts: list[str]) -> np.ndarray:
            return np.roll(super().encode(texts), 1, axis=1)

    build_index(knowledge, built, Other())
    assert not np.array_equal(np.load(built / "sentences.npy"), before)
    assert np.array_equal(index.sentence_vectors, before)


# -- a stale index in a directory that cannot be written ----------------------------------------------------


def test_a_stale_index_that_cannot_be_rebuilt_is_refused_naming_the_directory_and_why(
    knowledge_copy: Path, built: Path
) -> None:
    """Found before the knowledge is embedded: a rebuild that cannot be kept is not made."""
    add_to_explanation(knowledge_copy, 3, "Una frase nueva.")
    embedder = FakeEmbedder()
    with read_only(built) as refusal, pytest.raises(IndexArtifactError) as info:
        load_index(load_knowledge(knowledge_copy), built, embedder)
    assert str(info.value) == (
        f"the index must be rebuilt (the knowledge in {knowledge_copy} changed since the index was built), and "
        f"{built} cannot be written ({refusal}); run 'eksbot index build' where it can be written, or set "
        "EKSBOT_INDEX_DIR to a writable directory"
    )
    assert embedder.calls == []


def test_a_server_whose_stale_index_cannot_be_rebuilt_exits_saying_why(knowledge_copy: Path, tmp_path: Path) -> None:
    """`eksbot serve` loads the model and index once, in the background: when that cannot succeed, the process
    ends with the reason rather than staying up, unready, until someone looks. A real process over a tiny ONNX
    export (tests/support/tiny_export.py) of a model whose files are not on this machine."""
    index = tmp_path / "index"
    write_tiny_export(export_dir(index, "onnx"))
    build_index(load_knowledge(knowledge_copy), index, OnnxEmbedder(export_dir(index, "onnx")))
    add_to_explanation(knowledge_copy, 3, "Una frase nueva.")
    env = {**os.environ, "EKSBOT_INDEX_DIR": str(index), "EKSBOT_KNOWLEDGE_DIR": str(knowledge_copy),
           "EKSBOT_DATA_DIR": str(tmp_path / "data"), "EKSBOT_EMBEDDING_MODEL": ELSEWHERE,
           "EKSBOT_EMBEDDING_BACKEND": "onnx", "EKSBOT_AUTO_REBUILD": "true", "EKSBOT_LOG_FORMAT": "json"}
    eksbot = str(Path(sys.executable).parent / "eksbot")
    with read_only(index) as refusal:
        # Before the change it stayed up: the timeout fails the test.
        result = subprocess.run([eksbot, "serve", "--port", str(free_port())], env=env, capture_output=True,
                                text=True, timeout=120)
    assert result.returncode == 1, result.stderr[-3000:]
    lines = [json.loads(line) for line in result.stderr.splitlines()]
    errors = [line["msg"] for line in lines if line["level"] == "error"]
    assert len(errors) == 1, errors
    assert f"{index} cannot be written ({refusal})" in errors[0]
    assert f"the knowledge in {knowledge_copy} changed since the index was built" in errors[0]
