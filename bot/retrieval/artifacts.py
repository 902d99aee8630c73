"""The index artifacts of a loaded knowledge: build them into `index/`, and load them back, refusing (or
rebuilding) stale or foreign ones.

Artifacts: `chunks.faiss` (inner product over normalised chunk vectors, held as half floats),
`sentences.npy` (vectors of explanation sentences, for excerpts, half floats too), `chunks.json` (chunk and
sentence metadata) and `manifest.json` (backend, model id, dimension, knowledge digest, build time) written
last, so a half-written build is never taken for a whole one. The ONNX backends keep the model's export next
to these files (`onnx/` or `onnx-int8/`, see `bot.embedding.onnx_backend`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import faiss
import numpy as np

from bot.embedding.embedder import Embedder, backend_of
from bot.embedding.records import read_record
from bot.errors import IndexArtifactError
from bot.knowledge import KnowledgeBase
from bot.knowledge.chunks import Chunk, Sentence, chunk_knowledge
from bot.knowledge.model import Document
from bot.logs import Progress, Stage, logged_progress
from bot.reading.lexicon import Glossary
from bot.retrieval.readings import embedded_text, english_readings
from bot.retrieval.sentence_table import Sentences, SentencesBuilder
from bot.retrieval.sentence_vectors import DTYPE as SENTENCE_DTYPE
from bot.retrieval.sentence_vectors import SentenceVectors, refreshed
from bot.retrieval.shared_vectors import SharedVectors, VectorSharing

FORMAT_VERSION = 1
MANIFEST = "manifest.json"
FILES = ("chunks.faiss", "sentences.npy", "chunks.json")
# The sentence vectors are held (and written) as half floats: half the memory of float32, and a cosine read
# from them moves too little to change an answer (the evaluation files answer the same; figures in
# docs/scale.md). Only one question's rows are compared with a query, so the conversion back costs nothing an
# answer notices.
# They are read from the index's file as an answer needs them (`bot.retrieval.sentence_vectors`). An index written with
# float32 sentence vectors loads as well.
# The chunk vectors likewise, in FAISS's flat index of half floats: half the memory, scores as close, and a
# search as quick (it reads half the bytes). An index written with float32 vectors
# (`IndexFlatIP`) is converted as it loads.
REBUILD = "run 'eksbot index build'"
# Texts embedded per call while a listener follows the build (one call for them all when none does): at the ONNX
# backend's 64 texts a run, 4 runs between two steps.
EMBED_BATCH = 256

log = logging.getLogger(__name__)


def pipeline_modules() -> tuple[ModuleType, ...]:
    """The code that shapes what the index holds: parsing, chunking, the text rules of words, tokens and
    sentences (with the word lists they read), and the English reading of Spanish-only documents (with its
    glossary). Rules used only when a question is read (chat markup, language detection, `bot/data/rules/`'s
    files per language) are not among them, so editing those keeps a built index."""
    from bot.knowledge import chunks, markdown, parser
    from bot.reading import lexicon
    from bot.retrieval import readings
    from bot.text import identifiers, normalise, sentences, tokens, words

    return (parser, markdown, chunks, normalise, identifiers, tokens, sentences, words, lexicon, readings)


def pipeline_data() -> tuple[Path, ...]:
    """The data the code of `pipeline_modules()` reads: the index's word lists and the glossary."""
    from bot.reading.lexicon import GLOSSARY
    from bot.text.words import WORDS_FILE

    return (WORDS_FILE, GLOSSARY)


def pipeline_digest() -> str:
    """Names the code of `pipeline_modules()` and the data of `pipeline_data()`: changing them makes the index
    stale."""
    digest = hashlib.sha256()
    for module in pipeline_modules():
        digest.update(Path(str(module.__file__)).read_bytes())
    for data in pipeline_data():
        digest.update(data.read_bytes())
    return digest.hexdigest()[:16]


