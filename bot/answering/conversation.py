"""Read a message together with the earlier turns of its conversation.

A follow-up in a thread is often elliptic: "¿y en Trainium?", "what about stage 2?", "how much memory
does it save?" says little on its own and means something only with what the thread was about. Such a
message is read as itself plus the content words of the earlier turns; a self-contained question is read
alone, and so is one about something the knowledge never mentions ("and the best paella recipe?"): the
bot must not answer that from the thread's subject.

For a message with earlier turns (`Conversation.read`), in this order:

1. it names a thing the knowledge never mentions ("what about Jenkins?"), or most of its words are
   unknown to the knowledge ("how do I cook rice?"): alone;
2. it opens as a continuation ("and …", "what about …", "¿y …", "¿qué tal …"), unless it names its own
   subject and asks its own question about it ("and what Kubernetes resource runs slurmctld?"): a follow-up;
3. it is short and points back ("it", "them", "eso", "activarlo") or adds to what was asked ("also",
   "también"): a follow-up;
4. it is short and has no subject of its own ("how many should I keep?"): a follow-up;
5. otherwise it is self-contained: alone; when the bot declines it alone, it is answered as read with the
   earlier turns instead, if that is answered by a question that uses most of the message's own words
   (`Reading.fallback`, `Conversation.takes_fallback`).

A follow-up that names its own subject without pointing back ("¿y en Trainium?", "and with ZeRO-3?")
takes only what was asked from the earlier turns (their words that name nothing), not their subject; any
other follow-up takes both. `tests/eval/followups.jsonl` measures it (`eksbot eval`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from bot.answering.assistant import Answer, Assistant
from bot.lang import Lang
from bot.reading.followups import adds_to_earlier, is_pointer, opens_as_continuation, own_words, points_back
from bot.reading.markup import ReadMessage, read_message
from bot.reading.postings import KeySet
from bot.reading.terms import Analysis, QueryWord
from bot.reading.thresholds import THRESHOLDS
from bot.storage import TopicStore
from bot.text.normalise import fold

MAX_TURNS = 10  # earlier turns a caller may pass
MAX_TURN_CHARS = 2000  # each, like a question
CONTEXT_TURNS = 3  # the most recent earlier turns that are read
UNKNOWN_NAME_SPECIFICITY = 0.3  # a named thing this specific the knowledge never mentions: another subject
CARRIED_WORDS = 8  # at most this many words of the earlier turns are carried over
TOPIC_CHARS = 300  # the remembered topic of a conversation, at most
MEMORY = timedelta(days=7)  # a conversation's topic is forgotten this long after its last answer
CONTEXT_TIMEOUT = 0.25  # seconds its topic may take to read (the database) before a message is read alone
KNOWN_SHARE = 0.5  # a message most of whose words the knowledge never uses is about something else
SHORT = 3  # content words: a message this short without a subject of its own leans on the earlier turns
SHORT_WITH_POINTER = 5  # a message this short that points back ("it", "eso") leans on them too
OWN_ASPECTS = 2  # a continuation naming its subject and this many other words asks its own question
_NO_KEYS = KeySet()  # no question or section
MIN_WEIGHT = 0.2  # the least a content word weighs when telling how much of a message the knowledge knows

@dataclass(frozen=True)
class Reading:
    """How a message is read: the text the assistant is asked, and whether earlier turns were used."""

    text: str  # what the assistant is asked
    language: Lang  # the message's own language
    followup: bool  # read together with the earlier turns
    carried: tuple[str, ...] = ()  # the words taken from the earlier turns
    reason: str = "self-contained"  # or "no-context", "unknown-subject", "unknown-words" (alone), and
    # "continuation", "points-back", "no-subject" (a follow-up, unless nothing could be carried over)
    # A self-contained message's reading with the earlier turns: what is answered instead when the message
    # alone is declined ("is the recomputation cost worth paying?" after a question on gradient checkpointing).
    fallback: Reading | None = None

    def topic(self, assistant: Assistant) -> str:
        """What the conversation is about after this message: its content words and those carried,
        as a short text to pass as the earlier turn of the next message."""
        words = [w.text for w in assistant.retriever.analyze(self.text, self.language).words]
        return _limited(list(dict.fromkeys(words)), TOPIC_CHARS)


class Conversation:
    """Decides how to read a message given the earlier turns of its conversation."""

    def __init__(self, assistant: Assistant) -> None:
        self.assistant = assistant
        self.vocabulary = assistant.retriever.vocabulary

    def read(self, question: str, earlier: Sequence[str] = (), lang: str | None = None) -> Reading:
        """The reading of `question` after `earlier` (oldest first). Raises InputError for a bad question."""
        text, language = self.assistant.prepare(question, lang)
        turns = [t for t in (read_message(turn) for turn in earlier[-CONTEXT_TURNS:]) if t]
        if not turns:
            return Reading(text, language, followup=False, reason="no-context")
        analysis = self.assistant.retriever.analyze(text, language)
        own = own_words(analysis)
        subjects = [w for w in own if self._is_subject(w)]
        unknown = [w for w in own if w.specificity >= UNKNOWN_NAME_SPECIFICITY and w.named and not self._known(w)]
        if unknown:
            return Reading(text, language, followup=False, reason="unknown-subject")
        pointing = len(own) <= SHORT_WITH_POINTER and points_back(analysis)
        if not pointing and self._mostly_unknown(own):
            return Reading(text, language, followup=False, reason="unknown-words")
        adds = adds_to_earlier(text)
        if opens_as_continuation(text) and not (subjects and len(own) - len(subjects) >= OWN_ASPECTS and not adds):
            reason = "continuation"
        elif pointing or adds:
            reason = "points-back"
        elif not subjects and len(own) <= SHORT:
            reason = "no-subject"
        else:
            return Reading(text, language, followup=False, fallback=self._with_turns(
                text, language, turns, analysis, subjects, reason="declined-alone"))
        # "¿y en Trainium?" asks the same of another subject: only what was asked is carried over.
        followup = self._with_turns(text, language, turns, analysis, subjects, reason=reason,
                                    aspects_only=bool(subjects) and not (pointing or adds))
        return followup or Reading(text, language, followup=False, reason=reason)

    def _with_turns(self, text: str, language: Lang, turns: Sequence[str], analysis: Analysis,
                    subjects: list[QueryWord], *, reason: str, aspects_only: bool = False) -> Reading | None:
        """The message read with the earlier turns' words (`_carried`), or None when none is carried or the
        whole is too long to ask."""
        carried = self._carried(turns, analysis, language, aspects_only=aspects_only,
                                beside=KeySet.union(*(w.where for w in subjects)))
        # Read already (the message, and words of the earlier turns' readings): answered as it is, not cleaned again.
        composed = ReadMessage(f"{text} {' '.join(carried)}")
        if not carried or len(composed) > self.assistant.max_chars:
            return None
        return Reading(composed, language, followup=True, carried=tuple(carried), reason=reason)

    @staticmethod
    def fallback_for(reading: Reading, answer: Answer) -> Reading | None:
        """The reading to answer again when a message read alone was declined: the message with the earlier
        turns (`Reading.fallback`), or None."""
        return reading.fallback if not answer.answered else None

    def settle(self, reading: Reading, answer: Answer, again: Answer) -> tuple[Answer, Reading]:
        """The answer and reading that stand once the message's fallback (`fallback_for`) was answered too:
        the fallback's when `takes_fallback`, else the message's own."""
        if reading.fallback is not None and self.takes_fallback(reading, again):
            return again, reading.fallback
        return answer, reading

    def takes_fallback(self, reading: Reading, answer: Answer) -> bool:
        """Whether an answer to `reading.fallback` (the message with the earlier turns) stands: the cited
        question must use most of the message's own words (weighed by specificity), or the earlier turns
        answered a question the message does not ask ("and how do I rotate my AWS access keys?" after one on
        ZeRO is not about ZeRO)."""
        if not answer.answered or not answer.citations:
            return False
        top = answer.citations[0]
        key = (top.doc_id, top.question)
        words = own_words(self.assistant.retriever.analyze(reading.text, reading.language))
        return bool(words) and _weighed_share(words, lambda w: key in w.where) >= KNOWN_SHARE

    def _known(self, word: QueryWord) -> bool:
        return word.found_in(self.vocabulary.everywhere)

    def _mostly_unknown(self, words: list[QueryWord]) -> bool:
        """Whether most of the message's words (weighed by specificity) are words the knowledge never uses:
        "how do I cook rice?" is about something else, whatever the thread was about."""
        return bool(words) and _weighed_share(words, self._known) < KNOWN_SHARE

    def _is_subject(self, word: QueryWord) -> bool:
        """A specific word of the knowledge that pins one or two quiz questions down ("Trainium",
        "ZeRO-3"), unlike one used all over it ("GPU") or one naming the whole domain ("EKS")."""
        return (word.specificity >= THRESHOLDS.specific and self._known(word)
                and self.vocabulary.questions_using(word) <= THRESHOLDS.names_a_subject
                and not self.vocabulary.names_the_domain(word))

    def _carried(self, turns: Sequence[str], analysis: Analysis, language: str, *, aspects_only: bool,
                 beside: KeySet = _NO_KEYS) -> list[str]:
        """Known content words of the earlier turns (the latest turn first) that the message does not
        repeat, the most specific first; without subjects when `aspects_only`, except a subject that the
        knowledge explains together with the message's own (in a question of `beside`): "which hardware
        supports BF16?" then "and on Trainium?" asks about BF16 on Trainium. A Spanish turn's word carried
        into an English message is carried in English where the glossary knows it ("entorno": "environment"):
        the message is read in English, where the Spanish word is unknown."""
        present = {fold(w.text) for w in analysis.words}
        scored: list[tuple[float, int, str]] = []
        order = 0
        for turn in reversed(turns):
            turn_language = self.assistant.language_of(turn)
            for word in self.assistant.retriever.analyze(turn, turn_language).words:
                order += 1
                folded = fold(word.text)
                if folded in present or is_pointer(word) or not self._known(word):
                    continue
                if aspects_only and (word.named or self._is_subject(word)) and not word.where & beside:
                    continue
                present.add(folded)
                english = turn_language == "es" and language == "en" and not word.named and word.readings
                scored.append((word.specificity, -order, word.readings[0] if english else word.text))
        best = sorted(scored, reverse=True)[:CARRIED_WORDS]
        return [text for _, _, text in sorted(best, key=lambda s: -s[1])]


class ConversationMemory:
    """What each conversation (a Slack thread, by an opaque id) is about: the content words of its last
    answered reading, never the messages themselves, forgotten `MEMORY` after the last answer (never read
    after that; deleted by `prune`, run by the services' hourly retention pass)."""

    def __init__(self, store: TopicStore, *, clock: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self.store = store
        self.clock = clock

    def earlier(self, conversation_id: str) -> list[str]:
        """The remembered topic as the earlier turn of the next message ([] when there is none)."""
        found = self.store.get(conversation_id, since=self.clock() - MEMORY)
        return [found[1]] if found and found[1] else []

    def knows(self, conversation_id: str) -> bool:
        """Whether the bot answered in this conversation lately (a thread of its own)."""
        return self.store.get(conversation_id, since=self.clock() - MEMORY) is not None

    def remember(self, conversation_id: str, reading: Reading, topic: str | None) -> None:
        """What the conversation is about after a message: `topic` after an answer; after "I don't know"
        (None) the earlier topic stays, and the conversation is known to be one the bot answers in."""
        if topic is not None:
            self.store.set(conversation_id, reading.language, topic)
        else:
            self.store.touch(conversation_id, reading.language)

    def prune(self) -> int:
        """Forget the topics of the conversations not answered in within `MEMORY`; returns how many."""
        return self.store.prune(self.clock() - MEMORY)


def _weighed_share(words: Sequence[QueryWord], holds: Callable[[QueryWord], bool]) -> float:
    """The share of `words` (weighed by specificity, at least `MIN_WEIGHT` each) for which `holds` is true."""
    weights = [(max(w.specificity, MIN_WEIGHT), holds(w)) for w in words]
    return sum(weight for weight, held in weights if held) / sum(weight for weight, _ in weights)


def _limited(words: list[str], limit: int) -> str:
    out = ""
    for word in words:
        candidate = f"{out} {word}".strip()
        if len(candidate) > limit:
            break
        out = candidate
    return out
