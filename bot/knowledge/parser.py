"""Parse one knowledge file: Markdown with front matter.

A file looks like this (Spanish labels shown; English ones are accepted too)::

    ---
    id: eks-training-quiz          # the same id in every edition
    title: Cuestionario ...
    lang: es                       # es | en
    kind: quiz                     # quiz | doc
    origin: eks-training-quiz.es.txt  # optional: where the content first came from
    ---
    Intro paragraphs.

    ## 1. Question title
    Tema: Topic name
    - A) option
    - B) option
    Respuesta: B
    Explicación: the explanation, with paragraphs, lists, | tables | and ```fenced code```.

    ## Unnumbered section           (kept, not a question)

In a `doc`, every `## N. Title` section is a numbered entry without options or answer.
Every error names the file and the line.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from bot.errors import KnowledgeError
from bot.knowledge.model import Block, BlockKind, Document, Option, Question
from bot.knowledge.safe_yaml import load_yaml
from bot.lang import LANGUAGES

KINDS = ("quiz", "doc")
TOPIC_LABELS = ("tema", "topic")
ANSWER_LABELS = ("respuesta", "answer")
EXPLANATION_LABELS = ("explicación", "explicacion", "explanation")

# Lines anyone may have written: each pattern runs in time linear in the line, its runs of spaces possessive
# (`\s*+`, `\s++`) where a neighbouring part could take the same spaces (tests/project/test_linear_patterns.py).
_HEADING = re.compile(r"^##\s++(?:(\d++)\.\s++)?(.*\S)\s*$")
_OPTION = re.compile(r"^-\s++([A-Z])\)\s++(.*\S)\s*$")
_LABELLED = re.compile(r"^([A-Za-zÁÉÍÓÚáéíóúñ]+):\s*(.*)$")
_FENCE = re.compile(r"^```\s*+([\w+-]*+)(?:\s[^`]*+)?$")  # ```lang, and what may follow it: ```js title="a.js"
_LIST_ITEM = re.compile(r"^\s*(?:[-*•]|\d+\.)\s+")
_TABLE_SEPARATOR = re.compile(r"^\|?\s*+:?-{3,}+:?\s*+(?:\|\s*+:?-{3,}+:?\s*+)*+\|?\s*+$")


def parse_file(path: Path) -> Document:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise KnowledgeError(path, None, f"not valid UTF-8 ({exc.reason} at byte {exc.start})") from exc
    return parse_text(text, path)


def parse_text(text: str, path: Path) -> Document:
    lines = text.replace("\r\n", "\n").split("\n")
    meta, body_start = _front_matter(lines, path)
    doc_id = _required(meta, "id", path)
    lang = _required(meta, "lang", path)
    if lang not in LANGUAGES:
        raise KnowledgeError(path, 1, f"lang must be one of {', '.join(LANGUAGES)}, not {lang!r}")
    kind = meta.get("kind", "doc")
    if kind not in KINDS:
        raise KnowledgeError(path, 1, f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    title = _required(meta, "title", path)
    source = path.name  # what a citation names: the file a person can open and edit

    # Split the body at level-2 headings.
    sections: list[tuple[int, re.Match[str] | None, list[tuple[int, str]]]] = [(body_start, None, [])]
    in_fence = False
    for number, line in enumerate(lines[body_start:], start=body_start + 1):
        if _FENCE.match(line.strip()):
            in_fence = not in_fence
        heading = None if in_fence else _HEADING.match(line)
        if heading and line.startswith("## "):
            sections.append((number, heading, []))
        else:
            sections[-1][2].append((number, line))

    intro = tuple(_blocks(sections[0][2], path))
    questions: list[Question] = []
    plain: list[tuple[str, tuple[Block, ...]]] = []
    seen: dict[int, int] = {}
    for line_no, heading, body in sections[1:]:
        assert heading is not None
        if heading.group(1) is None:
            plain.append((heading.group(2), tuple(_blocks(body, path))))
            continue
        q_number = int(heading.group(1))
        if q_number in seen:
            first = seen[q_number]
            raise KnowledgeError(path, line_no, f"question {q_number} is numbered twice (first on line {first})")
        seen[q_number] = line_no
        questions.append(_question(doc_id, lang, kind, source, q_number, heading.group(2), line_no, body, path))
    if kind == "quiz" and not questions:
        raise KnowledgeError(path, body_start + 1, "a quiz needs at least one '## N. Title' question")
    return Document(
        path=path, doc_id=str(doc_id), lang=lang, kind="quiz" if kind == "quiz" else "doc", title=str(title),
        source=source, intro=intro, questions=tuple(questions), sections=tuple(plain),
    )


def _front_matter(lines: list[str], path: Path) -> tuple[dict[str, object], int]:
    if not lines or lines[0].strip() != "---":
        raise KnowledgeError(path, 1, "missing front matter: the file must start with a '---' line")
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            break
    else:
        raise KnowledgeError(path, 1, "front matter is not closed by a '---' line")
    try:
        meta = load_yaml("\n".join(lines[1:end])) or {}  # an alias (`id: *x`) is refused, never expanded
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 1
        raise KnowledgeError(path, line, f"front matter is not valid YAML: {exc}") from exc
    if not isinstance(meta, dict):
        raise KnowledgeError(path, 2, "front matter must be 'key: value' lines")
    return meta, end + 1


def _required(meta: dict[str, object], key: str, path: Path) -> str:
    value = meta.get(key)
    if value is None or not str(value).strip():
        raise KnowledgeError(path, 1, f"front matter lacks '{key}'")
    return str(value).strip()


def _question(
    doc_id: str, lang: str, kind: str, source: str, number: int, title: str, line_no: int,
    body: list[tuple[int, str]], path: Path,
) -> Question:
    topic = ""
    options: list[Option] = []
    answer: str | None = None
    answer_line = 0
    rest: list[tuple[int, str]] = []
    header_done = False
    for number_, line in body:
        stripped = line.strip()
        if header_done:
            rest.append((number_, line))
            continue
        if not stripped:
            continue
        option = _OPTION.match(stripped)
        labelled = _LABELLED.match(stripped)
        if option and kind == "quiz":
            key, text = option.group(1), option.group(2)
            expected = chr(ord("A") + len(options))
            if key != expected:
                raise KnowledgeError(path, number_, f"option {key}) is out of order: expected {expected})")
            options.append(Option(key, text))
        elif labelled and labelled.group(1).lower() in TOPIC_LABELS:
            topic = labelled.group(2).strip()
        elif labelled and labelled.group(1).lower() in ANSWER_LABELS and kind == "quiz":
            answer = labelled.group(2).strip().rstrip(")").strip()
            answer_line = number_
            header_done = True
        else:
            header_done = True
            rest.append((number_, line))
    if kind == "quiz":
        if len(options) < 2:
            raise KnowledgeError(path, line_no, f"question {number} needs at least two options '- A) ...'")
        if answer is None:
            example = "Respuesta: B" if lang == "es" else "Answer: B"
            raise KnowledgeError(path, line_no, f"question {number} has no answer line ('{example}')")
        if answer not in {o.key for o in options}:
            keys = ", ".join(o.key for o in options)
            raise KnowledgeError(
                path, answer_line, f"answer {answer!r} of question {number} is not among the options {keys}"
            )
    blocks = _blocks(rest, path)
    if blocks and blocks[0].kind == "text":
        first = blocks[0]
        head, _, tail = first.text.partition(":")
        if head.strip().lower() in EXPLANATION_LABELS:
            blocks[0] = Block("text", tail.strip(), first.line)
    if kind == "quiz" and not any(b.text for b in blocks):
        raise KnowledgeError(path, line_no, f"question {number} has no explanation")
    return Question(
        doc_id=doc_id, lang=lang, number=number, title=title, topic=topic or title,
        options=tuple(options), answer=answer, blocks=tuple(b for b in blocks if b.text), source=source,
        line=line_no,
    )


def _blocks(body: list[tuple[int, str]], path: Path) -> list[Block]:
    blocks: list[Block] = []
    i = 0
    while i < len(body):
        number, line = body[i]
        stripped = line.strip()
        if not stripped:
            i += 1
            continue
        fence = _FENCE.match(stripped)
        if fence:
            code: list[str] = []
            i += 1
            while i < len(body) and not body[i][1].strip().startswith("```"):
                code.append(body[i][1])
                i += 1
            if i >= len(body):
                raise KnowledgeError(path, number, "code block opened here is never closed with ```")
            i += 1
            blocks.append(Block("code", "\n".join(code), number, lang=fence.group(1) or "text"))
            continue
        if stripped.startswith("|"):
            rows: list[tuple[str, ...]] = []
            while i < len(body) and body[i][1].strip().startswith("|"):
                row_line, row = body[i]
                if not _TABLE_SEPARATOR.match(row.strip()):
                    cells = tuple(c.strip() for c in row.strip().strip("|").split("|"))
                    if rows and len(cells) != len(rows[0]):
                        raise KnowledgeError(
                            path, row_line, f"table row has {len(cells)} cells, the header has {len(rows[0])}"
                        )
                    rows.append(cells)
                i += 1
            text = "\n".join(" | ".join(r) for r in rows)
            blocks.append(Block("table", text, number, rows=tuple(rows)))
            continue
        kind: BlockKind = "list" if _LIST_ITEM.match(line) else "text"
        chunk: list[str] = []
        while i < len(body):
            current = body[i][1]
            cs = current.strip()
            if not cs or (chunk and cs.startswith(("```", "|"))):
                break  # a paragraph's first line is its own, even one that opens with ``` and is no fence
            is_item = bool(_LIST_ITEM.match(current))
            if chunk and (is_item != (kind == "list")) and not (kind == "list" and current.startswith("  ")):
                break
            chunk.append(current.rstrip())
            i += 1
        blocks.append(Block(kind, "\n".join(chunk).strip("\n") if kind == "list" else " ".join(
            c.strip() for c in chunk), number))
    return blocks