@dataclass(frozen=True)
class Manifest:
    format_version: int
    pipeline: str
    backend: str
    model_id: str
    dimension: int
    knowledge_digest: str
    built_at: str
    chunks: int
    sentences: int
    build_seconds: float

    @classmethod
    def read(cls, directory: Path) -> Manifest:
        return read_record(cls, directory / MANIFEST, missing=f"no index in {directory} yet", fix=REBUILD)


@dataclass(frozen=True)
class LoadedIndex:
    manifest: Manifest
    knowledge: KnowledgeBase
    chunks: list[Chunk]
    sentences: Sentences
    faiss_index: faiss.Index
    sentence_vectors: SentenceVectors
    # chunk id -> the English reading of a Spanish-only chunk (`bot.retrieval.readings`); read when first asked
    readings: dict[int, str] | None = field(default=None, compare=False)


def english_of(index: LoadedIndex) -> dict[int, str]:
    """The English readings of the index's Spanish-only chunks (read once per index)."""
    if index.readings is None:
        object.__setattr__(index, "readings", english_readings(index.chunks, Glossary.bundled()))
    assert index.readings is not None
    return index.readings


class _RememberedReadings(Glossary):
    """The bundled glossary, reading again only the texts an earlier index did not read."""

    def __init__(self, known: dict[str, str]) -> None:
        self.__dict__.update(Glossary.bundled().__dict__)
        self._known = known

    def reading(self, text: str) -> str:
        found = self._known.get(text)
        return found if found is not None else super().reading(text)


def make_index(knowledge: KnowledgeBase, embedder: Embedder, previous: LoadedIndex | None = None,
               progress: Progress | None = None, shared: SharedVectors | None = None) -> LoadedIndex:
    """The index of `knowledge`, in memory. Vectors of `previous` (built with the same model) are reused for
    every chunk and sentence whose text is unchanged: after a change to one document, only its text is
    embedded again. With `shared` (the vectors every replica keeps in the database), a text `previous` does not
    hold is read from there when some build embedded it with the same model, and what is embedded here is kept
    there (`bot.retrieval.shared_vectors`). `progress` is told the documents cut into sections and chunks, then
    the texts embedded, batch by batch (with no listener, every text is embedded in one call)."""
    started = time.perf_counter()
    sharing = shared.session(embedder) if shared is not None else None
    cutting = Stage(progress, "cutting", len(knowledge.documents), "documents")
    chunks, sentences, taken = _chunked(knowledge, previous)
    if progress is not None:
        sections = sum(len(doc.questions) for doc in knowledge.documents)
        cutting.advance(len(knowledge.documents), detail=f"{sections:,} sections, {len(chunks):,} chunks, "
                                                         f"{len(sentences):,} sentences")
    read_before = {} if previous is None else {
        previous.chunks[i].indexed_text: reading for i, reading in english_of(previous).items()}
    readings = english_readings(chunks, _RememberedReadings(read_before))
    earlier = previous if _same_model(previous, embedder) else None
    chunk_rows = _rows_of(earlier.faiss_index) if earlier else None
    vectors = _vectors([embedded_text(c, readings) for c in chunks], embedder, _Reused(
        chunk_rows, [(now, then, count) for now, then, count, _ in taken],
        lambda: [embedded_text(c, english_of(earlier)) for c in earlier.chunks] if earlier else []),
        progress=progress, stage="embedding chunks", sharing=sharing)
    sentence_vectors = _sentence_vectors(sentences.texts(), embedder, earlier,
                                         [block for *_, block in taken if block is not None], progress, sharing)
    if sharing is not None and (sharing.read or sharing.kept):
        log.info("vectors shared", extra={"read": sharing.read, "written": sharing.kept})
    index = chunk_index(vectors)
    manifest = Manifest(
        format_version=FORMAT_VERSION, pipeline=pipeline_digest(), backend=backend_of(embedder),
        model_id=embedder.model_id, dimension=embedder.dimension, knowledge_digest=knowledge.digest,
        built_at=datetime.now(UTC).isoformat(timespec="seconds"), chunks=len(chunks), sentences=len(sentences),
        build_seconds=round(time.perf_counter() - started, 3),
    )
    return LoadedIndex(manifest, knowledge, chunks, sentences, index, sentence_vectors, readings)


