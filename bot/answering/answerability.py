"""Does the best quiz question answer what was asked? A calibrated decision, and what it leaves out.

Finding the closest quiz question is easy; knowing that it *answers* is not. "What's the difference
between Karpenter and the Cluster Autoscaler?" is close to the Karpenter question, and "What is AWS?"
to any passage that says "AWS". The decision weighs signals that tell those apart:

- **words**: the share of the question's words (weighed by how rare they are in general language,
  `bot.reading.terms`) that the best quiz question uses, overall and in the best-covered sentence; the share
  of the words that say what is asked ("back up", "cost", "upgrade") that the knowledge never uses; named
  things it never mentions;
- **definitions**: a "what is X?" question needs a passage that explains X, not a passing mention
  (`bot.answering.definitions`);
- **closeness in meaning**: the best chunk's and the best sentence's cosine, whether one fact stands out
  from the question's other sentences, and the fused score's margin over the next question;
- **the rest of a comparison**: "MPIJob or PyTorchJob?" is judged as "MPIJob?" once the named thing the
  knowledge never mentions is set aside (`bot.reading.uncovered`), and answered with what it does not cover.
- **how people ask**: whether the question is closer to our labelled questions the cited quiz question
  answers than to those it is cited for and nothing answers (`bot.answering.exemplars`).

A logistic regression over these features gives `probability`: the estimated chance that the cited
quiz question answers the question, fitted on our own labelled questions (`eksbot calibrate`, which
reports cross-validated figures; the features are the ones backward elimination on that cross-validation
kept). The bot answers when it is at least the model's threshold, or its lower `caveat_threshold` for a partly
covered question, whose answer opens by naming what the knowledge does not cover (`Model.bar`).
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from bot.answering.definitions import Definitions
from bot.answering.exemplars import Exemplars
from bot.errors import ConfigError
from bot.reading.lexicon import RARE_ZIPF
from bot.reading.postings import KeySet
from bot.reading.terms import Analysis, QueryWord, Vocabulary
from bot.reading.thresholds import THRESHOLDS
from bot.reading.uncovered import names_a_thing, other_kinds, uncovered_terms, unstated_values, unwritten_names
from bot.retrieval.hybrid import HybridRetriever, Retrieval, knowledge_body

MODEL_FILE = Path(__file__).resolve().parent.parent / "data" / "answerability.json"
log = logging.getLogger(__name__)
SECOND_LOOK_AMONG = 3  # a second look judges the questions ranked second and third
# A question ranked below the first answers from this probability: more likely than not (the even prior), where
# the first needs only the model's threshold. The model is fitted on first-ranked questions; a second look asks
# more of it.
SECOND_LOOK = 0.5
# A partly covered question, one that compares or offers as alternatives a thing the knowledge covers and one
# it never mentions ("JobSet or a Volcano Job so that all the workers start together?"), is answered on the
# covered side with the other named first ("The knowledge base says nothing about JobSet. On gang scheduling
# with Volcano: …"). Such an answer costs half as much when it is wrong as one without that caveat: the reader
# is told first where the knowledge stops. With a fair question declined costing 2 against 1/2, answering is the
# better bet from p * 2 > (1 - p) * 1/2: p > 0.2, where other answers need 1/3 (`bot.evaluation.calibration`).
CAVEAT_THRESHOLD = 0.2
BROAD_COMMON_ZIPF = 6.5  # in the broad coverage features, words weigh from 0 (this common) to 1 (rare)


def _broad_weight(word: QueryWord) -> float:
    if word.zipf <= RARE_ZIPF:
        return 1.0
    return max(0.05, min(1.0, (BROAD_COMMON_ZIPF - word.zipf) / (BROAD_COMMON_ZIPF - RARE_ZIPF)))



FEATURES = (
    # What the best quiz question says of the question's words. A named thing the knowledge never
    # mentions, asked about beside one it explains ("MPIJob or PyTorchJob?"), was set aside before
    # retrieval (`bot.reading.uncovered`): these judge the rest, which an answer can cover.
    "named_unknown",  # named things the quiz never writes, not even as an option (at most 3)
    "broad_found",  # share of all content words (weighed from common to rare) the best question uses
    "literal",  # the question writes a name of code or configuration (`save_on_each_node`, `FI_PROVIDER`,
                # `SlurmNodeSet`) that the best question has: evidence however the question is phrased around it
    "segment_found",  # the best share of one sentence's or question's own words (context aside) that the best
                      # question uses: "what does ZeRO-3 offload? and is FSDP the same?" has a question it answers
    "aspect_unknown",  # the share of the words that name nothing (what is asked: "back up", "cost") the
                       # quiz never writes (a wrong option's words are written: "is BioNeMo for monitoring GPUs?")
    # Closeness in meaning.
    "dense_en",  # cosine of the best question's closest chunk, for an English question
    "dense_es",  # the same for a Spanish one (the embedding model is English: it means less)
    "sentence_dense",  # cosine of the best question's closest explanation sentence (a table's: its closest row)
    "sentence_peak",  # that cosine minus the mean over the question's sentences: one fact, or the topic
    "fused_margin",  # relative margin of the fused score over the next question's
    "exemplar",  # closest labelled question the best one answers, minus closest one it is cited for and
                 # nothing answers (cosines; `bot.answering.exemplars`)
    # The question's shape.
    "undefined",  # "what is X?" and the best question does not explain X
    "spanish",
    # Where the answer would come from: a team's document rather than the quiz (its sections are written
    # otherwise, and no labelled question speaks of them: the same evidence means something else there).
    "document",
    "named_off_page",  # named things other pages write, but not the cited page (at most 3): "Prometheus"
                       # asked of a Kueue page, "trn2" of a page on trn1: a neighbouring feature it does not cover.
                       # What the quiz writes is the domain the questions are asked from, not a neighbour: "our
                       # p4d GPU nodes" asked of a Descheduler page that never writes "GPU"; nor is the person's
                       # own thing ("our on-prem MinIO", "mi PyTorchJob": `Analysis.owned`), which places the question
    "other_language",  # the cited page is written only in the other language than the question's: closeness in
                       # meaning and words found mean less across languages (0 when the quiz is cited: it has both)
    "page_margin",  # `fused_margin` when a page is cited: a page's sections are near one another, the quiz's not
)


# 0 when the quiz is cited: fitted on questions about pages only
PAGE_FEATURES = ("document", "named_off_page", "other_language", "page_margin")


@dataclass(frozen=True)
class Judgement:
    probability: float  # estimated probability that the best quiz question answers the question
    answerable: bool
    uncovered: tuple[str, ...]  # terms of the question the knowledge never mentions
    # The question asks about something beside what `uncovered` names: it compares the two, offers them as
    # alternatives, or asks of the uncovered thing in a question of its own (set aside before retrieval).
    partial: bool
    related: bool  # the best quiz question shares a specific word with the question
    features: dict[str, float] = field(compare=False)


@dataclass(frozen=True)
class Model:
    """A logistic regression over standardised features, with the threshold the bot answers at."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    threshold: float
    about: dict[str, object] = field(default_factory=dict, compare=False)
    second_look: float = SECOND_LOOK  # a question ranked below the first answers from this (`Judge.second_look`)
    caveat_threshold: float = CAVEAT_THRESHOLD  # a partly covered question is answered from this (`bar`)

    @classmethod
    def read(cls, path: Path) -> Model:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            model = cls(
                features=tuple(data["features"]), mean=tuple(data["mean"]), scale=tuple(data["scale"]),
                weights=tuple(data["weights"]), bias=float(data["bias"]), threshold=float(data["threshold"]),
                about=dict(data.get("about", {})), second_look=float(data.get("second_look", SECOND_LOOK)),
                caveat_threshold=float(data.get("caveat_threshold", data["threshold"])),
            )
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"cannot read the answerability model {path} ({exc})") from exc
        if model.features != FEATURES or not (
                len(model.mean) == len(model.scale) == len(model.weights) == len(FEATURES)):
            raise ConfigError(
                f"the answerability model {path} was fitted on other features: run 'make calibrate' (eksbot "
                "calibrate on tests/eval/fit.jsonl, fit-styles.jsonl and fit-authors-*.jsonl)"
            )
        return model

    @classmethod
    @cache
    def bundled(cls) -> Model:
        return cls.read(MODEL_FILE)

    @classmethod
    def untrained(cls) -> Model:
        """Every probability 0.5: what features are computed with before any model is fitted."""
        zeros = tuple(0.0 for _ in FEATURES)
        return cls(FEATURES, zeros, tuple(1.0 for _ in FEATURES), zeros, 0.0, 0.5)

    def write(self, path: Path) -> None:
        data = {
            "features": list(self.features), "mean": [round(v, 6) for v in self.mean],
            "scale": [round(v, 6) for v in self.scale], "weights": [round(v, 6) for v in self.weights],
            "bias": round(self.bias, 6), "threshold": self.threshold, "caveat_threshold": self.caveat_threshold,
            "second_look": self.second_look,
            "about": self.about,
        }
        path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")

    def bar(self, partial: bool) -> float:
        """The probability an answer needs: lower for a partly covered question (`Judgement.partial`), whose
        answer opens by naming what the knowledge does not cover."""
        return self.caveat_threshold if partial else self.threshold

    def probability(self, values: dict[str, float]) -> float:
        z = self.bias + sum(
            w * (values[name] - m) / s
            for name, m, s, w in zip(self.features, self.mean, self.scale, self.weights, strict=True)
        )
        return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))


