"""`eksbot knowledge list|add|edit|delete|restore|history|note|notes|delete-note|export`: entries and notes in
the database, from the command line, on a temporary SQLite database; and how `eksbot ask` shows a maintainers'
note. No model is loaded: answers come from the fake embedder."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from bot.answering.assistant import Answer, Assistant
from bot.cli.knowledge.entry_files import entry_file_text, read_entry_file
from bot.cli.render import render_answer
from bot.config import load_settings
from bot.curation.service import EntryDraft
from bot.knowledge import load_knowledge
from bot.knowledge.citations import Citation
from bot.services import CommandServices
from bot.storage import Database, Stores
from tests.conftest import KNOWLEDGE, UNREACHABLE_DATABASE
from tests.support.cli_helpers import run
from tests.support.fakes import FakeEmbedder, lexical_model

QUOTA = """# GPU quota for the research team

The research team has a quota of 64 `nvidia.com/gpu` in namespace `research-train`.

```bash
kubectl describe resourcequota gpu -n research-train
```
"""
SLINKY = """---
title: Which kind does Slinky define for a set of Slurm compute nodes?
topic: Slinky CRDs
options:
  - A) SlurmNodeSet
  - B) NodeSet
  - ComputeSet
  - NodeGroup
answer: b
---

Current Slinky releases define `NodeSet` in the `slinky.slurm.net` group.
"""
SLINKY_NOTE = "Current Slinky releases name these kinds NodeSet and Cluster; SlurmNodeSet is the old name."
SLINKY_QUESTION = "Which Slinky CRD defines the Slurm compute nodes?"
LIVE = "a running server answers from it within seconds"


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The database the command opens (a new SQLite file); the knowledge is the repository's."""
    url = f"sqlite:///{tmp_path / 'data' / 'eksbot.db'}"
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setenv("EKSBOT_KNOWLEDGE_DIR", str(KNOWLEDGE))
    monkeypatch.setenv("EKSBOT_DEFAULT_LANG", "en")
    return url


