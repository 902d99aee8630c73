"""YAML from anyone is read with aliases refused: an alias bomb ("billion laughs": a few hundred bytes whose
aliases expand to billions of nodes) in a document's front matter, a quiz file's or a note's is refused at
once, with its file and line, in little memory; a document is skipped for it and the rest of the knowledge is
read. Lists nested thousands deep are refused the same way. Front matter without aliases reads as before."""

from __future__ import annotations

import signal
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from types import FrameType

import pytest
import yaml

from bot.errors import KnowledgeError
from bot.knowledge import load_knowledge
from bot.knowledge.loader import read_document
from bot.knowledge.markdown import read_front_matter
from bot.knowledge.parser import parse_text
from bot.knowledge.safe_yaml import AliasError, NestingError, load_yaml
from tests.conftest import KNOWLEDGE, PROJECT_ROOT

# Nine lists of nine aliases of the list before: 9**9 (387 million) strings once expanded, from 395 bytes.
BOMB_LINES = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"] + [
    f"{name}: &{name} [" + ", ".join([f"*{before}"] * 9) + "]"
    for before, name in zip("abcdefgh", "bcdefghi", strict=True)
]
BOMB = "\n".join(BOMB_LINES)
FIRST_ALIAS = 2  # the bomb's line of the first alias (`b: &b [*a, …]`)
SECONDS = 1.0  # CPU seconds a refusal may take: it is made at the first alias, before anything is built
PEAK_BYTES = 4 * 1024 * 1024  # memory a refusal may take (the bomb, expanded, takes gigabytes)


class TooSlow(Exception):
    pass


def _too_slow(signum: int, frame: FrameType | None) -> None:
    raise TooSlow


def refused(read: Callable[[], object]) -> KnowledgeError:
    """The error `read` raises, checked to come within SECONDS of CPU and PEAK_BYTES of memory (a read that
    expands the bomb is stopped rather than let run for seconds and gigabytes)."""
    previous = signal.signal(signal.SIGVTALRM, _too_slow)
    signal.setitimer(signal.ITIMER_VIRTUAL, 5 * SECONDS)  # the whole process's CPU: other threads' count too
    tracemalloc.start()
    start = time.thread_time()
    try:
        read()
    except KnowledgeError as exc:
        error = exc
    except TooSlow:
        pytest.fail(f"still reading after {5 * SECONDS} s of CPU")
    else:
        pytest.fail("read, not refused")
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, previous)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert time.thread_time() - start < SECONDS
    assert peak < PEAK_BYTES, f"{peak:,} bytes"
    return error


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_an_alias_bomb_in_a_documents_front_matter_is_refused_with_its_line(tmp_path: Path) -> None:
    doc = write(tmp_path / "bomb.md", f"---\ntitle: Bomb\n{BOMB}\n---\n\n# Bomb\n\nText.\n")
    error = refused(lambda: read_document(doc, tmp_path))
    assert (error.path, error.line) == (doc, 2 + FIRST_ALIAS)  # the file's line: `---`, `title:`, then the bomb
    assert "alias" in error.reason


def test_an_alias_bomb_in_a_quiz_file_is_refused_with_its_line(tmp_path: Path) -> None:
    quiz = (f"---\nkind: quiz\nlang: en\ntitle: Bomb\n{BOMB}\nid: *i\n---\n\n## 1. Which?\n"
            "- A) this\n- B) that\nAnswer: A\nExplanation: this.\n")
    error = refused(lambda: parse_text(quiz, Path("bomb.en.md")))
    assert error.line == 4 + FIRST_ALIAS and "alias" in error.reason
    path = write(tmp_path / "bomb.en.md", quiz)
    assert refused(lambda: read_document(path, tmp_path)).line == 4 + FIRST_ALIAS


def test_an_alias_bomb_in_a_note_is_refused_with_its_line(tmp_path: Path) -> None:
    note = write(tmp_path / "notes" / "bomb.md",
                 f"---\nnote_for: eks-training-quiz\nquestion: 1\nlang: en\n{BOMB}\n---\n\nA note.\n")
    error = refused(lambda: read_document(note, tmp_path))
    assert (error.path, error.line) == (note, 4 + FIRST_ALIAS) and "alias" in error.reason


def test_a_document_with_an_alias_bomb_is_skipped_and_the_rest_is_read(tmp_path: Path) -> None:
    write(tmp_path / "bomb.md", f"---\n{BOMB}\n---\n\n# Bomb\n\nText.\n")
    write(tmp_path / "on-call.md", "# On-call\n\nPage the ML platform team.\n")
    kb = load_knowledge(tmp_path)
    assert [d.title for d in kb.documents] == ["On-call"]
    assert [(s.path.name, s.line) for s in kb.skipped] == [("bomb.md", 1 + FIRST_ALIAS)]


@pytest.mark.parametrize(("header", "line"), [
    ("base: &base {a: 1}\nmerged:\n  <<: *base\n", 3),  # a merge key is an alias too
    ("title: x\nlist: [" + "[" * 5_000 + "]" * 5_000 + "]\n", 2),  # nesting beyond Python's recursion limit
    ("title: x\nmap: " + "{a: " * 5_000 + "1" + "}" * 5_000 + "\n", 2),
])
def test_an_alias_or_deep_nesting_is_refused_with_its_line(tmp_path: Path, header: str, line: int) -> None:
    doc = write(tmp_path / "doc.md", f"---\n{header}---\n\n# Doc\n\nText.\n")
    error = refused(lambda: read_front_matter(doc.read_text(encoding="utf-8"), doc))
    assert error.line == 1 + line


def test_toml_front_matter_nested_deep_is_refused(tmp_path: Path) -> None:
    text = "+++\ntitle = 'x'\nlist = " + "[" * 5_000 + "]" * 5_000 + "\n+++\n\n# Doc\n\nText.\n"
    error = refused(lambda: read_front_matter(text, tmp_path / "doc.md"))
    assert "deep" in error.reason


def test_load_yaml_names_where_the_alias_is() -> None:
    with pytest.raises(AliasError) as refusal:
        load_yaml("a: &x 1\nb: 2\nc: *x\n")
    assert refusal.value.problem_mark is not None and refusal.value.problem_mark.line == 2
    assert isinstance(refusal.value, yaml.YAMLError)
    with pytest.raises(NestingError):
        load_yaml("[" * 1_000 + "]" * 1_000)


FRONT_MATTER = """title: "Runbook: GPUs"
lang: en
source_url: https://wiki.example.com/gpu
tags: [gpu, eks, 'quota']
owner: {team: ml-platform, oncall: true, rota: [ana, bea]}
updated: 2024-05-01
weight: 3.5
draft: no
anchor_only: &kept a value an anchor names, never used
summary: >
  Folded text
  on two lines.
steps:
  - one
  - {two: 2}
"""


def test_front_matter_without_aliases_reads_as_before() -> None:
    assert load_yaml(FRONT_MATTER) == yaml.safe_load(FRONT_MATTER)
    headers = 0
    for path in sorted([*KNOWLEDGE.rglob("*.md"), *(PROJECT_ROOT / "tests" / "docs").rglob("*.md*")]):
        text = path.read_text(encoding="utf-8")
        if text.startswith("---\n"):
            header = text[4:text.index("\n---", 3)]
            assert load_yaml(header) == yaml.safe_load(header), path
            assert read_front_matter(text, path).values == (yaml.safe_load(header) or {}), path
            headers += 1
    assert headers >= 4