Block = tuple[int, int, int]  # rows taken from an earlier index: (first row now, first row then, how many)


def _chunked(knowledge: KnowledgeBase, previous: LoadedIndex | None
             ) -> tuple[list[Chunk], Sentences, list[tuple[int, int, int, Block | None]]]:
    """`chunk_knowledge(knowledge)`, taking the chunks and sentences of each document that `previous` holds
    as it is (the same document, as the refresh's cache of read files hands back an unchanged file) and
    chunking only the others; with where each taken document's chunks and sentences were in `previous` (its
    chunks' (now, then, count), and the same for its sentences, when they were together)."""
    sentences = SentencesBuilder(knowledge)
    if previous is None:
        all_chunks, all_sentences = chunk_knowledge(knowledge)
        sentences.add_all(all_sentences)
        return all_chunks, sentences.done(), []
    before: dict[tuple[str, str], tuple[Document, list[Chunk], list[int]]] = {}
    chunks_of: dict[tuple[str, str], list[Chunk]] = {}
    sentences_of: dict[tuple[str, str], list[int]] = {}  # each document's sentences, by place in `previous`
    for chunk in previous.chunks:
        chunks_of.setdefault((chunk.doc_id, chunk.lang), []).append(chunk)
    for at, (doc_id, lang, _) in enumerate(previous.sentences.owners()):
        sentences_of.setdefault((doc_id, lang), []).append(at)
    for doc in previous.knowledge.documents:
        key = (doc.doc_id, doc.lang)
        before[key] = (doc, chunks_of.get(key, []), sentences_of.get(key, []))
    chunks: list[Chunk] = []
    taken: list[tuple[int, int, int, Block | None]] = []
    for doc in knowledge.documents:
        found = before.get((doc.doc_id, doc.lang))
        if found is not None and found[0] is doc:
            _, doc_chunks, places = found
            together = bool(places) and places[-1] - places[0] + 1 == len(places)
            taken.append((len(chunks), doc_chunks[0].id if doc_chunks else 0, len(doc_chunks),
                          (len(sentences), places[0], len(places)) if together else None))
            sentences.take(previous.sentences, places)
        else:
            doc_chunks, doc_sentences = chunk_knowledge(KnowledgeBase(documents=(doc,), digest=""))
            sentences.add_all(doc_sentences)
        offset = len(chunks) - (doc_chunks[0].id if doc_chunks else 0)
        chunks.extend(doc_chunks if not offset else (_numbered(c, c.id + offset) for c in doc_chunks))
    return chunks, sentences.done(), taken


def _numbered(chunk: Chunk, number: int) -> Chunk:
    """The same chunk with the id `number` (what a refresh gives each chunk after a changed document):
    `dataclasses.replace` checks every field again, a cost paid for every chunk after the change."""
    twin = object.__new__(Chunk)
    twin.__dict__.update(chunk.__dict__, id=number)
    return twin


def _same_model(previous: LoadedIndex | None, embedder: Embedder) -> bool:
    """Whether the vectors of `previous` are what `embedder` gives for the same texts."""
    return previous is not None and previous.manifest.model_id == embedder.model_id and (
        previous.manifest.dimension == embedder.dimension and previous.manifest.pipeline == pipeline_digest())


def chunk_index(vectors: np.ndarray) -> faiss.Index:
    """The index the dense search reads: inner product over the chunk vectors, stored as half floats."""
    index = faiss.IndexScalarQuantizer(vectors.shape[1], faiss.ScalarQuantizer.QT_fp16, faiss.METRIC_INNER_PRODUCT)
    index.add(np.ascontiguousarray(vectors, dtype=np.float32))
    return index


