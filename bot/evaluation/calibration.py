"""Fit the answerability model on labelled questions, and say how well it does on lines it did not see.

A line is a positive example when the best quiz question the retrieval finds is one of its `expect`
numbers (that question answers it), or, for a question about a document (`source`), when the best section is
of that document; a negative one otherwise: every out-of-scope line, and in-scope lines whose best question
or section is a wrong one. Positives and negatives weigh the same in total, so the
probability reads as "answers" against "does not" on an even prior.

The bot answers from a probability of 1/3: a fair question declined costs twice what an answer to a question
the knowledge does not cover costs, because that answer still says what it does not cover, and the reader
sees the cited question, while a decline leaves them with nothing. With those costs, answering is the better
bet from p * 2 > (1 - p) * 1. An answer that opens by naming what the knowledge does not cover costs half that
when it is wrong, so a partly covered question (one side of a comparison or alternative covered, the other
named) is answered from 0.2 (`bot.answering.answerability.CAVEAT_THRESHOLD`): the figures count each line
against the bar the bot holds it to.
The report gives stratified k-fold cross-validated abstention and false abstention per kind, and the
log loss and Brier score of the probabilities.
"""

from __future__ import annotations

import math
import random
import shutil
import tempfile
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from bot.answering.answerability import CAVEAT_THRESHOLD, FEATURES, PAGE_FEATURES, SECOND_LOOK, Judge, Model
from bot.answering.assistant import Assistant
from bot.answering.exemplars import Exemplars, text_key
from bot.errors import InputError
from bot.evaluation.documents import as_queries, is_document_set, read_document_questions, same_source
from bot.evaluation.queries import EvalQuery, read_queries
from bot.knowledge import KnowledgeBase, load_knowledge
from bot.lang import LANGUAGES
from bot.retrieval.hybrid import Retrieval

FALSE_DECLINE_COST = 2.0  # a fair question declined, against an answer the knowledge does not cover (1)
THRESHOLD = 1.0 / (1.0 + FALSE_DECLINE_COST)
# The regularisation of each step of `fit`, chosen by leaving one author out (the quiz's) and one page out (the
# pages' own features) among 0.1 to 100, the choice whose worst author and worst page did best
# (`eksbot calibrate --by-file --l2 X --page-l2 Y`; docs/quality.md, "Regularisation chosen on unseen authors").
L2 = 1.0
PAGE_L2 = 3.0
FOLDS = 5


@dataclass(frozen=True)
class Examples:
    queries: list[EvalQuery]
    x: np.ndarray  # one row of FEATURES per query
    y: np.ndarray  # 1.0 when the best quiz question answers the query
    exemplars: Exemplars | None = None  # the queries as exemplars (see `bot.answering.exemplars`)
    partial: np.ndarray | None = None  # True for a partly covered question (`Judgement.partial`)


@dataclass(frozen=True)
class Asked:
    """A labelled line retrieved over the knowledge it is about: the quiz, or the quiz with the documents a
    document's lines were written about."""

    query: EvalQuery
    assistant: Assistant
    retrieval: Retrieval


def examples(assistant: Assistant, queries: list[EvalQuery], batch: int = 64) -> Examples:
    """Features and labels of labelled queries. The queries are also the exemplars: each one's features are
    computed with itself (and any copy of its text) left out, as a new question would see them."""
    return examples_of(retrieve(assistant, queries, batch))


def examples_of(asked: list[Asked]) -> Examples:
    """`examples` of lines retrieved over one knowledge or several (their exemplars shared)."""
    exemplars = _exemplars(asked)
    return _judged(asked, exemplars, None, exemplars)


