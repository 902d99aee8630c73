"""Words as written in code and configuration: the one pattern for a word, and what makes it an identifier.

A word is letters and digits, optionally joined by `_ . - /` to more of them: `FI_PROVIDER`,
`vpc.amazonaws.com/efa`, `multi-node`, `slotsPerWorker`, `zero3`. Indexing and querying both read words with
`WORD`; a question may also end a path with a slash (`QUERY_WORD`: "nvidia.com/").
"""

from __future__ import annotations

import re

from bot.text.words import index_words

WORD_PATTERN = r"[A-Za-z0-9]+(?:[_.\-/][A-Za-z0-9]+)*"
WORD = re.compile(WORD_PATTERN)
QUERY_WORD = re.compile(WORD_PATTERN + "/?")
_CAMEL = re.compile(r"[a-z][A-Z]")
_LOWER_CAMEL = re.compile(r"(?<![a-z])[a-z]+[A-Z]")  # from a run's start only: a search stays linear
KEBAB_PARTS = 3  # hyphenated words this many or more, none a function word, are a name (`is_hyphenated_word`)
_PARTS = re.compile(r"[_.\-/]|(?<=[a-z])(?=[A-Z])")


def is_identifier(raw: str) -> bool:
    """snake_case, dotted.names, dashed-names, paths, camelCase, or letters with digits: indexed whole and
    in parts."""
    return bool(_CAMEL.search(raw)) or any(c in raw for c in "_.-/") or (
        any(c.isdigit() for c in raw) and any(c.isalpha() for c in raw)
    )


def is_hyphenated_word(raw: str) -> bool:
    """Letters joined by hyphens only ("multi-node", "fine-tune", "end-to-end"): an identifier for the index,
    which keeps it whole and in parts, but an ordinary compound word when a question is read, never a named thing.
    Not a flag written with its dashes ("--max-restarts"), nor a name written without them: KEBAB_PARTS words or
    more, none a function word ("delete-access-point-root-dir", "kube-prometheus-stack"): a name of code."""
    return ("-" in raw and raw.replace("-", "").isalpha() and not _CAMEL.search(raw) and not raw.startswith("-")
            and not _kebab_name(raw))


def _kebab_name(raw: str) -> bool:
    """Whether hyphenated words are a name in code or configuration written in kebab case: KEBAB_PARTS words or
    more and none a function word, which an English compound has ("state-of-the-art", "all-or-nothing")."""
    words = raw.casefold().split("-")
    function_words = index_words().any_stop_words
    return len(words) >= KEBAB_PARTS and not any(word in function_words for word in words)


def is_code_name(raw: str) -> bool:
    """An identifier that is not merely a hyphenated word: a name in code or configuration."""
    return is_identifier(raw) and not is_hyphenated_word(raw)


def is_setting_name(raw: str) -> bool:
    """A name only code and configuration write: `FI_PROVIDER`, `save_on_each_node`, `slotsPerWorker`,
    `vpc.amazonaws.com/efa`. Not the name of a product, a kind or a part (`StatefulSet`, `TensorFlow`, `H100`),
    which prose also writes, and which a passage can mention without saying what it is."""
    return is_code_name(raw) and (any(c in raw for c in "_./") or bool(_LOWER_CAMEL.match(raw)))


def parts(raw: str) -> list[str]:
    """An identifier's parts: `slotsPerWorker` -> slots, Per, Worker; `FI_PROVIDER` -> FI, PROVIDER."""
    return [p for p in _PARTS.split(raw) if p]
