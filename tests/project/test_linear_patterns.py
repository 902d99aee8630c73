"""Every regular expression that reads text someone else wrote (a knowledge document, an entry, a note, a
question) takes time in proportion to the text: a line of ~10 KB built to make a pattern backtrack (its own
characters repeated, the classic shapes of catastrophic backtracking) is read within a fixed bound, with every
way the code applies a pattern (a findall reads the whole line as a search, a sub or a split would; a fullmatch
backtracks the most from the start). The patterns are collected from the modules, so a
new one is covered as soon as it is written. The Markdown reader gets the lines that froze it before, whole."""

from __future__ import annotations

import gc
import importlib
import itertools
import pkgutil
import re
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any

import pytest

from bot.errors import KnowledgeError
from bot.knowledge.markdown import parse_markdown
from bot.knowledge.parser import parse_text
from bot.reading import markup
from bot.reading.questions import question_parts, read_definition
from bot.reading.references import find_reference
from bot.reading.rules import (
    addition,
    comparison,
    continuation,
    is_clitic,
    names_a_quiz_question,
    part_opening,
    segment_break,
    superlative_adjectives,
)

# The packages whose code reads knowledge files, entries, notes or questions: the core, and the surfaces that
# read what people send (Slack messages added to the knowledge, HTTP bodies, imported folders).
READERS = ("bot.knowledge", "bot.text", "bot.reading", "bot.retrieval", "bot.answering", "bot.curation", "bot.quiz",
           "bot.cli", "bot.slack", "bot.api")
# Patterns applied only to files the project ships (bot/data/), never to text from anyone else; each with why.
OWN_DATA_ONLY: dict[str, str] = {}
SIZE = 10_000  # characters of each adversarial line
# CPU seconds one call may take on SIZE characters. A linear pattern takes a few milliseconds; one that
# backtracks in the square of the line (or worse) takes far longer. The CPU time of the thread that calls, not
# wall time: other work on a shared machine, or other threads of the tests, do not count against the pattern.
BOUND = 0.1


class TooSlow(Exception):
    pass


def _raise_too_slow(signum: int, frame: FrameType | None) -> None:
    raise TooSlow


def cpu_time(call: Callable[[], object]) -> float:
    """The CPU seconds `call` takes, or infinity once the process has spent ten times the bound on it (the
    regular expression engine checks for signals as it goes, so a call that would never return is stopped)."""
    collecting = gc.isenabled()
    gc.disable()  # a full pass of the cycle collector over the suite's objects is not the pattern's time
    previous = signal.signal(signal.SIGVTALRM, _raise_too_slow)
    signal.setitimer(signal.ITIMER_VIRTUAL, 10 * BOUND)
    start = time.thread_time()
    try:
        call()
        return time.thread_time() - start
    except TooSlow:
        return float("inf")
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, previous)
        if collecting:
            gc.enable()


def _modules() -> Iterator[ModuleType]:
    for name in READERS:
        module = importlib.import_module(name)
        yield module
        for info in pkgutil.walk_packages(getattr(module, "__path__", []), f"{name}."):
            yield importlib.import_module(info.name)


def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    """Every compiled pattern of the readers, once (under the name of the module that defines it)."""
    found: dict[re.Pattern[str], str] = {}
    for module in _modules():
        for attribute, value in vars(module).items():
            name = f"{module.__name__}.{attribute}"
            if (isinstance(value, re.Pattern) and isinstance(value.pattern, str) and name not in OWN_DATA_ONLY
                    and (value not in found or not _defined_in(found[value], value))):
                found[value] = name
    return sorted((name, pattern) for pattern, name in found.items())


def _defined_in(name: str, pattern: re.Pattern[str]) -> bool:
    """Whether the module of `name` compiles `pattern` itself (rather than importing it)."""
    module = importlib.import_module(name.rsplit(".", 1)[0])
    source = Path(str(module.__file__)).read_text(encoding="utf-8")
    return f"{name.rsplit('.', 1)[1]} = re.compile(" in source


PATTERNS = _patterns()

