"""Text handling: accents, identifiers, stems, stop words, language, Slack markup."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.errors import ConfigError
from bot.reading.markup import clean_question, context_spans, read_message, reading_text
from bot.text import words
from bot.text.identifiers import is_code_name, is_setting_name
from bot.text.language import detect_language, edition_vocabulary
from bot.text.normalise import fold, strip_accents
from bot.text.sentences import sentences
from bot.text.tokens import ALL_STOPWORDS, STOPWORDS, tokens
from bot.text.words import index_words


def test_fold_removes_accents_and_case() -> None:
    assert fold("Paralelismo de Canalización") == "paralelismo de canalizacion"
    assert fold("ÁÉÍÓÚ Ñandú ü") == "aeiou nandu u"
    assert strip_accents("configuración") == "configuracion"


def test_accents_do_not_change_tokens() -> None:
    assert tokens("canalización", "es") == tokens("canalizacion", "es") == tokens("CANALIZACIÓN", "es")
    assert tokens("¿Qué etapa?", "es") == tokens("que etapa", "es")


@pytest.mark.parametrize(
    ("identifier", "parts"),
    [
        ("FI_PROVIDER", "fi provider"),
        ("slotsPerWorker", "slots per worker"),
        ("minAvailable", "min available"),
        ("topology.kubernetes.io/zone", "topology kubernetes zone"),
        ("optimum-neuron", "optimum neuron"),
    ],
)
def test_identifiers_are_kept_whole_plus_parts(identifier: str, parts: str) -> None:
    for lang in ("en", "es"):
        terms = tokens(f"set {identifier} now", lang)
        assert fold(identifier) in terms, terms
        for part in tokens(parts, lang):
            assert part in terms, (part, terms)


def test_identifier_matches_its_spelling_in_a_sentence() -> None:
    question = tokens("What does FI_PROVIDER=efa do?", "en")
    knowledge = tokens("export FI_PROVIDER=efa", "en")
    assert "fi_provider" in question and "fi_provider" in knowledge
    assert "efa" in question and "efa" in knowledge


@pytest.mark.parametrize(("name", "setting"), [
    ("FI_PROVIDER", True), ("save_on_each_node", True), ("slotsPerWorker", True), ("vpc.amazonaws.com/efa", True),
    ("minAvailable", True),
    # names of a kind, a product or a part: prose writes them too, and a mention does not say what they are
    ("StatefulSet", False), ("TensorFlow", False), ("H100", False), ("p5", False), ("multi-node", False),
])
def test_a_setting_name_is_one_only_code_and_configuration_write(name: str, setting: bool) -> None:
    assert is_setting_name(name) is setting
    assert is_code_name(name) is (name != "multi-node")


@pytest.mark.parametrize(
    ("lang", "one", "other"),
    [
        ("es", "entrenamiento", "entrenamientos"),
        ("es", "capa", "capas"),
        ("es", "particiones", "partición"),
        ("en", "layer", "layers"),
        ("en", "checkpointing", "checkpoints"),
        ("en", "partitions", "partition"),
    ],
)
def test_stemming_joins_word_forms(lang: str, one: str, other: str) -> None:
    assert tokens(one, lang) == tokens(other, lang)
    assert tokens(one, lang), "a content word must give a term"


def test_spanish_stop_words_are_dropped() -> None:
    assert tokens("¿qué es el de la para una con?", "es") == []
    assert tokens("el paralelismo de datos", "es") == tokens("paralelismo datos", "es")


def test_english_stop_words_are_dropped() -> None:
    assert tokens("what is the of and with for", "en") == []
    assert tokens("what is the tensor parallelism", "en") == tokens("tensor parallelism", "en")


def test_numbers_are_kept() -> None:
    assert "200" in tokens("un modelo de 200 mil millones", "es")
    assert "16" in tokens("BF16 or FP16 with 16 bits", "en")


@pytest.mark.parametrize(
    "question",
    [
        "¿Qué estrategia de paralelismo uso para un modelo de 200 mil millones de parámetros?",
        "¿Cómo configuro el almacenamiento para los datos de entrenamiento?",
        "como configuro el almacenamiento para los datos de entrenamiento",
        "Qué hace el campo minAvailable en un trabajo de Volcano",
    ],
)
def test_detects_clear_spanish(question: str) -> None:
    assert detect_language(question) == "es"


@pytest.mark.parametrize(
    "question",
    [
        "Which parallelism strategy should I use for a 200 billion parameter model?",
        "How do I configure storage for the training data?",
        "what does the minAvailable field do in a Volcano job",
        "Why is BF16 better than FP16 for training?",
    ],
)
def test_detects_clear_english(question: str) -> None:
    assert detect_language(question) == "en"


def test_edition_vocabulary_decides_without_stop_words() -> None:
    vocabulary = edition_vocabulary(
        {"es": ["etapas del optimizador y parámetros"], "en": ["stages of the optimizer and parameters"]}
    )
    assert "etapas" in vocabulary["es"] and "etapas" not in vocabulary["en"]
    assert "stages" in vocabulary["en"]
    assert detect_language("DeepSpeed ZeRO etapas", vocabulary) == "es"
    assert detect_language("DeepSpeed ZeRO stages", vocabulary) == "en"


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("<@U123ABC> ¿qué es EFA?", "¿qué es EFA?"),
        ("<@U123ABC|ana> what is EFA?", "what is EFA?"),
        ("see <#C0123|general> please", "see #general please"),
        ("read <https://example.com/docs|the docs> first", "read `the docs` first"),  # kept, as context
        ("read <https://example.com/docs> first", "read `https://example.com/docs` first"),
        ("*quick one*: what's `x`?", "*quick one*: what's `x`?"),  # kept as typed: a note shows it so
        ("<!channel> what is EFA?", "what is EFA?"),
        ("<!here> what is EFA?", "what is EFA?"),
        ("is a &lt; b &amp;&amp; b &gt; c?", "is a < b && b > c?"),
        ("tabs\tand\nnew lines", "tabs and new lines"),
        ("bell\x07and\x00null\x1bescape", "bell and null escape"),
        ("  spaced   out  ", "spaced out"),
    ],
)
def test_clean_question_removes_slack_markup_and_control_characters(raw: str, clean: str) -> None:
    assert clean_question(raw) == clean


def test_clean_question_keeps_emoji_and_accents() -> None:
    assert clean_question("¿Cómo uso EFA? 🚀 :rocket:") == "¿Cómo uso EFA? 🚀 :rocket:"


@pytest.mark.parametrize(("typed", "read"), [
    (":wave: :+1::skin-tone-2: what is EFA? :rocket:", "what is EFA?"),
    ("*quick one*: what's `save_total_limit` _for_ ~here~?", "quick one: what's `save_total_limit` for here?"),
    ("a `*x*` in code, 10:14:07, a*b, save_total_limit", "a `*x*` in code, 10:14:07, a*b, save_total_limit"),
])
def test_a_question_is_read_without_emoji_codes_and_formatting_marks(typed: str, read: str) -> None:
    assert reading_text(clean_question(typed)) == read


def test_code_and_link_labels_are_marked_as_context() -> None:
    text = clean_question("```\n0/8 nodes are available: 8 Insufficient vpc.amazonaws.com/efa\n``` how? <https://x.io|"
                          "the AMP docs> and `FI_PROVIDER`, `a b c`")
    assert [text[a:b] for a, b in context_spans(text)] == [
        "``` 0/8 nodes are available: 8 Insufficient vpc.amazonaws.com/efa ```", "`the AMP docs`", "`a b c`"]


def test_clean_question_of_markup_only_is_empty() -> None:
    assert clean_question("<@U123ABC> <!channel>\x00") == ""


def test_sentences_split_prose_and_list_items() -> None:
    text = "Primera frase. Segunda frase con FP16.\n- Un elemento\n- Otro elemento: con detalle"
    expected = ["Primera frase.", "Segunda frase con FP16.", "Un elemento", "Otro elemento: con detalle"]
    assert sentences(text) == expected


def test_sentences_do_not_split_inside_identifiers() -> None:
    assert sentences("Usa topology.kubernetes.io/zone con un solo valor.") == [
        "Usa topology.kubernetes.io/zone con un solo valor."
    ]


def test_the_index_word_lists_are_read_whole_from_their_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Stop words, finite verbs and Spanish endings are data; no word is read as YAML's "no" or "on"."""
    lists = index_words()
    assert len(STOPWORDS["es"]) + len(STOPWORDS["en"]) == 212 and {"no", "on", "or"} <= STOPWORDS["en"]
    assert {"qué", "cómo", "no", "y"} <= STOPWORDS["es"] and len(ALL_STOPWORDS) == 209
    assert {"está", "must", "requieren"} <= lists.finite_verbs and len(lists.finite_verbs) == 50
    assert "arlo" in lists.ar_endings and "iendo" in lists.er_ir_endings and lists.stem_changes["e"] == ("i", "ie")
    broken = tmp_path / "index-words.yaml"
    broken.write_text("stop_words: {es: [a, b]}\n", encoding="utf-8")
    monkeypatch.setattr(words, "WORDS_FILE", broken)
    index_words.cache_clear()
    try:
        with pytest.raises(ConfigError, match="index-words.yaml"):
            index_words()
    finally:
        index_words.cache_clear()


def test_a_message_is_read_once_and_shown_as_cleaned() -> None:
    """`read_message` is the one cleaning: reading a message already read gives it back, and what is shown of
    it (a gap, a log line) is the clean question with its formatting marks."""
    raw = "<@U123> how do I set *gradient accumulation* :thinking_face: &gt; 4?"
    message = read_message(raw)
    assert message == reading_text(clean_question(raw)) == "how do I set gradient accumulation > 4?"
    assert message.shown == clean_question(raw) == "how do I set *gradient accumulation* :thinking_face: > 4?"
    assert read_message(message) is message and clean_question(message) == message.shown
    assert read_message("  <@U123>  ") == ""
