"""The `eksbot` command: ask, eval and index, in-process and as the installed console script.

Answering loads the configured model, so `ask` and `eval` run on the real one (slow); the index and input
checks load none, and the rendering is checked on the fake-embedder assistant."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from bot.answering.assistant import Answer, Assistant
from bot.cli.render import render_answer
from bot.config import load_settings
from bot.embedding.model import model_identity
from bot.knowledge import load_knowledge
from bot.knowledge.citations import Citation, Part
from bot.retrieval.artifacts import build_index
from tests.conftest import KNOWLEDGE
from tests.support.cli_helpers import run
from tests.support.fakes import FakeEmbedder
from tests.support.shapes import CITATION_KEYS

EFA_EN = "Which environment variable enables EFA for NCCL?"
BAD_QUIZ = """---
id: broken-quiz
title: Broken quiz
lang: en
kind: quiz
---

## 1. Which letter?

Topic: Letters

- A) This one
- B) That one

Answer: F

Explanation: there is no option F.
"""


def dirs(index_dir: Path, knowledge_dir: Path = KNOWLEDGE) -> list[str]:
    return ["--knowledge-dir", str(knowledge_dir), "--index-dir", str(index_dir)]


def check_answer_json(stdout: str) -> dict[str, object]:
    """Exactly one JSON object on stdout, with the public answer schema."""
    lines = [line for line in stdout.splitlines() if line.strip()]
    assert len(lines) == 1, stdout
    data = json.loads(lines[0])
    assert isinstance(data, dict)
    assert set(data) == {"answered", "language", "text", "citations", "confidence", "uncovered", "suggestion"}
    assert isinstance(data["answered"], bool)
    assert data["language"] in {"es", "en"}
    assert isinstance(data["text"], str) and data["text"]
    assert isinstance(data["citations"], list)
    assert isinstance(data["confidence"], float) and 0.0 <= data["confidence"] <= 1.0
    assert isinstance(data["uncovered"], list)
    for citation in data["citations"]:
        assert set(citation) == CITATION_KEYS
        assert type(citation["question"]) is int
        assert isinstance(citation["title"], str) and isinstance(citation["excerpt"], str)
        assert citation["snippet"] is None or isinstance(citation["snippet"], str)
        assert isinstance(citation["source"], str)
        assert isinstance(citation["score"], int | float) and not isinstance(citation["score"], bool)
        assert isinstance(citation["doc"], str) and isinstance(citation["section"], str)
        assert citation["url"] is None or isinstance(citation["url"], str)
    return data


def bad_knowledge(tmp_path: Path) -> tuple[Path, int]:
    """A knowledge directory whose only file has an answer that is not an option; returns (file, line)."""
    directory = tmp_path / "bad-knowledge"
    directory.mkdir()
    path = directory / "broken-quiz.en.md"
    path.write_text(BAD_QUIZ, encoding="utf-8")
    line = BAD_QUIZ.split("\n").index("Answer: F") + 1
    return path, line


# -- ask ------------------------------------------------------------------------------------------------


@pytest.fixture
def configured_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An index that names the configured model and backend, built with the fake embedder (the check only
    compares identities: it loads no model). The backend is torch here, which has no ONNX export to check
    (tests/embedding/test_onnx_backend.py checks those)."""
    monkeypatch.setenv("EKSBOT_EMBEDDING_BACKEND", "torch")
    index = tmp_path / "configured-index"
    embedder = FakeEmbedder(model_id=model_identity(load_settings().embedding_model), backend="torch")
    build_index(load_knowledge(KNOWLEDGE), index, embedder)
    return index


