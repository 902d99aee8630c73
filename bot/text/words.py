"""Word lists that shape what the index holds, as data: `bot/data/rules/index-words.yaml`.

The stop words (`tokens`, `language`), the finite verbs that make a line ending with a colon a sentence
(`bot.knowledge.chunks`) and the inflections of the glossary's Spanish lemmas (`bot.reading.lexicon`). The
index's pipeline digest hashes the file (`WORDS_FILE`) with the code that reads it, so editing a list makes a
built index stale. A file that cannot be read stops the start with its name.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

from bot.errors import ConfigError

WORDS_FILE = Path(__file__).resolve().parent.parent / "data" / "rules" / "index-words.yaml"


@dataclass(frozen=True)
class IndexWords:
    """The lists of `WORDS_FILE`, each word as written there."""

    stop_words: dict[str, frozenset[str]]  # per language
    any_stop_words: frozenset[str]  # those of every language (a message mixes them)
    finite_verbs: frozenset[str]  # both languages'
    ar_endings: tuple[str, ...]  # of Spanish verbs in -ar
    er_ir_endings: tuple[str, ...]  # of Spanish verbs in -er or -ir
    stem_changes: dict[str, tuple[str, ...]]  # the last e, o or u of a Spanish verb's stem -> what it may become


@cache
def index_words() -> IndexWords:
    """The word lists, read once."""
    try:
        data = yaml.safe_load(WORDS_FILE.read_text(encoding="utf-8"))
        verbs = data["spanish_verbs"]
        stop_words = {str(lang): _words(words) for lang, words in data["stop_words"].items()}
        return IndexWords(
            stop_words=stop_words,
            any_stop_words=frozenset().union(*stop_words.values()),
            finite_verbs=_words(data["finite_verbs"]),
            ar_endings=tuple(str(verbs["ar_endings"]).split()),
            er_ir_endings=tuple(str(verbs["er_ir_endings"]).split()),
            stem_changes={str(vowel): tuple(str(to).split()) for vowel, to in verbs["stem_changes"].items()},
        )
    except (OSError, yaml.YAMLError, KeyError, TypeError, AttributeError) as exc:
        raise ConfigError(f"cannot read the index's word lists in {WORDS_FILE} ({exc})") from exc


def _words(text: object) -> frozenset[str]:
    """A list written as words apart by spaces (so that no word is read as YAML's yes, no or a number)."""
    if not isinstance(text, str):
        raise TypeError(f"a list of words is one text, words apart by spaces, not {type(text).__name__}")
    return frozenset(text.split())
