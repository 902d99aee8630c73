"""Write bot/data/word-frequencies.json.gz: how common each word is in general Spanish and English.

The answerability check weighs a question's words by how specific they are: "IRSA" or "DCGM" name a
thing the knowledge may not cover, "how" or "set up" do not. The table comes from the `wordfreq`
package's lists (Zipf scale: 7 for "the", 3 for a word seen once per million words) and keeps words
at Zipf 2.5 or more, with the Snowball stem of each word so inflected forms ("recrearlo") find their
lemma's frequency. Run it again only to refresh the table (it needs the dev extra):

    .venv/bin/python scripts/make_word_frequencies.py
"""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import Stemmer
from wordfreq import get_frequency_dict

OUT = Path(__file__).resolve().parent.parent / "bot" / "data" / "word-frequencies.json.gz"
MIN_ZIPF = 2.5
STEMMERS = {"es": "spanish", "en": "english"}


def main() -> None:
    table: dict[str, object] = {
        "about": "Zipf frequency x 10 of folded words (w) and of Snowball stems (s); from wordfreq's 'large' lists",
        "min_zipf": MIN_ZIPF,
    }
    for lang, name in STEMMERS.items():
        stem = Stemmer.Stemmer(name).stemWord
        stems: dict[str, float] = {}
        words: dict[str, float] = {}
        for word, freq in get_frequency_dict(lang, "large").items():
            zipf = round(math.log10(freq) + 9, 1)
            if zipf < MIN_ZIPF:
                break  # the list is sorted by frequency
            if not word.isalpha():
                continue
            folded = fold(word)
            words[folded] = max(words.get(folded, 0.0), zipf)
            s = stem(folded)
            stems[s] = max(stems.get(s, 0.0), zipf)
        table[lang] = {
            "w": {w: round(z * 10) for w, z in words.items()},
            "s": {s: round(z * 10) for s, z in stems.items()},
        }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_bytes(gzip.compress(json.dumps(table, ensure_ascii=False, separators=(",", ":")).encode(), mtime=0))
    print(f"{OUT}: {OUT.stat().st_size} bytes")


def fold(word: str) -> str:
    import unicodedata

    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


if __name__ == "__main__":
    main()
