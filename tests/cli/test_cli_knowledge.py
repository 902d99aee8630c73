"""The command line and a knowledge directory of documents: citations of sections, `index check` and
`knowledge import`. No model is loaded: answers come from the fake embedder, and neither check nor import
embeds anything."""

from __future__ import annotations

import io
import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from bot.answering.assistant import Answer, Assistant
from bot.api.deps import token_label
from bot.cli.render import citation_text, render_answer
from bot.config import ApiToken, load_settings
from bot.embedding.model import model_identity
from bot.knowledge import load_knowledge
from bot.knowledge.citations import Citation
from bot.knowledge.limits import MAX_DOCUMENT_BYTES
from bot.lang import Lang
from bot.retrieval.artifacts import build_index
from tests.conftest import KNOWLEDGE, PROJECT_ROOT
from tests.support.cli_helpers import run
from tests.support.fakes import FakeEmbedder, lexical_model

DOCS = PROJECT_ROOT / "tests" / "docs"
PUBLIC = DOCS / "public"
RUNBOOK = DOCS / "runbook" / "gpu-training-runbook.md"
RUNBOOK_URL = "https://wiki.acme.internal/ml-platform/runbooks/gpu-training"
QUOTA_PATH = "GPU training on EKS — ML Platform runbook › GPU quotas › Requesting a quota increase"
NOT_UTF8 = b"# Notes\n\nCaf\xe9 con leche.\n"


def rendered(answer: Answer, width: int = 400) -> str:
    out = io.StringIO()
    render_answer(Console(file=out, width=width, color_system=None), answer)
    return out.getvalue()


def section_citation(number: int, section: str, url: str | None = RUNBOOK_URL, snippet: str | None = None) -> Citation:
    return Citation(question=number, title=section.rsplit(" › ", 1)[-1], excerpt="Open a ticket.", snippet=snippet,
                    source="runbook/gpu-training-runbook.md", score=0.81, doc_id="runbook/gpu-training-runbook",
                    section=section, url=url, lang="en")


def with_docs(directory: Path) -> Path:
    """A knowledge directory of the quiz, the public pages and the runbooks, as teams would have it."""
    shutil.copytree(KNOWLEDGE, directory)
    (directory / "public").mkdir()
    for page in ("data-on-eks-llama2-trainium.mdx", "kubeflow-trainer-pytorch-guide.md",
                 "volcano-network-topology-aware-scheduling.md", "SOURCES.md"):
        shutil.copy(PUBLIC / page, directory / "public" / page)
    shutil.copytree(DOCS / "runbook", directory / "runbook")
    return directory


def dirs(knowledge: Path, index: Path) -> list[str]:
    return ["--knowledge-dir", str(knowledge), "--index-dir", str(index)]


# -- citations in the terminal --------------------------------------------------------------------------


def test_a_section_is_cited_by_its_heading_path_and_its_url() -> None:
    answer = Answer(answered=True, language="en", text="Open a ticket.", citations=[
        section_citation(7, QUOTA_PATH),
        section_citation(9, "GPU training on EKS — ML Platform runbook › Troubleshooting"),
    ])
    lines = [line.strip(" │") for line in rendered(answer).splitlines() if line.strip(" │╭╮╰╯─")]
    # Where it comes from first (the heading path, the source and the page's link), then what it says, then
    # the next-best sections of the same page by their headings.
    assert lines[:3] == [f"· {QUOTA_PATH}  [runbook/gpu-training-runbook.md, 0.81]", RUNBOOK_URL, "Open a ticket."]
    assert "More in this page: Troubleshooting" in lines
    assert lines.count(RUNBOOK_URL) == 1  # said once for the document
    assert "Question 7" not in "\n".join(lines)


def test_a_quiz_citation_reads_as_before() -> None:
    quiz = Citation(5, "Which variable enables EFA?", "Set FI_PROVIDER.", None, "eks-training-quiz.en.md", 1.0)
    text = rendered(Answer(answered=True, language="en", text="Set FI_PROVIDER.", citations=[quiz]))
    assert "· Question 5 · Which variable enables EFA?  [eks-training-quiz.en.md, 1.00]" in text


@pytest.mark.parametrize(("lang", "note"), [("en", "… 30 more lines in the section “Requesting a quota increase”"),
                                            ("es", "… 30 líneas más en la sección «Requesting a quota increase»")])
