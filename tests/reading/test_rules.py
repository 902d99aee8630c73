"""The rules of how people write (`bot/data/rules/<lang>.yaml`) do what their own examples say."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.answering.assistant import Assistant
from bot.answering.definitions import Definitions
from bot.errors import ConfigError
from bot.reading import rules as rules_module
from bot.reading.lexicon import WordFrequency
from bot.reading.markup import read_message
from bot.reading.ordinary import meant, slipped_function_word
from bot.reading.questions import definition_subject, referred_to_later
from bot.reading.references import find_reference
from bot.reading.rules import (
    alias_words,
    cognates,
    continuation,
    defining_verbs,
    name_connectors,
    rules,
    superlative_adjectives,
    without_enclitics,
)
from bot.reading.terms import QueryWord
from bot.text.normalise import fold
from tests.support.extra_knowledge import beside_the_quiz

EXAMPLES = [(lang, example) for lang in ("en", "es") for example in rules(lang).examples["quiz_reference"]]


@pytest.mark.parametrize(("lang", "example"), EXAMPLES, ids=[str(e["text"]) for _, e in EXAMPLES])
def test_each_quiz_reference_example_is_read_as_its_file_says(lang: str, example: dict[str, object]) -> None:
    found = find_reference(str(example["text"]), lang)
    if example.get("none"):
        assert found is None
    elif "number" in example:
        assert found is not None and found.number == example["number"]
    else:
        assert found is not None and found.about == example["about"]


def test_every_language_has_examples_of_references_and_of_non_references() -> None:
    for lang in ("en", "es"):
        examples = rules(lang).examples["quiz_reference"]
        assert any(e.get("none") for e in examples) and any("number" in e for e in examples)
        assert any("about" in e for e in examples)


def test_a_pattern_that_does_not_compile_names_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = (rules_module.RULES_DIR / "en.yaml").read_text(encoding="utf-8").replace(
        "(?P<number>\\d{1,3})\\b'", "(?P<number>\\d{1,3}\\b'", 1)
    (tmp_path / "en.yaml").write_text(broken, encoding="utf-8")
    monkeypatch.setattr(rules_module, "RULES_DIR", tmp_path)
    rules.cache_clear()
    try:
        with pytest.raises(ConfigError, match="en.yaml"):
            rules("en")
    finally:
        rules.cache_clear()


TYPOS = [(lang, example) for lang in ("en", "es") for example in rules(lang).examples["typos"]]


@pytest.mark.parametrize(("lang", "example"), TYPOS, ids=[str(e["text"]) for _, e in TYPOS])
def test_each_typo_example_is_read_as_its_file_says(lang: str, example: dict[str, object]) -> None:
    found = meant(str(example["text"]), [lang], WordFrequency.bundled())
    assert (found[0] if found else None) == example["means"]


def test_a_function_word_with_two_letters_swapped_is_read_as_that_word(fake_assistant: Assistant) -> None:
    # "waht", "teh": slips of the keyboard on the commonest words, never something the knowledge does not cover.
    frequency = WordFrequency.bundled()
    assert [slipped_function_word(w, "en", frequency) for w in ("teh", "waht", "taht")] == ["the", "what", "that"]
    assert slipped_function_word("qeu", "es", frequency) == "que"
    # A word of its own ("form"), a capital ("Teh" may name something), or a word common in the question's
    # language ("adn" is Spanish for DNA) is read as written.
    assert [slipped_function_word(w, lang, frequency) for w, lang in (("form", "en"), ("Teh", "en"), ("adn", "es"))
            ] == [None, None, None]
    read = fake_assistant.retriever.analyze("waht does gradiant checkpointing save? teh memory?", "en")
    assert not {"waht", "teh"} & {w.text for w in read.words}
    assert fake_assistant.answer("waht does gradiant checkpointing actualy save").uncovered == []


def test_an_inflected_or_superlative_or_hyphenated_ordinary_word_names_nothing(fake_assistant: Assistant) -> None:
    for question, lang, word in [("¿cómo hace EKS que se priorice el pod?", "es", "priorice"),
                                 ("la época es larguísima, ¿cada cuánto guardo?", "es", "larguísima"),
                                 ("can I fine-tune a model on trainium?", "en", "fine-tune"),
                                 ("whats the best parallelism for a 200b modle", "en", "modle")]:
        read = {w.text: w for w in fake_assistant.retriever.analyze(question, lang).words}
        assert not read[word].named, word
    kueue = {w.text: w for w in fake_assistant.retriever.analyze("can we use kueue quotas?", "en").words}
    assert kueue["kueue"].named  # a name stays a name


def test_a_prefixed_common_word_the_knowledge_writes_names_nothing(fake_assistant: Assistant) -> None:
    """"recomputed" (the quiz writes it) is rare as a whole and a prefix and a common word in parts: matched like any
    word, never taken for the name of something another page covers. "overfitting", which the quiz never writes,
    is still a thing the knowledge does not cover."""
    def read(question: str, text: str) -> QueryWord:
        return next(w for w in fake_assistant.retriever.analyze(question, "en").words if w.text == text)

    assert not read("which activations are recomputed in the backward pass?", "recomputed").named
    assert read("how do we detect overfitting early?", "overfitting").named


def test_an_ordinary_word_in_capitals_is_said_loud_and_a_short_acronym_stays_one(fake_assistant: Assistant) -> None:
    read = {w.text: w for w in fake_assistant.retriever.analyze(
        "back up everything EXCEPT the scratch volumes; the NEVER-ending ICE errors on p5", "en").words}
    assert not read["EXCEPT"].named
    assert read["ICE"].named  # "ice" is a common word too: three letters in capitals are an acronym


DERIVED = [(lang, example) for lang in ("en", "es") for example in rules(lang).examples["derivations"]]


@pytest.mark.parametrize(("lang", "example"), DERIVED, ids=[str(e["text"]) for _, e in DERIVED])
def test_each_prefix_example_is_a_prefix_and_a_common_word(lang: str, example: dict[str, object]) -> None:
    from bot.reading.terms import NAMED_ZIPF, derived_zipf

    text, after = str(example["text"]), str(example["word"])
    assert any(text == prefix + after for prefix in rules(lang).prefixes)
    assert derived_zipf(text, [lang], WordFrequency.bundled()) >= NAMED_ZIPF


COGNATES = [example for example in rules("es").examples["cognates"]]


@pytest.mark.parametrize("example", COGNATES, ids=[str(e["text"]) for e in COGNATES])
def test_each_cognate_example_is_given_by_its_endings(example: dict[str, object]) -> None:
    assert str(example["cognate"]) in cognates(str(example["text"]), "es")


ENCLITICS = [(lang, example) for lang in ("en", "es") for example in rules(lang).examples.get("enclitics", ())]


@pytest.mark.parametrize(("lang", "example"), ENCLITICS, ids=[str(e["text"]) for _, e in ENCLITICS])
def test_each_enclitic_example_is_a_common_verb_with_pronouns_joined(lang: str, example: dict[str, object]) -> None:
    from bot.reading.terms import NAMED_ZIPF, _word_zipf

    text, verb = str(example["text"]), str(example["word"])
    assert verb in without_enclitics(text, lang)
    frequency = WordFrequency.bundled()
    assert frequency.zipf(text, text, lang) < NAMED_ZIPF <= _word_zipf(text, [lang], frequency)


def test_a_verb_with_pronouns_joined_is_an_everyday_word_not_a_thing_left_uncovered(fake_assistant: Assistant) -> None:
    """"explícamelo fácil" after a question the quiz answers: no "the knowledge base says nothing about
    “explícamelo”", and the word weighs as little as "explica" does. A rare word that is no verb with pronouns
    ("slurmdbd") is still a name."""
    question = "¿Por qué con FP16 hay que usar GradScaler y con bf16 no? Explícamelo fácil, recomiéndame algo"
    words = {w.text: w for w in fake_assistant.retriever.analyze(question, "es").words}
    assert not words["Explícamelo"].named and not words["recomiéndame"].named
    assert words["Explícamelo"].specificity < 0.5
    assert "explícamelo" not in [t.casefold() for t in fake_assistant.answer(question).uncovered]
    assert without_enclitics("slurmdbd", "es") == [] and without_enclitics("explicamelo", "en") == []


RETENTION_PAGE = """# Checkpoint retention

