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
    pieces = [_piece(word, spelled) for word in folded]
    # A name holds two letters or numbers in a row: only there, or at the word before ("slurm d b d"), can one
    # start. Most messages have no such pair, and are given back as they are.
    starts = sorted({s for i in range(len(pieces) - 1) if pieces[i] is not None and pieces[i + 1] is not None
                     for s in (i - 1, i) if s >= 0})
    if not starts:
        return text
    run = _Run(text, tokens, folded, pieces, spelled, writes)
    out: list[str] = []
    done = 0  # text written up to here
    i = 0
    for start in starts:
        if start < i:
            continue  # inside a name already read
        i = start
        found = run.name_at(i)
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


class _Run:
    """What each token of a message says in a name said aloud, read once for every place a name may start."""

    def __init__(self, text: str, tokens: list[re.Match[str]], folded: list[str], pieces: list[str | None],
                 spelled: SpelledRules, writes: Callable[[str], bool]) -> None:
        self.text, self.tokens, self.folded, self.pieces = text, tokens, folded, pieces
        self._writes = writes
        self.joiner_chars = frozenset(spelled.joiners.values())
        # after each token, whether only spaces separate it from the next (a comma, a dot, a quote end a run)
        self.spaced = [bool(_SPACE.fullmatch(text[a.end() : b.start()]))
                       for a, b in zip(tokens, tokens[1:], strict=False)]
        # the joiner said from each token on ("guion bajo"): its words' count and its character
        self.joiners: list[tuple[int, str] | None] = [
            next(((len(words), char) for words, char in spelled.joiners.items()
                  if word == words[0] and tuple(folded[i : i + len(words)]) == words), None)
            for i, word in enumerate(folded)]
        self.written: dict[str, bool] = {}  # names looked up: a run is looked at from each of its places

    def name_at(self, start: int) -> tuple[int, str] | None:
        """The longest name said aloud from token `start` on: (the token it ends before, the name), or None."""
        tokens, folded = self.tokens, self.folded
        if not _opens(self.text, tokens[start].start()):
            return None  # inside a word as written ("can't": its "t")
        said: list[str] = []  # what each token of the run says, "" for the second word of a joiner
        i = start
        while i < len(tokens) and len(said) < LONGEST_RUN:
            if i > start and not self.spaced[i - 1]:
                break  # a comma, a dot, a quote: the run ends
            joiner = self.joiners[i]
            if joiner is not None:
                said.extend([joiner[1], *[""] * (joiner[0] - 1)])
                i += joiner[0]
                continue
            piece = self.pieces[i]
            if piece is None:
                last = next((p for p in reversed(said) if p), "")
                if i == start or last in self.joiner_chars:
                    piece = folded[i]  # a word before the letters ("slurm d b d"), or after a joiner ("_ provider")
                else:
                    break
            said.append(piece)
            i += 1
        named = self.pieces[start] is None  # the run starts with a word: "slurm d b d"
        for end in range(len(said), 1, -1):
            if said[end - 1] in self.joiner_chars:
                continue  # a name never ends in "_"
            name = "".join(said[:end])
            if name not in self.written:
                self.written[name] = self._writes(name)
            if not self.written[name]:
                continue  # most runs name nothing: that is looked up before the letters are counted
            letters = sum(1 for p in said[:end] if len(p) == 1 and p.isalpha())
            # A letter that is a word as well ("a", "i"; "a", "e", "o", "y") is a letter only beside another: "a
            # 100 TiB", "escalar a cien nodos" name no GPU.
            clear = sum(1 for w, p in zip(folded[start : start + end], said[:end], strict=True)
                        if len(p) == 1 and p.isalpha() and w not in ALL_STOPWORDS)
            numbers = any(p.isdigit() for p in said[:end])
            # Two letters at least ("t p", "te pe"), or one and a number ("p 5", "pe cinco"), after a word two
            # letters ("slurm d b d"; "base de" is no name); a run opens with a letter, or a word.
            enough = letters >= 2 if named else said[0].isalpha() and (letters >= 2 or (clear >= 1 and numbers))
            if enough and _closes(self.text, tokens[start + end - 1].end()):
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
