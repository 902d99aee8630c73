"""Labelled questions as exemplars for the answerability decision: which ones count for a cited quiz
question, a question leaving itself out while fitting, the bundled file, and a model they were not embedded
by. Small vectors made by hand: no model is loaded."""

from __future__ import annotations

import numpy as np
import pytest

from bot.answering.assistant import Assistant
from bot.answering.exemplars import Exemplars, exemplars_beside, text_key
from bot.errors import ConfigError


def unit(*values: float) -> np.ndarray:
    v = np.array(values, dtype=np.float32)
    return v / np.linalg.norm(v)


def labelled() -> Exemplars:
    vectors = np.array([unit(1, 0, 0), unit(0.8, 0.6, 0), unit(0, 1, 0), unit(0, 0, 1), unit(0.6, 0.8, 0)])
    texts = ["how does ZeRO-3 offload", "ZeRO-3 vs FSDP", "how do we set up ZeRO-Infinity on NVMe",
             "what is the weather", "HOW  does zero-3 offload"]  # the last repeats the first
    expects: list[list[int]] = [[12], [12], [], [], [12, 11]]
    cited = [12, 12, 12, 5, 12]
    return Exemplars.of("minilm", vectors, texts, expects, cited)


def test_the_same_text_counts_once_with_the_numbers_of_both() -> None:
    exemplars = labelled()
    assert len(exemplars.vectors) == 4
    assert exemplars.answers[0, 12] and exemplars.answers[0, 11]
    assert text_key("How does ZeRO-3  offload") == text_key("how does zero-3 offload")


def test_the_margin_weighs_what_the_cited_question_answers_against_what_nothing_answers() -> None:
    exemplars = labelled()
    query = unit(0.9, 0.1, 0)  # close to the answered ZeRO-3 questions
    best_answered = max(float(unit(1, 0, 0) @ query), float(unit(0.8, 0.6, 0) @ query))
    nearest_unanswerable = float(unit(0, 1, 0) @ query)
    assert exemplars.margin(query, 12) == pytest.approx(best_answered - nearest_unanswerable, abs=1e-6)
    # a question nothing answers that retrieval cites another quiz question for is no evidence either way
    assert exemplars.margin(unit(0, 0.1, 0.9), 5) == pytest.approx(0.0 - float(unit(0, 0, 1) @ unit(0, 0.1, 0.9)))
    assert exemplars.margin(query, 12) > 0 > exemplars.margin(unit(0.1, 0.9, 0), 12)
    assert exemplars.margin(query, 99) == 0.0  # no exemplar of that quiz question, either side: no evidence


def test_while_fitting_a_question_leaves_itself_out() -> None:
    exemplars = labelled()
    itself = unit(1, 0, 0)
    assert exemplars.margin(itself, 12) == pytest.approx(1.0 - float(unit(0, 1, 0) @ itself), abs=1e-6)
    without = exemplars.margin(itself, 12, leave_out=text_key("how does ZeRO-3 offload"))
    assert without == pytest.approx(float(unit(0.8, 0.6, 0) @ itself) - float(unit(0, 1, 0) @ itself), abs=1e-6)


def test_exemplars_are_written_beside_the_model_and_read_back(tmp_path) -> None:
    exemplars = labelled()
    path = exemplars_beside(tmp_path / "answerability.json")
    assert path.name == "answerability-exemplars.npz"
    exemplars.write(path)
    back = Exemplars.read(path)
    assert back.model_id == "minilm" and back.dimension == 3
    assert (back.answers == exemplars.answers).all() and (back.cited == exemplars.cited).all()
    assert (back.keys == exemplars.keys).all()
    assert np.abs(back.vectors - exemplars.vectors).max() < 1e-3
    query = unit(0.9, 0.1, 0)
    assert back.margin(query, 12) == pytest.approx(exemplars.margin(query, 12), abs=2e-3)


def test_a_damaged_exemplars_file_is_refused_with_how_to_remake_it(tmp_path) -> None:
    path = tmp_path / "answerability-exemplars.npz"
    path.write_bytes(b"not a numpy archive")
    with pytest.raises(ConfigError, match="cannot read the answerability exemplars"):
        Exemplars.read(path)
    exemplars = labelled()
    exemplars.write(path)
    path.write_bytes(path.read_bytes()[:200])  # cut short
    with pytest.raises(ConfigError, match="cannot read the answerability exemplars"):
        Exemplars.read(path)
    np.savez(path, model_id=np.array("minilm"), vectors=exemplars.vectors, answers=exemplars.answers[:2],
             cited=exemplars.cited, keys=exemplars.keys)
    with pytest.raises(ConfigError, match="eksbot calibrate"):
        Exemplars.read(path)