def cross_validate_by_group(asked: list[Asked], groups: list[str], *, l2: float = L2, page_l2: float = PAGE_L2
                            ) -> dict[str, dict[str, object]]:
    """Each group's lines (a file: one author, one way of writing; or one document) judged by a model fitted on
    the other groups, with only their lines as exemplars: how the decision does on questions written by someone
    whose writing it never saw, or about a page it never saw, against the k-fold figures, where every author is
    seen."""
    out: dict[str, dict[str, object]] = {}
    for name in dict.fromkeys(groups):
        train = [a for a, group in zip(asked, groups, strict=True) if group != name]
        test = [a for a, group in zip(asked, groups, strict=True) if group == name]
        if not train:
            continue
        data = examples_of(train)
        model = fit(data, l2=l2, page_l2=page_l2)
        held = _judged(test, data.exemplars, model)
        probability = np.array([model.probability(dict(zip(FEATURES, row, strict=True))) for row in held.x])
        out[name] = {**report(held, probability, model), "right_first": _right_first(test)}
    return out


def _right_first(asked: list[Asked]) -> dict[str, float]:
    """Per language, the share of the lines that name quiz questions whose retrieval ranks one of them first. The
    ranking is fitted on no line: it is the same whoever is left out, and is reported beside the decision's
    figures so that an author's worst side shows in one place."""
    out: dict[str, float] = {}
    for lang in sorted({a.query.lang for a in asked}):
        rows = [a for a in asked if a.query.lang == lang and a.query.expect]
        if rows:
            out[lang] = round(sum(bool(a.retrieval.ranked) and a.retrieval.ranked[0].key[1] in a.query.expect
                                  for a in rows) / len(rows), 4)
    return out


def unseen(by_group: dict[str, dict[str, object]]) -> dict[str, dict[str, object]]:
    """The worst and the mean group of `cross_validate_by_group`'s figures, for the quiz's authors (files) and the
    pages apart: in-scope lines wrongly declined, overall and per language, out-of-scope lines handled
    (near-domain, generic and off-domain declined), and the right question first per language (`_right_first`).
    The figure a choice of the decision is judged by is the worst author's: how it does on the writer it did worst
    on, never seen while fitting."""
    out: dict[str, dict[str, object]] = {}
    pages = [g for g in by_group if "/" in g]  # a page is named by its path; an author by a file's name
    for kind, names in (("authors", [g for g in by_group if g not in pages]), ("pages", pages)):
        figures: dict[str, object] = {"groups": len(names)}
        for label, key, field, worst in (
                ("false_abstention", "in-scope", "false_abstention", max),
                ("false_abstention_en", "in-scope/en", "false_abstention", max),
                ("false_abstention_es", "in-scope/es", "false_abstention", max),
                ("out_of_scope_handled", "", "abstention", min)):
            values: dict[str, float] = {}
            for name in names:
                kinds = by_group[name]["by_kind"]
                assert isinstance(kinds, dict)
                if key:
                    row = kinds.get(key)
                    if row and field in row:
                        values[name] = float(row[field])
                    continue
                rows = [kinds[k] for k in ("near", "generic", "far") if k in kinds]
                total = sum(int(r["queries"]) for r in rows)
                if total:
                    values[name] = sum(float(r[field]) * int(r["queries"]) for r in rows) / total
            if values:
                who = worst(values, key=lambda name: values[name])
                figures[label] = {"worst": round(values[who], 4), "worst_group": who,
                                  "mean": round(sum(values.values()) / len(values), 4)}
        for lang in LANGUAGES:  # the right question first (a page's lines name none)
            right = {name: float(first[lang]) for name in names
                     if isinstance(first := by_group[name].get("right_first"), dict) and lang in first}
            if right:
                who = min(right, key=lambda name: right[name])
                figures[f"right_first_{lang}"] = {"worst": round(right[who], 4), "worst_group": who,
                                                  "mean": round(sum(right.values()) / len(right), 4)}
        if names:
            out[kind] = figures
    return out