def _rows_of(index: faiss.Index) -> np.ndarray:
    """The vectors of a FAISS index, read in place where they are stored plainly (a copy of them all would be
    paid at every change): half floats, which a vector added again gives back exactly."""
    if isinstance(index, faiss.IndexScalarQuantizer) and index.sq.qtype == faiss.ScalarQuantizer.QT_fp16:
        codes = faiss.rev_swig_ptr(index.codes.data(), index.ntotal * index.code_size)
        return codes.view(np.float16).reshape(index.ntotal, index.d)
    if isinstance(index, faiss.IndexFlat):
        return faiss.rev_swig_ptr(index.get_xb(), index.ntotal * index.d).reshape(index.ntotal, index.d)
    return index.reconstruct_n(0, index.ntotal)


class _Reused:
    """Vectors of an earlier index: whole blocks of rows for the documents taken as they were, and, for the
    other texts, the earlier vector of the same text where there is one."""

    def __init__(self, rows: np.ndarray | SentenceVectors | None, blocks: list[Block],
                 texts: Callable[[], list[str]]) -> None:
        self.rows = rows
        self.blocks = blocks if rows is not None else []
        self._texts = texts  # the text of each row (read only when some text is not in a block)

    def of_texts(self, wanted: set[str]) -> dict[str, np.ndarray]:
        """The earlier vector of each of `wanted` that an earlier row has (the last such row)."""
        if self.rows is None or not wanted:
            return {}
        return {text: self.rows[i] for i, text in enumerate(self._texts()) if text in wanted}


def _sentence_vectors(texts: list[str], embedder: Embedder, earlier: LoadedIndex | None,
                      blocks: list[Block], progress: Progress | None = None,
                      sharing: VectorSharing | None = None) -> SentenceVectors:
    """The vectors of the sentences `texts`: an unchanged document's rows in `earlier` are kept where they are
    (not copied); the others are an earlier vector of the same text, or embedded."""
    if earlier is None:
        return SentenceVectors.of(_vectors(texts, embedder, _Reused(None, [], list), dtype=SENTENCE_DTYPE,
                                           progress=progress, stage="embedding sentences", sharing=sharing))
    covered = np.zeros(len(texts), dtype=bool)
    for now, _, count in blocks:
        covered[now : now + count] = True
    rest = np.flatnonzero(~covered)
    fill = _vectors([texts[i] for i in rest.tolist()], embedder, _Reused(
        earlier.sentence_vectors, [], earlier.sentences.texts), dtype=SENTENCE_DTYPE, progress=progress,
        stage="embedding sentences", sharing=sharing)
    return refreshed(earlier.sentence_vectors, len(texts), blocks, fill, rest)


def _vectors(texts: list[str], embedder: Embedder, reused: _Reused, dtype: type = np.float32,
             progress: Progress | None = None, stage: str = "embedding",
             sharing: VectorSharing | None = None) -> np.ndarray:
    """The vectors of `texts` (as `dtype`): the rows `reused` has, then those `sharing` has kept, the others
    embedded (each different text once; `EMBED_BATCH` at a time, each batch told to `progress`, when it is
    given, and kept by `sharing`)."""
    out: np.ndarray = np.zeros((len(texts), embedder.dimension), dtype=dtype)
    filled = np.zeros(len(texts), dtype=bool)
    for now, then, count in reused.blocks:
        assert isinstance(reused.rows, np.ndarray)
        out[now : now + count] = reused.rows[then : then + count]
        filled[now : now + count] = True
    rest = np.flatnonzero(~filled).tolist()
    known = reused.of_texts({texts[i] for i in rest})
    missing = sorted({texts[i] for i in rest if texts[i] not in known})
    if missing and sharing is not None:
        known.update(sharing.known(missing))
        missing = [text for text in missing if text not in known]
    if missing and progress is None:
        encoded = embedder.encode(missing)
        known = {**known, **dict(zip(missing, encoded, strict=True))}
        if sharing is not None:
            sharing.keep(missing, encoded)
    elif missing:
        embedding = Stage(progress, stage, len(missing), "texts")
        for first in range(0, len(missing), EMBED_BATCH):
            batch = missing[first : first + EMBED_BATCH]
            encoded = embedder.encode(batch)
            known.update(zip(batch, encoded, strict=True))
            if sharing is not None:
                sharing.keep(batch, encoded)
            embedding.advance(len(batch))
    for i in rest:
        out[i] = known[texts[i]]
    return out