Checkpoints of the shared bucket are kept for 30 days. Their persistence beyond that needs a ticket, and the
redundancy of the bucket is three copies in one region.
"""


def test_a_spanish_word_no_glossary_has_is_read_as_the_english_cognate_a_page_writes(fake_assistant: Assistant,
                                                                                     tmp_path: Path) -> None:
    """Beside a page written only in English, "persistencia" and "redundancia" (in neither glossary) are read as
    "persistence" and "redundancy", which the page writes, and the Spanish question finds it. A cognate the
    knowledge never writes is no reading ("parabilidad"), and over the quiz alone, which has a Spanish edition of
    every question, a Spanish word is read as written."""
    with_page = beside_the_quiz(fake_assistant, tmp_path, {"retention.md": RETENTION_PAGE})
    read = {w.text: w for w in with_page.retriever.analyze(
        "¿qué dice de la persistencia y la redundancia de los checkpoints?", "es").words}
    assert "persistence" in read["persistencia"].readings and "redundancy" in read["redundancia"].readings
    assert any(isinstance(key, tuple) and key[0] == "retention" for key in read["redundancia"].where)
    assert all(not w.readings for w in with_page.retriever.analyze("¿y la parabilidad?", "es").words)
    quiz_alone = {w.text: w for w in fake_assistant.retriever.analyze("¿y la redundancia?", "es").words}
    assert not quiz_alone["redundancia"].readings


READINGS = [(lang, cls, example) for lang in ("en", "es") for cls in ("chat_abbreviations", "slang", "frame_words")
            for example in rules(lang).examples[cls]]


@pytest.mark.parametrize(("lang", "cls", "example"), READINGS, ids=[f"{c}:{e['text']}" for _, c, e in READINGS])
def test_each_word_class_example_is_read_as_its_file_says(
        fake_assistant: Assistant, lang: str, cls: str, example: dict[str, object]) -> None:
    analysis = fake_assistant.retriever.analyze(str(example["text"]), lang)
    if "reads" in example:
        assert str(example["reads"]) in analysis.search_text
    else:
        assert str(example["not_content"]) not in [w.text for w in analysis.words]
        assert str(example["not_content"]) in analysis.tokens


OWNED = [(lang, example) for lang in ("en", "es") for example in rules(lang).examples["possessives"]]


@pytest.mark.parametrize(("lang", "example"), OWNED, ids=[f"{lang}:{e['text']}" for lang, e in OWNED])
def test_each_possessive_example_reads_the_persons_own_thing_as_its_file_says(
        fake_assistant: Assistant, lang: str, example: dict[str, object]) -> None:
    """A name one or two words after "our", "mi" is the person's own (`Analysis.owned`); asked about, it is not."""
    analysis = fake_assistant.retriever.analyze(str(example["text"]), lang)
    owned = {analysis.tokens[p] for p in analysis.owned}
    if example["owned"] is None:
        assert not owned
    else:
        assert str(example["owned"]) in owned


