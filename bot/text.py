"""Text handling shared by indexing and querying: folding, tokens, stems, language, sentences."""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

import Stemmer

from bot.lang import Lang

STOPWORDS = {
    "es": frozenset(
        """a al algo algun alguna algunas alguno algunos ante antes asi aun bajo bien cada como con contra cual
        cuales cuando cuanto cuanta cuantos cuantas de del desde donde dos el ella ellas ellos en entre era es esa esas
        ese eso esos esta estan estas este esto estos fue ha hace hacen hacer hay la las le les lo los mas me mi
        mis mucho muy nada ni no nos o otra otro otros para pero poco por porque que quien se sea ser si sin
        sobre son su sus tambien tengo tan te tiene tienen todo todos tu tus un una unas uno unos usar uso y ya yo
        puedo debo necesito quiero hago mejor qué cómo cuál""".split()
    ),
    "en": frozenset(
        """a about after all also an and any are as at be been before being between both but by can could
        did do does doing done for from had has have how i if in into is it its just me more most my no not of
        on or our should so some such than that the their them then there these they this those to too under
        up us use used using very was we were what when where which while who why will with would you your
        get need want""".split()
    ),
}
_STEMMERS = {"es": "spanish", "en": "english"}
# Letters only, or identifiers: snake_case, dotted.names, dashed-names, paths, camelCase, with digits.
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:[_.\-/][A-Za-z0-9]+)*")
_CAMEL = re.compile(r"[a-z][A-Z]")
_SPLIT = re.compile(r"[_.\-/]|(?<=[a-z])(?=[A-Z])")


def strip_accents(text: str) -> str:
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def fold(text: str) -> str:
    """Lower case without accents: 'Paralelismo de canalización' -> 'paralelismo de canalizacion'."""
    return strip_accents(text).lower()


_local = threading.local()


def _stemmer(lang: str) -> Stemmer.Stemmer:
    """A Snowball stemmer for `lang`, one per thread (stemmer objects are not thread-safe)."""
    stemmers: dict[str, Stemmer.Stemmer] = _local.__dict__.setdefault("stemmers", {})
    if lang not in stemmers:
        stemmers[lang] = Stemmer.Stemmer(_STEMMERS[lang])
    return stemmers[lang]


def _is_identifier(raw: str) -> bool:
    return bool(_CAMEL.search(raw)) or any(c in raw for c in "_.-/") or (
        any(c.isdigit() for c in raw) and any(c.isalpha() for c in raw)
    )


def tokens(text: str, lang: str) -> list[str]:
    """Index terms of `text`: stemmed words without stop words, identifiers whole plus their parts.

    `FI_PROVIDER` gives `fi_provider`, `fi`, `provider`; `slotsPerWorker` gives `slotsperworker`,
    `slots`, `per`, `worker` (parts stemmed like words).
    """
    return [term for word in word_terms(text, lang) for term in word]


ALL_STOPWORDS = STOPWORDS["es"] | STOPWORDS["en"]


@lru_cache(maxsize=8192)
def word_terms(text: str, lang: str, stop: frozenset[str] | None = None) -> tuple[tuple[str, ...], ...]:
    """The terms of each word of `text`, word by word; the first term is the word's main term.

    Cached: one question is tokenized several times while it is answered (BM25, coverage, excerpt).
    """
    stop = STOPWORDS[lang] if stop is None else stop
    stem = _stemmer(lang).stemWord
    out: list[tuple[str, ...]] = []
    for match in _TOKEN.finditer(strip_accents(text)):
        raw = match.group(0)
        if _is_identifier(raw):
            terms = [fold(raw)]
            parts = [p for p in _SPLIT.split(raw) if p]
            if len(parts) > 1:
                for part in parts:
                    folded = fold(part)
                    if folded not in stop and not folded.isdigit():
                        terms.append(stem(folded))
            out.append(tuple(terms))
            continue
        word = fold(raw)
        if word in stop or (len(word) == 1 and not word.isdigit()):
            continue
        out.append((word if word.isdigit() else stem(word),))
    return tuple(out)


_ES_MARKS = re.compile(r"[¿¡ñáéíóúü]", re.IGNORECASE)


def detect_language(text: str, vocabulary: dict[str, frozenset[str]] | None = None) -> Lang:
    """'es' or 'en' for a short question, from stop words, Spanish marks and words of each edition.

    `vocabulary` maps a language to the words found only in that edition of the knowledge, so
    'DeepSpeed ZeRO etapas' is Spanish even with no stop word in it.
    """
    words = [fold(w) for w in re.findall(r"[^\W\d_]+", text)]
    score = {"es": 0.0, "en": 0.0}
    for word in words:
        for lang in score:
            if word in STOPWORDS[lang]:
                score[lang] += 1.0
            elif vocabulary and word in vocabulary.get(lang, ()):
                score[lang] += 0.75
    score["es"] += 1.5 * len(_ES_MARKS.findall(text))
    if score["es"] > score["en"]:
        return "es"
    return "en"


def edition_vocabulary(texts_by_lang: dict[str, Iterable[str]]) -> dict[str, frozenset[str]]:
    """Folded words that appear in one language's texts and not in the other's."""
    words = {
        lang: {fold(w) for text in texts for w in re.findall(r"[^\W\d_]{3,}", text)}
        for lang, texts in texts_by_lang.items()
    }
    return {
        lang: frozenset(own - set().union(*(w for other, w in words.items() if other != lang)))
        for lang, own in words.items()
    }


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-ZÁÉÍÓÚÑ¿¡])")


def sentences(text: str) -> list[str]:
    """Split prose into sentences and list items; keeps each item whole."""
    out: list[str] = []
    for line in text.split("\n"):
        line = re.sub(r"^\s*(?:[-*•]|\d+\.)\s+", "", line).strip()
        if not line:
            continue
        out.extend(part.strip() for part in _SENTENCE_END.split(line) if part.strip())
    return out


_SLACK_USER = re.compile(r"<@[UW][A-Z0-9]+(?:\|[^>]*)?>")
_SLACK_CHANNEL = re.compile(r"<#[CG][A-Z0-9]+(?:\|([^>]*))?>")
_SLACK_LINK = re.compile(r"<((?:https?|mailto):[^|>]+)(?:\|([^>]*))?>")
_SLACK_SPECIAL = re.compile(r"<!(?:here|channel|everyone)(?:\|[^>]*)?>|<!subteam\^[A-Z0-9]+(?:\|([^>]*))?>")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def clean_question(text: str) -> str:
    """The question a person typed, without Slack markup, control characters or extra spaces."""
    text = _SLACK_USER.sub(" ", text)
    text = _SLACK_CHANNEL.sub(lambda m: f"#{m.group(1) or ''}", text)
    text = _SLACK_LINK.sub(lambda m: m.group(2) or m.group(1), text)
    text = _SLACK_SPECIAL.sub(" ", text)
    text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    text = _CONTROL.sub(" ", text)
    return " ".join(text.split())