def test_a_cut_snippet_of_a_section_names_the_section(lang: Lang, note: str) -> None:
    snippet = "\n".join(f"echo {i}" for i in range(46))
    citation = section_citation(7, QUOTA_PATH, snippet=snippet)
    answer = Answer(answered=True, language=lang, text="x", citations=[citation])
    assert note in rendered(answer)


def test_only_a_plain_web_address_becomes_a_terminal_link() -> None:
    def links(url: str) -> list[str | None]:
        text = citation_text("en", section_citation(1, "Doc › Part", url=url))
        return [span.style.link for span in text.spans if not isinstance(span.style, str)]

    assert links(RUNBOOK_URL) == [RUNBOOK_URL]
    for url in ("javascript:alert(1)", "https://example.com/\x1b]8;;evil\x1b\\", "file:///etc/passwd"):
        assert not any(links(url)), url  # no terminal link (the URL itself is shown, or dropped, as citations do)
        assert "\x1b" not in citation_text("en", section_citation(1, "Doc › Part", url=url)).plain


def test_an_answer_from_a_runbook_cites_its_section(tmp_path: Path) -> None:
    knowledge = with_docs(tmp_path / "knowledge")
    index = tmp_path / "index"
    build_index(load_knowledge(knowledge), index, FakeEmbedder())
    settings = load_settings(knowledge_dir=knowledge, index_dir=index, auto_rebuild=False)
    assistant = Assistant.from_settings(settings, embedder=FakeEmbedder(), model=lexical_model())
    answer = assistant.answer("How do I request a GPU quota increase?")
    assert answer.answered and answer.citations[0].section == QUOTA_PATH
    text = rendered(answer)
    assert f"· {QUOTA_PATH}  [runbook/gpu-training-runbook.md," in text and RUNBOOK_URL in text


# -- index check ------------------------------------------------------------------------------------------