def eksbot(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    return run(["knowledge", *map(str, args)], capsys)


def ok(capsys: pytest.CaptureFixture[str], *args: str | Path) -> list[str]:
    """The lines a command that succeeds prints (nothing on stderr)."""
    code, out, err = eksbot(capsys, *args)
    assert (code, err) == (0, ""), err
    return out.splitlines()


def refused(capsys: pytest.CaptureFixture[str], *args: str | Path) -> str:
    """The one line a refused change prints on stderr (exit code 1, nothing on stdout)."""
    code, out, err = eksbot(capsys, *args)
    assert (code, out) == (1, ""), out
    assert err.startswith("eksbot: ") and err.count("\n") == 1, err
    return err.removeprefix("eksbot: ").rstrip("\n")


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def added_id(lines: list[str]) -> str:
    assert lines[0].startswith("added entry ") and lines[1] == LIVE, lines
    return lines[0].removeprefix("added entry ").split(":")[0]


def listed(capsys: pytest.CaptureFixture[str], *flags: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in ok(capsys, "list", "--json", *flags)]


def revision(url: str) -> tuple[int, int, int]:
    """The knowledge revision, and how many entries (deleted ones too) and notes the database holds."""
    with Database(url) as database:
        entries = Stores(database).entries
        return entries.revision(), len(entries.listing(deleted=True)), len(entries.notes())


# -- entries ---------------------------------------------------------------------------------------------


def test_add_list_edit_history_delete_and_restore(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    quota = write(tmp_path / "quota.md", QUOTA)
    lines = ok(capsys, "add", quota, "--topic", "Quotas", "--by", "ana")
    entry = added_id(lines)
    assert lines[0] == f'added entry {entry}: "GPU quota for the research team" (doc, en, topic Quotas), version 1'

    [row] = listed(capsys)
    assert row == {**row, "id": entry, "version": 1, "kind": "doc", "title": "GPU quota for the research team",
                   "lang": "en", "topic": "Quotas", "options": [], "answer": None, "created_by": "ana",
                   "updated_by": "ana", "deleted": False}
    assert row["body"].startswith("The research team has a quota of 64")
    table = ok(capsys, "list")
    assert table[0].split() == ["ID", "KIND", "VERSION", "LANG", "UPDATED", "TITLE"]
    assert table[1].split()[:5] == [entry, "doc", "1", "en", "ana"]
    assert table[1].endswith("  GPU quota for the research team") and table[-1] == "1 entry"
    with Database(db) as database:
        record = Stores(database).entries.get(entry)
    assert record is not None and record.fields.body.startswith("The research team")  # the heading is the title
    assert "# GPU quota" not in record.fields.body and "kubectl describe resourcequota" in record.fields.body

    edited = write(tmp_path / "quota-v2.md", QUOTA.replace("64", "96"))
    lines = ok(capsys, "edit", entry, edited, "--by", "bea")
    assert lines == [f'edited entry {entry}: "GPU quota for the research team" (doc, en, topic Quotas), version 2',
                     LIVE]  # the topic and language are kept when the file does not give them
    assert ok(capsys, "edit", entry, edited) == [f"entry {entry} unchanged: the file says what version 2 says"]

    history = ok(capsys, "history", entry)
    assert history[0] == f'entry {entry}: "GPU quota for the research team" (doc, en, topic Quotas), version 2'
    assert [line.split()[:3] for line in history[1:3]] == [["v1", "create", "ana"], ["v2", "edit", "bea"]]
    assert history[1].endswith('"GPU quota for the research team" (doc, en)') and history[2].endswith("changed: body")

    lines = ok(capsys, "delete", entry, "--by", "bea")
    assert lines[0].endswith("version 3, deleted") and f"'eksbot knowledge restore {entry}' undoes it" in lines[1]
    assert listed(capsys) == [] and ok(capsys, "list")[0].startswith("no entries")
    [gone] = listed(capsys, "--deleted")
    assert (gone["id"], gone["deleted"], gone["updated_by"], gone["version"]) == (entry, True, "bea", 3)
    assert "DELETED" in ok(capsys, "list", "--deleted")[0]
    assert ok(capsys, "delete", entry)[0].startswith(f"entry {entry} is already deleted (bea ")

    assert ok(capsys, "restore", entry, "--by", "ana") == [
        f'restored entry {entry}: "GPU quota for the research team" (doc, en, topic Quotas), version 4', LIVE]
    assert [r["id"] for r in listed(capsys)] == [entry]
    actions = [line.split()[:3] for line in ok(capsys, "history", entry)[1:5]]
    assert actions == [["v1", "create", "ana"], ["v2", "edit", "bea"], ["v3", "delete", "bea"],
                       ["v4", "restore", "ana"]]


def test_an_edit_is_undone_with_an_earlier_version(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    entry = added_id(ok(capsys, "add", write(tmp_path / "quota.md", QUOTA), "--topic", "Quotas"))
    ok(capsys, "edit", entry, write(tmp_path / "wrong.md", QUOTA.replace("64", "6400")))
    first = ok(capsys, "history", entry, "--show", "1")
    assert first[:5] == ["---", "title: GPU quota for the research team", "lang: en", "topic: Quotas", "---"]
    undo = write(tmp_path / "v1.md", "\n".join(first) + "\n")
    ok(capsys, "edit", entry, undo, "--version", "2")
    with Database(db) as database:
        versions = Stores(database).entries.history(entry)
    assert [v.version for v in versions] == [1, 2, 3] and versions[2].fields == versions[0].fields
    assert refused(capsys, "history", entry, "--show", "7") == f"entry {entry} has no version 7 (it has 1 to 3)"


def test_the_login_name_is_who_changed_it_unless_by_says(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("getpass.getuser", lambda: "ops-login")
    entry = added_id(ok(capsys, "add", write(tmp_path / "quota.md", QUOTA)))
    assert listed(capsys)[0]["created_by"] == "ops-login"
    assert refused(capsys, "delete", entry, "--by", " ") == "--by is empty: say who makes the change"
    assert listed(capsys)[0]["deleted"] is False


def test_a_quiz_question_file_becomes_a_quiz_entry_the_terminal_quiz_asks(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = ok(capsys, "add", write(tmp_path / "slinky.md", SLINKY))
    entry = added_id(lines)
    assert lines[0].endswith("(quiz, en, topic Slinky CRDs, answer B), version 1")
    assert listed(capsys)[0]["kind"] == "quiz"
    with Database(db) as database:
        record = Stores(database).entries.get(entry)
        assert record is not None
        assert record.fields.options == ("SlurmNodeSet", "NodeSet", "ComputeSet", "NodeGroup")  # "A) " is a label
        assert record.fields.answer == "B"
    with CommandServices(load_settings(knowledge_dir=KNOWLEDGE)) as services:
        engine = services.quiz("Slinky CRDs")  # what `eksbot quiz --topic "Slinky CRDs"` asks from
    assert (f"entries/{entry}", 1) in engine.keys
    question = engine.knowledge.question(f"entries/{entry}", 1, "en")
    assert question.correct_option is not None and question.correct_option.text == "NodeSet"
    # An edit may not turn a quiz question into a text (its quiz attempts would lose their options).
    reason = refused(capsys, "edit", entry, write(tmp_path / "text.md", QUOTA))
    assert reason.endswith(f"entry {entry} is a quiz question, and the file gives no options and answer")


def test_a_stale_version_is_refused_and_nothing_is_written(db: str, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    entry = added_id(ok(capsys, "add", write(tmp_path / "quota.md", QUOTA)))
    ok(capsys, "edit", entry, write(tmp_path / "96.md", QUOTA.replace("64", "96")), "--version", "1")
    before = revision(db)
    reason = refused(capsys, "edit", entry, write(tmp_path / "128.md", QUOTA.replace("64", "128")), "--version", "1")
    assert reason.startswith(f"entry {entry} is at version 2, not 1: someone changed it first")
    assert f"'eksbot knowledge history {entry}' shows what changed" in reason
    assert revision(db) == before
    assert listed(capsys)[0]["version"] == 2


@pytest.mark.parametrize(("content", "reason"), [
    (b"# Big\n\n" + b"x" * 20_001, "body has 20001 characters; the most is 20000"),
    (b"# Notes\n\nCaf\xe9 con leche.\n", "not valid UTF-8 (invalid continuation byte at byte 12)"),
    (b"Just text, and no title.\n", "no title: give one in the front matter (title: …) or as a first '# heading'"),
    (b"---\ntitle: T\noption: [a, b, c, d]\n---\nText.\n", "unknown front matter key 'option'"),
    (b"---\ntitle: T\noptions: a\n---\nText.\n", "options must be a list of the 4 options, A first"),
    (b"---\ntitle: T\noptions: [a, b, c]\nanswer: A\n---\nText.\n", "a quiz question has 4 options, not 3"),
    (b"---\ntitle: T\noptions: [a, b, c, d]\nanswer: E\n---\nText.\n", "the answer must be one of A, B, C, D"),
    (b"---\ntitle: T\nlang: fr\n---\nText.\n", "lang must be one of es, en, not 'fr'"),
    (b"---\ntitle: [T]\n---\nText.\n", "title must be text, not a list"),
    (b"---\ntitle: T\n", "the front matter opened with --- is never closed"),
    (b"---\nid: eks-training-quiz\nkind: quiz\n---\n", "a file in the knowledge format"),
])
def test_bad_files_are_refused_with_the_reason_and_nothing_is_written(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, reason: str
) -> None:
    ok(capsys, "list")  # the database exists
    before = revision(db)
    path = tmp_path / "entry.md"
    path.write_bytes(content)
    err = refused(capsys, "add", path)
    assert err.startswith(str(path)) and reason in err, err
    assert revision(db) == before == (0, 0, 0)


@pytest.mark.parametrize(("escape", "code"), [("\\r", "U+000D"), ("\\N", "U+0085"), ("\\L", "U+2028"),
                                              ("\\P", "U+2029"), ("\\v", "U+000B"), ("\\f", "U+000C")])
def test_a_title_or_topic_with_a_line_break_is_refused_with_the_reason(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], escape: str, code: str
) -> None:
    ok(capsys, "list")  # the database exists
    for field, front in [("title", f'title: "GPU quota{escape}## Injected"'),
                         ("topic", f'title: "GPU quota"\ntopic: "Quotas{escape}Other"')]:
        path = write(tmp_path / "entry.md", f"---\n{front}\n---\n\nThe research team has a quota of 64 GPUs.\n")
        assert refused(capsys, "add", path) == f"{path}: {field} must be one line (it holds a line break, {code})"
    assert revision(db) == (0, 0, 0)


def test_unknown_ids_and_missing_files_are_refused(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    quota = write(tmp_path / "quota.md", QUOTA)
    for action in (("edit", "nope", quota), ("delete", "nope"), ("restore", "nope"), ("history", "nope")):
        assert refused(capsys, *action) == "no knowledge entry 'nope'"
    assert refused(capsys, "delete-note", "nope") == "no note 'nope'"
    assert refused(capsys, "add", tmp_path / "missing.md") == f"{tmp_path / 'missing.md'}: no such file"
    assert revision(db) == (0, 0, 0)


def test_a_command_line_that_does_not_parse_is_exit_code_2(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["note", "four", "text"], ["edit", "some-id"], ["add", "f.md", "--lang", "fr"]):
        with pytest.raises(SystemExit) as exit_:
            eksbot(capsys, *argv)
        assert exit_.value.code == 2
        assert "usage: eksbot knowledge" in capsys.readouterr().err


def test_an_unreachable_database_is_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("DATABASE_URL", UNREACHABLE_DATABASE)
    for argv in (["list"], ["add", str(write(tmp_path / "quota.md", QUOTA))], ["notes"]):
        code, out, err = eksbot(capsys, *argv)
        assert code == 1 and out == "" and err.startswith("eksbot: database error: ") and err.count("\n") == 1


def test_an_entry_file_reads_back_as_it_was_written(tmp_path: Path) -> None:
    draft = EntryDraft(title='Which "kind": yes or no?', body="# Not the title\n\nText: with a colon.", lang="es",
                       topic="yes", options=("yes", "B) no", "1.0", "[x]"), answer="B")
    read = read_entry_file(write(tmp_path / "entry.md", entry_file_text(draft)))
    assert read.tidied() == draft


def test_a_heading_in_code_is_not_the_title(tmp_path: Path) -> None:
    read = read_entry_file(write(tmp_path / "e.md", "```bash\n# not a title\n```\n\n# The title\n\nText.\n"))
    assert read.title == "The title" and "# not a title" in read.body and "# The title" not in read.body


# -- notes ------------------------------------------------------------------------------------------------


def test_note_notes_and_delete_note(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    lines = ok(capsys, "note", "4", *SLINKY_NOTE.split(" "), "--by", "ana")
    note = lines[0].split()[2]
    assert lines[0] == (f'added note {note} (en) on eks-training-quiz #4: "Which CRD does Slinky use to define '
                        'groups of compute nodes (partitions)?"')
    assert lines[1].startswith(LIVE)
    ok(capsys, "note", "4", "Las versiones actuales llaman NodeSet a este recurso.", "--lang", "es")
    rows = [json.loads(line) for line in ok(capsys, "notes", "--json")]
    assert [(r["id"] == note, r["doc"], r["question"], r["lang"]) for r in rows] == [
        (True, "eks-training-quiz", 4, "en"), (False, "eks-training-quiz", 4, "es")]
    assert rows[0]["text"] == SLINKY_NOTE and rows[0]["created_by"] == "ana"
    table = ok(capsys, "notes")
    assert table[0].split() == ["ID", "ON", "LANG", "ADDED", "TEXT"] and table[-1] == "2 notes"
    assert table[1].startswith(note) and "eks-training-quiz #4" in table[1] and table[1].endswith(SLINKY_NOTE)
    assert ok(capsys, "delete-note", note, "--by", "ana")[0] == f"deleted note {note}"
    assert [r["lang"] for r in (json.loads(line) for line in ok(capsys, "notes", "--json"))] == ["es"]


def test_a_note_on_a_question_there_is_not_is_refused(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert refused(capsys, "note", "99", "A note.") == "there is no question 99 in 'eks-training-quiz'"
    assert refused(capsys, "note", "1", "A note.", "--doc", "nope") == "there is no question 1 in 'nope'"
    assert refused(capsys, "note", "4", "x" * 2001) == "note has 2001 characters; the most is 2000"
    assert revision(db) == (0, 0, 0)


def test_a_note_on_an_entry_s_question(db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    entry = added_id(ok(capsys, "add", write(tmp_path / "slinky.md", SLINKY)))
    lines = ok(capsys, "note", "1", "Asked in the platform team's onboarding.", "--doc", f"entries/{entry}")
    assert lines[0].endswith(f'on entries/{entry} #1: "Which kind does Slinky define for a set of Slurm compute '
                             'nodes?"')


# -- export ------------------------------------------------------------------------------------------------


def test_export_then_the_files_answer_with_the_entry_and_the_note(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    quota = added_id(ok(capsys, "add", write(tmp_path / "quota.md", QUOTA)))
    slinky = added_id(ok(capsys, "add", write(tmp_path / "slinky.md", SLINKY)))
    deleted = added_id(ok(capsys, "add", write(tmp_path / "old.md", "# Old runbook\n\nGone.\n")))
    ok(capsys, "delete", deleted)
    ok(capsys, "note", "4", SLINKY_NOTE)
    out = tmp_path / "exported"
    (out / "entries").mkdir(parents=True)
    write(out / "entries" / f"{deleted}.md", "---\ntitle: Old runbook\nlang: en\n---\n\nGone.\n")  # exported before
    lines = ok(capsys, "export", out)
    assert lines[0] == f"wrote 3 files to {out / 'entries'}: 2 entries, 1 note"
    assert lines[1] == (f"1 other file in {out / 'entries'} is not from this export (entries or notes deleted since "
                        "an earlier one?)")
    (out / "entries" / f"{deleted}.md").unlink()

    directory = tmp_path / "knowledge"  # the export with the quiz files: what a server would build from
    shutil.copytree(KNOWLEDGE, directory)
    shutil.copytree(out / "entries", directory / "entries")
    kb = load_knowledge(directory)
    assert {f"entries/{quota}", f"entries/{slinky}"} <= {d.doc_id for d in kb.documents}
    assert f"entries/{deleted}" not in {d.doc_id for d in kb.documents}
    assert kb.notes_on("eks-training-quiz", 4, "en") == [SLINKY_NOTE]

    settings = load_settings(knowledge_dir=directory, index_dir=tmp_path / "index", auto_rebuild=True)
    assistant = Assistant.from_settings(settings, embedder=FakeEmbedder(), model=lexical_model())
    answer = assistant.answer(SLINKY_QUESTION, "en")
    assert answer.answered and answer.citations[0].notes == (SLINKY_NOTE,)
    text = rendered(answer)
    assert text.count("Note from the maintainers:") == 1 and " ".join(SLINKY_NOTE.split()[:6]) in text
    quota_answer = assistant.answer("What is the GPU quota of the research team namespace?", "en")
    assert quota_answer.citations[0].source == f"entries/{quota}.md" and "64" in quota_answer.text


def test_export_into_the_knowledge_directory_or_of_nothing_writes_nothing(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], knowledge_copy: Path,
    monkeypatch: pytest.MonkeyPatch
) -> None:
    assert ok(capsys, "export", tmp_path / "out") == ["nothing to export: the database has no entries or notes"]
    assert not (tmp_path / "out").exists()
    ok(capsys, "add", write(tmp_path / "quota.md", QUOTA))
    monkeypatch.setenv("EKSBOT_KNOWLEDGE_DIR", str(knowledge_copy))
    reason = refused(capsys, "export", knowledge_copy / "more")
    assert reason.startswith(f"{knowledge_copy / 'more'}: in the knowledge directory {knowledge_copy}")
    assert refused(capsys, "export", knowledge_copy).startswith(f"{knowledge_copy}: in the knowledge directory")
    assert not (knowledge_copy / "more").exists() and not (knowledge_copy / "entries").exists()


# -- notes in `eksbot ask` ------------------------------------------------------------------------------------


def rendered(answer: Answer) -> str:
    out = io.StringIO()
    render_answer(Console(file=out, width=300, color_system=None), answer)
    return out.getvalue()


def noted_answer(excerpt: str, notes: tuple[str, ...]) -> Answer:
    citation = Citation(4, "Which CRD does Slinky use?", excerpt, None, "eks-training-quiz.en.md", 0.9, notes=notes)
    reference = "Quiz question 4: Which CRD does Slinky use? (answer: B) SlurmNodeSet)"
    suffix = "".join(f"\n\nNote from the maintainers: {note}" for note in notes)
    return Answer(answered=True, language="en", text=f"Use SlurmNodeSet.\n\n{reference}{suffix}",
                  citations=[citation], reference=reference)


@pytest.mark.parametrize("excerpt", ["Use SlurmNodeSet.", ""])
def test_ask_shows_the_note_once_after_the_reference(excerpt: str) -> None:
    lines = [line.strip(" │") for line in rendered(noted_answer(excerpt, (SLINKY_NOTE,))).splitlines()]
    notes = [i for i, line in enumerate(lines) if line.startswith("Note from the maintainers:")]
    assert [lines[i] for i in notes] == [f"Note from the maintainers: {SLINKY_NOTE}"]
    reference = next(i for i, line in enumerate(lines) if line.startswith("Quiz question 4"))
    citation = next(i for i, line in enumerate(lines) if line.startswith("· Question 4"))
    assert reference < notes[0] < citation


def test_a_note_cannot_send_escape_sequences_to_the_terminal() -> None:
    text = rendered(noted_answer("Use SlurmNodeSet.", ("Renamed \x1b]8;;https://evil\x07here\x1b[31m.",)))
    assert "\x1b" not in text and "\x07" not in text
    assert "Note from the maintainers: Renamed ]8;;https://evilhere[31m." in text


def test_a_spanish_answer_labels_the_note_in_spanish() -> None:
    answer = noted_answer("Usa NodeSet.", ("Ahora se llama NodeSet.",))
    answer = Answer(answered=True, language="es", text=answer.text, citations=answer.citations)
    assert "Nota de los mantenedores: Ahora se llama NodeSet." in rendered(answer)


# -- what reaches the terminal ----------------------------------------------------------------------------

# Characters that change how a terminal shows the text around them without showing themselves: bidi overrides,
# embeddings and isolates (a title that reads backwards), marks, a byte order mark, a soft hyphen, NEL, a C1
# control sequence introducer and an escape.
INVISIBLE = ("\u202e", "\u202d", "\u202a", "\u2066", "\u2067", "\u2069", "\u200e", "\u200f", "\u061c", "\ufeff",
             "\u00ad", "\u2060", "\U000e0041", "\x85", "\x9b", "\x1b", "\r")
HOURS = ("---\ntitle: \"ML platform office hours \u202etxt.exe\u202c\"\ntopic: \"Office \u2066hours\u2069\"\n---\n\n"
         "The ML platform team holds office hours every Thursday at 15:00 in the Ganymede room\u202e\u200f "
         "(\u00adcall \u061cfirst\ufeff\u2060\U000e0041\x85\x9b31m\r).\n\n```bash\necho 'room\u202e42'\n```\n")
OFFICE_HOURS = "When does the ML platform team hold its office hours?"


def test_bidi_and_other_invisible_characters_of_an_entry_never_reach_the_terminal(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    fake_assistant: Assistant
) -> None:
    added_id(ok(capsys, "add", write(tmp_path / "hours.md", HOURS)))
    monkeypatch.setattr(Assistant, "from_settings", lambda *_args, **_kwargs: fake_assistant)
    monkeypatch.setenv("COLUMNS", "300")

    code, out, err = run(["ask", "--lang", "en", OFFICE_HOURS], capsys)
    assert code == 0, err
    assert "Ganymede room" in out and "ML platform office hours txt.exe" in out
    assert [c for c in INVISIBLE if c in out + err] == []

    code, out, err = run(["ask", "--json", "--lang", "en", OFFICE_HOURS], capsys)
    assert code == 0, err
    assert [c for c in INVISIBLE if c in out + err] == []
    top = json.loads(out)["citations"][0]  # escaped in the JSON, not lost
    assert top["title"] == "ML platform office hours \u202etxt.exe\u202c" and "room\u202e42" in top["snippet"]

    listing = "\n".join(ok(capsys, "list"))
    assert "txt.exe" in listing and [c for c in INVISIBLE if c in listing] == []
    lines = "\n".join(ok(capsys, "list", "--json"))
    assert [c for c in INVISIBLE if c in lines] == []
    assert "Ganymede room\u202e\u200f" in json.loads(lines)["body"]  # escaped in the JSON, not lost


def test_the_terminal_shows_a_line_separator_as_a_new_line() -> None:
    text = rendered(noted_answer("Use SlurmNodeSet.\u2028Not SlurmCluster.\u2029Done.", ()))
    lines = [line.strip(" │") for line in text.split("\n")]
    assert "Use SlurmNodeSet." in lines and "Not SlurmCluster." in lines
    assert "\u2028" not in text and "\u2029" not in text


@pytest.mark.parametrize("snippet", ["\n".join(f"echo 'step {i}'" for i in range(10_000)), "x" * 300_000])
def test_a_long_snippet_is_shown_cut_to_a_bounded_size(snippet: str) -> None:
    citation = Citation(4, "Which CRD does Slinky use?", "Run this:", snippet, "eks-training-quiz.en.md", 0.9)
    text = rendered(Answer(answered=True, language="en", text="Run this:", citations=[citation]))
    assert text.count("\n") < 40  # a panel 300 columns wide
    assert ("more lines in question 4" in text) if "\n" in snippet else ("…" in text)