class Judge:
    """Features of a retrieval, the model's decision, and the terms an answer does not cover."""

    def __init__(self, retriever: HybridRetriever, definitions: Definitions, model: Model | None = None,
                 exemplars: Exemplars | None = None) -> None:
        self.retriever = retriever
        self.vocabulary: Vocabulary = retriever.vocabulary
        self.definitions = definitions
        self.model = model or Model.bundled()
        self.exemplars = exemplars or _bundled_exemplars(retriever.index.manifest.model_id,
                                                         retriever.index.manifest.dimension)
        # The exemplars are labelled with quiz question numbers: they speak of the quiz only (0 elsewhere).
        self.quiz_ids = frozenset(d.doc_id for d in retriever.index.knowledge.documents if d.kind == "quiz")
        languages: dict[str, set[str]] = {}
        for document in retriever.index.knowledge.documents:
            languages.setdefault(document.doc_id, set()).add(document.lang)
        self._languages = {doc_id: frozenset(langs) for doc_id, langs in languages.items()}

    def judge(self, retrieval: Retrieval, own: Retrieval | None = None) -> Judgement:
        """The decision on a retrieval. `own`: the retrieval of the person's own words alone, when the message
        also holds pasted code or output. Pasted text is noise to the model's closeness in meaning (a log's
        hosts and numbers, an English trace under a Spanish question): when both readings rank the same
        question first, the more confident one decides. When they disagree, the whole message does."""
        values = self.features(retrieval)
        probability = self.model.probability(values)
        if own is not None and own.ranked and retrieval.ranked and own.ranked[0].key == retrieval.ranked[0].key:
            own_values = self.features(own)
            own_probability = self.model.probability(own_values)
            if own_probability > probability:
                values, probability = own_values, own_probability
        analysis = retrieval.analysis
        best = retrieval.ranked[0].key if retrieval.ranked else None
        uncovered = self.uncovered(retrieval)
        partial = _partly_covered(analysis, uncovered)
        uncovered = self.said_uncovered(retrieval, uncovered)
        # Related: the best quiz question uses a specific word of the question, and the question does not
        # ask what something is that the quiz only mentions in passing ("What is AWS?").
        related = best is not None and not values["undefined"] and any(
            w.specificity >= THRESHOLDS.specific and best in w.where for w in analysis.words
        )
        return Judgement(
            probability=round(probability, 4), answerable=probability >= self.model.bar(partial),
            uncovered=uncovered, partial=partial, related=related, features=values,
        )

    def said_uncovered(self, retrieval: Retrieval, uncovered: tuple[str, ...] | None = None) -> tuple[str, ...]:
        """What an answer from the retrieval's leading question opens by naming as not covered: what it does not
        cover (`uncovered`, when read already) and, for a page, names the knowledge never writes together."""
        if uncovered is None:
            uncovered = self.uncovered(retrieval)
        best = retrieval.ranked[0].key if retrieval.ranked else None
        if isinstance(best, tuple) and best[0] not in self.quiz_ids:
            # Names of a page's answer only: said in the opening, never weighed (the decision and its bar are as
            # they were).
            uncovered = _merge_terms(uncovered, self.unwritten_names(retrieval.analysis))
        return uncovered

    def unstated(self, retrieval: Retrieval) -> list[str]:
        """A value the question asks for (a version, a default, a limit, how to install or upgrade a thing) that the
        leading question or section does not state of the thing asked about (`unstated_values`): its text, and for
        a default, an install or an upgrade its heading path too (whose numbers, "3.3 Deploy Workloads", are no
        versions)."""
        best = retrieval.ranked[0].key if retrieval.ranked else None
        if not isinstance(best, tuple):
            return []
        chunks, ids = self.retriever.index.chunks, self.retriever.chunks_of(best)
        return unstated_values(retrieval.analysis, (knowledge_body(chunks[i]) for i in ids),
                               (chunks[i].header for i in ids))

    def partial(self, retrieval: Retrieval) -> bool:
        """Whether the question is partly covered (`Judgement.partial`), read without judging it."""
        return _partly_covered(retrieval.analysis, self.uncovered(retrieval))

    def uncovered(self, retrieval: Retrieval) -> tuple[str, ...]:
        """What the question asks that the knowledge never mentions, as the person wrote it: named things set
        aside before retrieval, those it never writes, kinds the best question does not name, and a version it
        asks for that the best question states none of."""
        best = retrieval.ranked[0].key if retrieval.ranked else None
        analysis = retrieval.analysis
        return _merge_terms(analysis.set_aside, [*uncovered_terms(analysis, self.vocabulary), *self._kinds(
            retrieval, best), *self.unstated(retrieval)])

    def second_look(self, retrieval: Retrieval, own: Retrieval | None = None) -> tuple[Retrieval, Judgement] | None:
        """When the first question does not answer, or answers with less than the model's `second_look`
        probability (`Assistant._answer`): the retrieval led by the question ranked just below it
        (up to `SECOND_LOOK_AMONG`) that the model finds most likely to answer, and its judgement, when that
        is at least the model's `second_look` probability; else None.

        Retrieval ranks by closeness; the model judges what answers. "EFA or InfiniBand for multi-node
        bandwidth?" is closest to the Karpenter question (nodes, placement) and is answered by the EFA one.
        A question ranked lower answers only on stronger evidence than the first needs (the model is fitted
        on first-ranked questions; the second look asks more of it)."""
        best: tuple[float, Retrieval] | None = None
        # The own words' reading weighs for the question it ranks first, as in `judge`: read once.
        own_first = own.ranked[0].key if own is not None and own.ranked else None
        own_probability = self.model.probability(self.features(own)) if own is not None and any(
            s.key == own_first for s in retrieval.ranked[1:SECOND_LOOK_AMONG]) else 0.0
        for scored in retrieval.ranked[1:SECOND_LOOK_AMONG]:
            led = retrieval.led_by(frozenset({scored.key}))
            # Probabilities only, as `judge` weighs them; the whole judgement only for the one kept.
            probability = self.model.probability(self.features(led))
            if scored.key == own_first:
                probability = max(probability, own_probability)
            if probability >= self.model.second_look and (best is None or probability > best[0]):
                best = (probability, led)
        if best is None:
            return None
        judgement = self.judge(best[1], own)
        return (best[1], judgement) if judgement.probability >= self.model.second_look else None

    def unwritten_names(self, analysis: Analysis) -> list[str]:
        """Names of ordinary capitalised words the knowledge never writes together (`unwritten_names`), looked for in
        the text and heading path of the sections that write each of their words."""
        chunks, retriever = self.retriever.index.chunks, self.retriever

        def texts(keys: KeySet) -> Iterator[str]:
            for key in keys:
                if isinstance(key, tuple):
                    yield from (chunks[i].indexed_text for i in retriever.chunks_of(key))

        return unwritten_names(analysis, texts)

    def _kinds(self, retrieval: Retrieval, best: object) -> list[str]:
        """Kinds of a thing the best question does not name ("sequence parallelism": `other_kinds`)."""
        if not isinstance(best, tuple):
            return []
        chunks, retriever = self.retriever.index.chunks, self.retriever

        def texts() -> Iterator[str]:  # read only when a word of the question could name a kind
            for i in retriever.chunks_of(best):
                yield chunks[i].text

        return other_kinds(retrieval.analysis, texts())

    def _off_page(self, word: QueryWord, page: str) -> bool:
        """Whether other pages write a word that neither the cited page nor the quiz writes (`named_off_page`)."""
        return not any(isinstance(key, tuple) and (key[0] == page or key[0] in self.quiz_ids) for key in word.where)

    def features(self, retrieval: Retrieval, *, leave_out: int | None = None) -> dict[str, float]:
        """The features of a retrieval; `leave_out` (fitting): the `text_key` of exemplars to skip."""
        analysis = retrieval.analysis
        ranked = retrieval.ranked
        values = dict.fromkeys(FEATURES, 0.0)
        values["spanish"] = float(retrieval.language == "es")
        if not ranked or not analysis.words:
            values["undefined"] = float(bool(analysis.definition_of))
            return values
        top, second = ranked[0], ranked[1] if len(ranked) > 1 else ranked[0]
        words = analysis.words
        here = {w.position: top.key in w.where for w in words}
        known = {w.position: not w.unheard for w in words}
        broad = {w.position: _broad_weight(w) for w in words}
        aspect = {w.position: broad[w.position] for w in words if not w.named}
        values["named_unknown"] = float(min(3, sum(1 for w in words if w.unheard and names_a_thing(w))))
        values["broad_found"] = _share(broad, here)
        by_segment: dict[int, dict[int, float]] = {}
        naming: set[int] = set()
        for w in words:
            if w.position not in analysis.context:
                by_segment.setdefault(analysis.segments[w.position], {})[w.position] = broad[w.position]
                if w.specificity >= THRESHOLDS.specific:
                    naming.add(analysis.segments[w.position])
        # A question that names nothing of its own after the message told what happened ("… What am I missing?",
        # "… bug?", "… ¿Qué falta?") asks about what it told: its few words say nothing of what is asked, and all
        # the message's words do.
        values["segment_found"] = values["broad_found"] if analysis.context and not naming else max(
            (_share(part, here) for part in by_segment.values()), default=values["broad_found"])
        values["literal"] = float(any(w.code_name and here[w.position] and w.specificity >= THRESHOLDS.specific
                                      for w in words))
        values["aspect_unknown"] = _share(aspect, known, negate=True)
        values["dense_es" if retrieval.language == "es" else "dense_en"] = top.dense
        # A section that is a table or a code block has no sentence: it is as close as its closest row or block.
        best_sentence, mean_sentence = self.retriever.sentence_similarity(retrieval, top.key) or (top.dense, top.dense)
        values["sentence_dense"] = best_sentence
        values["sentence_peak"] = best_sentence - mean_sentence
        values["fused_margin"] = (top.score - second.score) / max(abs(top.score), 1e-6)
        values["document"] = float(top.key[0] not in self.quiz_ids)
        page = top.key[0]
        # A word of everyday words ("hardcoding", "preprocesado") is what the person does, not a neighbour's feature.
        values["named_off_page"] = float(min(3, sum(
            1 for w in words if w.known and w.position not in analysis.context and names_a_thing(w)
            and not w.everyday and w.position not in analysis.owned and self._off_page(w, page))))
        if top.key[0] not in self.quiz_ids:
            values["other_language"] = float(retrieval.language not in self._languages.get(page, ()))
            values["page_margin"] = values["fused_margin"]
            # No labelled question speaks of this document: no evidence either way (a margin of 0, as the fit
            # sees it too).
            values["exemplar"] = 0.0
        elif self.exemplars is not None:
            values["exemplar"] = self.exemplars.margin(retrieval.vector, top.key[1], leave_out=leave_out)
        # "what is X?": the best question must explain X, or use X literally, a name of its code or configuration
        # (`slotsPerWorker`, `FI_PROVIDER`), which its snippet shows in use.
        literal = all(w.setting_name and top.key in w.where for w in analysis.definition_of)
        if analysis.definition_of and not literal and not self.definitions.defines(
                top.key, analysis.definition_of, acts=analysis.definition_acts):
            values["undefined"] = 1.0
        return values