EMAIL = [(lang, example) for lang in ("en", "es") for example in rules(lang).examples["email"]]


@pytest.mark.parametrize(("lang", "example"), EMAIL, ids=[f"{lang}:{str(e['text'])[:40]}" for lang, e in EMAIL])
def test_each_email_example_keeps_what_is_asked_and_leaves_the_envelope_out(lang: str, example: dict[str, object]
                                                                           ) -> None:
    """A message forwarded or pasted from e-mail is read without its headers, signature, device line and notice;
    its subject, its greeting and what it asks stay, and a line that only looks like a header or a closing stays."""
    read = read_message(str(example["text"]))
    assert str(example["kept"]) in read
    if example["dropped"]:
        assert str(example["dropped"]) not in read and str(example["dropped"]) not in read.shown
    else:
        assert " ".join(str(example["text"]).split()) == read.shown.replace("```", "")  # pasted output fenced


ASIDES = [(lang, cls, example) for lang in ("en", "es") for cls in ("coordination", "back_references", "counterparts")
          for example in rules(lang).examples[cls]]


@pytest.mark.parametrize(("lang", "cls", "example"), ASIDES, ids=[f"{c}:{e['text']}" for _, c, e in ASIDES])
def test_each_coordination_back_reference_and_counterpart_example_is_read_as_its_file_says(
        fake_assistant: Assistant, lang: str, cls: str, example: dict[str, object]) -> None:
    analysis = fake_assistant.retriever.analyze(str(example["text"]), lang)
    tokens = [fold(t) for t in analysis.tokens]
    if "aside" in example:  # read without it, and named as what the knowledge does not cover
        assert str(example["aside"]) in analysis.set_aside
    else:
        named = analysis.tokens.index(str(example["kept"]))
        assert referred_to_later(tokens, analysis.segments, analysis.segments[named])


