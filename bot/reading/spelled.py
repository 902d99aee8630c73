"""Names said aloud, as dictation writes them: "n c c l", "ene ce ce ele", "bee eff sixteen", "p four d",
"te pe ocho", "efe i guion bajo provider", "slurm d b d".

A run of letters (a single letter, or a letter's name in the question's language: `spelled` in
`bot/data/rules/<lang>.yaml`), numbers (digits or number words) and characters said aloud ("underscore",
"guion bajo"), after at most one other word, is read as the one name the knowledge writes when it writes that
name, and only then: "te" and "de" are Spanish words everywhere else, "a tee shirt" is no name. Within a run the
longest names are read first ("te pe ocho pe pe cuatro" is "TP ocho PP cuatro": "tp8" is no name the knowledge
writes). Nothing else of the message changes.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from bot.reading.rules import SpelledRules, rules
from bot.text.normalise import fold
from bot.text.tokens import ALL_STOPWORDS

_TOKEN = re.compile(r"[^\W_]+")
_SPACE = re.compile(r"\s+")
LONGEST_RUN = 12  # tokens of one name at most ("ene ce ce ele" is 4; "f i underscore provider" 4)


def spelled_names(text: str, lang: str, writes: Callable[[str], bool]) -> str:
    """`text` with each name said aloud written as the knowledge writes it; `writes(name)`: whether the knowledge
    writes `name` (folded: "nccl", "bf16", "fi_provider")."""
    spelled = rules(lang).spelled
    if not spelled.letters:
        return text
    tokens = list(_TOKEN.finditer(text))
    folded = [fold(t.group()) for t in tokens]
    said = [_piece(word, spelled) is not None for word in folded]
    # A name holds two letters or numbers in a row: only there, or at the word before ("slurm d b d"), can one
    # start. Most messages have no such pair, and are given back as they are.
    starts = sorted({s for i in range(len(said) - 1) if said[i] and said[i + 1] for s in (i - 1, i) if s >= 0})
    out: list[str] = []
    done = 0  # text written up to here
    i = 0
    for start in starts:
        if start < i:
            continue  # inside a name already read
        i = start
        found = _name_at(i, tokens, folded, text, spelled, writes)
        if found is None:
            continue
        end, name = found
        out.append(text[done : tokens[i].start()])
        out.append(name.upper())
        done = tokens[end - 1].end()
        i = end
    if not out:
        return text
    out.append(text[done:])
    return "".join(out)


def _name_at(start: int, tokens: list[re.Match[str]], folded: list[str], text: str, spelled: SpelledRules,
             writes: Callable[[str], bool]) -> tuple[int, str] | None:
    """The longest name said aloud from token `start` on: (the token it ends before, the name), or None."""
    if not _opens(text, tokens[start].start()):
        return None  # inside a word as written ("can't": its "t")
    pieces: list[str] = []  # what each token of the run says, "" for the second word of a joiner
    i = start
    while i < len(tokens) and len(pieces) < LONGEST_RUN:
        if i > start and not _SPACE.fullmatch(text[tokens[i - 1].end() : tokens[i].start()]):
            break  # a comma, a dot, a quote: the run ends
        joiner = next(((len(words), char) for words, char in spelled.joiners.items()
                       if tuple(folded[i : i + len(words)]) == words), None)
        if joiner is not None:
            pieces.extend([joiner[1], *[""] * (joiner[0] - 1)])
            i += joiner[0]
            continue
        piece = _piece(folded[i], spelled)
        if piece is None:
            last = next((p for p in reversed(pieces) if p), "")
            if i == start or last in spelled.joiners.values():
                piece = folded[i]  # a word before the letters ("slurm d b d"), or after a joiner ("_ provider")
            else:
                break
        pieces.append(piece)
        i += 1
    named = _piece(folded[start], spelled) is None  # the run starts with a word: "slurm d b d"
    for end in range(len(pieces), 1, -1):
        said = pieces[:end]
        name = "".join(said)
        letters = sum(1 for p in said if len(p) == 1 and p.isalpha())
        # A letter that is a word as well ("a", "i"; "a", "e", "o", "y") is a letter only beside another: "a 100
        # TiB", "escalar a cien nodos" name no GPU.
        clear = sum(1 for w, p in zip(folded[start : start + end], said, strict=True)
                    if len(p) == 1 and p.isalpha() and w not in ALL_STOPWORDS)
        numbers = any(p.isdigit() for p in said)
        # Two letters at least ("t p", "te pe"), or one and a number ("p 5", "pe cinco"), after a word two letters
        # ("slurm d b d"; "base de" is no name); a run opens with a letter, or a word.
        enough = letters >= 2 if named else said[0].isalpha() and (letters >= 2 or (clear >= 1 and numbers))
        if enough and said[-1] not in spelled.joiners.values() and _closes(text, tokens[start + end - 1].end()) \
                and writes(name):
            return start + end, name
    return None


def _opens(text: str, at: int) -> bool:
    """Whether a name may start at `at`: the text's start, a space, or an opening mark before it."""
    return at == 0 or text[at - 1].isspace() or text[at - 1] in "¿¡([{\"“«`"


def _closes(text: str, at: int) -> bool:
    """Whether a name may end at `at`: not inside a word as written ("don't", "p4d.24xlarge", "slurm-d")."""
    after = text[at : at + 2]
    return not after or not (after[0] in "'’-_/" or (after[0] == "." and after[1:].isalnum()))


def _piece(word: str, spelled: SpelledRules) -> str | None:
    """What one token says in a name: a letter, a number, or None for an ordinary word."""
    if word in spelled.letters:
        return spelled.letters[word]
    if word in spelled.numbers:
        return spelled.numbers[word]
    if len(word) == 1 and word.isalpha() or word.isdigit():
        return word
    return None