@pytest.fixture
def docs_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A knowledge directory with documents and two files that cannot be read, and an index of it that names
    the configured model (built with the fake embedder: the check compares identities only)."""
    monkeypatch.setenv("EKSBOT_EMBEDDING_BACKEND", "torch")
    knowledge = with_docs(tmp_path / "knowledge")
    (knowledge / "runbook" / "notes.md").write_bytes(NOT_UTF8)
    (knowledge / "diagram.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    index = tmp_path / "index"
    embedder = FakeEmbedder(model_id=model_identity(load_settings().embedding_model), backend="torch")
    build_index(load_knowledge(knowledge), index, embedder)
    return knowledge, index


def test_index_check_reports_every_document_and_every_file_skipped(
    docs_index: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    knowledge, index = docs_index
    code, out, err = run([*dirs(knowledge, index), "index", "check"], capsys)
    assert code == 0, err  # the index is fresh: files that cannot be read are reported, not fatal
    lines = out.splitlines()
    kb = load_knowledge(knowledge)
    assert lines[0] == f"knowledge ok: {len(kb.documents)} documents in {knowledge}, 2 skipped"
    assert f"  {knowledge / 'eks-training-quiz.es.md'}: quiz, es, 15 questions" in lines
    runbook = next(d for d in kb.documents if d.path.name == RUNBOOK.name)
    assert f"  {runbook.path}: doc, en, {len(runbook.questions)} sections" in lines
    for doc in kb.documents:
        unit = "questions" if doc.kind == "quiz" else "sections"
        assert f"  {doc.path}: {doc.kind}, {doc.lang}, {len(doc.questions)} {unit}" in lines
    assert f"skipped {knowledge / 'runbook' / 'notes.md'}: not valid UTF-8 (invalid continuation byte at byte 12)" \
        in lines
    assert f"skipped {knowledge / 'diagram.md'}: a binary file, not text" in lines
    assert "up to date" in lines[-1]


def test_index_check_of_a_changed_document_is_stale(
    docs_index: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    knowledge, index = docs_index
    path = knowledge / "runbook" / RUNBOOK.name
    path.write_text(path.read_text(encoding="utf-8") + "\n## One more section\n\nMore text.\n", encoding="utf-8")
    code, out, _err = run([*dirs(knowledge, index), "index", "check"], capsys)
    assert code == 1 and "STALE: the knowledge" in out


# -- knowledge import ---------------------------------------------------------------------------------------


def import_json(knowledge: Path, capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, dict[str, Any]]:
    code, out, err = run([*dirs(knowledge, knowledge.parent / "index"), "knowledge", "import", "--json",
                          *map(str, args)], capsys)
    assert err == ""
    data = json.loads(out)
    assert isinstance(data, dict)
    return code, data


def by_target(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["target"]: f for f in report["files"]}


def test_importing_public_pages_reports_each_document_and_its_sections(
    knowledge_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run([*dirs(knowledge_copy, knowledge_copy.parent / "index"), "knowledge", "import",
                          str(PUBLIC)], capsys)
    assert code == 0, err
    kb = load_knowledge(knowledge_copy)  # what was copied loads, as the index build will load it
    docs = {d.path.relative_to(knowledge_copy).as_posix(): d for d in kb.documents if d.kind == "doc"}
    assert sorted(docs) == sorted(f"public/{p.name}" for p in PUBLIC.iterdir()
                                  if p.suffix in (".md", ".mdx") and p.name != "SOURCES.md")
    lines = out.splitlines()
    assert lines[0] == f"into {knowledge_copy}:"
    for target, doc in docs.items():
        assert f'imported {target}: "{doc.title}" (doc, en, {len(doc.questions)} sections)' in lines
        assert (knowledge_copy / target).read_bytes() == (PUBLIC / Path(target).name).read_bytes()
    sections = sum(len(d.questions) for d in docs.values())
    assert f"skipped {PUBLIC / 'SOURCES.md'}: a repository's own file (README, LICENSE…), not read as knowledge" \
        in lines
    assert lines[-2:] == [f"{len(docs)} documents, {sections} sections (en: {sections}, es: 0), 1 skipped",
                          "a running server answers from them within seconds; otherwise run 'eksbot index build'"]
    assert not (knowledge_copy.parent / "index").exists()  # nothing embedded, no index built


def test_import_json_shape(knowledge_copy: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    spanish = tmp_path / "checkpoints-runbook.es.md"
    shutil.copyfile(DOCS / "runbook" / "checkpoints-runbook.es.md", spanish)
    code, report = import_json(knowledge_copy, capsys, RUNBOOK, spanish, PUBLIC / "SOURCES.md")
    assert code == 0
    assert set(report) == {"knowledge_dir", "files", "documents", "sections", "languages", "skipped", "conflicts",
                           "changed", "next"}
    files = by_target(report)
    assert set(files) == {RUNBOOK.name, spanish.name, "SOURCES.md"}
    runbook = files[RUNBOOK.name]
    assert set(runbook) == {"source", "target", "status", "kind", "doc", "title", "lang", "sections", "url",
                            "reason"}
    doc = load_knowledge(knowledge_copy).editions("gpu-training-runbook")["en"]
    assert runbook == {"source": str(RUNBOOK), "target": RUNBOOK.name, "status": "imported", "kind": "doc",
                       "doc": "gpu-training-runbook", "title": doc.title, "lang": "en",
                       "sections": len(doc.questions), "url": RUNBOOK_URL, "reason": None}
    assert files[spanish.name]["lang"] == "es" and files[spanish.name]["status"] == "imported"
    assert files["SOURCES.md"]["status"] == "skipped" and files["SOURCES.md"]["sections"] is None
    assert report["documents"] == 2 and report["skipped"] == 1 and report["conflicts"] == 0
    assert report["languages"] == {"en": runbook["sections"], "es": files[spanish.name]["sections"]}
    assert report["sections"] == sum(report["languages"].values())
    assert report["changed"] is True and "eksbot index build" in report["next"]
    assert report["knowledge_dir"] == str(knowledge_copy)


def test_a_title_reaches_the_terminal_on_one_line_without_escapes_or_bidi_controls(
    knowledge_copy: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    hostile = tmp_path / "hostile.md"
    hostile.write_text('---\ntitle: "Quota\\e[31m \\u202etxt.exe\\u202c\\tand\\nmore"\nlang: en\n---\n\n'
                       "## Quota\n\nThe research team has a quota of 64 GPUs.\n", encoding="utf-8")
    code, out, err = run([*dirs(knowledge_copy, knowledge_copy.parent / "index"), "knowledge", "import",
                          str(hostile)], capsys)
    assert code == 0, err
    assert 'imported hostile.md: "Quota[31m txt.exeandmore" (doc, en, 1 section)' in out.splitlines()
    code, report = import_json(knowledge_copy, capsys, hostile)  # the JSON keeps the title as it is
    assert by_target(report)["hostile.md"]["title"] == "Quota\x1b[31m \u202etxt.exe\u202c\tand\nmore"


def test_files_that_cannot_be_read_are_skipped_and_not_copied(
    knowledge_copy: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    team = tmp_path / "team"
    (team / "deep").mkdir(parents=True)
    (team / "deep" / "binary.md").write_bytes(b"\x00\x01\x02 not text")
    (team / "latin1.mdx").write_bytes(NOT_UTF8)
    (team / "diagram.png").write_bytes(b"\x89PNG\r\n")
    (team / ".hidden.md").write_text("# Hidden\n\nNot imported.\n", encoding="utf-8")
    (team / "ok.md").write_text("# On-call\n\nPage the ML platform team.\n", encoding="utf-8")
    code, report = import_json(knowledge_copy, capsys, team)
    assert code == 0
    files = by_target(report)
    assert set(files) == {"team/deep/binary.md", "team/latin1.mdx", "team/diagram.png", "team/ok.md"}
    assert files["team/deep/binary.md"]["reason"] == "a binary file, not text"
    assert files["team/latin1.mdx"]["reason"] == "not valid UTF-8 (invalid continuation byte at byte 12)"
    assert files["team/diagram.png"]["reason"].startswith("not Markdown")
    assert all(files[t]["status"] == "skipped" for t in ("team/deep/binary.md", "team/latin1.mdx",
                                                          "team/diagram.png"))
    assert files["team/ok.md"]["status"] == "imported" and files["team/ok.md"]["sections"] == 1
    copied = sorted(p.relative_to(knowledge_copy).as_posix() for p in (knowledge_copy / "team").rglob("*"))
    assert copied == ["team/ok.md"]
    assert report["skipped"] == 3


def test_nothing_readable_is_exit_code_1(knowledge_copy: Path, capsys: pytest.CaptureFixture[str],
                                         tmp_path: Path) -> None:
    bad = tmp_path / "notes.md"
    bad.write_bytes(NOT_UTF8)
    code, out, _err = run([*dirs(knowledge_copy, tmp_path / "index"), "knowledge", "import", str(bad)], capsys)
    assert code == 1
    assert f"skipped {bad}: not valid UTF-8 (invalid continuation byte at byte 12)" in out
    assert "0 documents, 0 sections (en: 0, es: 0), 1 skipped" in out and "nothing changed" in out
    assert not (knowledge_copy / "notes.md").exists()


def test_a_conflict_is_left_alone_unless_forced(knowledge_copy: Path, capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path) -> None:
    ours = knowledge_copy / RUNBOOK.name
    ours.write_text("# Our runbook\n\nOur own text.\n", encoding="utf-8")
    code, out, _err = run([*dirs(knowledge_copy, tmp_path / "index"), "knowledge", "import", str(RUNBOOK)], capsys)
    assert code == 1
    assert (f"conflict {RUNBOOK.name} (from {RUNBOOK}): a different file is already there (left alone; --force "
            "replaces it)") in out
    assert ", 1 conflict" in out and "nothing changed" in out
    assert ours.read_text(encoding="utf-8") == "# Our runbook\n\nOur own text.\n"

    code, report = import_json(knowledge_copy, capsys, "--force", RUNBOOK)
    assert code == 0 and by_target(report)[RUNBOOK.name]["status"] == "replaced"
    assert ours.read_bytes() == RUNBOOK.read_bytes()

    code, report = import_json(knowledge_copy, capsys, RUNBOOK)  # the same content again
    assert code == 0 and by_target(report)[RUNBOOK.name]["status"] == "unchanged"
    assert report["changed"] is False and report["next"] is None and report["documents"] == 1


def test_a_second_edition_of_a_document_already_there_is_skipped(
    knowledge_copy: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A document id is taken once per language: importing it would stop the index build, so it is not copied."""
    copy = tmp_path / "quiz-copy.en.md"
    shutil.copyfile(KNOWLEDGE / "eks-training-quiz.en.md", copy)
    code, report = import_json(knowledge_copy, capsys, copy)
    assert code == 1
    entry = by_target(report)[copy.name]
    assert entry["status"] == "skipped" and "already has a 'en' edition" in entry["reason"]
    assert not (knowledge_copy / copy.name).exists()
    load_knowledge(knowledge_copy)  # still loads


