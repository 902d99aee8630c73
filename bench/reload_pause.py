"""Answer time while a bulk of new knowledge files is reloaded, against the same service idle.

    .venv/bin/python bench/reload_pause.py [--files 5000] [--fake]

The service is started in this process as `eksbot serve` starts it (`Services.load`: the model, the index,
the database opened beside it, the knowledge directory watched every EKSBOT_KNOWLEDGE_REFRESH_SECONDS, default
0.5) over a temporary copy of knowledge/, with the configured embedding backend (EKSBOT_EMBEDDING_BACKEND;
`--fake`: the tests' deterministic fake embedder, no model). Questions are asked one after another through the
answer batcher, as HTTP and Slack ask them:

1. idle: `--idle` questions, after a warm-up;
2. reload: `--files` small Markdown documents (a title, two sections of a few sentences, each with words of
   its own) are written into a new folder of the knowledge directory at once, and questions are asked in a
   loop from the first file written until every file is answered from (the service's knowledge holds them
   all) or `--timeout` seconds pass.

It prints answer p50, p99 and max for both phases side by side, how many questions each phase asked, the
seconds from the first file written to the last one answered from, and how many reloads the service made
(and failed) meanwhile. Target: answer p99 during the reload at most 0.5 s.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ROOT, percentile, queries  # noqa: E402
from bot.config import Settings, load_settings  # noqa: E402
from bot.embedding.backends import load_embedder  # noqa: E402
from bot.embedding.embedder import Embedder  # noqa: E402
from bot.knowledge import load_knowledge  # noqa: E402
from bot.retrieval.artifacts import build_index  # noqa: E402
from bot.services import Services  # noqa: E402

P99_TARGET_S = 0.5
FOLDER = "bulk"
SERVICES = ("ingest", "billing", "search", "checkout", "scheduler", "metrics", "gateway", "inventory")
VERBS = ("restarts", "drains", "rotates", "scales", "pages", "backs up", "reindexes", "throttles")
THINGS = ("the worker pool", "its queue", "the cache", "the nightly job", "the node group", "the certificates")


def small_document(number: int, rng: random.Random) -> str:
    """A small runbook page with words of its own (so that nothing of it is embedded already)."""
    service = f"{rng.choice(SERVICES)}-{number:05d}"
    code = f"zq{number:05d}{rng.randrange(10**6):06d}"

    def sentence() -> str:
        return (f"The {service} service {rng.choice(VERBS)} {rng.choice(THINGS)} every {rng.randrange(2, 48)} "
                f"hours, tagged {code}-{rng.randrange(1000)}.")

    return (f"# Runbook {service}\n\n## When it fails\n\n{sentence()} {sentence()}\n\n"
            f"## Who owns it\n\nTeam {code} owns {service}; {sentence()}\n")


def write_documents(directory: Path, count: int, seed: int) -> None:
    rng = random.Random(seed)
    folder = directory / FOLDER
    folder.mkdir()
    for number in range(count):
        (folder / f"runbook-{number:05d}.md").write_text(small_document(number, rng), encoding="utf-8")


def embedder_of(fake: bool, settings: Settings) -> Embedder:
    """The tests' fake embedder, or the configured model: its ONNX export is copied from the configured index
    directory when there is one there (else made, with the build tools)."""
    if fake:
        sys.path.insert(0, str(ROOT))
        from tests.support.fakes import FakeEmbedder

        return FakeEmbedder()
    settings.index_dir.mkdir(parents=True, exist_ok=True)
    for export in load_settings().index_dir.glob("onnx*"):
        shutil.copytree(export, settings.index_dir / export.name)
    return load_embedder(settings.model_copy(update={"auto_rebuild": True}))


async def ask(services: Services, questions: list[str], until: threading.Event | None, count: int,
              times: list[float]) -> None:
    """Ask `questions` in turn, one at a time: `count` of them, or until `until` is set."""
    i = 0
    while (until is None and i < count) or (until is not None and not until.is_set()):
        question = questions[i % len(questions)]
        started = time.perf_counter()
        await services.answers.answer(question)
        times.append(time.perf_counter() - started)
        i += 1


def watch_until_live(services: Services, expected: int, live: threading.Event, timeout: float) -> None:
    """Set `live` once the service answers from all `expected` new documents (or after `timeout`)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        docs = services.assistant.knowledge.documents
        if sum(1 for d in docs if d.doc_id.startswith(f"{FOLDER}/")) >= expected:
            break
        time.sleep(0.05)
    live.set()


def row(name: str, times: list[float]) -> str:
    return (f"{name:<28} {len(times):>6} {percentile(times, 50) * 1000:>9.1f} {percentile(times, 99) * 1000:>9.1f} "
            f"{max(times) * 1000:>9.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=5000, help="small documents written at once")
    parser.add_argument("--idle", type=int, default=200, help="questions asked idle")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds to wait for every file to be live")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--fake", action="store_true", help="the tests' fake embedder instead of the model")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")

    with tempfile.TemporaryDirectory(prefix="reload-pause-") as tmp:
        knowledge, index = Path(tmp) / "knowledge", Path(tmp) / "index"
        shutil.copytree(ROOT / "knowledge", knowledge)
        settings = load_settings(knowledge_dir=knowledge, index_dir=index, data_dir=Path(tmp) / "data",
                                 auto_rebuild=False, slack_bot_token=None, slack_signing_secret=None,
                                 slack_app_token=None)
        embedder = embedder_of(args.fake, settings)
        build_index(load_knowledge(knowledge), index, embedder)
        services = Services.load(settings, embedder=embedder)
        try:
            run(services, knowledge, args)
        finally:
            services.close()


def run(services: Services, knowledge: Path, args: argparse.Namespace) -> None:
    questions = queries()
    random.Random(args.seed).shuffle(questions)
    idle: list[float] = []
    during: list[float] = []
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(ask(services, questions, None, 20, []))  # warm-up
        loop.run_until_complete(ask(services, questions, None, args.idle, idle))
        status = services.knowledge_status()
        before = (status.reloads, status.failures) if status else (0, 0)
        live = threading.Event()
        started = time.perf_counter()
        writer = threading.Thread(target=write_documents, args=(knowledge, args.files, args.seed))
        writer.start()
        watcher = threading.Thread(target=watch_until_live, args=(services, args.files, live, args.timeout))
        watcher.start()
        loop.run_until_complete(ask(services, questions, live, 0, during))
        seconds = time.perf_counter() - started
        writer.join()
        watcher.join()
    finally:
        loop.run_until_complete(services.batcher.close())
        loop.close()
    status = services.knowledge_status()
    reloads, failures = (status.reloads - before[0], status.failures - before[1]) if status else (0, 0)
    documents = sum(1 for d in services.assistant.knowledge.documents if d.doc_id.startswith(f"{FOLDER}/"))
    backend = "fake embedder" if args.fake else services.assistant.embedder.model_id
    print(f"{args.files} small documents written at once into a running service ({backend})")
    print(f"{documents} of them answered from after {seconds:.1f} s; {reloads} reloads, {failures} failed")
    print(f"{'answer time':<28} {'asked':>6} {'p50 ms':>9} {'p99 ms':>9} {'max ms':>9}")
    print(row("idle", idle))
    print(row(f"while {args.files} files load", during))
    p99 = percentile(during, 99)
    verdict = "met" if p99 <= P99_TARGET_S else "MISSED"
    print(f"p99 during the reload {p99:.3f} s (target <= {P99_TARGET_S} s): {verdict}")


if __name__ == "__main__":
    main()