# The shapes that make a backtracking engine take super-linear time, each about SIZE characters long and most
# ending in a character that makes the match fail as late as it can.
CLASSIC = (
    "<a " + "{}" * (SIZE // 2) + "<",  # a component line with nested repetition
    "<x header={" + " " * SIZE + "x",  # a lazy header between runs of spaces
    "{{< " * (SIZE // 4), "{{<a" + " " * SIZE + "x", "{{<a " * (SIZE // 5) + ">}", "{{%a " * (SIZE // 5) + "}}",
    ":::x y" + " " * SIZE + "z",  # an admonition's title before trailing spaces
    "# x" + " " * SIZE + "y", "## " + " " * SIZE, "## 1. " + " " * SIZE, "- A) " + " " * SIZE,
    "```" + " " * SIZE + "x", "|---" + " " * SIZE + "x", "|" + "---|" * (SIZE // 4) + " x",
    "a" + " " * SIZE + "x", "x y" + " " * SIZE + "z", " " * SIZE + "x", "\t" * SIZE + "x", " " * SIZE,
    "a" * SIZE + "!", "a " * (SIZE // 2) + "!", "aA" * (SIZE // 2) + "!", "a" * SIZE + "A",
    "**" * (SIZE // 2) + "a", "*a" * (SIZE // 2), "_a" * (SIZE // 2), "`" * SIZE + "a", "```" * (SIZE // 3),
    "{" * (SIZE // 2) + "}" * (SIZE // 2), "{" * SIZE, "}" * SIZE, "<" * SIZE, ">" * SIZE, "<h1" * (SIZE // 3),
    "[" * SIZE, "(" * SIZE, "((" + "a" * SIZE + ")", "- " * (SIZE // 2), "1." * (SIZE // 2), "a," * (SIZE // 2),
    "a." * (SIZE // 2), "a:" * (SIZE // 2), "¿" * SIZE, "¿ " * (SIZE // 2), "a\n" * (SIZE // 2), "\n" * SIZE,
    "what is " + "a " * (SIZE // 2) + "?x", "what does a" + " " * SIZE + "x", "qué es" + " " * SIZE + "x",
    "a what is it" + " " * SIZE + "x", "a , " * (SIZE // 4) + "x", "the " * (SIZE // 4) + "x one",
    "$ " * (SIZE // 2), "<@U" + "A" * SIZE, "https://" + "a" * SIZE, "x" + "  x" * (SIZE // 3),
    "    " + "(" * SIZE, "title=" * (SIZE // 6), '"' * SIZE, "'" * SIZE, "0" * SIZE + "x", "0/" * (SIZE // 2),
    "a" * SIZE + ".b", "\\" * SIZE, "#" * SIZE + " x", "Traceback " * (SIZE // 10), ":a" * (SIZE // 2),
)


def _literals(source: str) -> list[str]:
    """The runs of literal characters of a pattern's source (`header={`, `{{<`, `title`), roughly."""
    runs, run, i = [], "", 0
    while i < len(source):
        char = source[i]
        if char == "\\" and i + 1 < len(source):
            escaped = source[i + 1]
            if escaped.isalnum():  # \s, \d, \b, \1…: no literal
                runs.append(run)
                run = ""
            else:
                run += escaped
            i += 2
            continue
        if char == "[":
            runs.append(run)
            run = ""
            i = source.find("]", i + 2) + 1 or len(source)
            continue
        if char in "().^$*+?{}|":
            runs.append(run)
            run = ""
        else:
            run += char
        i += 1
    runs.append(run)
    return sorted({r for r in runs if r.strip()})


_PARSER: Any = importlib.import_module("re._parser")  # the standard library's parser of patterns
_CATEGORY_SAMPLES = {"CATEGORY_DIGIT": "1", "CATEGORY_SPACE": " ", "CATEGORY_WORD": "a", "CATEGORY_NOT_DIGIT": "a",
                     "CATEGORY_NOT_SPACE": "a", "CATEGORY_NOT_WORD": " "}


def sample(pattern: re.Pattern[str]) -> str:
    """A short text the pattern (roughly) matches: every repetition once, the first branch of every choice."""
    return _sample(_PARSER.parse(pattern.pattern, pattern.flags))


def _sample(items: Any) -> str:
    out = []
    for op, arg in items:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(arg))
        elif name == "NOT_LITERAL":
            out.append("a" if arg != ord("a") else "b")
        elif name == "ANY":
            out.append("a")
        elif name == "IN":
            out.append(_one_of(arg))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, _high, inner = arg
            out.append(_sample(inner) * max(low, 1))
        elif name == "SUBPATTERN":
            out.append(_sample(arg[-1]))
        elif name == "ATOMIC_GROUP":
            out.append(_sample(arg))
        elif name == "BRANCH":
            out.append(_sample(arg[1][0]))
        elif name == "CATEGORY":
            out.append(_CATEGORY_SAMPLES.get(str(arg), "a"))
    return "".join(out)


def _one_of(items: Any) -> str:
    """A character of a class (`[A-Z0-9]`: "A"; `[^|>]`: one that is not excluded)."""
    if items and str(items[0][0]) == "NEGATE":
        excluded = _sample([item for item in items[1:] if str(item[0]) != "RANGE"])
        return next(c for c in "ab1 -" if c not in excluded)
    op, arg = items[0]
    if str(op) == "RANGE":
        return chr(arg[0])
    return _sample([(op, arg)])


def adversarial(pattern: re.Pattern[str]) -> Iterator[str]:
    """Lines made to make `pattern` backtrack: the classic shapes; every beginning of a text it matches,
    repeated (`<@U1|` many times, never closed); its own characters and literal runs repeated, alone and after
    each literal run; each with a tail that fails."""
    yield from CLASSIC
    matched = sample(pattern)
    for end in range(1, len(matched) + 1):
        yield matched[:end] * (SIZE // end) + "\x00"
    chars = sorted({c for c in pattern.pattern if c.isprintable()} | {" ", "a", "A", "1", "\t"})
    for char in chars:
        yield char * SIZE + "\x00"
        yield (char + " ") * (SIZE // 2) + "\x00"
        yield (char + "a") * (SIZE // 2) + "\x00"
    written = set(matched).union(*_literals(pattern.pattern))  # what the pattern itself writes, not its syntax
    punctuation = [c for c in chars if c in written and not c.isalnum() and not c.isspace()]
    for a, b in itertools.permutations(punctuation, 2):
        yield (a + b) * (SIZE // 2) + "\x00"
    for literal in _literals(pattern.pattern):
        yield literal * (SIZE // len(literal)) + "\x00"
        for filler in (" ", "a", "a ", "x y" + " " * SIZE):
            yield literal + filler * (SIZE // len(filler)) + "\x00"


def slowest(pattern: re.Pattern[str]) -> tuple[float, str, str]:
    """The slowest call of `pattern` on its adversarial lines: (CPU seconds, how it was applied, the line)."""
    worst = (0.0, "", "")
    for text in dict.fromkeys(adversarial(pattern)):
        for how in ("findall", "fullmatch"):
            method = getattr(pattern, how)
            seconds = cpu_time(lambda: method(text))  # noqa: B023 - called at once
            if seconds > worst[0]:
                worst = (seconds, how, text)
            if seconds > BOUND:
                return worst
    return worst


def shown(text: str) -> str:
    return f"{text[:30]!r}… ({len(text):,} characters)"


def test_the_patterns_of_the_readers_are_collected() -> None:
    names = [name for name, _ in PATTERNS]
    assert len(names) > 40
    for prefix in ("bot.knowledge.markdown.", "bot.knowledge.parser.", "bot.reading.markup.", "bot.reading.terms.",
                   "bot.cli.knowledge.", "bot.slack.blocks.", "bot.text.control."):
        assert any(name.startswith(prefix) for name in names), prefix


@pytest.mark.parametrize(("name", "pattern"), PATTERNS, ids=[name for name, _ in PATTERNS])
def test_a_pattern_reads_adversarial_lines_in_linear_time(name: str, pattern: re.Pattern[str]) -> None:
    seconds, how, text = slowest(pattern)
    assert seconds <= BOUND, f"{name}.{how} took {seconds:.2f} s of CPU (bound {BOUND} s) on {shown(text)}"


# -- the rules of bot/data/rules, through the code that applies them to a question ------------------------

QUESTIONS = (
    *CLASSIC,
    "what does " + "a " * (SIZE // 2) + "x", "what does a" + " " * SIZE + "do x", "¿qué es" + " " * SIZE + "x?",
    "a" + " " * SIZE + "what is it x", "x , " * (SIZE // 4) + "what is it", "what is a" + " exactly" * (SIZE // 8),
    "question " * (SIZE // 9) + "x", "the " + "a " * (SIZE // 2) + "x one", "la de " + "a " * (SIZE // 2) + "x",
    "the " + "a." * (SIZE // 2) + " question", "Q" * SIZE + "1", "la " * (SIZE // 3) + "pregunta",
    "?" * SIZE + " x", "a? " * (SIZE // 3) + "x", "? " + " " * SIZE + "x", "and " * (SIZE // 4) + "x?",
    "and also " * (SIZE // 9) + "x", "y, " * (SIZE // 3) + "x", "x and how " * (SIZE // 10) + "x?",
    "y cómo " * (SIZE // 7) + "x", "a. " * (SIZE // 3) + "and how x?",
)
# Messages of many lines, as an e-mail's envelope is read in them (`markup.without_envelope`): many closings before
# one line that asks, many headers, a signature of many lines, many subjects and notices.
MESSAGES = (
    "Thanks,\n" * (SIZE // 8) + "x?", "From: a\n" * (SIZE // 8) + "x", "Gracias.\n" + "a\n" * (SIZE // 2),
    "Re: " * (SIZE // 4) + "\nx", "Subject: Fwd:" * (SIZE // 13) + "\nx", "Thanks, a. Thanks,\n" * (SIZE // 20) + "x?",
    "CONFIDENTIALITY NOTICE\n" * (SIZE // 24) + "x?", "x." + " " * SIZE + "thanks\na",
)
RULE_READERS: dict[str, Callable[[str], Any]] = {
    "read_definition": read_definition,
    "find_reference en": lambda text: find_reference(text, "en"),
    "find_reference es": lambda text: find_reference(text, "es"),
    "segment_break": lambda text: list(segment_break().finditer(text)),
    "part_opening": lambda text: part_opening().sub("", text),
    "question_parts": question_parts,
    "comparison": lambda text: comparison().search(text),
    "continuation": lambda text: continuation().match(text),
    "addition": lambda text: addition().search(text),
    "is_clitic": is_clitic,  # on a word
    "names_a_quiz_question": names_a_quiz_question,  # on a word
    "superlative_adjectives": superlative_adjectives,  # on a word
}


@pytest.mark.parametrize("reader", sorted(RULE_READERS))
def test_the_rules_read_an_adversarial_question_in_linear_time(reader: str) -> None:
    read = RULE_READERS[reader]
    read("what is it?")  # the rules are read from their files once, before any is timed
    for text in (*QUESTIONS, *(t.replace(" ", "") for t in QUESTIONS[-12:])):
        seconds = cpu_time(lambda: read(text))  # noqa: B023 - called at once
        assert seconds <= BOUND, f"{reader} took {seconds:.2f} s of CPU (bound {BOUND} s) on {shown(text)}"


@pytest.mark.parametrize("read", [markup.clean_question, markup.reading_text, markup.own_text,
                                  markup.context_spans, markup.fence_pasted_lines])
def test_a_question_is_cleaned_in_linear_time(read: Callable[[str], object]) -> None:
    read("warm up")
    for text in (*QUESTIONS, *MESSAGES):
        seconds = cpu_time(lambda: read(text))  # noqa: B023 - called at once
        assert seconds <= BOUND, f"{read.__name__} took {seconds:.2f} s of CPU on {shown(text)}"


# -- the lines that froze the Markdown reader ---------------------------------------------------------------

CHART = "<Chart data={[" + ", ".join(f"{{x: {i}, y: {i * 2}}}" for i in range(16)) + "]} />"
# A line that is not a component (it ends in `<`), a header never closed and shortcodes never closed: each is
# read as the text it is.
FROZE = {
    "component": ("<a " + "{}" * 42 + "<", "<a " + "{}" * 42 + "<"),
    "long component": ("<a " + "{}" * (SIZE // 2) + "<", "<a " + "{}" * (SIZE // 2) + "<"),
    "header": ("<x header={" + " " * 2_500 + "x", "<x header={ x"),
    "long header": ("<x header={" + " " * SIZE + "x", "<x header={ x"),
    "shortcodes": ("{{< " * (SIZE // 4), ("{{< " * (SIZE // 4)).strip()),
    "shortcode": ("{{<a" + " " * SIZE + "x", "{{<a x"),
    "admonition": (":::note Read this" + " " * SIZE + "now\n:::", "Read this now"),  # a box with no text: its title
}


@pytest.mark.parametrize("case", sorted(FROZE))
def test_a_line_that_froze_the_markdown_reader_is_read_at_once_as_its_text(case: str) -> None:
    line, text = FROZE[case]
    document = f"# Hostile\n\nBefore.\n\n{line}\n\n{CHART}\n\nAfter.\n"
    parsed: list[Any] = []
    seconds = cpu_time(lambda: parsed.append(parse_markdown(document, Path("hostile.mdx"), doc_id="hostile",
                                                            source="hostile.mdx")))
    assert seconds <= BOUND, f"{case}: {seconds:.2f} s of CPU"
    blocks = [block.text for question in parsed[0].questions for block in question.blocks]
    assert blocks == ["Before.", text, "After."]  # the chart is a component: structure, no text


def test_a_component_header_and_shortcodes_read_as_before() -> None:
    document = "\n".join([
        "# Guide", "", '<CollapsibleContent header={<h3><span>Setup</span></h3>}>', "", "Install it.", "",
        "</CollapsibleContent>", "", '{{< tab title="Linux" >}}Run `make`.{{< /tab >}}', "",
        '<Tabs groupId="os" values={[{label: "<b>Linux</b>", value: "linux"}]}>', "", ":::tip Be quick  ", "",
        "Done.",
    ])
    parsed = parse_markdown(document, Path("guide.mdx"), doc_id="guide", source="guide.mdx")
    assert [(q.path, [b.text for b in q.blocks]) for q in parsed.questions] == [
        (("Guide", "Setup"), ["Install it.", "Linux: Run `make`.", "Be quick: Done."]),  # a box's title, then its text
    ]


def test_a_quiz_file_with_runs_of_spaces_is_read_at_once() -> None:
    heading = "## 1. " + " " * SIZE
    table = "|---" + " " * SIZE + "x | c"
    fence = "```" + " " * SIZE + "!"
    text = (f"---\nid: q\nlang: en\ntitle: T\nkind: doc\n---\n\n{heading}\n\n## 2. Second\n\n"
            f"| a | b |\n{table} |\n\n{fence}\n")
    seconds = cpu_time(lambda: parse_text(text, Path("q.en.md")))
    assert seconds <= BOUND


@pytest.mark.parametrize("opener", ['```js title="train.js"', "```` four backticks", "``` !"])
def test_a_line_that_opens_with_backticks_never_stalls_the_knowledge_format(opener: str) -> None:
    """A fence with more than its language after the backticks (as Docusaurus pages write them) is a fence
    of that language; a line of backticks that opens no fence is text. Neither stops the reading."""
    text = (f"---\nid: q\nlang: en\ntitle: T\nkind: doc\n---\n\n## 1. One\n\nText.\n\n{opener}\nrun()\n```\n\n"
            "## 2. Two\n\nMore.\n")
    read: list[Any] = []

    def parse() -> None:
        try:
            read.append(parse_text(text, Path("q.en.md")))
        except KnowledgeError as exc:
            read.append(exc)

    assert cpu_time(parse) <= BOUND
    if opener.startswith("```js"):
        assert [[(b.kind, b.text, b.lang) for b in q.blocks] for q in read[0].questions] == [
            [("text", "Text.", None), ("code", "run()", "js")], [("text", "More.", None)]]
    else:  # the closing ``` opens a block that is never closed: refused with its line
        assert isinstance(read[0], KnowledgeError) and read[0].line == 14
