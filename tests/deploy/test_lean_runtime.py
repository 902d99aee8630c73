"""Serving on an ONNX backend imports neither PyTorch, transformers nor sentence-transformers.

Each surface runs as a real `eksbot` process with Python's import log on (PYTHONPROFILEIMPORTTIME=1: one
stderr line per module the process imports), answers for real, and its log is read afterwards.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.conftest import KNOWLEDGE
from tests.support.api_helpers import wait_ready
from tests.support.server_process import server_process, start_server, stop_server
from tests.support.slack_fake import APP_TOKEN, BOT_TOKEN, BOT_USER, FakeSlack, event_body, message_event

pytestmark = pytest.mark.slow

EKSBOT = str(Path(sys.executable).parent / "eksbot")
HEAVY = frozenset({"torch", "transformers", "sentence_transformers"})
QUESTION = "How do I request EFA devices in a pod spec?"


def imported(log: str) -> set[str]:
    """Top-level packages named by the import log's lines ("import time: self | cumulative | name")."""
    return {
        line.rsplit("|", 1)[1].strip().split(".")[0]
        for line in log.splitlines() if line.startswith("import time:") and line.count("|") == 2
    }


def serving_env(index_dir: Path, tmp_path: Path, **extra: str) -> dict[str, str]:
    return {
        **os.environ, "PYTHONPROFILEIMPORTTIME": "1", "EKSBOT_INDEX_DIR": str(index_dir),
        "EKSBOT_KNOWLEDGE_DIR": str(KNOWLEDGE), "EKSBOT_DATA_DIR": str(tmp_path / "data"),
        "EKSBOT_AUTO_REBUILD": "false", "EKSBOT_EMBEDDING_BACKEND": "onnx", **extra,
    }


def test_the_import_log_names_what_a_process_imports() -> None:
    result = subprocess.run([sys.executable, "-c", "import json.decoder"], capture_output=True, text=True,
                            env={**os.environ, "PYTHONPROFILEIMPORTTIME": "1"}, timeout=60)
    assert "json" in imported(result.stderr) and "torch" not in imported(result.stderr)