def test_a_broken_quiz_file_is_skipped_with_its_line(knowledge_copy: Path, capsys: pytest.CaptureFixture[str],
                                                      tmp_path: Path) -> None:
    quiz = (KNOWLEDGE / "eks-training-quiz.en.md").read_text(encoding="utf-8")
    broken = tmp_path / "other-quiz.en.md"
    broken.write_text(quiz.replace("id: eks-training-quiz", "id: other-quiz").replace("Answer: B", "Answer: Z", 1),
                      encoding="utf-8")
    code, report = import_json(knowledge_copy, capsys, broken)
    assert code == 1
    reason = by_target(report)[broken.name]["reason"]
    assert reason.startswith("line ") and "'Z'" in reason


@pytest.mark.parametrize("where", ["inside", "parent", "missing"])
def test_paths_that_cannot_be_imported_are_bad_input(
    knowledge_copy: Path, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    path = {"inside": knowledge_copy, "parent": knowledge_copy.parent, "missing": knowledge_copy / "nope"}[where]
    code, out, err = run([*dirs(knowledge_copy, knowledge_copy.parent / "index"), "knowledge", "import", str(path)],
                         capsys)
    assert (code, out) == (2, "")
    assert err.startswith(f"eksbot: {path}") and len(err.splitlines()) == 1


def test_a_sources_file_gives_its_folder_urls(knowledge_copy: Path, capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path) -> None:
    team = tmp_path / "wiki"
    team.mkdir()
    (team / "on-call.md").write_text("# On-call\n\nPage the ML platform team.\n", encoding="utf-8")
    (team / "sources.yaml").write_text("on-call.md: https://wiki.example.com/on-call\n", encoding="utf-8")
    code, report = import_json(knowledge_copy, capsys, team)
    assert code == 0
    files = by_target(report)
    assert files["wiki/sources.yaml"]["status"] == "imported" and files["wiki/sources.yaml"]["kind"] == "sources"
    assert files["wiki/on-call.md"]["url"] == "https://wiki.example.com/on-call"
    assert (knowledge_copy / "wiki" / "sources.yaml").is_file()

    (team / "sources.yaml").write_text("- not a mapping\n", encoding="utf-8")
    code, report = import_json(knowledge_copy, capsys, "--force", team / "sources.yaml")
    assert code == 1 and by_target(report)["sources.yaml"]["status"] == "skipped"
    assert not (knowledge_copy / "sources.yaml").exists()


def test_a_link_that_leaves_the_imported_folder_is_refused_and_named(
    knowledge_copy: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A folder from someone else may hold links to anything on the importer's machine: a link (to a file or
    a folder) whose target is outside the folder is skipped with the reason, and nothing of it is copied. A
    link to a file inside the folder is read as that file; the rest is imported."""
    secret = "hunter2-outside-the-folder"
    outside = tmp_path / "home"
    (outside / "secrets").mkdir(parents=True)
    (outside / "credentials.md").write_text(f"# Credentials\n\nThe password is {secret}.\n", encoding="utf-8")
    (outside / "secrets" / "tokens.md").write_text(f"# Tokens\n\n{secret}\n", encoding="utf-8")
    team = tmp_path / "team"
    (team / "guides").mkdir(parents=True)
    (team / "on-call.md").write_text("# On-call\n\nPage the ML platform team.\n", encoding="utf-8")
    (team / "guides" / "quotas.md").write_text("# Quotas\n\nAsk for 64 GPUs.\n", encoding="utf-8")
    (team / "credentials.md").symlink_to(outside / "credentials.md")
    (team / "guides" / "secrets").symlink_to(outside / "secrets", target_is_directory=True)
    (team / "guides" / "escape.md").symlink_to(Path("..") / ".." / "home" / "credentials.md")  # relative
    (team / "quotas-link.md").symlink_to(Path("guides") / "quotas.md")  # stays inside: fine

    code, out, err = run([*dirs(knowledge_copy, tmp_path / "index"), "knowledge", "import", str(team)], capsys)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    for link in (team / "credentials.md", team / "guides" / "secrets", team / "guides" / "escape.md"):
        assert f"skipped {link}: a link that leaves the imported folder" in lines
    assert 'imported team/on-call.md: "On-call" (doc, en, 1 section)' in lines
    assert 'imported team/quotas-link.md: "Quotas" (doc, en, 1 section)' in lines
    copied = sorted(p.relative_to(knowledge_copy / "team").as_posix() for p in (knowledge_copy / "team").rglob("*")
                    if p.is_file())
    assert copied == ["guides/quotas.md", "on-call.md", "quotas-link.md"]
    assert not any(secret in p.read_text(encoding="utf-8") for p in knowledge_copy.rglob("*.md"))
    assert "3 skipped" in lines[-2]


def test_a_file_larger_than_a_document_may_be_is_skipped_unread(
    knowledge_copy: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A file over MAX_DOCUMENT_BYTES is named with its size and never opened (not even to stage a copy of
    it), however large it is; the rest of the folder is imported."""
    team = tmp_path / "team"
    team.mkdir()
    (team / "on-call.md").write_text("# On-call\n\nPage the ML platform team.\n", encoding="utf-8")
    huge = team / "dump.md"
    with huge.open("w", encoding="utf-8") as handle:
        handle.write("# Dump\n\n")
        handle.truncate(MAX_DOCUMENT_BYTES + 1)  # sparse: as large as it says, without writing it
    opened: list[str] = []
    watching.append(lambda path: opened.append(path) if Path(path) == huge else None)
    try:
        code, report = import_json(knowledge_copy, capsys, team)
    finally:
        watching.clear()
    files = by_target(report)
    assert code == 0 and files["team/on-call.md"]["status"] == "imported"
    assert files["team/dump.md"]["status"] == "skipped"
    assert files["team/dump.md"]["reason"] == (f"larger than {MAX_DOCUMENT_BYTES / 2**20:g} MiB: split it into "
                                               f"smaller documents ({MAX_DOCUMENT_BYTES + 1:,} bytes)")
    assert opened == []
    assert not (knowledge_copy / "team" / "dump.md").exists()


# Who opens which file (the interpreter's audit hook: every open, whatever opens it). A hook cannot be removed,
# so one is added, once, and calls what the test running puts here.
watching: list[Callable[[str], object]] = []


def _audit(event: str, args: tuple[object, ...]) -> None:
    if event == "open" and watching and isinstance(args[0], str | Path):
        for watch in watching:
            watch(str(args[0]))


sys.addaudithook(_audit)


# -- who makes a change --------------------------------------------------------------------------------------


@pytest.mark.parametrize("by", ["api-token", "TOKEN:9f86d081", " token : anything", "ｔｏｋｅｎ：x", "\u200btoken:x"])
def test_a_change_cannot_be_recorded_as_made_with_an_api_token(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, by: str
) -> None:
    """The HTTP API records a change made with an API token as `token:` and a digest of the token; on the
    command line a person says who they are, and `--by` that reads as a token's label is refused as bad input
    (exit code 2, one line), before anything is recorded."""
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'eksbot.db'}")
    monkeypatch.setenv("EKSBOT_KNOWLEDGE_DIR", str(KNOWLEDGE))
    entry = tmp_path / "quota.md"
    entry.write_text("# GPU quota\n\nThe research team has a quota of 64 GPUs.\n", encoding="utf-8")
    if by == "api-token":
        by = token_label(ApiToken("the-token-of-a-ci-job"))
        assert by.startswith("token:")
    code, out, err = run(["knowledge", "add", str(entry), "--by", by], capsys)
    assert (code, out) == (2, "")
    assert err.startswith("eksbot: --by cannot name an API token") and err.count("\n") == 1, err
    code, out, _ = run(["knowledge", "list", "--json"], capsys)
    assert (code, out) == (0, "")  # nothing was added

    code, out, err = run(["knowledge", "add", str(entry), "--by", "ana (token: rotated)"], capsys)
    assert (code, err) == (0, "") and out.startswith("added entry ")
