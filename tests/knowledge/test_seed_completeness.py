"""The Spanish edition keeps every word of the original quiz text, question by question, in order.

Words are runs of letters and digits, case-folded; punctuation and Markdown syntax (| - ``` ** and the
seed's • bullets) do not count. The seed's "Mostrar respuesta" (a page button) and the labels
"Respuesta:" / "Explicación:" are the format's own structure, not content.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.knowledge import Block, Document, Question, load_knowledge
from tests.conftest import KNOWLEDGE, SEED

_WORD = re.compile(r"[^\W_]+")
_QUESTION_HEADING = re.compile(r"^(\d+)\.\s+(.*\S)\s*$")
PAGE_BUTTON = "Mostrar respuesta"
QUESTIONS_HEADING = "Preguntas del cuestionario"
SUMMARY_HEADING = "Resumen"


def words(text: str) -> list[str]:
    return [w.casefold() for w in _WORD.findall(text)]


@dataclass(frozen=True)
class SeedQuestion:
    number: int
    title: str
    options: str
    answer: str
    explanation: str


@dataclass(frozen=True)
class Seed:
    text: str
    title: str
    intro: str
    questions: dict[int, SeedQuestion]
    summary: str


def parse_seed(path: Path) -> Seed:
    lines = path.read_text(encoding="utf-8").split("\n")
    title = lines[0].strip()
    questions_at = lines.index(QUESTIONS_HEADING)
    summary_at = lines.index(SUMMARY_HEADING)
    intro = "\n".join(lines[1:questions_at])

    def next_content(i: int) -> str:
        return next((line for line in lines[i + 1 :] if line.strip()), "")

    # A question heading is "N. ..." followed by its options line "A) ..." (numbered list items are not).
    starts = [
        i for i in range(questions_at, summary_at)
        if _QUESTION_HEADING.match(lines[i]) and next_content(i).startswith("A) ")
    ]
    questions: dict[int, SeedQuestion] = {}
    for start, end in zip(starts, [*starts[1:], summary_at], strict=True):
        heading = _QUESTION_HEADING.match(lines[start])
        assert heading is not None
        body = [line for line in lines[start + 1 : end] if line.strip() != PAGE_BUTTON]
        content = [line for line in body if line.strip()]
        options = content[0]
        answer_i = next(i for i, line in enumerate(body) if line.startswith("Respuesta:"))
        explanation_i = next(i for i, line in enumerate(body) if line.startswith("Explicación:"))
        answer = "\n".join(body[answer_i:explanation_i]).removeprefix("Respuesta:")
        explanation = "\n".join(body[explanation_i:]).removeprefix("Explicación:")
        number = int(heading.group(1))
        questions[number] = SeedQuestion(number, heading.group(2), options, answer, explanation)
    summary = "\n".join(lines[summary_at:])
    return Seed("\n".join(lines), title, intro, questions, summary)


def block_text(block: Block) -> str:
    if block.kind == "table":
        return "\n".join(" ".join(row) for row in block.rows)
    return block.text


def blocks_text(blocks: tuple[Block, ...]) -> str:
    return "\n".join(block_text(b) for b in blocks)


def assert_nothing_lost(seed_text: str, parsed_text: str, where: str) -> None:
    """Every seed word is in the parsed words, in the same order (the parsed text may add words)."""
    seed_words, parsed_words = words(seed_text), words(parsed_text)
    if seed_words == parsed_words:
        return
    matcher = difflib.SequenceMatcher(a=seed_words, b=parsed_words, autojunk=False)
    lost = [
        f"{tag}: seed {' '.join(seed_words[i1:i2])!r} -> parsed {' '.join(parsed_words[j1:j2])!r}"
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag in ("delete", "replace")
    ]
    assert not lost, f"{where}: words of the seed are lost or changed:\n" + "\n".join(lost)


@pytest.fixture(scope="module")
def seed() -> Seed:
    if not SEED.exists():
        pytest.skip(f"the seed text is not available at {SEED}")
    return parse_seed(SEED)


@pytest.fixture(scope="module")
def spanish() -> Document:
    return load_knowledge(KNOWLEDGE).editions("eks-training-quiz")["es"]


def test_seed_parser_finds_every_question(seed: Seed) -> None:
    assert sorted(seed.questions) == list(range(1, 16))
    for q in seed.questions.values():
        assert q.options.startswith("A) ") and " D) " in q.options, q.number
        assert words(q.explanation), q.number


def test_same_questions_and_answers(seed: Seed, spanish: Document) -> None:
    assert [q.number for q in spanish.questions] == sorted(seed.questions)
    for q in spanish.questions:
        letter = seed.questions[q.number].answer.strip()[0]
        assert q.answer == letter, f"question {q.number}"


@pytest.mark.parametrize("number", range(1, 16))
def test_question_keeps_every_word(seed: Seed, spanish: Document, number: int) -> None:
    source = seed.questions[number]
    parsed = spanish.question(number)
    assert parsed is not None, f"question {number} is missing from {spanish.path.name}"
    assert_nothing_lost(source.title, parsed.title, f"question {number} title")
    assert_nothing_lost(source.options, " ".join(f"{o.key}) {o.text}" for o in parsed.options),
                        f"question {number} options")
    assert_nothing_lost(source.answer, parsed.answer_line, f"question {number} answer")
    assert_nothing_lost(source.explanation, blocks_text(parsed.blocks), f"question {number} explanation")
    # And the question as a whole, in order.
    assert_nothing_lost(
        "\n".join([source.title, source.options, source.answer, source.explanation]),
        whole_question(parsed), f"question {number}",
    )


def whole_question(q: Question) -> str:
    options = " ".join(f"{o.key}) {o.text}" for o in q.options)
    return "\n".join([q.title, options, q.answer_line, blocks_text(q.blocks)])


def test_intro_keeps_every_word(seed: Seed, spanish: Document) -> None:
    assert_nothing_lost(seed.title, spanish.title, "title")
    assert_nothing_lost(seed.intro, blocks_text(spanish.intro), "intro")


def test_summary_keeps_every_word(seed: Seed, spanish: Document) -> None:
    sections = dict(spanish.sections)
    assert SUMMARY_HEADING in sections, f"no '## {SUMMARY_HEADING}' section in {spanish.path.name}"
    parsed = f"{SUMMARY_HEADING}\n{blocks_text(sections[SUMMARY_HEADING])}"
    assert_nothing_lost(seed.summary, parsed, "summary")


def test_code_blocks_are_verbatim(seed: Seed, spanish: Document) -> None:
    """Code keeps its exact characters (indentation, comments), not only its words."""
    blocks = [(q.number, b) for q in spanish.questions for b in q.code_blocks]
    assert blocks, "the Spanish edition has no code blocks"
    for number, block in blocks:
            assert block.text in seed.text, f"question {number}: code block on line {block.line} differs"


def test_tables_keep_every_cell(seed: Seed, spanish: Document) -> None:
    lines = seed.text.split("\n")
    seed_rows = {tuple(cell.strip() for cell in line.split("\t")) for line in lines if "\t" in line}
    tables = [(q.number, b) for q in spanish.questions for b in q.blocks if b.kind == "table"]
    seed_tables = sum(1 for i, line in enumerate(lines) if "\t" in line and "\t" not in lines[i - 1])
    assert len(tables) == seed_tables
    for number, table in tables:
        for row in table.rows:
            assert row in seed_rows, f"question {number}: table row {row} is not a row of the seed"


def test_english_code_blocks_identical_to_spanish(spanish: Document) -> None:
    english = load_knowledge(KNOWLEDGE).editions("eks-training-quiz")["en"]
    for q_es in spanish.questions:
        q_en = english.question(q_es.number)
        assert q_en is not None
        assert [b.text for b in q_en.code_blocks] == [b.text for b in q_es.code_blocks], (
            f"question {q_es.number}"
        )