@pytest.mark.slow
def test_ask_json_prints_one_answer_object(index_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run([*dirs(index_dir), "ask", "--json", "--lang", "es", EFA_EN], capsys)
    assert code == 0, err
    data = check_answer_json(out)
    assert data["answered"] is True
    assert data["language"] == "es"
    citations = data["citations"]
    assert isinstance(citations, list) and citations[0]["question"] == 5
    assert citations[0]["source"] == "eks-training-quiz.es.md"


@pytest.mark.slow
def test_ask_prints_a_readable_answer_with_its_citation(
    index_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "240")
    code, out, err = run([*dirs(index_dir), "ask", EFA_EN], capsys)
    assert code == 0, err
    assert not out.lstrip().startswith("{"), "without --json the answer is not JSON"
    assert "FI_PROVIDER=efa" in out
    assert "Question 5" in out
    assert "eks-training-quiz.en.md" in out


def test_an_answer_reads_with_its_snippet_and_citations(fake_assistant: Assistant) -> None:
    out = io.StringIO()
    render_answer(Console(file=out, width=240, color_system=None), fake_assistant.answer(EFA_EN))
    text = out.getvalue()
    assert "FI_PROVIDER=efa" in text and "B) FI_PROVIDER=efa" in text  # the snippet, the quiz's answer
    assert "Question 5 · Which environment variable enables EFA" in text and "[eks-training-quiz.en.md," in text


def test_an_answer_reads_in_order_excerpt_code_then_reference(fake_assistant: Assistant) -> None:
    """The excerpt may end on the sentence that introduces the code: the code follows it directly."""
    answer = fake_assistant.answer(EFA_EN)
    assert answer.answered and answer.reference
    out = io.StringIO()
    render_answer(Console(file=out, width=400, color_system=None), answer)
    text = out.getvalue()
    excerpt_end = text.index(answer.citations[0].excerpt.split()[-1])
    code = text.index("export FI_PROVIDER=efa")
    reference = text.index("Quiz question 5")
    assert excerpt_end < code < reference


def test_a_quote_of_two_code_blocks_reads_each_block_under_its_own_lead_in() -> None:
    parts = (Part("For llama.cpp workloads:", "gpu_layers: 22", "yaml"),
             Part("For diffusers instead:", "backend: diffusers", "yaml"), Part("Restart the server.", None))
    cited = Citation(3, "Model configuration", "For llama.cpp workloads:\nFor diffusers instead:\nRestart the server.",
                     "gpu_layers: 22\n\nbackend: diffusers", "gpu.md", 1.0, doc_id="gpu", lang="en",
                     section="GPU acceleration › Model configuration", parts=parts)
    out = io.StringIO()
    render_answer(Console(file=out, width=240, color_system=None),
                  Answer(answered=True, language="en", text=cited.excerpt, citations=[cited]))
    text = out.getvalue()
    order = [text.index(s) for s in ("For llama.cpp workloads:", "gpu_layers: 22", "For diffusers instead:",
                                     "backend: diffusers", "Restart the server.")]
    assert order == sorted(order)


@pytest.mark.slow
def test_console_script_ask_json(index_dir: Path) -> None:
    script = Path(sys.executable).with_name("eksbot")
    assert script.exists(), f"the console script is not installed next to {sys.executable}"
    result = subprocess.run(
        [str(script), *dirs(index_dir), "ask", "--json", "¿Cómo pido dispositivos EFA en un pod?"],
        capture_output=True, text=True, timeout=240, check=False,
    )
    assert result.returncode == 0, result.stderr
    data = check_answer_json(result.stdout)
    assert data["answered"] is True and data["language"] == "es"
    citations = data["citations"]
    assert isinstance(citations, list) and citations[0]["question"] == 5
    assert "Traceback" not in result.stderr


@pytest.mark.slow
def test_ask_with_an_empty_question_is_bad_input(index_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run([*dirs(index_dir), "ask", "   "], capsys)
    assert code == 2
    assert out == ""
    assert err.startswith("eksbot: ") and len(err.strip().splitlines()) == 1


# -- eval -----------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_eval_json_prints_results_then_summary(
    index_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    queries: list[dict[str, Any]] = [
        {"q": "¿Qué variable de entorno habilita EFA en NCCL?", "lang": "es", "expect": [5]},
        {"q": "What does slotsPerWorker mean in an MPIJob?", "lang": "en", "expect": [13]},
        {"q": "How do I make sourdough bread?", "lang": "en", "expect": []},
    ]
    path = tmp_path / "queries.jsonl"
    path.write_text("\n".join(json.dumps(q, ensure_ascii=False) for q in queries) + "\n", encoding="utf-8")
    code, out, err = run([*dirs(index_dir), "eval", str(path), "--json"], capsys)
    assert code == 0, err
    lines: list[dict[str, Any]] = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert len(lines) == len(queries) + 1
    for query, result in zip(queries, lines[:-1], strict=True):
        assert set(result) >= {"q", "expect", "ranked", "answered"}
        assert result["q"] == query["q"] and result["expect"] == query["expect"]
        ranked = result["ranked"]
        assert isinstance(ranked, list) and len(ranked) >= 3
        assert all(type(n) is int for n in ranked) and len(set(ranked)) == len(ranked)
        assert isinstance(result["answered"], bool)
    final = lines[-1]
    assert set(final) == {"summary"}
    summary = final["summary"]
    for key in ("recall@1", "recall@3", "mrr", "abstention", "false_abstention"):
        assert isinstance(summary[key], int | float) and 0.0 <= summary[key] <= 1.0, key
    assert set(summary["by_language"]) == {"es", "en"}
    assert summary["recall@3"] >= summary["recall@1"]


@pytest.mark.slow
def test_eval_tables_written_to_a_file_keep_every_figure_whole(
    index_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`make eval > figures.txt` or a CI log: no column header, figure or source name is cut to "…"."""
    path = tmp_path / "queries.jsonl"
    path.write_text(json.dumps({"q": "What does slotsPerWorker mean in an MPIJob?", "lang": "en", "expect": [13]})
                    + "\n", encoding="utf-8")
    code, out, err = run([*dirs(index_dir), "eval", str(path)], capsys)
    assert code == 0, err
    assert "…" not in out
    assert all(header in out for header in ("recall@1", "false abstention", "suggested right", "uncovered recall"))


@pytest.mark.parametrize(
    "bad_line",
    ["{not json", '{"lang": "en", "expect": [1]}', '{"q": "x", "expect": "5"}', '{"q": 3, "expect": [1]}'],
)
def test_eval_malformed_line_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bad_line: str
) -> None:
    path = tmp_path / "queries.jsonl"
    good = '{"q": "What is EFA?", "lang": "en", "expect": [5]}'
    path.write_text(f"{good}\n\n{bad_line}\n", encoding="utf-8")
    code, out, err = run([*dirs(tmp_path / "no-index"), "eval", str(path), "--json"], capsys)
    assert code == 2
    assert out == ""
    assert f"{path}:3" in err


@pytest.mark.parametrize("bad_line", [
    '{"turns": ["only one"], "lang": "en", "expect": [1]}', '{"turns": ["a", 2], "expect": [1]}',
    '{"turns": ["a", "b"], "expect": [1], "kind": 3}', '{"turns": ["a", "b"]}',
])
def test_eval_malformed_conversation_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bad_line: str
) -> None:
    path = tmp_path / "conversations.jsonl"
    good = '{"turns": ["What is EFA?", "and on Trainium?"], "lang": "en", "expect": [5]}'
    path.write_text(f"{good}\n{bad_line}\n", encoding="utf-8")
    code, out, err = run([*dirs(tmp_path / "no-index"), "eval", str(path)], capsys)
    assert (code, out) == (2, "")
    assert f"{path}:2" in err


def test_eval_missing_file_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "missing.jsonl"
    code, _out, err = run([*dirs(tmp_path / "no-index"), "eval", str(path)], capsys)
    assert code == 2
    assert str(path) in err and "Traceback" not in err


# -- index ----------------------------------------------------------------------------------------------


def test_index_build_on_malformed_knowledge_names_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, line = bad_knowledge(tmp_path)
    index = tmp_path / "index"
    code, _out, err = run([*dirs(index, path.parent), "index", "build"], capsys)
    assert code == 2
    assert f"{path}:{line}" in err
    assert not (index / "manifest.json").exists()


def test_index_check_on_malformed_knowledge_names_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, line = bad_knowledge(tmp_path)
    code, _out, err = run([*dirs(tmp_path / "index", path.parent), "index", "check"], capsys)
    assert code == 2
    assert f"{path}:{line}" in err


def test_index_check_reports_up_to_date(configured_index: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run([*dirs(configured_index), "index", "check"], capsys)
    assert code == 0, err
    assert "eks-training-quiz.es.md" in out and "eks-training-quiz.en.md" in out
    assert "up to date" in out and "stale" not in out.lower()


def test_index_check_reports_stale_knowledge(
    knowledge_copy: Path, configured_index: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = knowledge_copy / "eks-training-quiz.en.md"
    path.write_text(path.read_text(encoding="utf-8") + "\nOne more closing line.\n", encoding="utf-8")
    code, out, _err = run([*dirs(configured_index, knowledge_copy), "index", "check"], capsys)
    assert code != 0
    assert f"STALE: the knowledge in {knowledge_copy} changed since the index was built" in out


def test_index_check_reports_an_index_built_with_another_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An index the configured model did not build would be refused by `ask`: check must say so."""
    index = tmp_path / "index"
    build_index(load_knowledge(KNOWLEDGE), index, FakeEmbedder(model_id="another-model@1"))
    code, out, _err = run([*dirs(index), "index", "check"], capsys)
    assert code != 0
    assert "STALE: index was built with model another-model@1, the setting is" in out


def test_index_check_without_an_index(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = run([*dirs(tmp_path / "nowhere"), "index", "check"], capsys)
    assert code != 0
    assert "eksbot index build" in out


@pytest.mark.slow
def test_ask_answers_with_the_entries_and_notes_of_the_database(
    index_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a server does: an entry added with `eksbot knowledge add`, and a note, are in `eksbot ask`'s answers."""
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'data' / 'eksbot.db'}")
    entry = tmp_path / "quota.md"
    entry.write_text("# GPU quota for the research team\n\nThe research team has a quota of 64 `nvidia.com/gpu` "
                     "in namespace `research-train`.\n", encoding="utf-8")
    assert run([*dirs(index_dir), "knowledge", "add", str(entry)], capsys)[0] == 0
    assert run([*dirs(index_dir), "knowledge", "note", "5", "FI_EFA_USE_DEVICE_RDMA=1 is also needed on p5.",
                "--lang", "en"], capsys)[0] == 0
    code, out, err = run([*dirs(index_dir), "ask", "--json", "What GPU quota does the research team have?"], capsys)
    assert code == 0, err
    data = check_answer_json(out)
    assert data["answered"] is True and str(data["citations"][0]["source"]).startswith("entries/")  # type: ignore[index]
    code, out, err = run([*dirs(index_dir), "ask", "--json", EFA_EN], capsys)
    noted = check_answer_json(out)
    assert noted["citations"][0]["notes"] == ["FI_EFA_USE_DEVICE_RDMA=1 is also needed on p5."]  # type: ignore[index]


@pytest.mark.slow
def test_ask_without_a_database_answers_from_the_files_and_makes_no_database(
    index_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'data' / 'eksbot.db'}")
    code, out, err = run([*dirs(index_dir), "ask", "--json", EFA_EN], capsys)
    assert code == 0 and check_answer_json(out)["answered"] is True
    assert not (tmp_path / "data").exists()


def test_calibrate_refuses_a_regularisation_of_zero_before_reading_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = str(tmp_path / "none.jsonl")
    code, out, err = run([*dirs(tmp_path / "index"), "calibrate", line, "--by-file", "--l2", "0"], capsys)
    assert code == 2
    assert out == ""
    assert err.startswith("eksbot: ") and "--l2" in err and len(err.strip().splitlines()) == 1