def build_index(knowledge: KnowledgeBase, index_dir: Path, embedder: Embedder,
                previous: LoadedIndex | None = None, progress: Progress | None = None,
                shared: SharedVectors | None = None) -> Manifest:
    """Build the index of `knowledge` and write it into `index_dir`, the manifest last (`progress` and
    `shared`: see `make_index`)."""
    started = time.perf_counter()
    built = make_index(knowledge, embedder, previous, progress, shared)
    write_index(built, index_dir, build_seconds=round(time.perf_counter() - started, 3))
    log.info("index built", extra={"chunks": len(built.chunks), "seconds": built.manifest.build_seconds})
    return Manifest.read(index_dir)


def write_index(index: LoadedIndex, index_dir: Path, *, build_seconds: float | None = None) -> None:
    """Write an index's files into `index_dir` (made aside, then moved in place, the manifest last)."""
    manifest = index.manifest
    if build_seconds is not None:
        manifest = Manifest(**{**manifest.__dict__, "build_seconds": build_seconds})
    check_writable(index_dir)
    try:
        with tempfile.TemporaryDirectory(dir=index_dir, prefix=".build-") as tmp:
            staging = Path(tmp)
            faiss.write_index(index.faiss_index, str(staging / "chunks.faiss"))
            np.save(staging / "sentences.npy", np.asarray(index.sentence_vectors))
            (staging / "chunks.json").write_text(
                json.dumps(
                    {"chunks": [c.to_dict() for c in index.chunks],
                     "sentences": [s.to_dict() for s in index.sentences]},
                    ensure_ascii=False, indent=1,
                ),
                encoding="utf-8",
            )
            (index_dir / MANIFEST).unlink(missing_ok=True)
            for name in FILES:
                os.replace(staging / name, index_dir / name)
            (staging / MANIFEST).write_text(json.dumps(manifest.__dict__, indent=2), encoding="utf-8")
            os.replace(staging / MANIFEST, index_dir / MANIFEST)
    except OSError as exc:  # the disk filled up or the volume went read-only while writing
        raise IndexArtifactError(f"{index_dir} cannot be written ({exc.strerror or exc})") from exc


def check_writable(index_dir: Path) -> None:
    """IndexArtifactError naming `index_dir` when files cannot be made in it (made when missing). Tried with a
    file, since permission bits tell nothing to root or on a read-only mount."""
    try:
        index_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=index_dir):
            pass
    except OSError as exc:
        raise IndexArtifactError(f"{index_dir} cannot be written ({exc.strerror or exc})") from exc


def stale_reason(
    manifest: Manifest, knowledge: KnowledgeBase, model_id: str, dimension: int | None = None, *, backend: str
) -> str | None:
    """Why the built index does not match this knowledge, backend and model, or None when it does."""
    if manifest.format_version != FORMAT_VERSION:
        return f"index format {manifest.format_version} is not {FORMAT_VERSION}"
    if manifest.pipeline != pipeline_digest():
        return "the indexing code changed since the index was built"
    if manifest.model_id != model_id:
        return f"index was built with model {manifest.model_id}, the setting is {model_id}"
    if manifest.backend != backend:
        return f"index was built with the {manifest.backend} backend, the setting is {backend}"
    if dimension is not None and manifest.dimension != dimension:
        return f"index dimension {manifest.dimension} differs from the model's {dimension}"
    if manifest.knowledge_digest != knowledge.digest:
        return f"the knowledge in {_origin(knowledge)} changed since the index was built"
    return None


