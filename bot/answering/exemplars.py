"""Labelled questions as exemplars: is a question closer to ones the cited quiz question answers, or to ones
nothing in the knowledge answers?

Words and closeness to the knowledge's own text tell a lot, but not how people ask: "Our Volcano job has been
pending for an hour, is that expected?" and "How do we give the research team's Volcano queue a higher
priority?" use the same words and are about as close to question 9's text; only the first is answered by it.
Our labelled questions (`tests/eval/fit.jsonl`, the same ones the answerability model is fitted on) show both
kinds. `margin` is the cosine of the closest labelled question the cited quiz question answers, minus that of
the closest one that retrieval also cites it for and that nothing answers: one of the answerability model's
features. Unanswerable questions cited for *other* quiz questions are left out: a question that only shares
a way of asking ("pa q sirve X, lo activo?") with one about another subject is no evidence either way.

The vectors are the model's embeddings of each question's search text, as retrieval embeds a question;
`eksbot calibrate` writes them beside the model (`bot/data/answerability-exemplars.npz`). While fitting, a
question leaves itself (and any copy of its text) out, so the feature is measured as a new question sees it.
"""

from __future__ import annotations

import hashlib
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path

import numpy as np

from bot.errors import ConfigError
from bot.text.normalise import fold


def exemplars_beside(model_file: Path) -> Path:
    """Where the exemplars of an answerability model live: beside it, `NAME-exemplars.npz`."""
    return model_file.with_name(f"{model_file.stem}-exemplars.npz")


EXEMPLARS_FILE = Path(__file__).resolve().parent.parent / "data" / "answerability-exemplars.npz"  # the bundled


def text_key(text: str) -> int:
    """A question's search text as a 64-bit key (case and accents aside)."""
    return int.from_bytes(hashlib.blake2b(fold(" ".join(text.split())).encode("utf-8"), digest_size=8).digest(),
                          "little", signed=True)


@dataclass(frozen=True, eq=False)
class Exemplars:
    model_id: str
    vectors: np.ndarray  # (n, dimension) float32, each normalised
    answers: np.ndarray  # (n, width) bool: answers[i, q] is True when quiz question q answers exemplar i
    cited: np.ndarray  # (n,) int64: the quiz question retrieval ranks first for exemplar i
    keys: np.ndarray  # (n,) int64: `text_key` of each exemplar

    @classmethod
    def of(cls, model_id: str, vectors: np.ndarray, texts: Sequence[str], expects: Sequence[Sequence[int]],
           cited: Sequence[int]) -> Exemplars:
        """Exemplars of labelled questions; the same text twice counts once (with the numbers of both)."""
        width = max((n for e in expects for n in e), default=0) + 1
        rows: dict[int, int] = {}
        kept: list[int] = []
        answers: list[np.ndarray] = []
        for i, (text, expect) in enumerate(zip(texts, expects, strict=True)):
            key = text_key(text)
            if key not in rows:
                rows[key] = len(kept)
                kept.append(i)
                answers.append(np.zeros(width, dtype=bool))
            for number in expect:
                answers[rows[key]][number] = True
        return cls(model_id, np.asarray(vectors, dtype=np.float32)[kept],
                   np.array(answers, dtype=bool).reshape(len(kept), width),
                   np.array([cited[i] for i in kept], dtype=np.int64),
                   np.array([text_key(texts[i]) for i in kept], dtype=np.int64))

    @classmethod
    def read(cls, path: Path) -> Exemplars:
        try:
            with np.load(path, allow_pickle=False) as data:
                exemplars = cls(str(data["model_id"]), data["vectors"].astype(np.float32), data["answers"].astype(bool),
                                data["cited"].astype(np.int64), data["keys"].astype(np.int64))
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as exc:
            raise ConfigError(f"cannot read the answerability exemplars {path} ({exc})") from exc
        n = len(exemplars.vectors)
        if (exemplars.vectors.ndim != 2 or exemplars.answers.shape[0] != n or exemplars.keys.shape != (n,)
                or exemplars.cited.shape != (n,)):
            raise ConfigError(f"the answerability exemplars {path} are inconsistent: run 'eksbot calibrate "
                              "tests/eval/fit.jsonl'")
        return exemplars

    @classmethod
    @cache
    def bundled(cls) -> Exemplars:
        return cls.read(EXEMPLARS_FILE)

    def write(self, path: Path) -> None:
        with path.open("wb") as out:
            np.savez_compressed(out, model_id=np.array(self.model_id), vectors=self.vectors.astype(np.float16),
                                answers=self.answers, cited=self.cited, keys=self.keys)

    @property
    def dimension(self) -> int:
        return int(self.vectors.shape[1])

    @cached_property
    def _by_number(self) -> dict[int, tuple[_Side, _Side]]:
        return {}

    def _sides(self, number: int) -> tuple[_Side, _Side]:
        """The exemplars quiz question `number` answers, and the unanswerable ones retrieval cites it for, each
        as (vectors, keys) kept together: a question compares with a few dozen exemplars, not all of them."""
        sides = self._by_number.get(number)
        if sides is None:
            answered = (self.answers[:, number] if 0 <= number < self.answers.shape[1]
                        else np.zeros(len(self.keys), dtype=bool))
            unanswerable = ~self.answers.any(axis=1) & (self.cited == number)
            sides = ((np.ascontiguousarray(self.vectors[answered]), self.keys[answered]),
                     (np.ascontiguousarray(self.vectors[unanswerable]), self.keys[unanswerable]))
            self._by_number[number] = sides
        return sides

    def margin(self, vector: np.ndarray, number: int, *, leave_out: int | None = None) -> float:
        """Cosine of the closest exemplar quiz question `number` answers minus that of the closest one nothing
        answers that retrieval cites `number` for (0 for a side with none); `leave_out`: the `text_key` of
        exemplars to skip."""
        query = np.asarray(vector, dtype=np.float32)
        answered, unanswerable = self._sides(number)
        return _closest(answered, query, leave_out) - _closest(unanswerable, query, leave_out)


_Side = tuple[np.ndarray, np.ndarray]  # (vectors, keys) of some exemplars


def _closest(side: _Side, query: np.ndarray, leave_out: int | None) -> float:
    vectors, keys = side
    if not len(keys):
        return 0.0
    cosines = vectors @ query
    if leave_out is not None:
        cosines = np.where(keys == leave_out, -1.0, cosines)
    return float(cosines.max())