def fit_lines(base: Assistant, knowledge_dir: Path, files: Sequence[Path], docs: Sequence[Path] = ()
              ) -> tuple[list[Asked], list[str]]:
    """The labelled lines of `files`, retrieved, and who wrote each: its file (an author) or, for a question about
    a document (`bot.evaluation.documents`), that document. The quiz's lines are retrieved over `base`; the
    documents' over the knowledge of `knowledge_dir` with the `docs` folders beside it, each under its own name
    (as the questions' `source` paths name them)."""
    quiz: list[tuple[EvalQuery, str]] = []
    about: list[tuple[EvalQuery, str]] = []
    for path in files:
        if not path.is_file():
            raise InputError(f"{path}: no such file")
        if is_document_set(path):
            questions = read_document_questions(path)
            about += zip(as_queries(questions), (q.source for q in questions), strict=True)
        else:
            quiz += ((q, path.name) for q in read_queries(path))
    over_docs = base
    if docs and about:
        with tempfile.TemporaryDirectory(prefix="eksbot-calibrate-") as scratch:
            over_docs = base.with_knowledge(_with_folders(knowledge_dir, Path(scratch), docs))
    asked = [*retrieve(base, [q for q, _ in quiz]), *retrieve(over_docs, [q for q, _ in about])]
    return asked, [group for _, group in [*quiz, *about]]


def _with_folders(knowledge_dir: Path, scratch: Path, folders: Sequence[Path]) -> KnowledgeBase:
    """The knowledge of `knowledge_dir` with `folders` copied beside it, each under its own name."""
    target = scratch / "knowledge"
    shutil.copytree(knowledge_dir, target, ignore=shutil.ignore_patterns(".*"))
    for folder in folders:
        if not folder.is_dir():
            raise InputError(f"{folder}: no such folder")
        shutil.copytree(folder, target / folder.name, dirs_exist_ok=True)
    return load_knowledge(target, strict=False)


def retrieve(assistant: Assistant, queries: list[EvalQuery], batch: int = 64) -> list[Asked]:
    out: list[Asked] = []
    for start in range(0, len(queries), batch):
        part = queries[start : start + batch]
        retrievals = assistant.retrieve_many([assistant.prepare(q.q, None) for q in part])
        out += [Asked(q, assistant, r) for q, r in zip(part, retrievals, strict=True)]
    return out


def _exemplars(asked: list[Asked]) -> Exemplars | None:
    """The quiz's lines as exemplars (the documents' lines speak of no quiz question: they leave the quiz's
    decision as it is without them)."""
    asked = [a for a in asked if not a.query.page]
    if not asked:
        return None
    quiz = asked[0].assistant.judge.quiz_ids
    # The quiz question each line is cited for (-1: a document's section, which exemplars do not speak of).
    cited = [a.retrieval.ranked[0].key[1] if a.retrieval.ranked and a.retrieval.ranked[0].key[0] in quiz else -1
             for a in asked]
    return Exemplars.of(asked[0].assistant.embedder.model_id, np.array([a.retrieval.vector for a in asked]),
                        [a.retrieval.analysis.search_text for a in asked], [a.query.expect for a in asked], cited)


def _judged(asked: list[Asked], exemplars: Exemplars | None, model: Model | None = None,
            kept: Exemplars | None = None) -> Examples:
    """Each line's features as a judge over its own knowledge reads them (with `exemplars`, its own text left
    out; with `model`, or the assistant's) and its label: 1.0 when the best quiz question or section answers
    it. `kept`: the exemplars the examples carry."""
    judges: dict[int, Judge] = {}
    rows: list[list[float]] = []
    labels: list[float] = []
    partial: list[bool] = []
    for line in asked:
        judge = judges.get(id(line.assistant))
        if judge is None:
            judge = judges[id(line.assistant)] = Judge(
                line.assistant.retriever, line.assistant.judge.definitions, model or line.assistant.judge.model,
                exemplars)
        retrieval = line.retrieval
        values = judge.features(retrieval, leave_out=text_key(retrieval.analysis.search_text))
        rows.append([values[name] for name in FEATURES])
        labels.append(float(bool(retrieval.ranked) and _answers(judge, line.query, retrieval.ranked[0].key)))
        partial.append(judge.partial(retrieval))
    return Examples([a.query for a in asked], np.array(rows, dtype=np.float64).reshape(len(rows), len(FEATURES)),
                    np.array(labels, dtype=np.float64), kept, np.array(partial, dtype=bool))