def _bundled_exemplars(model_id: str, dimension: int) -> Exemplars | None:
    """The bundled exemplars, when they were embedded by the model the index uses (else the feature is left
    out: 0, and the answerability model should be refitted for that model with `eksbot calibrate`)."""
    try:
        exemplars = Exemplars.bundled()
    except ConfigError as exc:
        log.warning("answering without exemplars: %s", exc)
        return None
    if exemplars.model_id != model_id or exemplars.dimension != dimension:
        log.warning("answering without exemplars: they were embedded by %s, the index uses %s; run 'make "
                    "calibrate' for this model", exemplars.model_id, model_id)
        return None
    return exemplars


def _partly_covered(analysis: Analysis, uncovered: Sequence[str]) -> bool:
    """A question that asks about something beside what it names that the knowledge never mentions: it compares
    the two or offers them as alternatives, or asks of the uncovered thing in a question of its own."""
    return bool(uncovered) and (analysis.comparison or bool(analysis.set_aside))


def _merge_terms(first: Sequence[str], then: Sequence[str]) -> tuple[str, ...]:
    """Terms of both lists, without one that repeats a word of an earlier one."""
    out: list[str] = []
    for term in [*first, *then]:
        words = {w.lower() for w in term.split()}
        if not any(words & {w.lower() for w in kept.split()} for kept in out):
            out.append(term)
    return tuple(out)


def _share(weights: dict[int, float], hit: dict[int, bool], *, negate: bool = False) -> float:
    """The share of `weights` whose words `hit` (or do not, with `negate`)."""
    total = sum(weights.values())
    if not total:
        return 0.0
    return sum(w for position, w in weights.items() if hit[position] != negate) / total