def test_the_bundled_exemplars_are_only_compared_with_vectors_of_their_own_model(fake_assistant: Assistant) -> None:
    bundled = Exemplars.bundled()
    assert bundled.model_id != fake_assistant.embedder.model_id and len(bundled.vectors) > 500
    assert fake_assistant.judge.exemplars is None
    text, lang = fake_assistant.prepare("How does ZeRO-3 offload parameters?")
    retrieval = fake_assistant.retrieve_many([(text, lang)])[0]
    assert fake_assistant.judge.features(retrieval)["exemplar"] == 0.0


def test_calibrating_by_file_reports_each_files_lines_on_their_own(fake_assistant: Assistant) -> None:
    """`eksbot calibrate --by-file`: each author's lines judged by a model fitted on the others' lines, with only
    theirs as exemplars."""
    from bot.evaluation import calibration
    from bot.evaluation.queries import EvalQuery

    first = [EvalQuery("How do I request EFA devices in a pod?", "en", [5]),
             EvalQuery("What is the capital of Australia?", "en", [], "far"),
             EvalQuery("¿Qué CRD de Slinky define los nodos?", "es", [4])]
    second = [EvalQuery("What does slotsPerWorker set in an MPIJob?", "en", [13]),
              EvalQuery("Who won the 2010 world cup?", "en", [], "far"),
              EvalQuery("¿Cómo descargo los parámetros a la CPU con ZeRO?", "es", [12])]
    figures = calibration.cross_validate_by_group(calibration.retrieve(fake_assistant, [*first, *second]),
                                                   ["a"] * 3 + ["b"] * 3)
    assert list(figures) == ["a", "b"]
    for report in figures.values():
        kinds = report["by_kind"]
        assert isinstance(kinds, dict) and kinds["in-scope"]["queries"] == 2 and kinds["far"]["queries"] == 1
    # Beside the decision's figures, each author's right question first per language, and the worst author's.
    ranked = {name: {q.q: a.retrieval.ranked[0].key[1] for q, a in zip(queries, asked, strict=True)}
              for name, queries, asked in (("a", first, calibration.retrieve(fake_assistant, first)),
                                           ("b", second, calibration.retrieve(fake_assistant, second)))}
    right = {name: report["right_first"] for name, report in figures.items()}
    for name, queries in (("a", first), ("b", second)):
        shares = right[name]
        assert isinstance(shares, dict)
        for lang in ("en", "es"):
            rows = [q for q in queries if q.lang == lang and q.expect]
            assert shares[lang] == round(sum(ranked[name][q.q] in q.expect for q in rows) / len(rows), 4)
    unseen = calibration.unseen(figures)["authors"]
    for lang in ("en", "es"):
        worst = unseen[f"right_first_{lang}"]
        assert isinstance(worst, dict)
        assert worst["worst"] == min(shares[lang] for shares in right.values() if isinstance(shares, dict))


def test_each_steps_regularisation_shrinks_only_its_own_weights() -> None:
    """`make calibrate` fits the quiz's decision, then the pages' own features on top of it, each with the
    regularisation chosen on what it never saw (`calibration.L2`, `PAGE_L2`): a stronger one for the pages
    shrinks the pages' weights and leaves the quiz's decision as it was."""
    from bot.answering.answerability import FEATURES, PAGE_FEATURES
    from bot.evaluation import calibration
    from bot.evaluation.queries import EvalQuery

    rng = np.random.default_rng(3)
    n = 400
    x = rng.normal(size=(n, len(FEATURES)))
    pages = np.arange(n) >= n // 2
    own = [FEATURES.index(name) for name in PAGE_FEATURES]
    x[np.ix_(~pages, np.array(own))] = 0.0  # the quiz's lines have no page features
    y = (x @ rng.normal(size=len(FEATURES)) + rng.normal(scale=0.5, size=n) > 0).astype(np.float64)
    queries = [EvalQuery(f"q{i}", "en", [1] if y[i] else [], page="p.md" if pages[i] else "") for i in range(n)]
    data = calibration.Examples(queries, x, y)

    loose = calibration.fit(data, l2=1.0, page_l2=0.1)
    tight = calibration.fit(data, l2=1.0, page_l2=100.0)
    quiz = [i for i in range(len(FEATURES)) if i not in own]
    assert np.allclose(np.array(loose.weights)[quiz], np.array(tight.weights)[quiz])
    assert loose.bias == tight.bias
    assert np.linalg.norm(np.array(tight.weights)[own]) < 0.5 * np.linalg.norm(np.array(loose.weights)[own])
    assert tight.about["page_l2"] == 100.0 and tight.about["l2"] == 1.0
    # the quiz's own regularisation moves the quiz's weights
    shrunk = calibration.fit(data, l2=100.0, page_l2=0.1)
    assert np.linalg.norm(np.array(shrunk.weights)[quiz]) < np.linalg.norm(np.array(loose.weights)[quiz])