def _answers(judge: Judge, query: EvalQuery, key: tuple[str, int]) -> bool:
    """Whether the section or quiz question `key` answers the line: a quiz line's `expect` numbers are the
    quiz's; a document line is answered by a section of its document."""
    doc_id, number = key
    if query.source:
        editions = judge.retriever.index.knowledge.editions(doc_id)
        return any(same_source(document.source, query.source) for document in editions.values())
    return doc_id in judge.quiz_ids and number in query.expect


def fit(data: Examples, *, l2: float = L2, page_l2: float = PAGE_L2, threshold: float = THRESHOLD,
        about: dict[str, object] | None = None) -> Model:
    """The model, in two steps, so that questions about documents do not move the quiz's decision:

    1. the quiz's lines alone fit every feature but the pages' own (`PAGE_FEATURES`, 0 when the quiz is cited),
       answerable and unanswerable lines weighing the same: the quiz's decision as it is fitted without pages;
    2. the documents' lines fit the pages' own features on top of that (the first step's score as an offset),
       uncentred, so that they add nothing when the quiz is cited.
    """
    pages = np.array([bool(q.page) for q in data.queries], dtype=bool)
    quiz = ~pages if (~pages).any() else pages
    own = [FEATURES.index(name) for name in PAGE_FEATURES]
    rest = [i for i in range(len(FEATURES)) if i not in own]
    mean = np.zeros(len(FEATURES))
    scale = np.ones(len(FEATURES))
    weights = np.zeros(len(FEATURES))
    x = data.x[quiz][:, rest]
    mean[rest] = x.mean(axis=0)
    spread = x.std(axis=0)
    scale[rest] = np.where(spread == 0, 1.0, spread)
    weights[rest], bias = fit_logistic((x - mean[rest]) / scale[rest], data.y[quiz], _balanced(data.y[quiz]),
                                       l2=l2)
    if pages.any() and quiz is not pages:
        on_pages = data.x[pages]
        spread = on_pages[:, own].std(axis=0)
        scale[own] = np.where(spread == 0, 1.0, spread)
        offset = bias + ((on_pages[:, rest] - mean[rest]) / scale[rest]) @ weights[rest]
        weights[own] = _fit_with_offset(on_pages[:, own] / scale[own], data.y[pages], _balanced(data.y[pages]),
                                        offset, l2=page_l2)
    return Model(
        features=FEATURES, mean=tuple(float(v) for v in mean), scale=tuple(float(v) for v in scale),
        weights=tuple(float(v) for v in weights), bias=bias, threshold=threshold, second_look=SECOND_LOOK,
        caveat_threshold=CAVEAT_THRESHOLD,
        about={"fitted_at": datetime.now(UTC).isoformat(timespec="seconds"), "examples": len(data.y),
               "positives": int(data.y.sum()), "pages": int(pages.sum()), "l2": l2, "page_l2": page_l2,
               **(about or {})},
    )


def _fit_with_offset(x: np.ndarray, y: np.ndarray, sample_weight: np.ndarray, offset: np.ndarray, *,
                     l2: float) -> np.ndarray:
    """Weights (no bias) of an L2-regularised logistic regression whose score starts from `offset`: the same
    objective as `fit_logistic` (the weighted log loss plus `l2` / 2 times the squared weights)."""
    from scipy.optimize import minimize  # the build tools only

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = offset + x @ w
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -40.0, 40.0)))
        eps = 1e-12
        value = -np.sum(sample_weight * (y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps))) + l2 / 2 * w @ w
        return float(value), x.T @ (sample_weight * (p - y)) + l2 * w

    found = minimize(loss, np.zeros(x.shape[1]), jac=True, method="L-BFGS-B", options={"gtol": 1e-10})
    return np.asarray(found.x, dtype=np.float64)


