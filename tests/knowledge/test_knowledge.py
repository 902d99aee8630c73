"""Parsing and loading knowledge files: the real editions, every kind of malformed file, new documents."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from bot.answering.assistant import Assistant
from bot.errors import KnowledgeError
from bot.knowledge import KnowledgeBase, load_knowledge, loader
from bot.knowledge.limits import MAX_DOCUMENT_BYTES
from bot.knowledge.parser import parse_file
from bot.retrieval.artifacts import build_index, load_index
from tests.conftest import KNOWLEDGE
from tests.support.fakes import FakeEmbedder

FRONT_ES = "---\nid: mini-quiz\ntitle: Mini cuestionario\nlang: es\nkind: quiz\n---\n"
FRONT_EN = "---\nid: mini-quiz\ntitle: Mini quiz\nlang: en\nkind: quiz\n---\n"


def question_md(
    number: int,
    *,
    answer: str = "B",
    options: str = "ABC",
    explanation: str = "Explicación: la respuesta correcta es la segunda.",
    extra: str = "",
) -> str:
    """One '## N. Title' question in the knowledge format."""
    lines = [f"## {number}. ¿Pregunta número {number}?", "", "Tema: Pruebas", ""]
    lines += [f"- {key}) Opción {key.lower()}" for key in options]
    lines += ["", f"Respuesta: {answer}", "", explanation, ""]
    if extra:
        lines += [extra, ""]
    return "\n".join(lines) + "\n"


def write(directory: Path, name: str, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    """1-based number of the line where `needle` starts a line for the `occurrence`-th time."""
    seen = 0
    for number, line in enumerate(text.split("\n"), start=1):
        if line.startswith(needle):
            seen += 1
            if seen == occurrence:
                return number
    raise AssertionError(f"{needle!r} not found {occurrence} time(s)")


def assert_names(exc: KnowledgeError, path: Path, line: int, *fragments: str) -> None:
    message = str(exc)
    assert exc.path == path, message
    assert exc.line == line, message
    assert f"{path}:{line}" in message, message
    for fragment in fragments:
        assert fragment.lower() in message.lower(), f"{fragment!r} missing from {message!r}"


# -- the real knowledge -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real_kb() -> KnowledgeBase:
    return load_knowledge(KNOWLEDGE)


def test_both_editions_load_with_fifteen_questions(real_kb: KnowledgeBase) -> None:
    editions = real_kb.editions("eks-training-quiz")
    assert sorted(editions) == ["en", "es"]
    for lang, doc in editions.items():
        assert doc.kind == "quiz"
        assert doc.path.name == f"eks-training-quiz.{lang}.md"
        assert [q.number for q in doc.questions] == list(range(1, 16))
        for q in doc.questions:
            assert q.lang == lang
            assert q.title and q.topic
            assert [o.key for o in q.options] == ["A", "B", "C", "D"]
            assert q.answer in {"A", "B", "C", "D"}
            assert q.correct_option is not None
            assert q.blocks, f"question {q.number} ({lang}) has no explanation"
            assert q.source == doc.path.name


def test_editions_agree_on_answers_and_code(real_kb: KnowledgeBase) -> None:
    editions = real_kb.editions("eks-training-quiz")
    es, en = editions["es"], editions["en"]
    for q_es, q_en in zip(es.questions, en.questions, strict=True):
        assert q_es.number == q_en.number
        assert q_es.answer == q_en.answer, f"question {q_es.number}"
        where = f"question {q_es.number}"
        assert [b.text for b in q_es.code_blocks] == [b.text for b in q_en.code_blocks], where
        assert [b.lang for b in q_es.code_blocks] == [b.lang for b in q_en.code_blocks], where
        assert q_es.title != q_en.title, "the English edition must be translated"


def test_question_falls_back_to_another_edition(real_kb: KnowledgeBase) -> None:
    es = real_kb.question("eks-training-quiz", 5, "es")
    en = real_kb.question("eks-training-quiz", 5, "en")
    assert es.lang == "es" and en.lang == "en"
    assert es.answer_line == en.answer_line == "B) FI_PROVIDER=efa"
    with pytest.raises(KeyError):
        real_kb.question("eks-training-quiz", 99, "es")


def test_digest_changes_when_a_file_changes(knowledge_copy: Path) -> None:
    before = load_knowledge(knowledge_copy).digest
    path = knowledge_copy / "eks-training-quiz.en.md"
    path.write_text(path.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert load_knowledge(knowledge_copy).digest != before


# -- malformed files: each error names the file, the line and what is wrong ------------------------------

GOOD = FRONT_ES + "\nIntro.\n\n" + question_md(1) + question_md(2)


def test_a_well_formed_small_file_parses(tmp_path: Path) -> None:
    doc = parse_file(write(tmp_path, "mini.es.md", GOOD))
    assert [q.number for q in doc.questions] == [1, 2]
    assert doc.questions[0].answer_line == "B) Opción b"
    assert doc.questions[0].blocks[0].text == "la respuesta correcta es la segunda."


def test_a_missing_answer_line_is_named_with_an_example_in_the_file_s_language(tmp_path: Path) -> None:
    english = FRONT_EN + "\n## 1. Which one?\n\nTopic: Tests\n\n- A) this\n- B) that\n\nExplanation: none.\n"
    path = write(tmp_path, "mini.en.md", english)
    with pytest.raises(KnowledgeError) as info:
        parse_file(path)
    assert_names(info.value, path, line_of(english, "## 1."), "no answer line", "Answer: B")
    spanish = write(tmp_path, "mini.es.md", FRONT_ES + "\n" + question_md(1).replace("Respuesta: B\n", ""))
    with pytest.raises(KnowledgeError, match="Respuesta: B"):
        parse_file(spanish)


def test_missing_front_matter(tmp_path: Path) -> None:
    path = write(tmp_path, "mini.es.md", question_md(1))
    with pytest.raises(KnowledgeError) as info:
        parse_file(path)
    assert_names(info.value, path, 1, "front matter")


def test_unclosed_front_matter(tmp_path: Path) -> None:
    path = write(tmp_path, "mini.es.md", "---\nid: x\nlang: es\n\n" + question_md(1))
    with pytest.raises(KnowledgeError) as info:
        parse_file(path)
    assert_names(info.value, path, 1, "front matter")


def test_bad_yaml_names_the_offending_line(tmp_path: Path) -> None:
    text = "---\nid: mini-quiz\ntitle: Mini: cuestionario: roto\nlang: es\nkind: quiz\n---\n" + question_md(1)
    path = write(tmp_path, "mini.es.md", text)
    with pytest.raises(KnowledgeError) as info:
        parse_file(path)
    assert_names(info.value, path, 3, "yaml")


@pytest.mark.parametrize("key", ["id", "lang", "title"])
def test_missing_required_key(tmp_path: Path, key: str) -> None:
    lines = [line for line in FRONT_ES.split("\n") if not line.startswith(f"{key}:")]
    path = write(tmp_path, "mini.es.md", "\n".join(lines) + question_md(1))
    with pytest.raises(KnowledgeError) as info:
        parse_file(path)
    assert_names(info.value, path, 1, key)


def test_unknown_lang(tmp_path: Path) -> None:
    path = write(tmp_path, "mini.fr.md", FRONT_ES.replace("lang: es", "lang: fr") + question_md(1))
    with pytest.raises(KnowledgeError) as info:
        parse_file(path)
    assert_names(info.value, path, 1, "lang", "'fr'")


def test_answer_letter_not_among_options(tmp_path: Path) -> None:
    text = FRONT_ES + question_md(1) + question_md(2, answer="E")
    path = write(tmp_path, "mini.es.md", text)
    with pytest.raises(KnowledgeError) as info:
        parse_file(path)
    assert_names(info.value, path, line_of(text, "Respuesta: E"), "'E'", "question 2")


def test_duplicate_question_number(tmp_path: Path) -> None:
    text = FRONT_ES + question_md(1) + question_md(2) + question_md(1)
    path = write(tmp_path, "mini.es.md", text)
    with pytest.raises(KnowledgeError) as info:
        parse_file(path)
    assert_names(info.value, path, line_of(text, "## 1.", occurrence=2), "question 1")


def test_options_out_of_order(tmp_path: Path) -> None:
    text = FRONT_ES + question_md(1, options="ACB", answer="A")
    path = write(tmp_path, "mini.es.md", text)
    with pytest.raises(KnowledgeError) as info:
        parse_file(path)
    assert_names(info.value, path, line_of(text, "- C)"), "C)", "order")


def test_unclosed_code_fence_names_where_it_opens(tmp_path: Path) -> None:
    extra = "```yaml\nkey: value\nother: 1\n"
    text = FRONT_ES + question_md(1, extra=extra) + "Más texto.\n"
    path = write(tmp_path, "mini.es.md", text)
    with pytest.raises(KnowledgeError) as info:
        parse_file(path)
    assert_names(info.value, path, line_of(text, "```yaml"), "never closed")


def test_table_row_with_wrong_cell_count(tmp_path: Path) -> None:
    extra = "| Formato | Bits |\n|---|---|\n| FP32 | 8 |\n| FP16 | 5 | sobra |\n| BF16 | 8 |"
    text = FRONT_ES + question_md(1, extra=extra)
    path = write(tmp_path, "mini.es.md", text)
    with pytest.raises(KnowledgeError) as info:
        parse_file(path)
    assert_names(info.value, path, line_of(text, "| FP16"), "3 cells", "2")


def test_question_without_answer_line(tmp_path: Path) -> None:
    text = FRONT_ES + question_md(1).replace("Respuesta: B\n", "")
    path = write(tmp_path, "mini.es.md", text)
    with pytest.raises(KnowledgeError) as info:
        parse_file(path)
    assert_names(info.value, path, line_of(text, "## 1."), "no answer")


def test_question_with_one_option(tmp_path: Path) -> None:
    text = FRONT_ES + question_md(1, options="A", answer="A")
    path = write(tmp_path, "mini.es.md", text)
    with pytest.raises(KnowledgeError) as info:
        parse_file(path)
    assert_names(info.value, path, line_of(text, "## 1."), "two options")


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "mini.es.md"
    path.write_bytes(FRONT_ES.encode() + "## 1. ¿Qué?\n".encode("latin-1"))
    with pytest.raises(KnowledgeError) as info:
        parse_file(path)
    assert info.value.path == path
    assert "utf-8" in str(info.value).lower()


def test_empty_directory(tmp_path: Path) -> None:
    with pytest.raises(KnowledgeError) as info:
        load_knowledge(tmp_path)
    assert str(tmp_path) in str(info.value)


# -- editions that disagree ---------------------------------------------------------------------------


def load_pair(tmp_path: Path, es_body: str, en_body: str) -> tuple[Path, Path]:
    es = write(tmp_path, "mini.es.md", FRONT_ES + es_body)
    en = write(tmp_path, "mini.en.md", FRONT_EN + en_body.replace("Respuesta:", "Answer:"))
    return es, en


def test_matching_editions_load(tmp_path: Path) -> None:
    load_pair(tmp_path, question_md(1) + question_md(2), question_md(1) + question_md(2))
    kb = load_knowledge(tmp_path)
    assert sorted(kb.editions("mini-quiz")) == ["en", "es"]


def test_editions_disagree_on_numbers(tmp_path: Path) -> None:
    es, en = load_pair(tmp_path, question_md(1) + question_md(2), question_md(1) + question_md(3))
    with pytest.raises(KnowledgeError) as info:
        load_knowledge(tmp_path)
    exc = info.value
    assert exc.path in {es, en}
    assert exc.line is not None and f"{exc.path}:{exc.line}" in str(exc)
    other = ({es, en} - {exc.path}).pop()
    message = str(exc)
    assert other.name in message
    assert "2" in message and "3" in message


def test_editions_disagree_on_answers(tmp_path: Path) -> None:
    es, en = load_pair(tmp_path, question_md(1) + question_md(2), question_md(1) + question_md(2, answer="C"))
    with pytest.raises(KnowledgeError) as info:
        load_knowledge(tmp_path)
    exc = info.value
    assert exc.path in {es, en} and exc.line is not None
    lines = exc.path.read_text(encoding="utf-8").split("\n")
    assert lines[exc.line - 1].startswith("## 2."), f"{exc} does not point at question 2"
    assert "question 2" in str(exc) and ({es, en} - {exc.path}).pop().name in str(exc)


def test_editions_disagree_on_code_blocks(tmp_path: Path) -> None:
    code_es = "```bash\nexport FI_PROVIDER=efa\n```"
    code_en = "```bash\nexport FI_PROVIDER=tcp\n```"
    es_body = question_md(1) + question_md(2, extra=code_es)
    en_body = question_md(1) + question_md(2, extra=code_en)
    es, en = load_pair(tmp_path, es_body, en_body)
    with pytest.raises(KnowledgeError) as info:
        load_knowledge(tmp_path)
    exc = info.value
    assert exc.path in {es, en} and exc.line is not None
    lines = exc.path.read_text(encoding="utf-8").split("\n")
    assert lines[exc.line - 1].startswith("```bash"), f"{exc} does not point at the code block"
    assert "code" in str(exc).lower() and "question 2" in str(exc)


def test_two_files_with_the_same_id_and_lang(tmp_path: Path) -> None:
    first = write(tmp_path, "a.es.md", FRONT_ES + question_md(1))
    second = write(tmp_path, "b.es.md", FRONT_ES + question_md(1))
    with pytest.raises(KnowledgeError) as info:
        load_knowledge(tmp_path)
    exc = info.value
    assert exc.path in {first, second} and exc.line is not None
    assert f"{exc.path}:{exc.line}" in str(exc)
    assert ({first, second} - {exc.path}).pop().name in str(exc)


# -- while serving: what cannot be read is skipped and named, the rest is read ----------------------------

RUNBOOK_MD = "# Runbook\n\n## Restarts\n\nRestart the quarblefitz daemon with systemctl.\n"


def test_a_quiz_file_missing_its_answer_stops_the_build_and_is_skipped_while_serving(tmp_path: Path) -> None:
    text = FRONT_ES + question_md(1) + question_md(2)
    quiz = write(tmp_path, "mini.es.md", text.replace("Respuesta: B\n", "", 1))
    write(tmp_path, "runbook.md", RUNBOOK_MD)
    with pytest.raises(KnowledgeError) as info:
        load_knowledge(tmp_path)  # the build, `eksbot index check`
    assert info.value.path == quiz and info.value.line == line_of(text, "## 1.")
    serving = load_knowledge(tmp_path, strict=False)
    assert [d.doc_id for d in serving.documents] == ["runbook"]
    (skipped,) = serving.skipped
    assert (skipped.path, skipped.line, skipped.reason) == (quiz, info.value.line, info.value.reason)
    assert skipped.located.startswith(f"{quiz}:{info.value.line}: ")


def test_while_serving_the_edition_that_changed_to_disagree_is_the_one_skipped(tmp_path: Path) -> None:
    es, en = load_pair(tmp_path, question_md(1) + question_md(2), question_md(1) + question_md(2))
    cache: loader.ReadCache = {}
    assert len(load_knowledge(tmp_path, cache, strict=False).documents) == 2
    es.write_text(FRONT_ES + question_md(1) + question_md(2, answer="C"), encoding="utf-8")  # es is changed
    kb = load_knowledge(tmp_path, cache, strict=False)
    assert [d.lang for d in kb.documents] == ["en"]
    (skipped,) = kb.skipped
    assert skipped.path == es and "question 2 answers 'C' here but 'B'" in skipped.reason and skipped.line


def test_while_serving_a_second_file_with_the_same_id_and_lang_is_skipped(tmp_path: Path) -> None:
    first = write(tmp_path, "a.es.md", FRONT_ES + question_md(1))
    second = write(tmp_path, "b.es.md", FRONT_ES + question_md(1))
    kb = load_knowledge(tmp_path, strict=False)
    assert [d.path for d in kb.documents] == [first]
    assert [s.path for s in kb.skipped] == [second] and first.name in kb.skipped[0].reason


def test_a_file_over_the_size_limit_is_skipped_without_being_read(tmp_path: Path) -> None:
    write(tmp_path, "runbook.md", RUNBOOK_MD)
    huge = tmp_path / "dump.md"
    with huge.open("wb") as handle:
        handle.truncate(50 * 1024 * 1024)  # sparse: 50 MB long, nothing written
    tracemalloc.start()
    try:
        kb = load_knowledge(tmp_path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [d.doc_id for d in kb.documents] == ["runbook"]
    (skipped,) = kb.skipped
    assert skipped.path == huge and "larger than 2 MiB: split it" in skipped.reason
    assert peak < MAX_DOCUMENT_BYTES, f"{peak} bytes held while loading"


def test_a_file_at_the_size_limit_is_read(tmp_path: Path) -> None:
    body = "# Big\n\n## Part\n\n"
    write(tmp_path, "big.md", body + "x" * (MAX_DOCUMENT_BYTES - len(body)))
    assert [d.doc_id for d in load_knowledge(tmp_path).documents] == ["big"]


def test_sources_yaml_with_an_alias_is_refused_with_its_line(tmp_path: Path) -> None:
    write(tmp_path, "runbook.md", RUNBOOK_MD)
    sources = write(tmp_path, "sources.yaml", "base: &u https://wiki.example.com/a\nrunbook.md: *u\n")
    with pytest.raises(KnowledgeError) as info:
        load_knowledge(tmp_path)
    assert info.value.path == sources and info.value.line == 2 and "alias" in info.value.reason.lower()
    kb = load_knowledge(tmp_path, strict=False)
    assert [d.doc_id for d in kb.documents] == ["runbook"] and kb.documents[0].source_url is None
    assert [(s.path, s.line) for s in kb.skipped] == [(sources, 2)]


@pytest.mark.parametrize("url", ["javascript:alert(document.cookie)", "data:text/html,<script>x</script>",
                                 "file:///etc/passwd", "JavaScript:alert(1)", "https:no-host"])
def test_only_web_urls_of_sources_yaml_and_front_matter_reach_a_document(tmp_path: Path, url: str) -> None:
    write(tmp_path, "runbook.md", RUNBOOK_MD)
    write(tmp_path, "own.md", f"---\nsource_url: '{url}'\n---\n" + RUNBOOK_MD)
    write(tmp_path / "team", "notes.md", RUNBOOK_MD)
    write(tmp_path, "sources.yaml", f"runbook.md: '{url}'\nown.md: https://wiki.example.com/own\n")
    write(tmp_path / "team", "sources.yaml", f"base_url: '{url}'\n")
    urls = {d.doc_id: d.source_url for d in load_knowledge(tmp_path).documents}
    assert urls == {"runbook": None, "own": "https://wiki.example.com/own", "team/notes": None}


# -- new documents dropped into the knowledge directory --------------------------------------------------

RUNBOOK = """---
id: fsx-runbook
title: FSx runbook
lang: en
kind: doc
---

