"""A partly covered question, which compares or offers as alternatives a thing the knowledge covers and one it
never mentions, is answered on the covered side with the other named first ("The knowledge base says nothing
about “PyTorchJob”. On MPIJob: …"), and from a lower confidence than other answers: when it is wrong, the reader
was told first where the knowledge stops. Fake embedder, and models whose bars sit around the answer's
confidence."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from bot.answering.answerability import CAVEAT_THRESHOLD, Model
from bot.answering.assistant import Assistant
from bot.evaluation import calibration
from bot.evaluation.queries import EvalQuery

PARTLY_COVERED = "What's the difference between MPIJob and PyTorchJob?"  # PyTorchJob: never in the quiz
COVERED = "How does ZeRO-3 offload parameters?"
ABOUT_THE_UNCOVERED = "How does ZeRO-3 offload parameters to NVMe?"  # NVMe is what it asks about, not an alternative


def with_bars(assistant: Assistant, threshold: float, caveat_threshold: float) -> Assistant:
    model = replace(assistant.judge.model, threshold=threshold, caveat_threshold=caveat_threshold)
    return Assistant(assistant.index, assistant.embedder, model=model)


def test_a_partly_covered_question_is_answered_from_the_lower_bar_and_says_what_it_leaves_out(
    fake_assistant: Assistant,
) -> None:
    confidence = fake_assistant.answer(PARTLY_COVERED).confidence
    assert 0.1 < confidence < 0.99

    below_threshold = with_bars(fake_assistant, threshold=min(1.0, confidence + 0.01),
                                caveat_threshold=confidence - 0.01)
    answer = below_threshold.answer(PARTLY_COVERED)
    assert answer.answered and answer.citations[0].question == 13
    assert answer.uncovered == ["PyTorchJob"]
    assert answer.caveat and answer.text.startswith(answer.caveat)

    below_both = with_bars(fake_assistant, threshold=min(1.0, confidence + 0.01),
                           caveat_threshold=min(1.0, confidence + 0.01))
    declined = below_both.answer(PARTLY_COVERED)
    assert not declined.answered and declined.suggestion is not None and declined.suggestion.question == 13


@pytest.mark.parametrize("question", [COVERED, ABOUT_THE_UNCOVERED])
def test_other_questions_still_need_the_full_threshold(fake_assistant: Assistant, question: str) -> None:
    """Whether it names nothing left out, or what it leaves out is what it asks about."""
    confidence = fake_assistant.answer(question).confidence
    strict = with_bars(fake_assistant, threshold=min(1.0, confidence + 0.001), caveat_threshold=0.0)
    assert not strict.answer(question).answered
    assert fake_assistant.answer(ABOUT_THE_UNCOVERED).uncovered == ["NVMe"]


def test_a_threshold_set_by_the_operator_moves_the_lower_bar_in_proportion(fake_assistant: Assistant) -> None:
    model = replace(fake_assistant.judge.model, threshold=1 / 3, caveat_threshold=0.2)
    stricter = Assistant(fake_assistant.index, fake_assistant.embedder, threshold=0.5, model=model)
    assert stricter.threshold == 0.5 and stricter.caveat_threshold == pytest.approx(0.3)
    default = Assistant(fake_assistant.index, fake_assistant.embedder, model=model)
    assert default.threshold == pytest.approx(1 / 3) and default.caveat_threshold == pytest.approx(0.2)


def test_a_model_file_without_a_lower_bar_keeps_one_bar_for_every_answer(tmp_path: Path) -> None:
    written = tmp_path / "answerability.json"
    Model.bundled().write(written)
    data = json.loads(written.read_text(encoding="utf-8"))
    assert data["caveat_threshold"] == CAVEAT_THRESHOLD
    del data["caveat_threshold"]
    written.write_text(json.dumps(data), encoding="utf-8")
    older = Model.read(written)
    assert older.caveat_threshold == older.threshold
    assert older.bar(partial=True) == older.bar(partial=False) == older.threshold


def test_calibration_figures_count_each_line_against_the_bar_the_bot_holds_it_to() -> None:
    queries = [EvalQuery("MPIJob or PyTorchJob?", "en", [13], "partial"),
               EvalQuery("MPIJob or PyTorchJob for slots?", "en", [13], "partial")]
    model = replace(Model.untrained(), threshold=1 / 3, caveat_threshold=0.2)
    probability = np.array([0.25, 0.25])
    data = calibration.Examples(queries, np.zeros((2, len(model.features))), np.ones(2),
                                partial=np.array([True, False]))
    kinds = calibration.report(data, probability, model)["by_kind"]
    assert isinstance(kinds, dict) and kinds["partial"]["false_abstention"] == 0.5  # the partly covered one is answered