def cross_validate(data: Examples, *, folds: int = FOLDS, seed: int = 7, l2: float = L2, page_l2: float = PAGE_L2
                   ) -> dict[str, object]:
    """Each line's probability from a model fitted on the other folds (stratified by kind and language)."""
    probability = np.zeros(len(data.y))
    for fold_ids in _folds(data.queries, folds, seed):
        test = np.zeros(len(data.y), dtype=bool)
        test[fold_ids] = True
        model = fit(Examples([q for q, t in zip(data.queries, test, strict=True) if not t], data.x[~test],
                             data.y[~test]), l2=l2, page_l2=page_l2)
        for i in fold_ids:
            probability[i] = model.probability(dict(zip(FEATURES, data.x[i], strict=True)))
    return report(data, probability)


def report(data: Examples, probability: np.ndarray, model: Model | None = None) -> dict[str, object]:
    """Figures per kind of line, each line answered when its probability reaches the bar the bot holds it to
    (`Model.bar`: lower for a partly covered question)."""
    threshold = model.threshold if model else THRESHOLD
    caveat_threshold = model.caveat_threshold if model else CAVEAT_THRESHOLD
    partial = data.partial if data.partial is not None else np.zeros(len(probability), dtype=bool)
    answered = probability >= np.where(partial, caveat_threshold, threshold)
    groups: dict[str, list[int]] = defaultdict(list)
    for i, q in enumerate(data.queries):
        groups[q.group].append(i)
        groups[f"{q.group}/{q.lang}"].append(i)
    per_group: dict[str, dict[str, float | int]] = {}
    for name, ids in sorted(groups.items()):
        expected = [data.queries[i].answerable for i in ids]
        row: dict[str, float | int] = {"queries": len(ids)}
        if all(expected):
            row["false_abstention"] = round(float(np.mean([not answered[i] for i in ids])), 4)
        elif not any(expected):
            row["abstention"] = round(float(np.mean([not answered[i] for i in ids])), 4)
        per_group[name] = row
    clipped = np.clip(probability, 1e-6, 1 - 1e-6)
    return {
        "log_loss": round(float(-np.mean(data.y * np.log(clipped) + (1 - data.y) * np.log(1 - clipped))), 4),
        "brier": round(float(np.mean((probability - data.y) ** 2)), 4),
        "accuracy": round(float(np.mean(answered == (data.y == 1))), 4),
        "by_kind": per_group,
    }


def _balanced(y: np.ndarray) -> np.ndarray:
    positives = max(1.0, float(y.sum()))
    negatives = max(1.0, float(len(y) - y.sum()))
    return np.where(y == 1, len(y) / (2 * positives), len(y) / (2 * negatives))


def _folds(queries: list[EvalQuery], folds: int, seed: int) -> list[list[int]]:
    strata: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, q in enumerate(queries):
        strata[(q.group, q.lang)].append(i)
    out: list[list[int]] = [[] for _ in range(folds)]
    rng = random.Random(seed)
    for ids in strata.values():
        ids = ids[:]
        rng.shuffle(ids)
        for position, i in enumerate(ids):
            out[position % folds].append(i)
    return [sorted(f) for f in out if f]


def describe(model: Model) -> list[tuple[str, float]]:
    """Features by the weight the model gives them (standardised), strongest first."""
    return sorted(zip(model.features, model.weights, strict=True), key=lambda fw: -math.fabs(fw[1]))


def fit_logistic(x: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None = None,
                 l2: float = 1.0) -> tuple[np.ndarray, float]:
    """Weights and bias of an L2-regularised logistic regression on standardised x (scikit-learn's, whose
    objective is the weighted log loss plus `l2` / 2 times the squared weights; the bias is not shrunk)."""
    from sklearn.linear_model import LogisticRegression  # the build tools only: serving predicts without it

    model = LogisticRegression(C=1.0 / l2, solver="lbfgs", max_iter=1000, tol=1e-10)
    model.fit(x, y, sample_weight=sample_weight)
    return model.coef_[0].astype(np.float64), float(model.intercept_[0])
