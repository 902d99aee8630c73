"""Names said aloud, as dictation writes them ("n c c l", "te pe ocho", "efe i guion bajo provider"), are read as
the knowledge writes them, and nothing else of a message changes. Words only: no model is loaded."""

from __future__ import annotations

import pytest

from bot.answering.assistant import Assistant
from bot.reading.rules import rules
from bot.reading.spelled import spelled_names

EXAMPLES = [(lang, example) for lang in ("en", "es") for example in rules(lang).examples["spelled"]]


@pytest.mark.parametrize(("lang", "example"), EXAMPLES, ids=[str(e["text"]) for _, e in EXAMPLES])
def test_each_example_is_read_as_its_file_says(fake_assistant: Assistant, lang: str,
                                               example: dict[str, object]) -> None:
    text = str(example["text"])
    read = fake_assistant.retriever.vocabulary.said_aloud(text, lang)
    if example["reads"] is None:
        assert read == text
    else:
        assert str(example["reads"]) in read.split()


def test_every_language_has_examples_that_are_names_and_one_that_is_not() -> None:
    for lang in ("en", "es"):
        examples = rules(lang).examples["spelled"]
        assert any(e["reads"] is None for e in examples) and any(e["reads"] for e in examples)


def test_a_run_is_read_as_a_name_only_when_the_knowledge_writes_it() -> None:
    assert spelled_names("make n c c l use it", "en", {"nccl"}.__contains__) == "make NCCL use it"
    assert spelled_names("make n c c l use it", "en", set().__contains__) == "make n c c l use it"


def test_the_longest_names_are_read_first_and_numbers_stay_words_between_them() -> None:
    names = {"tp", "pp", "dp", "p4d"}.__contains__
    said = "te pe ocho pe pe cuatro de pe dos, y el te pe dentro del nodo"
    assert spelled_names(said, "es", names) == "TP ocho PP cuatro DP dos, y el TP dentro del nodo"
    assert spelled_names("for the p four d pool", "en", names) == "for the P4D pool"
    assert spelled_names("bee eff sixteen or eff pee sixteen", "en", {"bf16", "fp16"}.__contains__) == "BF16 or FP16"


def test_a_character_said_aloud_joins_a_name_and_a_word_may_open_one() -> None:
    assert spelled_names("efe i guion bajo provider igual a efa", "es", {"fi_provider"}.__contains__) == (
        "FI_PROVIDER igual a efa")
    assert spelled_names("is it slurm d b d or not", "en", {"slurmdbd"}.__contains__) == "is it SLURMDBD or not"
    # A word and one letter are no name: "base de datos" stays Spanish even where "based" is a word written.
    assert spelled_names("la base de datos", "es", {"based"}.__contains__) == "la base de datos"


@pytest.mark.parametrize(("text", "lang", "name"), [
    ("ballpark cost of a 100 TiB file system", "en", "a100"),  # an article, then a number
    ("escalar a cien nodos", "es", "a100"),  # a preposition, then a number
    ("why can't I just use it", "en", "ti"),  # the halves of a word as written
    ("on 8 x p4d.24xlarge nodes", "en", "8x"),  # a run opens with a letter
    ("set it to p.d or so", "en", "pd"),  # a dot inside a word
])
def test_a_letter_that_is_a_word_or_part_of_one_is_never_read_into_a_name(text: str, lang: str, name: str) -> None:
    assert spelled_names(text, lang, {name}.__contains__) == text


def test_a_dictated_question_is_searched_and_read_with_the_name(fake_assistant: Assistant) -> None:
    analysis = fake_assistant.retriever.analyze("how do i make n c c l use the fast network", "en")
    assert "NCCL" in analysis.search_text.split()
    assert any(w.text == "NCCL" and w.known for w in analysis.words)


def test_a_name_said_aloud_survives_setting_aside_what_the_knowledge_never_mentions(fake_assistant: Assistant) -> None:
    # What is set aside is cut out of the question as read, where the name said aloud is already one word.
    analysis = fake_assistant.retriever.analyze(
        "For the n c c l tests over EFA, what's the difference between MPIJob and PyTorchJob?", "en")
    assert analysis.set_aside == ("PyTorchJob",)
    assert {"MPIJob", "NCCL", "EFA"} <= set(analysis.search_text.split())
    assert "PyTorchJob" not in analysis.search_text


def test_a_message_of_letters_only_is_read_run_by_run_and_each_name_in_it_once() -> None:
    names = {"nccl"}.__contains__
    assert spelled_names("n " * 999, "en", names) == "n " * 999
    assert spelled_names("n c c l " * 250, "en", names) == "NCCL " * 250
