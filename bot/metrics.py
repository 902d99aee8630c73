"""Prometheus metrics of one application (own registry, so several apps can live in one process)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from typing import Protocol

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

import bot

LATENCY_BUCKETS = (0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 5.0, 10.0)


class _FeedbackCollector(Collector):
    """Feedback votes as stored in the shared database: the same figure on every replica."""

    def __init__(self, counts: Callable[[], dict[str, int]] | None) -> None:
        self.counts = counts

    def collect(self) -> Iterable[Metric]:
        family = CounterMetricFamily("eksbot_feedback", "Feedback votes on answers", labels=["vote"])
        if self.counts is not None:
            try:
                values = self.counts()
            except Exception:  # noqa: BLE001 - a scrape must not fail because the database blinked
                values = {}
            for vote in ("up", "down"):
                family.add_metric([vote], values.get(vote, 0))
        yield family


class KnowledgeStatus(Protocol):
    """What the reloads of changed knowledge did so far (`bot.answering.refresh.RefreshStatus`)."""

    reloads: int
    failures: int
    behind: bool
    skipped: int
    revision: dict[str, str]

    @property
    def sync(self) -> Mapping[str, SyncState]: ...


class SyncState(Protocol):
    """Whether a git-sync folder can be synced now (`bot.knowledge.git_sync.SyncState`)."""

    @property
    def ok(self) -> bool: ...

    @property
    def failing_since(self) -> float | None: ...


class _KnowledgeCollector(Collector):
    """The knowledge's reloads while serving, read from the service at each scrape (`status`: None until it
    is loaded, or when nothing watches the knowledge)."""

    def __init__(self) -> None:
        self.status: Callable[[], KnowledgeStatus | None] | None = None

    def collect(self) -> Iterable[Metric]:
        status = self.status() if self.status is not None else None
        if status is None:
            return
        yield CounterMetricFamily("eksbot_knowledge_reloads", "Reloads of changed knowledge while serving",
                                  value=status.reloads)
        yield CounterMetricFamily("eksbot_knowledge_reload_failures", "Reloads of changed knowledge that failed "
                                  "(each is tried again; the log says why)", value=status.failures)
        yield GaugeMetricFamily("eksbot_knowledge_behind", "1 while a change of the knowledge waits to go in after "
                                "a failed reload", value=int(status.behind))
        yield GaugeMetricFamily("eksbot_knowledge_skipped_files", "Knowledge files skipped in the knowledge in use: "
                                "they cannot be read (the log names each, with the reason)", value=status.skipped)
        revision = GaugeMetricFamily("eksbot_knowledge_revision_info", "The git-sync revision served of each "
                                     "folder synced from Git (one series a folder)", labels=["folder", "revision"])
        for folder, commit in sorted(status.revision.items()):
            revision.add_metric([folder, commit], 1)
        yield revision
        failing = GaugeMetricFamily("eksbot_knowledge_sync_failing", "1 while git-sync cannot sync the folder (its "
                                    "error file is there): the revision served stays, and may be behind",
                                    labels=["folder"])
        failing_for = GaugeMetricFamily("eksbot_knowledge_sync_failing_seconds", "How long git-sync has failed "
                                        "to sync the folder (since the first failure seen); 0 while it syncs",
                                        labels=["folder"])
        now = time.time()
        for folder, state in sorted(status.sync.items()):
            failing.add_metric([folder], 0 if state.ok else 1)
            since = state.failing_since
            failing_for.add_metric([folder], 0 if since is None else max(0.0, now - since))
        yield failing
        yield failing_for


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter("eksbot_http_requests", "HTTP requests", ["route", "method", "status"], registry=r)
        self.latency = Histogram(
            "eksbot_http_request_duration_seconds", "HTTP request latency", ["route", "method"],
            buckets=LATENCY_BUCKETS, registry=r,
        )
        self.answers = Counter("eksbot_answers", "Questions answered or abstained", ["outcome", "surface"], registry=r)
        self.quiz_answers = Counter("eksbot_quiz_answers", "Quiz answers graded", ["result", "surface"], registry=r)
        self.batch_size = Histogram(
            "eksbot_encode_batch_size", "Questions encoded together", buckets=(1, 2, 4, 8, 16, 32), registry=r
        )
        self.rate_limited = Counter("eksbot_rate_limited", "Requests refused by the rate limit", registry=r)
        self.slack_events = Counter("eksbot_slack_events", "Slack events by outcome", ["kind", "outcome"], registry=r)
        self.index_chunks = Gauge("eksbot_index_chunks", "Chunks in the loaded index", registry=r)
        self.index_questions = Gauge("eksbot_index_questions", "Questions in the loaded knowledge", registry=r)
        self.ready = Gauge("eksbot_ready", "1 when the model and index are loaded: questions are answered", registry=r)
        self.database_ready = Gauge("eksbot_database_ready", "1 when the database took a write at the last "
                                    "/readyz/database", registry=r)
        self.build_info = Gauge(
            "eksbot_build_info", "Version, model and knowledge of this process",
            ["version", "model", "knowledge_digest", "index_built_at"], registry=r,
        )
        self.feedback = _FeedbackCollector(None)
        r.register(self.feedback)
        self.knowledge = _KnowledgeCollector()
        r.register(self.knowledge)

    def loaded(self, *, chunks: int, questions: int, model: str, digest: str, built_at: str) -> None:
        self.index_chunks.set(chunks)
        self.index_questions.set(questions)
        self.build_info.clear()  # one series: the knowledge in use
        self.build_info.labels(bot.__version__, model, digest[:12], built_at).set(1)

    def answer(self, answered: bool, surface: str) -> None:
        self.answers.labels("answered" if answered else "abstained", surface).inc()
