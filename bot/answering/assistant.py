"""Turn a question into an answer object that every surface (CLI, HTTP, Slack) renders as it is.

The bot answers only from the knowledge: the most relevant explanation sentences of the best question,
its best matching code snippet, and citations. It answers only when the answerability model judges that
the best quiz question answers what was asked (`bot.answering.answerability`); then it also names the
terms of the question that the knowledge never mentions. Otherwise it says it does not know, lists what
it covers and, when a quiz question is really related, offers it as related (not as the answer).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from bot.answering.answerability import Judge, Judgement, Model
from bot.answering.definitions import Definitions
from bot.answering.excerpts import Excerpts
from bot.answering.units import Quote
from bot.config import Settings
from bot.embedding.backends import load_embedder
from bot.embedding.embedder import Embedder
from bot.errors import InputError
from bot.knowledge import KnowledgeBase, Question, load_knowledge
from bot.knowledge.citations import Citation, Part  # Citation also importable from here, as before
from bot.lang import Lang, check_lang
from bot.messages import say
from bot.reading.markup import ReadMessage, own_text, read_message
from bot.reading.questions import question_parts
from bot.reading.references import find_reference
from bot.reading.thresholds import THRESHOLDS
from bot.retrieval.artifacts import LoadedIndex, load_index, make_index
from bot.retrieval.hybrid import HybridRetriever, QuestionKey, Retrieval, ScoredQuestion, Tuning
from bot.retrieval.shared_vectors import SharedVectors
from bot.text.language import detect_language
from bot.text.normalise import fold, shortened

RELATED_RATIO = 0.85  # other questions cited when their score is this close to the best one's
MAX_CITATIONS = 3
SECTION_RATIO = 0.8  # sections of the best one's document this close to it are weighed by what they would quote
VALUE_WEIGHED = 8  # of the ranked sections, the first this many are looked at for a value asked for
SECTIONS_WEIGHED = 4  # of the ranked sections, the first this many are looked at
SECTION_UNIT_WEIGHT = 0.2  # what a section's best unit would quote counts this much beside its ranking
PART_SHOWN = 120  # characters of a question of the message named back as not answered
SUGGEST_PROBABILITY = 0.01  # declined, the best question is still offered as the closest from this chance on
# A declined question is told what the knowledge covers: every topic while they fit a line a person reads (the
# quiz has 13); past that, the topics closest to the question, this many, and how many others there are. A team's
# docs bring a topic a page: a decline listing every one would bury the sections offered after it.
TOPICS_LISTED = 16
TOPICS_CLOSEST = 8

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Answer:
    answered: bool
    language: Lang
    text: str
    citations: list[Citation]
    answer_line: str | None = None  # e.g. "B) FI_PROVIDER=efa", the cited quiz question's answer
    topics: list[str] = field(default_factory=list)  # what the knowledge covers (the closest), named when not answered
    confidence: float = 0.0  # estimated probability that the cited quiz question answers the question
    uncovered: list[str] = field(default_factory=list)  # terms of the question the knowledge never mentions
    ranked: list[int] = field(default_factory=list)  # question numbers, best first
    caveat: str | None = None  # "The knowledge base says nothing about X. On Y:", before a partial answer
    reference: str | None = None  # "Quiz question 5 (…): the correct answer is B) …", after the snippet
    suggestion: Citation | None = None  # when not answered: the one question that stands out, offered as such

    def to_dict(self) -> dict[str, object]:
        """The public shape: the same for `eksbot ask --json` and `POST /v1/query`."""
        return {
            "answered": self.answered, "language": self.language, "text": self.text,
            "citations": [c.to_dict() for c in self.citations], "confidence": self.confidence,
            "uncovered": list(self.uncovered),
            "suggestion": self.suggestion.to_dict() if self.suggestion else None,
        }


class Assistant:
    """The core: knowledge, index, model and retrieval, loaded once, answering any number of questions."""

    retriever: HybridRetriever
    judge: Judge
    excerpts: Excerpts

    def __init__(self, index: LoadedIndex, embedder: Embedder, *, threshold: float | None = None,
                 max_chars: int = 2000, tuning: Tuning | None = None, model: Model | None = None,
                 previous: Assistant | None = None) -> None:
        """`previous`: an assistant over an earlier version of the knowledge, whose work on what did not
        change is reused."""
        self.index = index
        self.embedder = embedder
        self.max_chars = max_chars
        self.retriever = HybridRetriever(index, tuning, previous=previous.retriever if previous else None)
        self.knowledge: KnowledgeBase = index.knowledge
        self.judge = Judge(self.retriever, Definitions.of_index(
            index, self.retriever.sentences, self.retriever.chunks_of,
            previous=previous.judge.definitions if previous else None), model)
        model = self.judge.model
        self.threshold = model.threshold if threshold is None else threshold
        # A partly covered question needs less (`Model.caveat_threshold`), in the model's proportion to whatever
        # threshold is set.
        self.caveat_threshold = model.caveat_threshold * (self.threshold / model.threshold if model.threshold else 1.0)
        self.vocabulary = self.retriever.edition_words  # each edition's words, kept per section across refreshes
        self.excerpts = Excerpts(index, self.retriever.sentences,
                                 previous=previous.excerpts if previous else None)
        self._topics: dict[str, list[str]] = {}

    @classmethod
    def from_settings(cls, settings: Settings, embedder: Embedder | None = None, model: Model | None = None,
                      *, strict: bool = True, shared: SharedVectors | None = None) -> Assistant:
        """The assistant over the knowledge and index the settings name. `strict=False` (a server starting)
        skips a knowledge file with an error, as a running server does, and logs it with its line: one broken
        file must not keep a replica from starting while the others serve. The build stays strict. An index
        rebuilt here reads the vectors `shared` keeps (the database's) instead of embedding them again."""
        embedder = embedder or load_embedder(settings)
        knowledge = load_knowledge(settings.knowledge_dir, strict=strict)
        for skipped in knowledge.skipped:
            log.warning("skipped %s", skipped)
        index = load_index(knowledge, settings.index_dir, embedder, rebuild=settings.auto_rebuild, shared=shared)
        return cls(index, embedder, threshold=settings.abstain_threshold, max_chars=settings.max_question_chars,
                   model=model)

    def with_index(self, index: LoadedIndex) -> Assistant:
        """An assistant like this one (same embedder, threshold, limits and model) over another index."""
        return Assistant(index, self.embedder, threshold=self.threshold, max_chars=self.max_chars,
                         tuning=self.retriever.tuning, model=self.judge.model, previous=self)

    def with_knowledge(self, knowledge: KnowledgeBase, embedder: Embedder | None = None,
                       shared: SharedVectors | None = None) -> Assistant:
        """An assistant like this one over other knowledge (itself when it is the same): the index is made
        anew, in memory, embedding (with `embedder`, else its own) only the text this index does not hold and
        `shared` does not keep."""
        if knowledge.digest == self.knowledge.digest:
            return self
        return self.with_index(make_index(knowledge, embedder or self.embedder, previous=self.index, shared=shared))

    # -- public API ---------------------------------------------------------------------------------

    def prepare(self, question: str, lang: str | None = None) -> tuple[ReadMessage, Lang]:
        """Validate and read a question (`read_message`: the one cleaning of a message; a message already read is
        read as it is); returns (the message read, language). Raises InputError."""
        asked = check_lang(lang)
        if len(question) > self.max_chars:
            raise InputError(say(asked or "en", "too_long", length=len(question), limit=self.max_chars))
        text = read_message(question)
        if not text:
            raise InputError(say(asked or "en", "empty_question"))
        return text, asked or self.language_of(text)

    def language_of(self, text: str) -> Lang:
        """The language a question is written in, read with the words of each edition of the knowledge."""
        return detect_language(text, self.vocabulary)

    def warm(self) -> None:
        """Build what the first questions would otherwise build on their way (the misspelling index, whose cost
        grows with the knowledge's words). Run off the request path after a start or a change of knowledge; a
        question that comes first waits for the build instead of making its own."""
        self.retriever.vocabulary.prepare()

    def answer(self, question: str, lang: str | None = None) -> Answer:
        return self.answer_many([(question, lang)])[0]

    def answer_many(self, questions: list[tuple[str, str | None]]) -> list[Answer]:
        """Answer several questions with one call to the model (what concurrent requests share)."""
        prepared = [self.prepare(q, lang) for q, lang in questions]
        referred = [self.referred(text, lang) for text, lang in prepared]
        searched = [(text, lang) for (_, text), (_, lang) in zip(referred, prepared, strict=True)]
        # A message with pasted code is also read without it, as the person's own words (`_answer`).
        owns = {i: own for i, (text, _) in enumerate(searched) if (own := own_text(text)) and own != text}
        retrievals = self.retrieve_many([*searched, *((owns[i], searched[i][1]) for i in owns)])
        own_readings = dict(zip(owns, retrievals[len(searched):], strict=True))
        answers = [self._answer(text, retrieval, keys, own_readings.get(i))
                   for i, ((text, _), retrieval, (keys, _)) in enumerate(zip(prepared, retrievals[: len(searched)],
                                                                             referred, strict=True))]
        # A message of several questions that is declined as a whole may still ask one the knowledge answers.
        parted = {i: parts for i, (text, lang) in enumerate(searched)
                  if not answers[i].answered and not referred[i][0] and i not in owns
                  and len(parts := question_parts(text)) > 1}
        if parted:
            readings = self.retrieve_many([(part, searched[i][1]) for i, parts in parted.items() for part in parts])
            for i, parts in parted.items():
                answers[i] = self._by_parts(parts, readings[: len(parts)]) or answers[i]
                readings = readings[len(parts):]
        return answers

    def _by_parts(self, parts: Sequence[str], readings: Sequence[Retrieval]) -> Answer | None:
        """The answer to a message of several questions (`question_parts`) declined as a whole, from its first
        question, when the model finds it answered alone with at least its `second_look` probability (a part
        answers on stronger evidence than a whole message needs, as a question ranked lower does). It opens with
        the later questions the knowledge does not answer read alone; those answered alone are cited beside it.
        Only the first question answers: a later one leans on what the first names ("¿Cómo activo el HPA del
        collector? ¿Qué minReplicas recomiendan?"), and read alone it is a question about anything. And only
        when some question is not answered alone: that is what pulled the whole under the bar. When each is
        answered alone and the whole is not, what they ask together is what the knowledge does not answer. None
        when the message is not answered so."""
        later = [self._answer(part, reading) for part, reading in zip(parts[1:], readings[1:], strict=True)]
        unanswered = [part for part, answer in zip(parts[1:], later, strict=True) if not answer.answered]
        if not unanswered:
            return None
        # Whether the first is answered alone does not depend on what it names as not answered: read once.
        answer = self._answer(parts[0], readings[0], unanswered=unanswered)
        if not answer.answered or answer.confidence < self.judge.model.second_look:
            return None
        cited = {(c.source, c.question, c.section) for c in answer.citations}
        others = [c for a in later if a.answered for c in a.citations[:1]
                  if (c.source, c.question, c.section) not in cited]
        return replace(answer, citations=[*answer.citations, *others][: max(MAX_CITATIONS, len(answer.citations))])

    def referred(self, text: str, lang: Lang) -> tuple[frozenset[QuestionKey], str]:
        """The quiz questions a message names ("question 7", "the FSx question": `bot.reading.references`)
        and the text to search with: the named question's title in place of its number. No keys when the
        message names none, or a number or subject no quiz question has."""
        reference = find_reference(text, lang)
        if reference is None:
            return frozenset(), text
        quiz = [d for d in self.knowledge.documents if d.kind == "quiz"]
        quiz = [d for d in quiz if d.lang == lang] or quiz
        if reference.number is not None:
            for document in quiz:
                question = document.question(reference.number)
                if question is not None:
                    searched = f"{text[: reference.start]} {question.title} {text[reference.end :]}"
                    return frozenset({(document.doc_id, question.number)}), " ".join(searched.split())
            return frozenset(), text
        quiz_ids = {d.doc_id for d in quiz}
        uses: Counter[QuestionKey] = Counter()
        for word in self.retriever.analyze(reference.about or "", lang).words:
            # What names a question's subject: a specific word, or one few quiz questions use ("la de Volcano":
            # an ordinary word in general language, a name here).
            keys = [key for key in word.where if isinstance(key, tuple) and key[0] in quiz_ids]
            if word.named or word.specificity >= THRESHOLDS.specific or 0 < len(keys) <= THRESHOLDS.pins_down:
                uses.update(keys)
        if not uses:
            return frozenset(), text
        most = max(uses.values())
        return frozenset(key for key, count in uses.items() if count == most), text

    def retrieve_many(self, prepared: Sequence[tuple[str, Lang]]) -> list[Retrieval]:
        """Rank the quiz questions for clean questions (from `prepare`), with one call to the model."""
        if not prepared:
            return []
        analyses = [self.retriever.analyze(text, lang) for text, lang in prepared]
        vectors = self.embedder.encode([a.search_text for a in analyses])
        # A Spanish question is embedded said in English too (`HybridRetriever.retrieve`), when some page is
        # written only in English: in a call of their own, since a batch pads each text to its longest, and the
        # readings are a few words where the question with its readings is many.
        english = [i for i, a in enumerate(analyses) if a.english_text] if self.retriever.reads_in_english else []
        in_english = dict(zip(english, self.embedder.encode([analyses[i].english_text for i in english]),
                              strict=True)) if english else {}
        return [
            self.retriever.retrieve(analysis, vector, lang, in_english.get(i))
            for i, (analysis, vector, (_, lang)) in enumerate(zip(analyses, vectors, prepared, strict=True))
        ]

    def _answer(self, text: str, retrieval: Retrieval, referred: frozenset[QuestionKey] = frozenset(),
                own: Retrieval | None = None, unanswered: Sequence[str] = ()) -> Answer:
        """The answer to a message from its retrieval; `own`: the retrieval of the person's own words, when the
        message also holds pasted code (`bot.reading.markup.own_text`); `unanswered`: the questions of the
        message the knowledge does not answer (`_by_parts`), named first."""
        lang = retrieval.language
        judgement = self.judge.judge(retrieval, own)
        if referred:  # the message names the quiz question: that one answers it, as far as it goes
            retrieval = retrieval.led_by(referred)
            # Naming a question frames the message; it does not make what the question never explains covered:
            # "Question 7 mentions NeuronTrainer: how is Neuron's compile cache set up?" is answered opening
            # with what the knowledge does not cover, as any question partly covered is.
            judgement = replace(judgement, probability=1.0, answerable=True, uncovered=self.judge.uncovered(retrieval))
        elif judgement.probability < max(self.threshold, self.judge.model.second_look):
            # The first question does not answer it, or only just: one ranked just below that the model finds
            # likely to answer (`Judge.second_look`) answers instead. "where do I ask for more GPUs?" ranks the
            # quiz's tensor-parallelism question first by the word "GPUs" (0.37, just answered), and the entry on
            # requesting GPU quota, ranked third, is judged far likelier to answer it.
            second = self.judge.second_look(retrieval, own)
            if second is not None:
                retrieval, judgement = second
        ranked = [s.key[1] for s in retrieval.ranked]
        if not retrieval.ranked or judgement.probability < self.bar(judgement):
            return self._dont_know(lang, retrieval, judgement, ranked)
        quotes: dict[QuestionKey, Quote] = {}  # what each section weighed would quote: computed once
        if not referred:
            retrieval = self._best_section_first(retrieval, quotes)
            stating = self._section_stating(retrieval, quotes)
            if stating is not None:  # what it opens by naming as not covered is read again: the value is stated
                retrieval = stating
                judgement = replace(judgement, uncovered=self.judge.said_uncovered(retrieval))
        best = retrieval.ranked[0]
        related = [] if referred else [
            s for s in retrieval.ranked[1:MAX_CITATIONS]
            if s.score >= RELATED_RATIO * best.score
        ]
        vector = retrieval.vector
        citations = self._quoted_beside(
            [self._citation(lang, vector, s, retrieval, quotes.get(s.key)) for s in [best, *related]], lang)
        question = self.knowledge.question(best.key[0], best.key[1], lang)
        top = citations[0]
        if question.answer:
            reference = say(lang, "quiz_ref", number=question.number, title=question.title,
                            answer=question.answer_line)
        else:
            reference = say(lang, "section_ref", title=question.section or question.title, source=top.source)
        if question.lang != lang:
            reference = f"{reference} {say(lang, 'source_in_other_language')}"
        topic = question.topic or question.title
        caveat = say(lang, "not_covered", terms=_join_terms(judgement.uncovered, lang),
                     topic=topic) if judgement.uncovered else None
        if unanswered:
            named = " ".join(say(lang, "part_not_answered", part=shortened(part, PART_SHOWN)) for part in unanswered)
            caveat = f"{named} {caveat or say(lang, 'on_topic', topic=topic)}"
        quoted = top.excerpt + "".join(f"\n\n{b.section}:\n{b.excerpt}" for b in top.beside)
        body = f"{caveat} {quoted}" if caveat else quoted
        notes = "".join(f"\n\n{say(lang, 'maintainers_note', text=note)}" for note in top.notes)
        return Answer(
            answered=True, language=lang, text=f"{body}\n\n{reference}{notes}", citations=citations,
            answer_line=question.answer_line or None, confidence=judgement.probability,
            uncovered=[*unanswered, *judgement.uncovered], ranked=ranked, caveat=caveat, reference=reference,
        )

    def _best_section_first(self, retrieval: Retrieval, quotes: dict[QuestionKey, Quote]) -> Retrieval:
        """Among the first ranked sections of the best one's page (a parent and its subsections, siblings), the
        one that leads is the one whose ranking, with what its best unit would quote, is best: a rule stated in
        the parent, its details in a child, are told apart by what each would quote as well as by the section's
        text as a whole. `quotes` gets what each section weighed would quote, for its citation."""
        best = retrieval.ranked[0]
        first = self.knowledge.question(best.key[0], best.key[1], retrieval.language)
        if not first.path or best.score <= 0:
            return retrieval
        candidates = [s for s in retrieval.ranked[:SECTIONS_WEIGHED]
                      if s.key[0] == best.key[0] and s.score >= SECTION_RATIO * best.score]
        if len(candidates) < 2:
            return retrieval
        for s in candidates:
            quotes[s.key] = self.excerpts.quote(self.knowledge.question(s.key[0], s.key[1], retrieval.language),
                                                retrieval.vector, retrieval)
        scored = [(s.score / best.score + SECTION_UNIT_WEIGHT * quotes[s.key].score, -i, s)
                  for i, s in enumerate(candidates)]
        chosen = max(scored, key=lambda item: (item[0], item[1]))[2]
        return retrieval if chosen is best else retrieval.led_by(frozenset({chosen.key}))

    def _section_stating(self, retrieval: Retrieval, quotes: dict[QuestionKey, Quote]) -> Retrieval | None:
        """When the question asks for a value (a version, a default, a limit, how to install or upgrade a thing) that
        the section leading does not state of the thing asked about, the best ranked section of its page that does,
        among the first VALUE_WEIGHED within SECTION_RATIO of the page's best: "what's the minimum kubernetes
        version the descheduler chart needs?" is answered by its Prerequisites ("Kubernetes 1.14+"), ranked sixth,
        not by its Introduction. None when the leading one states it, or no other does. `quotes` gets what the one
        chosen quotes."""
        best = retrieval.ranked[0]
        if best.key[0] in self.judge.quiz_ids or not self.judge.unstated(retrieval):
            return None
        top = max(s.score for s in retrieval.ranked if s.key[0] == best.key[0])
        for s in retrieval.ranked[1:VALUE_WEIGHED]:
            if s.key[0] != best.key[0] or s.score < SECTION_RATIO * top:
                continue
            led = retrieval.led_by(frozenset({s.key}))
            if not self.judge.unstated(led):
                if s.key not in quotes:
                    quotes[s.key] = self.excerpts.quote(self.knowledge.question(s.key[0], s.key[1], led.language),
                                                        led.vector, led)
                return led
        return None

    def bar(self, judgement: Judgement) -> float:
        """The confidence an answer needs: lower for a partly covered question (`Judgement.partial`), whose
        answer opens by naming what the knowledge does not cover ("The knowledge base says nothing about
        “JobSet”. On gang scheduling with Volcano: …")."""
        return self.caveat_threshold if judgement.partial else self.threshold

    def topics(self, lang: str) -> list[str]:
        """What the knowledge covers, in `lang` (read once: the knowledge of an assistant never changes)."""
        if lang not in self._topics:
            self._topics[lang] = self.knowledge.topics(lang)
        return list(self._topics[lang])

    def named_topics(self, lang: str, retrieval: Retrieval | None = None) -> tuple[list[str], int]:
        """The topics to name in `lang` and how many others the knowledge has: all of them up to TOPICS_LISTED;
        else the TOPICS_CLOSEST topics of the questions and sections `retrieval` ranks first (without one, the
        first in the knowledge's order: the quiz's), and the count of the rest."""
        topics = self.topics(lang)
        if len(topics) <= TOPICS_LISTED:
            return topics, 0
        named: list[str] = []
        for scored in retrieval.ranked if retrieval is not None else ():
            topic = self.knowledge.question(scored.key[0], scored.key[1], lang).topic
            if topic and topic not in named:
                named.append(topic)
                if len(named) == TOPICS_CLOSEST:
                    break
        named += [t for t in topics if t not in named][: TOPICS_CLOSEST - len(named)]
        return named, len(topics) - len(named)

    def match_topic(self, topic: str, lang: str) -> list[tuple[str, int]]:
        """Questions about `topic` ("slurm", "almacenamiento"): by topic name, else through retrieval."""
        message = read_message(topic)
        wanted = fold(message.shown)
        if not wanted:
            return []
        named = [
            (q.doc_id, q.number) for q in self.knowledge.questions(lang)
            if wanted in fold(q.topic) or fold(q.topic) in wanted
        ]
        if named:
            return named
        retrieval = self.retrieve_many([self.prepare(message, None)])[0]
        judgement = self.judge.judge(retrieval)
        if not retrieval.ranked or not (judgement.probability >= self.threshold or judgement.related):
            return []
        best = retrieval.ranked[0].score
        return [s.key for s in retrieval.ranked if s.score >= RELATED_RATIO * best]

    # -- pieces ------------------------------------------------------------------------------------

    def _dont_know(self, lang: Lang, retrieval: Retrieval, judgement: Judgement, ranked: list[int]) -> Answer:
        topics, others_count = self.named_topics(lang, retrieval)
        related: list[Citation] = []
        if retrieval.ranked and judgement.related:
            # Only quiz questions that share a specific word with the question, offered as related.
            best = retrieval.ranked[0]
            for scored in retrieval.ranked[:MAX_CITATIONS]:
                if scored is not best and not (scored.specific and scored.score >= RELATED_RATIO * best.score):
                    continue
                related.append(self._pointer(scored, lang))
        # The best one is offered as the closest the knowledge has ("did you mean"), never as the answer: when
        # it shares a specific word with the question, or the model gives it some chance of answering.
        suggestion = related[0] if related else (
            self._pointer(retrieval.ranked[0], lang)
            if retrieval.ranked and judgement.probability >= SUGGEST_PROBABILITY else None)
        lines = [say(lang, "dont_know")]
        if suggestion is not None:
            lines.append(say(lang, "suggestion_section", title=suggestion.section) if suggestion.section else
                         say(lang, "suggestion", number=suggestion.question, title=suggestion.title))
        lines.append(say(lang, "covers_closest", topics=", ".join(topics), count=others_count) if others_count else
                     say(lang, "covers", topics=", ".join(topics)))
        others = related[1:] if suggestion is not None else related
        if others:
            lines.append(say(lang, "related", titles="; ".join(
                say(lang, "related_section", title=c.section) if c.section else
                say(lang, "related_item", number=c.question, title=c.title) for c in others)))
        return Answer(
            answered=False, language=lang, text="\n".join(lines), citations=related, topics=topics,
            confidence=judgement.probability, uncovered=list(judgement.uncovered), ranked=ranked,
            suggestion=suggestion,
        )

    def answer_question(self, doc_id: str, number: int, lang: str) -> Answer:
        """The answer of one quiz question or section, as if it had been asked by name (what a person who
        takes a suggestion gets)."""
        try:
            question = self.knowledge.question(doc_id, number, check_lang(lang) or "en")
        except KeyError:
            raise InputError(say(check_lang(lang) or "en", "no_such_question", number=number)) from None
        text, language = self.prepare(question.title, lang)
        retrieval = self.retrieve_many([(text, language)])[0]
        return self._answer(text, retrieval, frozenset({(doc_id, number)}))

    def _pointer(self, scored: ScoredQuestion, lang: str) -> Citation:
        """A citation that names a question without quoting it (related, or suggested)."""
        q = self.knowledge.question(scored.key[0], scored.key[1], lang)
        return Citation(
            question=q.number, title=q.title, excerpt="", snippet=None, source=q.source,
            score=round(scored.score, 4), topic=q.topic, doc_id=q.doc_id, section=q.section,
            url=self._url_of(q), lang=q.lang,
        )

    def _citation(self, lang: str, vector: np.ndarray, scored: ScoredQuestion, retrieval: Retrieval,
                  quote: Quote | None = None) -> Citation:
        """The citation of a question or section; `quote`: what it quotes, when already worked out."""
        doc_id, number = scored.key
        question = self.knowledge.question(doc_id, number, lang)
        quote = quote or self.excerpts.quote(question, vector, retrieval)
        snippet: str | None
        snippet_lang: str | None
        if quote.code is not None:  # a document's section: the code block that goes with the quoted unit
            snippet, snippet_lang = quote.code.text, quote.code.lang
        else:
            chunk = retrieval.best_chunk(self.index.chunks, scored.key, ("code",))
            snippet, snippet_lang = (chunk.text, chunk.code_lang) if chunk else (None, None)
        return Citation(
            question=number, title=question.title, excerpt=quote.excerpt or question.title,
            snippet=snippet, source=question.source,
            score=round(scored.score, 4), snippet_lang=snippet_lang,
            topic=question.topic, doc_id=doc_id, section=question.section, url=self._url_of(question),
            lang=question.lang, notes=tuple(self.knowledge.notes_on(doc_id, number, lang)),
            parts=tuple(Part(text, code.text if code else None, code.lang if code else None)
                        for text, code in quote.parts),
        )

    def _quoted_beside(self, citations: list[Citation], lang: str) -> list[Citation]:
        """The citations with the first section after the top one that is of the same part of its page (a parent
        and its subsection, two subsections of one section: `same_part`) quoted beside it, under its own heading,
        rather than only named: weighed about as close (`RELATED_RATIO`), the one may state the rule and the
        other its details, and the person reads both without opening the page."""
        top = citations[0]
        if not top.section:
            return citations
        path = self.knowledge.question(top.doc_id, top.question, lang).path
        for other in citations[1:]:
            if (other.doc_id == top.doc_id and other.section and other.excerpt and other.excerpt != top.excerpt
                    and same_part(path, self.knowledge.question(other.doc_id, other.question, lang).path)):
                return [replace(top, beside=(other,)), *(c for c in citations[1:] if c is not other)]
        return citations

    def _url_of(self, question: Question) -> str | None:
        document = self.knowledge.editions(question.doc_id).get(question.lang)
        return document.source_url if document else None


def same_part(path: Sequence[str], other: Sequence[str]) -> bool:
    """Whether two sections' heading paths are of the same part of a page: one holds the other (a section and its
    subsection), or both stand right under the same heading (two subsections of one section, or two sections of
    a page under its title)."""
    shorter = min(len(path), len(other))
    return tuple(path[:shorter]) == tuple(other[:shorter]) or (
        len(path) == len(other) and tuple(path[:-1]) == tuple(other[:-1]))


def _join_terms(terms: tuple[str, ...] | list[str], lang: str) -> str:
    quoted = [f"«{t}»" if lang == "es" else f"\u201c{t}\u201d" for t in terms]
    if len(quoted) == 1:
        return quoted[0]
    return ", ".join(quoted[:-1]) + (" ni " if lang == "es" else " or ") + quoted[-1]