def load_index(knowledge: KnowledgeBase, index_dir: Path, embedder: Embedder, *,
               rebuild: bool = True, shared: SharedVectors | None = None) -> LoadedIndex:
    """Load the artifacts of `knowledge`; a missing, stale or damaged index is rebuilt when `rebuild` (with the
    vectors `shared` keeps, see `make_index`), else refused."""
    try:
        manifest = Manifest.read(index_dir)
        reason = stale_reason(manifest, knowledge, embedder.model_id, embedder.dimension,
                              backend=backend_of(embedder))
    except IndexArtifactError as exc:
        if not rebuild:
            raise
        reason = exc.reason
    if reason is not None:
        if not rebuild:
            raise IndexArtifactError(f"stale index in {index_dir}: {reason}", fix=REBUILD)
        _rebuild(knowledge, index_dir, embedder, reason, shared)
    try:
        return _read_artifacts(knowledge, index_dir)
    except IndexArtifactError as exc:
        if not rebuild or reason is not None:
            raise
        _rebuild(knowledge, index_dir, embedder, exc.reason, shared)
        return _read_artifacts(knowledge, index_dir)


def _rebuild(knowledge: KnowledgeBase, index_dir: Path, embedder: Embedder, reason: str,
             shared: SharedVectors | None = None) -> None:
    """Build the index in place of one that does not serve (`reason`). A directory that cannot be written is
    found before the knowledge is embedded, and named with the reason the index had to be rebuilt."""
    try:
        check_writable(index_dir)
        log.warning("building the index: %s", reason)
        build_index(knowledge, index_dir, embedder, progress=logged_progress(log), shared=shared)
    except IndexArtifactError as exc:
        raise IndexArtifactError(
            f"the index must be rebuilt ({reason}), and {exc.reason}",
            fix="run 'eksbot index build' where it can be written, or set EKSBOT_INDEX_DIR to a writable directory",
        ) from exc


def _origin(knowledge: KnowledgeBase) -> str:
    """The directories the knowledge was loaded from."""
    return ", ".join(sorted({str(doc.path.parent) for doc in knowledge.documents})) or "the knowledge base"


def _read_artifacts(knowledge: KnowledgeBase, index_dir: Path) -> LoadedIndex:
    manifest = Manifest.read(index_dir)
    try:
        records = _Records(knowledge)
        meta = json.loads((index_dir / "chunks.json").read_text(encoding="utf-8"), object_hook=records.read)
        chunks = [c if isinstance(c, Chunk) else Chunk(**_typed(c, Chunk)) for c in meta["chunks"]]
        for record in meta["sentences"]:
            if record is not _SENTENCE_READ:
                _typed(record, Sentence)  # a damaged record: refused
                raise TypeError("a sentence record has other fields")
        sentences = records.sentences.done()
        faiss_index = faiss.read_index(str(index_dir / "chunks.faiss"))
        if isinstance(faiss_index, faiss.IndexFlatIP):  # written before the chunk vectors were half floats
            faiss_index = chunk_index(_rows_of(faiss_index))
        sentence_vectors = SentenceVectors.on_disk(index_dir / "sentences.npy")
    except (OSError, ValueError, KeyError, TypeError, RuntimeError) as exc:
        raise IndexArtifactError(f"index in {index_dir} is damaged ({exc})", fix=REBUILD) from exc
    problem = _shape_problem(manifest, chunks, sentences, faiss_index, sentence_vectors)
    if problem:
        raise IndexArtifactError(f"index in {index_dir} is inconsistent ({problem})", fix=REBUILD)
    if knowledge.digest != manifest.knowledge_digest:
        raise IndexArtifactError(f"the index in {index_dir} was rebuilt for other knowledge while loading; load again")
    return LoadedIndex(manifest, knowledge, chunks, sentences, faiss_index, sentence_vectors)


