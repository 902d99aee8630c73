"""The ONNX export's bookkeeping (no model is loaded here): when an export serves the settings, when it is
refused, and that serving code imports no PyTorch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import PROJECT_ROOT, load_settings
from bot.embedding.backends import configured_model_id, load_embedder
from bot.embedding.model import model_identity
from bot.embedding.onnx_backend import (
    EXPORT_FORMAT,
    MODEL_FILE,
    TOKENIZER_FILE,
    ExportRecord,
    OnnxEmbedder,
    damaged_export_files,
    export_dir,
    sha256_of,
    stale_export_reason,
)
from bot.errors import IndexArtifactError
from bot.knowledge import load_knowledge
from bot.retrieval.artifacts import build_index, load_index
from tests.conftest import KNOWLEDGE
from tests.support.fakes import FakeEmbedder
from tests.support.read_only import read_only

ELSEWHERE = "/models/not-on-this-machine"  # a model whose files are not here, as in the serving image


def fake_export(directory: Path, *, model: str = ELSEWHERE, backend: str = "onnx", model_id: str = "m@1") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / MODEL_FILE).write_bytes(b"graph")
    (directory / TOKENIZER_FILE).write_text("{}")
    ExportRecord(
        format=EXPORT_FORMAT, backend=backend, model=model, model_id=model_id, dimension=64, max_seq_length=256,
        pad_token="[PAD]", sources={"model.safetensors": "0" * 64},
        files={name: sha256_of(directory / name) for name in (MODEL_FILE, TOKENIZER_FILE)},
    ).write(directory)
    return directory


def test_an_export_made_from_the_named_model_serves_it(tmp_path: Path) -> None:
    assert stale_export_reason(fake_export(tmp_path / "onnx"), ELSEWHERE, "onnx") is None


def test_a_missing_export_is_named(tmp_path: Path) -> None:
    reason = stale_export_reason(tmp_path / "onnx", ELSEWHERE, "onnx")
    assert reason is not None and "no ONNX export" in reason


@pytest.mark.parametrize(("model", "backend", "says"), [
    ("/models/another", "onnx", "made from /models/not-on-this-machine"),
    (ELSEWHERE, "onnx-int8", "is for onnx"),
])
def test_an_export_of_another_model_or_backend_is_stale(tmp_path: Path, model: str, backend: str, says: str) -> None:
    reason = stale_export_reason(fake_export(tmp_path / "onnx"), model, backend)
    assert reason is not None and says in reason


def test_where_the_model_is_installed_the_export_must_come_from_its_exact_files(tmp_path: Path) -> None:
    directory = fake_export(tmp_path / "onnx", model="all-MiniLM-L6-v2", model_id="all-MiniLM-L6-v2@0000")
    reason = stale_export_reason(directory, "all-MiniLM-L6-v2", "onnx")
    assert reason is not None and model_identity("all-MiniLM-L6-v2") in reason


def test_a_lost_file_makes_the_export_stale_and_a_changed_one_damaged(tmp_path: Path) -> None:
    directory = fake_export(tmp_path / "onnx")
    (directory / TOKENIZER_FILE).write_text('{"changed": true}')
    assert damaged_export_files(directory) == [TOKENIZER_FILE]
    (directory / MODEL_FILE).unlink()
    reason = stale_export_reason(directory, ELSEWHERE, "onnx")
    assert reason is not None and MODEL_FILE in reason


def test_without_rebuilding_a_missing_export_is_refused_with_the_command_that_makes_it(tmp_path: Path) -> None:
    settings = load_settings(index_dir=tmp_path / "index", embedding_model=ELSEWHERE, auto_rebuild=False)
    with pytest.raises(IndexArtifactError, match="run 'eksbot index build'"):
        load_embedder(settings)


def test_the_export_stands_for_a_model_whose_files_are_not_here(tmp_path: Path) -> None:
    index = tmp_path / "index"
    fake_export(export_dir(index, "onnx"), model_id="not-on-this-machine@abc")
    settings = load_settings(index_dir=index, embedding_model=ELSEWHERE, embedding_backend="onnx")
    assert configured_model_id(settings) == "not-on-this-machine@abc"


class BackendEmbedder(FakeEmbedder):
    def __init__(self, backend: str) -> None:
        super().__init__()
        self.backend = backend


def test_an_index_built_on_another_backend_is_stale(tmp_path: Path) -> None:
    index, knowledge = tmp_path / "index", load_knowledge(KNOWLEDGE)
    build_index(knowledge, index, BackendEmbedder("onnx"))
    with pytest.raises(IndexArtifactError, match="built with the onnx backend, the setting is onnx-int8"):
        load_index(knowledge, index, BackendEmbedder("onnx-int8"), rebuild=False)
    assert load_index(knowledge, index, BackendEmbedder("onnx-int8"), rebuild=True).manifest.backend == "onnx-int8"


def test_serving_code_imports_no_pytorch() -> None:
    """Importing what `serve`, `ask`, `quiz` and `slack` run loads neither PyTorch nor its model libraries
    (the slow tests check real processes that answer)."""
    modules = ["bot.cli.main", "bot.cli.serve", "bot.cli.quiz", "bot.cli.slack", "bot.api.app", "bot.services",
               "bot.embedding.backends", "bot.embedding.onnx_backend", "bot.slack.app", "bot.slack.socket_mode"]
    code = "import sys\n" + "".join(f"import {m}\n" for m in modules) + (
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'torch', 'transformers', 'sentence_transformers'}))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=PROJECT_ROOT,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


# A first start in a fresh process: no export and no index yet, so both are made. The export is the tiny one of
# tests/support/tiny_export.py, made with `onnx` (a build tool, like PyTorch): it must not be loaded where the start is.
FIRST_START = """
import json, os, sys
from pathlib import Path
from bot.answering.assistant import Assistant
from bot.config import load_settings
from bot.embedding import backends