def test_ask_on_onnx_imports_no_pytorch(index_dir: Path, tmp_path: Path) -> None:
    result = subprocess.run([EKSBOT, "ask", "--json", QUESTION], env=serving_env(index_dir, tmp_path),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    answer = json.loads(result.stdout)
    assert answer["answered"] and answer["citations"][0]["question"] == 5
    modules = imported(result.stderr)
    assert "onnxruntime" in modules and "tokenizers" in modules
    assert not modules & HEAVY, sorted(modules & HEAVY)


def test_ask_on_torch_does_import_pytorch(index_dir: Path, tmp_path: Path) -> None:
    """The check above can fail: the same command on the torch backend shows torch in the log."""
    env = serving_env(tmp_path / "torch-index", tmp_path, EKSBOT_EMBEDDING_BACKEND="torch",
                      EKSBOT_AUTO_REBUILD="true")
    result = subprocess.run([EKSBOT, "ask", "--json", QUESTION], env=env, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert {"torch", "sentence_transformers"} <= imported(result.stderr)


def test_serve_on_onnx_imports_no_pytorch(index_dir: Path, tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    with server_process(serving_env(index_dir, tmp_path), log) as (base, _process):
        response = httpx.post(f"{base}/v1/query", json={"question": QUESTION}, timeout=30)
        assert response.status_code == 200 and response.json()["answered"]
        prompt = httpx.post(f"{base}/v1/quiz/next", json={"user": "dana", "topic": "spread pods over zones",
                                                          "lang": "en"}, timeout=30)
        assert prompt.status_code == 200, prompt.text
    modules = imported(log.read_text(encoding="utf-8"))
    assert "onnxruntime" in modules and "uvicorn" in modules
    assert not modules & HEAVY, sorted(modules & HEAVY)


def resident_mb(process: subprocess.Popen[bytes]) -> float:
    status = Path(f"/proc/{process.pid}/status").read_text(encoding="utf-8")
    [line] = [line for line in status.splitlines() if line.startswith("VmRSS:")]
    return int(line.split()[1]) / 1024


def started_and_asked(env: dict[str, str], log: Path) -> float:
    """Start `eksbot serve`, ask one question once it is ready, stop it: its resident memory then (MB)."""
    base, process = start_server(env, log)
    try:
        wait_ready(base, timeout=600)  # a first start makes the export and the index: a minute or more
        response = httpx.post(f"{base}/v1/query", json={"question": QUESTION}, timeout=30)
        assert response.status_code == 200 and response.json()["answered"]
        return resident_mb(process)
    finally:
        stop_server(process)


def test_a_first_start_that_makes_the_export_serves_as_lean_as_a_later_start(tmp_path: Path) -> None:
    """`make run` on a fresh machine: no export and no index yet. The export needs PyTorch: it is made by a
    process of its own, so the server never imports it, and building the index leaves no memory held beyond
    what a later start on the same index holds."""
    index = tmp_path / "index"
    env = serving_env(index, tmp_path, EKSBOT_AUTO_REBUILD="true")
    first_log, later_log = tmp_path / "first.log", tmp_path / "later.log"
    first = started_and_asked(env, first_log)
    text = first_log.read_text(encoding="utf-8")
    assert "exporting the model to ONNX: no ONNX export" in text and "model exported to ONNX" in text
    assert "building the index: no index" in text
    modules = imported(text)
    assert "onnxruntime" in modules and "uvicorn" in modules
    assert not modules & HEAVY, sorted(modules & HEAVY)
    later = started_and_asked(env, later_log)
    assert "building the index" not in later_log.read_text(encoding="utf-8")
    assert first < 1.5 * later, (first, later)


def test_quiz_on_onnx_imports_no_pytorch(index_dir: Path, tmp_path: Path) -> None:
    """A free-text topic goes through retrieval, so the model is loaded and used."""
    result = subprocess.run([EKSBOT, "quiz", "--topic", "offload optimizer states to CPU memory", "--lang", "en"],
                            input="q\n", env={**serving_env(index_dir, tmp_path), "COLUMNS": "120"},
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "DeepSpeed" in result.stdout
    modules = imported(result.stderr)
    assert "onnxruntime" in modules
    assert not modules & HEAVY, sorted(modules & HEAVY)


def test_slack_socket_mode_on_onnx_imports_no_pytorch(index_dir: Path, tmp_path: Path) -> None:
    with FakeSlack() as fake:
        env = serving_env(index_dir, tmp_path, SLACK_APP_TOKEN=APP_TOKEN, SLACK_BOT_TOKEN=BOT_TOKEN,
                          SLACK_API_URL=fake.api_url)
        env.pop("SLACK_SIGNING_SECRET", None)
        log = tmp_path / "slack.log"
        with log.open("wb") as out:
            process = subprocess.Popen([EKSBOT, "slack", "--socket"], env=env, stdout=out, stderr=out)
        try:
            fake.wait_for("socket_connect", timeout=120)
            question = message_event(f"<@{BOT_USER}> {QUESTION}", ts="1700000200.1")
            fake.send_envelope({"envelope_id": "env-1", "type": "events_api", "accepts_response_payload": False,
                                "payload": event_body(question, "EvLean1"), "retry_attempt": 0,
                                "retry_reason": ""})
            post = fake.wait_for("chat.postMessage", timeout=60)[0]
            assert "Question 5" in post.dump()
        finally:
            process.terminate()
            process.wait(timeout=30)
    modules = imported(log.read_text(encoding="utf-8"))
    assert "onnxruntime" in modules and "slack_bolt" in modules
    assert not modules & HEAVY, sorted(modules & HEAVY)
