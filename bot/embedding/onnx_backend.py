"""The ONNX backends: the model's export kept next to the index, and the embedder that runs it.

`<index dir>/onnx/` (or `onnx-int8/`) holds `model.onnx`, the model's `tokenizer.json` and `export.json`: the
model it was made from (name, id and the sha256 of every source file), the sha256 of the files written, the
tokenizer's limits and the versions of the tools that made it. The graph ends in the model's mean pooling and
L2 normalisation, as sentence-transformers computes them, so one run gives the sentence vectors.

Nothing here imports PyTorch: making the export is `bot.embedding.export`'s job, with the build tools.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bot.embedding.model import local_model, model_identity
from bot.embedding.records import read_record
from bot.errors import IndexArtifactError

EXPORT_FORMAT = 1
RECORD = "export.json"
MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
OUTPUT = "sentence_embedding"
BATCH = 64  # texts per run, sorted by length so that a batch pads little (as sentence-transformers does)
# A run over more tokens than this gives back to the system what it took beyond ONNX Runtime's first block of
# memory. Its memory arena otherwise keeps the peak of the largest batch for the life of the process: an index
# built at a first start (64 long texts a run) would leave the server holding the memory of that build.
# A question, or a few batched together, stays below and keeps the arena's memory for the next run.
SHRINK_AFTER_TOKENS = 4096


def export_dir(index_dir: Path, backend: str) -> Path:
    """Where the export for `backend` ("onnx" or "onnx-int8") lives: next to the index it serves."""
    return index_dir / backend


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True)
class ExportRecord:
    """`export.json`: what an export was made from and what it holds."""

    format: int
    backend: str
    model: str
    model_id: str
    dimension: int
    max_seq_length: int
    pad_token: str
    sources: dict[str, str]  # source file (relative to the model directory) -> sha256
    files: dict[str, str]  # file written here -> sha256
    tools: dict[str, str] = field(default_factory=dict)
    exported_at: str = ""

    @classmethod
    def read(cls, directory: Path) -> ExportRecord:
        return read_record(cls, directory / RECORD, missing=f"no ONNX export of the model in {directory}")

    def write(self, directory: Path) -> None:
        """Written last and atomically, so a half-written export is never taken for a whole one."""
        partial = directory / f".{RECORD}.partial"
        partial.write_text(json.dumps(asdict(self), indent=2, sort_keys=True), encoding="utf-8")
        os.replace(partial, directory / RECORD)


def stale_export_reason(directory: Path, model: str, backend: str) -> str | None:
    """Why the export in `directory` does not serve `model` on `backend`, or None when it does.

    Where the model's files are on this machine, the export must have been made from exactly those files;
    where they are not (the serving image), from a model of that name."""
    try:
        record = ExportRecord.read(directory)
    except IndexArtifactError as exc:
        return str(exc)
    if record.format != EXPORT_FORMAT:
        return f"the ONNX export in {directory} has format {record.format}, not {EXPORT_FORMAT}"
    if record.backend != backend:
        return f"the ONNX export in {directory} is for {record.backend}, the setting is {backend}"
    if local_model(model) is not None:
        if record.model_id != (wanted := model_identity(model)):
            return f"the ONNX export in {directory} was made from {record.model_id}, the setting is {wanted}"
    elif record.model != model:
        return f"the ONNX export in {directory} was made from {record.model}, the setting is {model}"
    missing = sorted(name for name in record.files if not (directory / name).is_file())
    if missing:
        return f"the ONNX export in {directory} lacks {', '.join(missing)}"
    return None


def damaged_export_files(directory: Path) -> list[str]:
    """The export's files whose sha256 differs from the one recorded when they were written."""
    record = ExportRecord.read(directory)
    return sorted(
        name for name, digest in record.files.items()
        if not (directory / name).is_file() or sha256_of(directory / name) != digest
    )


def intra_op_threads() -> int:
    """Compute threads: OMP_NUM_THREADS when set (the image and the chart size it to the CPU limit), else
    ONNX Runtime's own choice (one per physical core)."""
    try:
        return max(0, int(os.environ.get("OMP_NUM_THREADS", "0")))
    except ValueError:
        return 0


def quiet_onnxruntime(ort: Any) -> None:
    """No telemetry events (ONNX Runtime's are on by default where the platform has a collector) and no
    warnings of its own on stderr (they are not JSON and would break a log collector's lines)."""
    ort.disable_telemetry_events()
    ort.set_default_logger_severity(3)  # errors only


class OnnxEmbedder:
    """The exported model on ONNX Runtime, tokenized by the `tokenizers` library with the model's tokenizer."""

    def __init__(self, directory: Path) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        record = ExportRecord.read(directory)
        self.backend = record.backend
        self.model_id = record.model_id
        self.dimension = record.dimension
        quiet_onnxruntime(ort)
        try:
            tokenizer = Tokenizer.from_file(str(directory / TOKENIZER_FILE))
            options = ort.SessionOptions()
            options.intra_op_num_threads = intra_op_threads()
            options.inter_op_num_threads = 1
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            self._session = ort.InferenceSession(
                str(directory / MODEL_FILE), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # noqa: BLE001 - ONNX Runtime and tokenizers raise their own types
            raise IndexArtifactError(
                f"the ONNX export in {directory} cannot be loaded ({exc.__class__.__name__}: {exc}); "
                "run 'eksbot index build'"
            ) from exc
        pad_id = tokenizer.token_to_id(record.pad_token)
        tokenizer.enable_truncation(max_length=record.max_seq_length)
        tokenizer.enable_padding(pad_id=0 if pad_id is None else pad_id, pad_token=record.pad_token)
        self._tokenizer = tokenizer
        self._inputs = [i.name for i in self._session.get_inputs()]
        self._shrink = ort.RunOptions()
        self._shrink.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")


    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), BATCH):
            rows = order[start : start + BATCH]
            out[rows] = self._run([texts[i] for i in rows])
        return out

    def _run(self, texts: list[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(texts)
        arrays = {
            "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
        }
        large = arrays["input_ids"].size > SHRINK_AFTER_TOKENS
        (vectors,) = self._session.run([OUTPUT], {name: arrays[name] for name in self._inputs},
                                       self._shrink if large else None)
        return np.asarray(vectors, dtype=np.float32)