backends.EXPORTER = "tests.support.tiny_export"
index, knowledge, model = sys.argv[1:]
settings = load_settings(index_dir=Path(index), knowledge_dir=Path(knowledge), embedding_model=model,
                         embedding_backend="onnx", auto_rebuild=True)
assistant = Assistant.from_settings(settings)
print(json.dumps({"pid": os.getpid(), "model": assistant.index.manifest.model_id,
                  "loaded": sorted({name.split(".")[0] for name in sys.modules})}))
"""


def test_a_first_start_makes_the_export_in_a_process_of_its_own(tmp_path: Path) -> None:
    """The export needs the build tools (PyTorch); once imported they would stay in the serving process."""
    exported = tmp_path / "exported"
    env = {**os.environ, "EXPORTED": str(exported), "PYTHONPATH": str(PROJECT_ROOT)}
    result = subprocess.run([sys.executable, "-c", FIRST_START, str(tmp_path / "index"), str(KNOWLEDGE), ELSEWHERE],
                            capture_output=True, text=True, cwd=PROJECT_ROOT, env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    started = json.loads(result.stdout)
    assert started["model"] == "tiny@1"  # served from the export just made
    [(pid, directory)] = [line.split(" ", 1) for line in exported.read_text().splitlines()]
    assert directory == str(export_dir(tmp_path / "index", "onnx")) and int(pid) != started["pid"]
    assert "onnxruntime" in started["loaded"]
    assert not {"onnx", "torch", "transformers", "sentence_transformers"} & set(started["loaded"])


def test_an_export_that_cannot_be_written_says_where_and_why_in_one_line(tmp_path: Path) -> None:
    """The export's own process says why it failed; its line is the reason given (before PyTorch is loaded)."""
    index = tmp_path / "index"
    index.mkdir()
    settings = load_settings(index_dir=index, embedding_model=ELSEWHERE, auto_rebuild=True)
    with read_only(index) as refused, pytest.raises(IndexArtifactError) as caught:
        load_embedder(settings)
    directory = export_dir(index, "onnx")
    assert str(caught.value) == (f"no ONNX export of the model in {directory}, and exporting the model to ONNX "
                                 f"failed: {directory} cannot be written ({refused})")


@pytest.mark.slow
def test_onnx_runtime_sends_no_telemetry_and_writes_no_warnings_of_its_own(
    real_embedder: object, real_index_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import onnxruntime as ort

    calls: list[object] = []
    monkeypatch.setattr(ort, "disable_telemetry_events", lambda: calls.append("telemetry off"))
    monkeypatch.setattr(ort, "set_default_logger_severity", calls.append)
    embedder = OnnxEmbedder(export_dir(real_index_path, "onnx"))
    assert calls == ["telemetry off", 3]  # before the session exists
    assert embedder.encode(["FI_PROVIDER=efa"]).shape == (1, 384)
