"""Nothing is lost when the server is killed mid-flight and started again."""

from __future__ import annotations

import signal
from pathlib import Path

import httpx
import pytest

from bot.answering.assistant import Assistant
from tests.conftest import KNOWLEDGE
from tests.support.server_process import server_process

pytestmark = pytest.mark.slow


def test_progress_survives_a_killed_server(tmp_path: Path, index_dir: Path, assistant: Assistant) -> None:
    env = {"EKSBOT_DATA_DIR": str(tmp_path / "data"), "EKSBOT_INDEX_DIR": str(index_dir),
           "EKSBOT_KNOWLEDGE_DIR": str(KNOWLEDGE), "EKSBOT_AUTO_REBUILD": "false"}
    log = tmp_path / "server.log"
    with server_process(env, log) as (base, process):
        answered = 0
        for _ in range(3):
            prompt = httpx.post(f"{base}/v1/quiz/next", json={"user": "carol", "lang": "en"}, timeout=30).json()
            result = httpx.post(f"{base}/v1/quiz/answer", timeout=30,
                                json={"user": "carol", "attempt_id": prompt["attempt_id"], "choice": "A"})
            assert result.status_code == 200
            answered += 1
        pending = httpx.post(f"{base}/v1/quiz/next", json={"user": "carol", "lang": "en"}, timeout=30).json()
        before = httpx.get(f"{base}/v1/quiz/stats", params={"user": "carol"}, timeout=30).json()
        process.send_signal(signal.SIGKILL)  # no clean shutdown
        process.wait()
    with server_process(env, log) as (base, _):
        after = httpx.get(f"{base}/v1/quiz/stats", params={"user": "carol"}, timeout=30).json()
        assert after == before and after["answered"] == answered
        # The attempt drawn before the crash can still be answered, once.
        late = httpx.post(f"{base}/v1/quiz/answer", timeout=30,
                          json={"user": "carol", "attempt_id": pending["attempt_id"], "choice": "B"})
        assert late.status_code == 200
        stats = httpx.get(f"{base}/v1/quiz/stats", params={"user": "carol"}, timeout=30).json()
        assert stats["answered"] == answered + 1
