"""Two server processes on one PostgreSQL behave as one service: quiz, Slack events and stats."""

from __future__ import annotations

import json
import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from bot.answering.assistant import Assistant
from tests.conftest import KNOWLEDGE
from tests.support.api_helpers import wait_ready
from tests.support.server_process import start_server, stop_server
from tests.support.slack_fake import BOT_TOKEN, BOT_USER, SIGNING_SECRET, FakeSlack, SlackSender, message_event

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


def metric(base: str, name: str, labels: str) -> float:
    text = httpx.get(f"{base}/metrics", timeout=10).text
    match = re.search(rf"^{re.escape(name)}\{{{re.escape(labels)}\}} (\S+)$", text, re.MULTILINE)
    return float(match.group(1)) if match else 0.0


def test_two_replicas_share_quiz_progress_and_answer_a_slack_event_once(
    tmp_path: Path, index_dir: Path, postgres_url: str, assistant: Assistant
) -> None:
    with FakeSlack() as fake:
        env = {
            "DATABASE_URL": postgres_url, "EKSBOT_INDEX_DIR": str(index_dir), "EKSBOT_KNOWLEDGE_DIR": str(KNOWLEDGE),
            "EKSBOT_AUTO_REBUILD": "false", "EKSBOT_DATA_DIR": str(tmp_path / "data"),
            "SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET, "SLACK_API_URL": fake.api_url,
        }
        servers = [start_server(env, tmp_path / f"replica-{i}.log") for i in (1, 2)]
        try:
            (one, _), (two, _) = servers
            for base, _ in servers:
                wait_ready(base, timeout=120, database=True)

            # A quiz started on one replica is answered on the other, once.
            prompt = httpx.post(f"{one}/v1/quiz/next", json={"user": "dana", "lang": "en"}, timeout=30).json()
            answer = {"user": "dana", "attempt_id": prompt["attempt_id"], "choice": "C"}
            graded = httpx.post(f"{two}/v1/quiz/answer", json=answer, timeout=30)
            assert graded.status_code == 200
            again = httpx.post(f"{one}/v1/quiz/answer", json=answer, timeout=30)
            assert again.status_code == 409
            assert again.json()["result"]["correct"] == graded.json()["correct"]

            # The same Slack event delivered to both replicas at once is answered once.
            event = message_event(f"<@{BOT_USER}> How do I enable EFA for NCCL?", ts="1700000200.000100")
            senders = [SlackSender(base, fake) for base in (one, two)]
            try:
                with ThreadPoolExecutor(2) as pool:
                    responses = list(pool.map(lambda s: s.event(event, event_id="EvShared1")[0], senders))
            finally:
                for sender in senders:
                    sender.close()
            assert [r.status_code for r in responses] == [200, 200]
            posts = fake.wait_for("chat.postMessage", 1)
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                duplicates = sum(metric(b, "eksbot_slack_events_total", 'kind="app_mention",outcome="duplicate"')
                                 for b in (one, two))
                if duplicates >= 1:
                    break
                time.sleep(0.1)
            assert duplicates == 1
            assert len(fake.calls("chat.postMessage")) == 1
            assert "FI_PROVIDER" in json.dumps(posts[0].body)

            # Both replicas tell the same stats.
            stats = [httpx.get(f"{b}/v1/quiz/stats", params={"user": "dana"}, timeout=30).json() for b in (one, two)]
            assert stats[0] == stats[1] and stats[0]["answered"] == 1
        finally:
            for _, process in servers:
                stop_server(process)
