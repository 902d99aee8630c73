"""Reading `/quiz round …` and `/quiz schedule …`: what was asked, or an InputError saying what is wrong.

    /quiz round [N] [topic] [for 30m]          /quiz round end
    /quiz schedule weekly mon 10:00 [N] [topic] [for 30m] [Europe/Madrid]
    /quiz schedule list | cancel [N] | resume [N]

`en` or `es` anywhere picks the round's language (else the person's, as for `/quiz`); Spanish words work
too (`ronda`, `programar`, `semanal lunes 10:00`, `durante 30m`, `lista`, `cancelar`, `reanudar`, `fin`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import time

from bot.config import zone_named
from bot.errors import InputError
from bot.lang import Lang, is_lang
from bot.reading.markup import clean_question
from bot.rounds.lifecycle import DEFAULT_MINUTES, DEFAULT_QUESTIONS
from bot.rounds.weekly import clock_of, minutes_of, weekday_of
from bot.slack.round_texts import rt

ROUND_WORDS = frozenset({"round", "ronda"})
SCHEDULE_WORDS = frozenset({"schedule", "programar", "programa"})
END_WORDS = frozenset({"end", "stop", "fin", "terminar", "acabar"})
HELP_WORDS = frozenset({"help", "ayuda", "?"})
FOR_WORDS = frozenset({"for", "durante", "por"})
WEEKLY_WORDS = frozenset({"weekly", "semanal", "every", "cada"})
LIST_WORDS = frozenset({"list", "lista", "listar", "ls"})
CANCEL_WORDS = frozenset({"cancel", "cancelar", "delete", "borrar"})
RESUME_WORDS = frozenset({"resume", "reanudar"})


@dataclass(frozen=True)
class StartRound:
    count: int = DEFAULT_QUESTIONS
    topic: str | None = None
    minutes: int = DEFAULT_MINUTES


@dataclass(frozen=True)
class EndRound:
    pass


@dataclass(frozen=True)
class RoundHelp:
    pass


@dataclass(frozen=True)
class AddSchedule:
    weekday: int
    at: time
    count: int = DEFAULT_QUESTIONS
    topic: str | None = None
    minutes: int = DEFAULT_MINUTES
    timezone: str | None = None


@dataclass(frozen=True)
class ListSchedules:
    pass


@dataclass(frozen=True)
class ChangeSchedule:
    action: str  # "cancel" or "resume"
    schedule_id: int | None


Request = StartRound | EndRound | RoundHelp | AddSchedule | ListSchedules | ChangeSchedule


def split_command(text: str) -> tuple[Lang | None, list[str]]:
    """The language named in a `/quiz` command (a word `en` or `es`), if any, and its other words."""
    lang: Lang | None = None
    words: list[str] = []
    for word in clean_question(text).split():
        lowered = word.lower()
        if is_lang(lowered):
            lang = lowered
        else:
            words.append(word)
    return lang, words


def is_round_command(words: list[str]) -> bool:
    return bool(words) and words[0].lower() in ROUND_WORDS | SCHEDULE_WORDS


def parse(words: list[str], lang: Lang) -> Request:
    """What `/quiz round …` or `/quiz schedule …` asks for (the words after `/quiz`, language removed)."""
    head, rest = words[0].lower(), words[1:]
    first = rest[0].lower() if rest else ""
    if first in HELP_WORDS:
        return RoundHelp()
    if head in ROUND_WORDS:
        if first in END_WORDS and len(rest) == 1:
            return EndRound()
        count, topic, minutes, _ = _options(rest, lang, zones=False)
        return StartRound(count, topic, minutes)
    if first in LIST_WORDS or not rest:
        return ListSchedules()
    if first in CANCEL_WORDS | RESUME_WORDS:
        return ChangeSchedule("cancel" if first in CANCEL_WORDS else "resume", _schedule_id(rest[1:], lang))
    if first in WEEKLY_WORDS:
        rest = rest[1:]
    weekday = weekday_of(rest[0]) if rest else None
    at = clock_of(rest[1]) if len(rest) > 1 else None
    if weekday is None or at is None:
        raise InputError(rt(lang, "bad_weekly"))
    count, topic, minutes, zone = _options(rest[2:], lang, zones=True)
    return AddSchedule(weekday, at, count, topic, minutes, zone)


def _options(words: list[str], lang: Lang, *, zones: bool) -> tuple[int, str | None, int, str | None]:
    """[N] [topic words] [for DURATION] [zone]: the count, topic, minutes and time zone."""
    count, minutes, zone = DEFAULT_QUESTIONS, DEFAULT_MINUTES, None
    topic: list[str] = []
    seen_count = False
    i = 0
    while i < len(words):
        word = words[i]
        if word.lower() in FOR_WORDS and i + 1 < len(words):
            parsed = minutes_of(words[i + 1])
            if parsed is None:
                raise InputError(rt(lang, "bad_duration", word=words[i + 1][:40]))
            minutes, i = parsed, i + 2
            continue
        if word.isascii() and word.isdigit() and len(word) <= 6 and not seen_count:
            count, seen_count = int(word), True
        elif zones and ("/" in word or word.upper() == "UTC"):
            try:
                zone_named(word)
            except ValueError:
                raise InputError(rt(lang, "bad_zone", zone=word[:60])) from None
            zone = word
        else:
            topic.append(word)
        i += 1
    return count, " ".join(topic) or None, minutes, zone


def _schedule_id(words: list[str], lang: Lang) -> int | None:
    if not words:
        return None
    word = words[0].lstrip("#")
    if not (word.isascii() and word.isdigit() and len(word) <= 9) or len(words) > 1:
        raise InputError(rt(lang, "bad_id"))
    return int(word)