SHAPES = [(lang, cls, example) for lang in ("en", "es") for cls in ("follow_ups", "comparison")
          for example in rules(lang).examples[cls]]


@pytest.mark.parametrize(("lang", "cls", "example"), SHAPES, ids=[f"{c}:{e['text']}" for _, c, e in SHAPES])
def test_each_follow_up_and_comparison_example_is_read_as_its_file_says(
        fake_assistant: Assistant, lang: str, cls: str, example: dict[str, object]) -> None:
    text = str(example["text"])
    if cls == "comparison":
        assert fake_assistant.retriever.analyze(text, lang).comparison is example["comparison"]
    else:
        assert bool(continuation().match(text)) is example["continuation"]


SUPERLATIVES = [example for lang in ("en", "es") for example in rules(lang).examples.get("superlatives", ())]


@pytest.mark.parametrize("example", SUPERLATIVES, ids=[str(e["text"]) for e in SUPERLATIVES])
def test_each_superlative_example_comes_from_its_adjective(example: dict[str, object]) -> None:
    assert example["adjective"] in superlative_adjectives(str(example["text"]))
    assert superlative_adjectives("cuidado") == []


SEGMENTS = [(lang, example) for lang in ("en", "es") for example in rules(lang).examples["segments"]]


@pytest.mark.parametrize(("lang", "example"), SEGMENTS, ids=[str(e["text"]) for _, e in SEGMENTS])
def test_each_segments_example_has_the_parts_its_file_says(fake_assistant: Assistant, lang: str,
                                                          example: dict[str, object]) -> None:
    assert len(set(fake_assistant.retriever.analyze(str(example["text"]), lang).segments)) == example["parts"]


DEFINITIONS = [(lang, example) for lang in ("en", "es") for example in rules(lang).examples["definitions"]]


@pytest.mark.parametrize(("lang", "example"), DEFINITIONS, ids=[str(e["text"]) for _, e in DEFINITIONS])
def test_each_definition_example_is_read_as_its_file_says(lang: str, example: dict[str, object]) -> None:
    subject = definition_subject(str(example["text"]))
    expected = example["subject"]
    assert subject == (frozenset(str(expected).split()) if expected else frozenset())


DEFINING = [(lang, example) for lang in ("en", "es") for example in rules(lang).examples["defining_sentences"]]


@pytest.mark.parametrize(("lang", "example"), DEFINING, ids=[str(e["text"]) for _, e in DEFINING])
def test_each_defining_sentence_example_explains_what_its_file_says(fake_assistant: Assistant, lang: str,
                                                                   example: dict[str, object]) -> None:
    about = fake_assistant.retriever.analyze(str(example["about"]), lang).words
    definitions = Definitions([("key", "sentence", str(example["text"]))], [])
    assert definitions.defines("key", about) is example["defines"]


def test_the_words_of_defining_sentences_and_names_are_read_from_both_files() -> None:
    assert {"splits", "divide", "es"} <= defining_verbs() and {"also", "tambien"} <= alias_words()
    assert name_connectors() == {"for"}
