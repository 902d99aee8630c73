"""`eksbot` subcommands. Errors become one line on stderr and an exit code (2: bad input, 1: other)."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from bot.cli.common import services_from_args, settings_from_args
from bot.cli.progress import shown
from bot.cli.texts import report_console
from bot.errors import EksBotError, InputError, KnowledgeError, StorageError, UnknownTopicError
from bot.lang import LANGUAGES

if TYPE_CHECKING:
    from bot.answering.assistant import Assistant
    from bot.services import CommandServices


def _answering(services: CommandServices) -> Assistant:
    """The assistant over the entries and notes kept in the database too, as a server answers with them; over the
    files alone when there is no database yet or it cannot be read now (said on stderr)."""
    assistant = services.assistant
    try:
        return services.answering()
    except EksBotError as exc:
        print(f"eksbot: answering from the knowledge files only: {exc}", file=sys.stderr)
        return assistant


def cmd_index_build(args: argparse.Namespace) -> int:
    from bot.embedding.backends import load_embedder
    from bot.knowledge import load_knowledge
    from bot.retrieval.artifacts import build_index
    from bot.services import CommandServices

    settings = settings_from_args(args)
    knowledge = load_knowledge(settings.knowledge_dir)  # a malformed file stops it before the model loads
    # Makes the ONNX export first when it is missing or stale (an explicit build always may).
    embedder = load_embedder(settings.model_copy(update={"auto_rebuild": True}))
    # The vectors some build embedded before are read from the database, and those embedded here kept there.
    with CommandServices(settings) as services, shown() as progress:
        manifest = build_index(knowledge, settings.index_dir, embedder, progress=progress,
                               shared=services.shared_vectors())
    print(
        f"index built in {manifest.build_seconds:.2f} s: {manifest.chunks} chunks, {manifest.sentences} sentences, "
        f"model {manifest.model_id} ({manifest.dimension} dims) on {manifest.backend} -> {settings.index_dir}"
    )
    return 0


def cmd_index_check(args: argparse.Namespace) -> int:
    from bot.embedding.backends import configured_model_id, export_problem
    from bot.knowledge import load_knowledge
    from bot.retrieval.artifacts import Manifest, stale_reason

    settings = settings_from_args(args)
    kb = load_knowledge(settings.knowledge_dir)  # a malformed quiz file stops it with its file and line
    skipped = f", {len(kb.skipped)} skipped" if kb.skipped else ""
    print(f"knowledge ok: {_count(len(kb.documents), 'document')} in {settings.knowledge_dir}{skipped}")
    for doc in kb.documents:
        print(f"  {doc.path}: {doc.kind}, {doc.lang}, "
              f"{_count(len(doc.questions), 'question' if doc.kind == 'quiz' else 'section')}")
    for file in kb.skipped:  # reported, not fatal: the rest of the knowledge serves
        print(f"skipped {file.path}: {file.reason}")
    try:
        manifest = Manifest.read(settings.index_dir)
    except EksBotError as exc:
        print(str(exc))
        return 1
    reason = stale_reason(manifest, kb, configured_model_id(settings),
                          backend=settings.embedding_backend) or export_problem(settings)
    state = "up to date" if reason is None else f"STALE: {reason}"
    print(f"index built {manifest.built_at} with {manifest.model_id} on {manifest.backend}: {state}")
    return 0 if reason is None else 1


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' * (n != 1)}"


def cmd_ask(args: argparse.Namespace) -> int:
    from bot.cli.render import render_answer
    from bot.cli.texts import json_line

    question = " ".join(args.question)
    with services_from_args(args, migrate=False) as services:  # the database is only read
        answer = _answering(services).answer(question, args.lang)
    if args.json:
        print(json_line(answer.to_dict()))
    else:
        render_answer(Console(), answer)
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    from bot.cli.render import render_conversation_eval, render_document_eval, render_eval
    from bot.evaluation.conversations import (
        evaluate_conversations,
        is_conversation_file,
        read_conversations,
        summarize_conversations,
    )
    from bot.evaluation.documents import (
        evaluate_documents,
        is_document_set,
        read_document_questions,
        summarize_documents,
    )
    from bot.evaluation.queries import evaluate, read_queries, summarize

    path = Path(args.file)
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    if is_document_set(path):  # questions about documents: per source
        questions = read_document_questions(path)
        found = evaluate_documents(_assistant(args), questions)
        _report(args, found, summarize_documents(found), render_document_eval)
        return 0
    if is_conversation_file(path):  # the last turns, read with the earlier ones and alone
        conversations = read_conversations(path)
        turns = list(evaluate_conversations(_assistant(args), conversations))
        _report(args, turns, summarize_conversations(turns), render_conversation_eval)
        return 0
    queries = read_queries(path)
    results = list(evaluate(_assistant(args), queries))
    _report(args, results, summarize(results), render_eval)
    return 0


def _assistant(args: argparse.Namespace) -> Assistant:
    """The assistant over the knowledge files and the index (what the evaluation sets measure)."""
    with services_from_args(args) as services:
        return services.assistant


def _report(args: argparse.Namespace, results: Sequence[Any], summary: dict[str, object],
            render: Callable[[Console, Any, dict[str, object]], None]) -> None:
    """One JSON line per result and a summary line (`--json`), or tables."""
    if args.json:
        from bot.cli.texts import json_line

        for result in results:
            print(json_line(result.to_dict()))
        print(json_line({"summary": summary}))
    else:
        render(report_console(), results, summary)


def cmd_calibrate(args: argparse.Namespace) -> int:
    """Fit the answerability model on labelled files; print cross-validated figures; write the model."""
    from bot.answering.answerability import MODEL_FILE, Model
    from bot.answering.assistant import Assistant
    from bot.answering.exemplars import exemplars_beside
    from bot.evaluation import calibration

    settings = settings_from_args(args)
    l2 = calibration.L2 if args.l2 is None else args.l2
    page_l2 = calibration.PAGE_L2 if args.page_l2 is None else args.page_l2
    if l2 <= 0 or page_l2 <= 0:
        raise InputError("--l2 and --page-l2 must be above 0")
    base = Assistant.from_settings(settings, model=Model.untrained())
    asked, groups = calibration.fit_lines(base, settings.knowledge_dir, [Path(f) for f in args.files],
                                          [Path(d) for d in args.docs])
    queries = [a.query for a in asked]
    # Each author, and each page, judged by a model fitted on the others: the figures of a writer never seen.
    by_group = calibration.cross_validate_by_group(asked, groups, l2=l2, page_l2=page_l2)
    unseen = calibration.unseen(by_group)
    if args.by_file:
        print(json.dumps({**by_group, "unseen": unseen}, ensure_ascii=False, indent=1))
        return 0
    data = calibration.examples_of(asked)
    report = calibration.cross_validate(data, l2=l2, page_l2=page_l2)
    model = calibration.fit(data, l2=l2, page_l2=page_l2, about={"files": [_fitted_name(Path(f)) for f in args.files],
                                         "cross_validation": report, "left_one_out": unseen})
    out = Path(args.out) if args.out else MODEL_FILE
    model.write(out)
    if data.exemplars is not None:
        data.exemplars.write(exemplars_beside(out))
    print(json.dumps(report, ensure_ascii=False, indent=1))
    for kind, figures in unseen.items():  # the figure a choice of feature, rule or threshold is judged by
        for label, value in figures.items():
            if isinstance(value, dict):
                print(f"left one of {figures['groups']} {kind} out: {label} worst {value['worst']:.3f} "
                      f"({value['worst_group']}), mean {value['mean']:.3f}")
    for name, weight in calibration.describe(model):
        print(f"{name:22s} {weight:+.3f}")
    print(f"model written to {out} and its exemplars to {exemplars_beside(out)} ({len(queries)} questions, "
          f"{int(data.y.sum())} answerable)")
    return 0


def _fitted_name(path: Path) -> str:
    """A fitted file as the model names it: its path under the working directory ("tests/docs/holdout-c/
    questions.jsonl", where several files share a name), else its name alone (no path of the machine it was
    fitted on)."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.name


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="eksbot", description="The EKS training assistant.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    parser.add_argument("--knowledge-dir", dest="knowledge_dir", help="knowledge directory (EKSBOT_KNOWLEDGE_DIR)")
    parser.add_argument("--index-dir", dest="index_dir", help="index directory (EKSBOT_INDEX_DIR)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", help="what to do")

    index = sub.add_parser("index", help="build or check the search index").add_subparsers(
        dest="action", required=True, metavar="ACTION", help="build or check")
    index.add_parser("build", help="build the index from the knowledge").set_defaults(func=cmd_index_build)
    index.add_parser("check", help="validate the knowledge (each document read, each file skipped and why) and tell "
                                   "whether the index is up to date").set_defaults(func=cmd_index_check)

    ask = sub.add_parser("ask", help="answer a question from the knowledge")
    ask.add_argument("question", nargs="+", help="the question, in Spanish or English (quotes optional)")
    ask.add_argument("--json", action="store_true", help="print one JSON object")
    ask.add_argument("--lang", choices=LANGUAGES, help="answer in this language (default: detected)")
    ask.set_defaults(func=cmd_ask)

    ev = sub.add_parser("eval", help="measure retrieval on a JSONL file of queries (or of conversations)")
    ev.add_argument("file", help="JSONL file of labelled queries ({q, lang, expect}) or conversations ({turns, "
                                 "lang, expect}), one a line")
    ev.add_argument("--json", action="store_true", help="one JSON line per query, then a summary line")
    ev.set_defaults(func=cmd_eval)

    cal = sub.add_parser("calibrate", help="fit the answerability model on labelled JSONL files")
    cal.add_argument("files", nargs="+", help="JSONL files of labelled questions (the same shape as for eval)")
    cal.add_argument("--out", help="where to write the model (default: the bundled bot/data/answerability.json); "
                                   "its exemplars go beside it (NAME-exemplars.npz)")
    cal.add_argument("--docs", action="append", default=[], metavar="FOLDER",
                     help="a folder of documents the document questions are about (repeatable): retrieved over the "
                          "knowledge with these beside it, each under its own name")
    cal.add_argument("--by-file", action="store_true",
                     help="write no model: judge each file's lines with a model fitted on the other files (each "
                          "file one author or way of writing) and print the figures per file")
    cal.add_argument("--l2", type=float,
                     help="the quiz's regularisation (default: the one chosen by leaving one author out, "
                          "docs/quality.md); with --by-file, to compare choices")
    cal.add_argument("--page-l2", type=float,
                     help="the regularisation of the pages' own features (default: the one chosen by leaving one "
                          "page out)")
    cal.set_defaults(func=cmd_calibrate)

    for register in _extensions():
        register(sub)
    return parser


def version() -> str:
    """The installed package's version (its metadata), else the source tree's."""
    try:
        return metadata.version("eksbot")
    except metadata.PackageNotFoundError:
        from bot import __version__

        return __version__


def _extensions() -> list[Callable[[argparse._SubParsersAction], None]]:
    """Subcommands of other surfaces (server, quiz, Slack) and tools (database, gaps, knowledge), each in its
    own module."""
    from bot.cli import db, gaps, knowledge, quiz, serve, slack

    return [serve.register, slack.register, quiz.register, db.register, gaps.register, knowledge.register]


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    try:
        return int(args.func(args))
    except KnowledgeError as exc:
        print(f"eksbot: invalid knowledge: {exc}", file=sys.stderr)
        return 2
    except (InputError, UnknownTopicError) as exc:
        print(f"eksbot: {exc}", file=sys.stderr)
        return 2
    except StorageError as exc:
        print(f"eksbot: database error: {exc.detail}", file=sys.stderr)
        return 1
    except EksBotError as exc:
        print(f"eksbot: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
