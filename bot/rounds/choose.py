"""Which questions a team round asks: some the team has not seen yet, some it often gets wrong, never one of
the channel's previous round."""

from __future__ import annotations

import random
from collections.abc import Mapping

from bot.storage import Score

Key = tuple[str, int]  # (doc_id, question number)


def choose(pool: list[Key], *, count: int, scores: Mapping[Key, Score], asked: set[Key], previous: set[Key],
           rng: random.Random) -> list[Key]:
    """Up to `count` questions of `pool`: half of them (rounded up) the team has never answered nor been
    asked in a round (`asked`), the rest the ones it most often gets wrong (by accuracy, lowest first).
    When one kind runs short the other fills in, then any other question of the pool. None of `previous`
    (the channel's last round) is ever chosen, so fewer than `count` may come back."""
    candidates = [k for k in pool if k not in previous]
    unseen = [k for k in candidates if k not in asked and _answered(scores, k) == 0]
    missed = sorted(
        (k for k in candidates if k in scores and scores[k].answered > scores[k].correct),
        key=lambda k: (scores[k].correct / scores[k].answered, -scores[k].answered, k),
    )
    rest = [k for k in candidates if k not in unseen and k not in missed]
    rng.shuffle(unseen)
    rng.shuffle(rest)
    new = unseen[: (count + 1) // 2]
    picked = new + missed[: count - len(new)]
    for key in unseen + missed + rest:
        if len(picked) >= count:
            break
        if key not in picked:
            picked.append(key)
    rng.shuffle(picked)
    return picked


def _answered(scores: Mapping[Key, Score], key: Key) -> int:
    score = scores.get(key)
    return score.answered if score else 0