class _Records:
    """`chunks.json`'s records made into chunks and sentences as they are read (the reader's dict of each is
    let go at once, instead of one for every record living until the end of the file and leaving the memory
    between the long-lived objects in pieces), with one string for each distinct text in it and in the loaded
    documents. The reader makes a string for every value it meets: a document's id, path and language are in
    each of its chunks and sentences, the same title or heading path is in many, and a paragraph is often a
    chunk as it is, so most of the strings read are copies of another. A sentence's text is not kept: it is
    found in its paragraph (`bot.retrieval.sentence_table`)."""

    _SENTENCE = frozenset(Sentence.__annotations__)

    def __init__(self, knowledge: KnowledgeBase) -> None:
        self.sentences = SentencesBuilder(knowledge)  # a sentence is kept as its place in its paragraph
        self._seen: dict[str, str] = {}
        for doc in knowledge.documents:
            for text in (doc.doc_id, doc.lang, doc.title, doc.source):
                self._share(text)
            for question in doc.questions:
                self._share(question.title)
                for block in question.blocks:
                    self._share(block.text)

    def _share(self, text: str) -> str:
        return self._seen.setdefault(text, text)

    def read(self, record: dict[str, Any]) -> object:
        if record.keys() == self._SENTENCE:
            sentence = _typed(record, Sentence)
            self.sentences.add(self._share(sentence["doc_id"]), self._share(sentence["lang"]), sentence["question"],
                               sentence["text"])  # the text is found in its paragraph, not kept
            return _SENTENCE_READ
        for name, value in record.items():
            if isinstance(value, str):
                record[name] = self._share(value)
        if "id" in record and "kind" in record:
            return Chunk(**_typed(record, Chunk))
        return record  # the file's top level (or a damaged record, refused below)


_SENTENCE_READ = object()  # what a sentence's record becomes in the file's list (its place was kept)

_FIELD_TYPES: dict[str, type | tuple[type, ...]] = {"int": int, "str": str, "str | None": (str, type(None)),
                                                    "ChunkKind": str}


def _typed(data: object, kind: type) -> dict[str, Any]:
    """The fields of a chunk or sentence as read from JSON, each of the type the dataclass declares
    (TypeError otherwise): a damaged file is refused on load, not by the first query."""
    if not isinstance(data, dict):
        raise TypeError(f"a {kind.__name__} is not an object")
    for name, declared in kind.__annotations__.items():
        expected: type | tuple[type, ...] = _FIELD_TYPES.get(str(declared), object)
        value = data.get(name)
        if name in data and (not isinstance(value, expected) or isinstance(value, bool)):
            raise TypeError(f"{kind.__name__}.{name} is {type(value).__name__}, not {declared}")
    if kind is Chunk and data.get("kind") not in ("question", "explanation", "code", "table_row"):
        raise TypeError(f"Chunk.kind {data.get('kind')!r} is unknown")
    return data


def _shape_problem(manifest: Manifest, chunks: list[Chunk], sentences: Sentences, faiss_index: faiss.Index,
                   sentence_vectors: SentenceVectors) -> str | None:
    """What does not fit between the artifacts (counts, widths, element type), or None."""
    if faiss_index.ntotal != len(chunks) or faiss_index.ntotal != manifest.chunks:
        return f"{faiss_index.ntotal} vectors for {len(chunks)} chunks"
    if faiss_index.d != manifest.dimension:
        return f"vectors of width {faiss_index.d}, not {manifest.dimension}"
    if sentence_vectors.base.ndim != 2 or sentence_vectors.shape != (len(sentences), manifest.dimension):
        shape = sentence_vectors.base.shape
        return f"sentence vectors of shape {shape}, not ({len(sentences)}, {manifest.dimension})"
    if sentence_vectors.dtype != SENTENCE_DTYPE or not sentence_vectors.is_finite():
        return f"sentence vectors of {sentence_vectors.dtype}, not finite float32 or float16"
    return None
