"""Write bot/data/word-frequencies.npz: how common each word is in general Spanish and English, and in
Portuguese and Catalan, whose everyday words Spanish speakers mix into their questions ("treinamento", "então";
"doncs", "ostres").

The answerability check weighs a question's words by how specific they are: "IRSA" or "DCGM" name a
thing the knowledge may not cover, "how" or "set up" do not. The table comes from the `wordfreq`
package's lists (Zipf scale: 7 for "the", 3 for a word seen once per million words) and keeps words
at Zipf 2.5 or more, with the Snowball stem of each word so inflected forms ("recrearlo") find their
lemma's frequency. Forms whose stem differs from their lemma's ("priorice", from "priorizar") are added
from the `simplemma` package's lemma dictionaries: each form of a lemma that the list has, with the lemma's
frequency (an inflection is as ordinary as its lemma). Terms are kept as 64-bit keys
(`bot.reading.lexicon.term_key`) in sorted arrays: a few megabytes in memory instead of tens for a
dictionary of strings. Run it again only to refresh the table (it needs the dev extra):

    .venv/bin/python scripts/make_word_frequencies.py
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import Stemmer
from simplemma.strategies.dictionaries import DefaultDictionaryFactory
from wordfreq import get_frequency_dict

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bot.reading.lexicon import NEIGHBOUR_LANGUAGES, term_key  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "bot" / "data" / "word-frequencies.npz"
MIN_ZIPF = 2.5
STEMMERS = {"es": "spanish", "en": "english", "pt": "portuguese", "ca": "catalan"}


def main() -> None:
    arrays: dict[str, Any] = {}  # name -> array, as np.savez_compressed takes them
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
        lemmas: dict[str, float] = {}  # inflected forms -> their lemma's Zipf, where neither table has them
        for form, lemma in DefaultDictionaryFactory().get_dictionary(lang).items():
            folded, base = fold(form), fold(lemma)
            zipf = words.get(base, 0.0)
            if zipf < MIN_ZIPF or not folded.isalpha() or folded in words or stem(folded) in stems:
                continue
            lemmas[folded] = max(lemmas.get(folded, 0.0), zipf)
        tables = (("w", words), ("l", lemmas)) if lang in NEIGHBOUR_LANGUAGES else (
            ("w", words), ("s", stems), ("l", lemmas))  # a neighbouring language's stems are never looked up
        for kind, table in tables:
            keys = np.array([term_key(term) for term in table], dtype=np.uint64)
            zipfs = np.array([round(z * 10) for z in table.values()], dtype=np.uint8)
            order = np.argsort(keys)
            if len(np.unique(keys)) != len(keys):
                raise SystemExit(f"two {lang} terms share a key: use a wider key")
            arrays[f"{lang}_{kind}_keys"], arrays[f"{lang}_{kind}_zipf"] = keys[order], zipfs[order]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, **arrays)
    print(f"{OUT}: {OUT.stat().st_size} bytes, {sum(len(v) for k, v in arrays.items() if k.endswith('_keys'))} terms")


def fold(word: str) -> str:
    import unicodedata

    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


if __name__ == "__main__":
    main()