Operational notes for the training file systems.

## 1. Remounting a quarblefitz volume

Topic: FSx operations

When a quarblefitz volume hangs, drain the node, unmount the Lustre client and mount it again.

```bash
sudo umount -l /fsx && sudo mount -t lustre fs-0123.fsx.us-west-2.amazonaws.com@tcp:/abcd /fsx
```

## 2. Rotating storage keys

Topic: FSx operations

Rotate the keys every ninety days.
"""

SECOND_QUIZ = """---
id: inference-quiz
title: Inference quiz
lang: en
kind: quiz
---

## 1. Which server batches requests for the snorkelwump model?

Topic: Inference serving

- A) Triton
- B) A cron job

Answer: A

Explanation: Triton batches requests for the snorkelwump model dynamically.
"""


def test_new_documents_are_loaded_chunked_and_retrievable(knowledge_copy: Path, tmp_path: Path) -> None:
    write(knowledge_copy, "fsx-runbook.en.md", RUNBOOK)
    write(knowledge_copy, "inference-quiz.en.md", SECOND_QUIZ)
    kb = load_knowledge(knowledge_copy)
    assert {d.doc_id for d in kb.documents} == {"eks-training-quiz", "fsx-runbook", "inference-quiz"}
    runbook = kb.editions("fsx-runbook")["en"]
    assert runbook.kind == "doc"
    assert [q.number for q in runbook.questions] == [1, 2]
    assert runbook.questions[0].answer is None and runbook.questions[0].code_blocks

    embedder = FakeEmbedder()
    index_dir = tmp_path / "index"
    build_index(kb, index_dir, embedder)
    index = load_index(kb, index_dir, embedder, rebuild=False)
    sources = {c.source for c in index.chunks}
    assert {"fsx-runbook.en.md", "inference-quiz.en.md"} <= sources

    assistant = Assistant(index, embedder, threshold=0.4)
    runbook_answer = assistant.answer("How do I remount a hung quarblefitz volume?")
    assert runbook_answer.answered
    assert runbook_answer.citations[0].source == "fsx-runbook.en.md"
    assert runbook_answer.citations[0].question == 1
    assert runbook_answer.citations[0].snippet and "umount" in runbook_answer.citations[0].snippet

    quiz_answer = assistant.answer("Which server batches requests for the snorkelwump model?")
    assert quiz_answer.answered
    assert quiz_answer.citations[0].source == "inference-quiz.en.md"
    assert quiz_answer.answer_line == "A) Triton"
