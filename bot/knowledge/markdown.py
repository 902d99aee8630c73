"""Read any Markdown document as it is: a team's runbook, a public doc page (Docusaurus, Hugo, MkDocs).

The document is cut into sections by its headings, at any level; each section keeps its heading path
("Trainium on EKS › AWS Neuron Device Plugin for Kubernetes") for citations. What site generators add is
read for its text: front matter (YAML `---` or TOML `+++`) gives the title, language and `source_url` when it
has them; MDX `import`/`export` lines and MkDocs snippets (`--8<-- "file.md"`) are dropped; a component's
`header={<h2>…</h2>}` is a heading at its HTML level and other tags are reduced to their text; a box
(Docusaurus `:::info`, MkDocs `!!! warning`, GitHub `> [!NOTE]`, a Hugo callout, a MyST directive such as
```` ```{warning} ```` or `:::{note}`) or a tab (MkDocs `=== "Helm"`,
Hugo `{{< tab name="Helm" >}}`, Docusaurus `<TabItem label="Helm">`) keeps its text after its title, kind or
name, and other Hugo shortcodes the text the page shows for them; MyST's comments (`% …`) and targets
(`(label)=`) are dropped, as HTML comments are; images are dropped; links keep their text (their URLs are kept
apart, for a renderer).

The Markdown itself is parsed by markdown-it-py (CommonMark with tables): paragraphs, lists, tables and
code become the same blocks a quiz explanation has, each with its line in the file.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import yaml
from markdown_it import MarkdownIt
from markdown_it.common.html_blocks import block_names
from markdown_it.token import Token

from bot.errors import KnowledgeError
from bot.knowledge.model import Block, Document, Question
from bot.knowledge.safe_yaml import load_yaml
from bot.lang import LANGUAGES
from bot.text.identifiers import is_code_name
from bot.text.language import detect_language

TITLE_KEYS = ("title", "sidebar_label", "linkTitle", "name")
LANG_KEYS = ("lang", "language", "locale")
URL_KEYS = ("source_url", "url", "canonical_url")
PATH_SEPARATOR = " › "

FENCE_LINE = re.compile(r"^\s*(```+|~~~+)")  # at any indentation: a fence in a nested list item too
_MDX_STATEMENT = re.compile(r"^(?:import\s.+\sfrom\s|import\s+['\"]|export\s+(?:const|default|function)\s)")
# Every pattern here reads text anyone may have written, so each runs in time linear in the line: no two
# neighbouring parts can take the same characters (possessive `*+` and `++` where they could), and what a
# backtracking pattern could only do in super-linear time (a component line, a header, a shortcode) is found
# by the small scanners below. tests/project/test_linear_patterns.py feeds each pattern adversarial lines.
_ADMONITION = re.compile(r"^\s*+:::+\s*+(?P<kind>\w[\w-]*+)?\s*+(?P<title>.*)")  # Docusaurus `:::tip Title`
# MkDocs (`!!! warning`, `!!! note "Title"`, `??? tip` folded, `???+` open, the space optional as MkDocs reads it:
# `!!!warning`): its text is indented under it, as a content tab's is (a paragraph right under it, not indented, is
# read as its text too).
_MKDOCS_BOX = re.compile(r"^[ \t]*+(?:!!!|\?\?\?\+?)[ \t]*+(?P<kind>[\w-]++)(?P<rest>.*+)$")
_MKDOCS_SNIPPET = re.compile(r"^[ \t]*+--8<--")  # `--8<-- "includes/abbreviations.md"`: text kept in another file
# MyST (Sphinx): a directive fence, ```` ```{warning} ```` or `:::{note}`, its name in braces and its argument after
# it; the options under its opening line (`:class: dropdown`); a comment line (`% Date: …`) and a target (`(label)=`)
_MYST_DIRECTIVE = re.compile(
    r"^[ \t]*+(?P<fence>```++|~~~++|:::++)[ \t]*+\{(?P<name>[\w-]++)\}[ \t]*+(?P<argument>.*+)$")
_MYST_OPTION = re.compile(r"^[ \t]*+:[\w-]++:")
_MYST_COMMENT = re.compile(r"^%")
_MYST_TARGET = re.compile(r"^[ \t]*+\([\w.:-]++\)=[ \t]*+$")
# The directives that show a box of text (docutils' admonitions); a code block's (`_MYST_CODE`) is read as a fence in
# its language; others (`toctree`, `image`) stay as they are written.
_MYST_BOXES = frozenset({"admonition", "attention", "caution", "danger", "error", "hint", "important", "note",
                        "seealso", "tip", "warning", "versionadded", "versionchanged", "deprecated"})
_MYST_CODE = frozenset({"code-block", "code", "sourcecode"})  # a code block, its language as its argument
_TAB_LABEL = re.compile(r"""^[ \t]*+<TabItem\b[^>]*?\blabel=["'](?P<label>[^"']*+)["']""")
_MKDOCS_TAB = re.compile(r'^[ \t]*+===[+!]?[ \t]++"(?P<title>[^"]*+)"[ \t]*+$')  # a content tab: `=== "Helm"`
_QUOTED_TITLE = re.compile(r'"(?P<title>[^"]*+)"')
# GitHub's alerts: `> [!NOTE]` opening a quote.
_GITHUB_ALERT = re.compile(
    r"^(?P<quote>[ \t]*+(?:>[ \t]*+)++)\[!(?P<kind>note|tip|important|warning|caution)\][ \t]*+$", re.IGNORECASE)
# A line that opens a block of its own (a list, a heading, a quote, a table, code, a box): a box's kind stands on
# a line before it, not in front of it.
_OPENS_BLOCK = re.compile(r"^[ \t]*+(?:[-*+][ \t]|\d++[.)][ \t]|[#>|<]|```|~~~|:::|!!!|\?\?\?|\{\{)")
BOX_INDENT = 4  # columns a MkDocs box's text is indented by, under its opening line
_SHORTCODE_HEAD = re.compile(r"\{\{[<%]\s*+(?P<closing>/?)\s*+(?P<name>[\w-]++)")  # `{{< name`, `{{% /name`
_SHORTCODE_TITLE = re.compile(r"""\btitle\s*+=\s*+["']([^"']+)["']""")
_SHORTCODE_TAB_NAME = re.compile(r"""\b(?:name|header)\s*+=\s*+["']([^"']+)["']""")  # `{{< tab name="Linux" >}}`
_SHORTCODE_TEXT = re.compile(r"""\btext\s*+=\s*+["']([^"']+)["']""")  # `{{< glossary_tooltip text="Job" … >}}`
_SHORTCODE_FILE = re.compile(r"""\bfile\s*+=\s*+["']([^"']+)["']""")  # `{{% code_sample file="…/job.yaml" %}}`
_SHORTCODE_ARGUMENT = re.compile(r"""^\s*+["']([^"']+)["']""")  # `{{% heading "prerequisites" %}}`
_SHORTCODE_KIND = re.compile(r"^\s*+([A-Za-z]++)")  # `{{% notice tip %}}`
# Jekyll (GitHub Pages): `{% highlight scala %}` … `{% endhighlight %}` is a code block; `{% link path %}` the path it
# links to; any other Liquid tag (`{% include toc.html %}`) and a kramdown attribute list (`{: .note }`,
# `{:target="_blank"}`) show nothing.
_LIQUID_HIGHLIGHT = re.compile(
    r"^(?P<indent>[ \t]*+)\{%-?[ \t]*+highlight[ \t]++(?P<lang>[\w+#.-]++)[^%\n]*+-?%\}[ \t]*+$")
_LIQUID_END_HIGHLIGHT = re.compile(r"^(?P<indent>[ \t]*+)\{%-?[ \t]*+endhighlight[ \t]*+-?%\}[ \t]*+$")
_LIQUID_FENCE = "{%"  # the fence a `{% highlight %}` block is open with
# Hugo: the built-in `{{< highlight go "linenos=table" >}}` … `{{< /highlight >}}`, and the `{{< text bash >}}` …
# `{{< /text >}}` of sites such as Istio's, are code blocks; their language is the first argument (or `syntax=`).
_HUGO_CODE = re.compile(r"^(?P<indent>[ \t]*+)\{\{[<%][ \t]*+(?P<name>highlight|text)\b"
                        r"(?P<arguments>(?:[^{}\n>%]|[>%](?!\}\}))*+)[>%]\}\}[ \t]*+$")
_HUGO_CODE_LANG = re.compile(r"""^[ \t]*+(?:syntax=)?["']?(?P<lang>[\w+#.-]++)["']?(?=[ \t]|$)""")
_HUGO_CODE_END = re.compile(r"^(?P<indent>[ \t]*+)\{\{[<%][ \t]*+/(?P<name>highlight|text)[ \t]*+[>%]\}\}[ \t]*+$")
_HUGO_FENCE = "{{"  # the fence such a block is open with


class _TaggedCode(NamedTuple):
    """A code block a generator writes as tags, not a fence: what opens it (with its `indent`), what closes it,
    its language from the opening, and the mark of it left open (`_PlainLines.fence`)."""

    opening: re.Pattern[str]
    closing: re.Pattern[str]
    lang: Callable[[re.Match[str]], str]
    fence: str


def _hugo_code_lang(opening: re.Match[str]) -> str:
    lang = _HUGO_CODE_LANG.match(opening["arguments"])
    return lang["lang"] if lang else ""


_TAGGED_CODE = {code.fence: code for code in (
    _TaggedCode(_LIQUID_HIGHLIGHT, _LIQUID_END_HIGHLIGHT, lambda opening: opening["lang"], _LIQUID_FENCE),
    _TaggedCode(_HUGO_CODE, _HUGO_CODE_END, _hugo_code_lang, _HUGO_FENCE))}
_LIQUID_LINK = re.compile(r"(?<!\{)\{%-?[ \t]*+link[ \t]++([^\s%]++)[ \t]*+-?%\}(?!\})")
_LIQUID_TAG = re.compile(r"(?<!\{)\{%[^%\n]*+%\}(?!\})")  # not a Hugo shortcode's `{{% … %}}`
_KRAMDOWN_ATTRIBUTES = re.compile(r"\{:[^{}\n]*+\}")
_HEADER_END = re.compile(r"\}\s*+/?>")  # the end of a component's `header={…}`: `}>` or `} />`
_HTML_HEADING = re.compile(r"<h([1-6])\b", re.IGNORECASE)
_TAG = re.compile(r"</?[A-Za-z][^<>]*+>")
_COMPONENT_NAME = re.compile(r"</?[A-Za-z][\w.]*+")
# A component inside a sentence, closed in its own tag (`<PyObject module="dagster" object="in_process_executor" />`),
# its attributes, and those a site displays for it, in the order looked for.
_INLINE_COMPONENT = re.compile(r"<[A-Z][\w.]*+(?P<attributes>(?:\s(?:[^<>\"'/]++|\"[^\"]*+\"|'[^']*+')*+)?)/>")
_ATTRIBUTE = re.compile(r"(?<![\w-])(?P<key>[\w-]++)=(?:\"(?P<double>[^\"]*+)\"|'(?P<single>[^']*+)')")
INLINE_COMPONENT_SHOWS = ("object", "name", "title", "label", "text", "value")
_JSX_EXPRESSION = re.compile(r"^\s*\{/\*.*\*/\}\s*$")
_LANG_SUFFIX = re.compile(rf"\.({'|'.join(LANGUAGES)})$")
_BOLD = re.compile(r"^\*\*(.+)\*\*$|^__(.+)__$")

_PARSER = MarkdownIt("commonmark", {"html": True}).enable("table")

# What HTML names: a `<name>` that is none of these (nor a component, `<Tabs>`) is a placeholder the author
# wrote for the reader to fill in (`train-<team>`, `<pod>`, `step-<NNNNNN>`): text, kept as written.
_HTML_ELEMENTS = frozenset(block_names) | frozenset(
    "a abbr audio b bdi bdo big br button canvas cite code data del dfn em font i iframe img input ins kbd label "
    "map mark meter noscript object output picture progress q rp rt ruby s samp script select slot small span "
    "strike strong style sub sup svg template textarea time tt u var video wbr".split())


def is_placeholder(tag: str) -> bool:
    """Whether a tag as written (`<team>`, `<NNNNNN>`, `<your-namespace>`) is a placeholder, not HTML or a
    component: one name, no attributes, not an HTML element, not capitalised as a component is (`<Tabs>`)."""
    if len(tag) < 3 or tag[0] != "<" or tag[-1] != ">" or tag[1] == "/":
        return False
    name = tag[1:-1]
    if not name[:1].isalpha() or not all(c.isalnum() or c in "-_." for c in name):
        return False
    component = name[0].isupper() and any(c.islower() for c in name)
    return not component and name.lower() not in _HTML_ELEMENTS


def _without_comments(text: str) -> str:
    """HTML comments (`<!-- overview -->`) taken out: a published page never shows them. One left open (no `-->`
    to the end of the page) keeps its text, without its `<!--`: nothing tells where the author meant it to end.
    Read with `find`, once through."""
    out: list[str] = []
    done = 0
    while (start := text.find("<!--", done)) >= 0:
        out.append(text[done:start])
        end = text.find("-->", start + 4)
        if end < 0:
            done = start + 4  # left open: its text stays
            break
        done = end + 3
    return "".join(out) + text[done:] if out else text


def _without_tags(text: str) -> str:
    """Text with its tags taken out (a space in their place), placeholders kept."""
    return _TAG.sub(lambda m: m.group(0) if is_placeholder(m.group(0)) else " ", text)


@dataclass
class _Section:
    level: int
    path: tuple[str, ...]
    line: int
    blocks: list[Block] = field(default_factory=list)
    under_first_heading: bool = False  # it stands under the page's first level-1 heading (not under a later one)


@dataclass(frozen=True)
class FrontMatter:
    values: dict[str, Any]
    body_line: int  # the file's line where the Markdown after the front matter starts (1-based)
    body: str


def read_front_matter(text: str, path: Path) -> FrontMatter:
    """Split off a YAML (`---`) or TOML (`+++`) header; a document without one has an empty header."""
    lines = text.split("\n")
    fence = lines[0].strip() if lines else ""
    if fence not in ("---", "+++"):
        return FrontMatter({}, 1, text)
    closing = ("---", "...") if fence == "---" else ("+++",)
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in closing), None)
    if end is None:
        raise KnowledgeError(path, 1, f"the front matter opened with {fence} is never closed")
    header = "\n".join(lines[1:end])
    try:
        values = load_yaml(header) if fence == "---" else tomllib.loads(header)  # an alias bomb refused at once
    except RecursionError as exc:  # TOML arrays nested thousands deep: tomllib reads them by recursion
        raise KnowledgeError(path, 1, "the front matter nests lists or tables too deep") from exc
    except (yaml.YAMLError, tomllib.TOMLDecodeError) as exc:
        mark = getattr(exc, "problem_mark", None)
        line = 2 + mark.line if mark is not None else 1
        raise KnowledgeError(path, line, f"the front matter is not valid {'YAML' if fence == '---' else 'TOML'}"
                                         f" ({str(exc).splitlines()[0]})") from exc
    if values is None:
        values = {}
    if not isinstance(values, dict):
        raise KnowledgeError(path, 2, "the front matter is not a mapping of keys to values")
    return FrontMatter(values, end + 2, "\n".join(lines[end + 1:]))


def parse_markdown(text: str, path: Path, *, doc_id: str, source: str, source_url: str | None = None,
                   front: FrontMatter | None = None) -> Document:
    """A document of sections from Markdown as teams write it (see the module's docstring)."""
    front = front or read_front_matter(text, path)
    body = _plain_markdown(front.body)
    tokens = _PARSER.parse(body)
    sections, first_heading = _sections(tokens, front.body_line)
    title = _title(front.values, first_heading, path)
    lang = _language(front.values, body, path)
    url = _text_value(front.values, URL_KEYS) or source_url
    topic = _text_value(front.values, ("topic",)) or title
    questions: list[Question] = []
    headings = {_fold_heading(h) for section in sections for h in section.path} | {_fold_heading(title)}
    for section in sections:
        if not section.blocks:
            continue  # a heading followed at once by a deeper one: it lives on in the paths below it
        if _is_contents(section, headings):
            continue  # a table of contents: the page's own headings again, which no answer quotes
        # A page whose front matter names it otherwise than its first heading ("Checkpoints — where they are and how
        # to restore them" over "# Checkpoints at Acme") shows both: the heading is the author's text as well.
        heading_path = (title, first_heading, *section.path) if (
            section.under_first_heading and first_heading and _fold_heading(first_heading) != _fold_heading(title)
        ) else (title, *section.path)
        questions.append(Question(
            doc_id=doc_id, lang=lang, number=len(questions) + 1, title=section.path[-1] if section.path else title,
            topic=topic, options=(), answer=None, blocks=tuple(section.blocks), source=source,
            line=section.line, path=heading_path,
        ))
    if not questions:
        raise KnowledgeError(path, front.body_line, "no text to answer from (the document is empty)")
    return Document(path=path, doc_id=doc_id, lang=lang, kind="doc", title=title, source=source, intro=(),
                    questions=tuple(questions), source_url=url)


# -- the text of a site generator's Markdown ---------------------------------------------------------

def _plain_markdown(body: str) -> str:
    """MDX statements dropped, components reduced to their text, shortcodes to their title, and the boxes of
    every generator (Docusaurus `:::note`, MkDocs `!!! warning`, GitHub `> [!NOTE]`, Hugo callouts) to their text
    after their title or kind, as the page shows them ("Warning: Each synchronization block …"). Code blocks are
    left as they are. Line numbers are kept: each line in is one line out."""
    return "\n".join(_PlainLines().read(body.split("\n")))


class _PlainLines:
    """`_plain_markdown`, one line at a time: the open code fence, the MkDocs boxes the line stands in (whose
    indentation is taken off their text: indented four, it would read as code), and a box's title waiting for the
    first line of its text."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.fence: str | None = None
        self.boxes: list[int] = []  # per open MkDocs box, the indentation its text has (columns)
        self.title: tuple[int, str] | None = None  # a box's title, and the line it opened on: not yet shown
        self.directives: list[str] = []  # per open MyST box, the fence that closes it
        self.options = False  # right after a MyST box's opening line, where its options stand
        self.after_break = True  # the line before was blank or a comment: a `%` line here is a MyST comment

    def read(self, lines: list[str]) -> list[str]:
        for raw in lines:
            self.out.append(self._line(raw))
        self._show_title()
        return self.out

    def _line(self, raw: str) -> str:
        if self.boxes and raw.strip():
            indent = _indent(raw)
            while self.boxes and indent < self.boxes[-1]:
                self.boxes.pop()  # a line indented less ends the box
                if self.title is None or self.title[0] != len(self.out) - 1:
                    self._show_title()
                # else: right under its opening line, not indented ("!!!warning \"Title\"" over its paragraph): its
                # text, its title in front of it

        line = _dedent(raw, BOX_INDENT * len(self.boxes)) if self.boxes else raw
        if self.options:  # right after a MyST directive's opening line: its options (`:class: dropdown`)
            if _MYST_OPTION.match(line):
                return ""
            self.options = False
        if self.fence is None and (myst := self._myst(line)) is not None:
            return myst
        if self.fence in _TAGGED_CODE:  # inside `{% highlight %}` or `{{< text >}}`: code until its closing tag
            if end := _TAGGED_CODE[self.fence].closing.match(line):
                self.fence = None
                return f"{end['indent']}```"
            return line
        if self.fence is None:
            for code in _TAGGED_CODE.values():
                if opening := code.opening.match(line):
                    self.fence = code.fence
                    return f"{opening['indent']}```{code.lang(opening)}"
        opened = FENCE_LINE.match(line)
        if self.fence is not None:
            if opened and opened.group(1)[0] == self.fence[0] and len(opened.group(1)) >= len(self.fence):
                self.fence = None
            return line
        if opened:
            self.fence = opened.group(1)
            return self._after_title(line)
        if box := _MKDOCS_BOX.match(line):
            quoted = _QUOTED_TITLE.search(box["rest"])
            return self._indented_box(raw, quoted["title"].strip() if quoted else box["kind"].capitalize())
        if tab := _MKDOCS_TAB.match(line):  # its label over its text, as a box's title
            return self._indented_box(raw, tab["title"].strip())
        if alert := _GITHUB_ALERT.match(line):
            return f"{alert['quote']}{alert['kind'].capitalize()}:"
        if admonition := _ADMONITION.match(line):
            self._show_title()
            # ":::tip Title" (or ":::tip[Title]") shows its title before its text, ":::tip" its kind; ":::" closes
            title = admonition["title"].strip()
            if title.startswith("[") and title.endswith("]"):
                title = title[1:-1].strip()
            return self._awaits(title or (admonition["kind"] or "").capitalize())
        if line.lstrip().startswith("<") and (tab := _TAB_LABEL.match(line)) and _is_component_line(line):
            self._show_title()  # a Docusaurus tab, `<TabItem value="helm" label="Helm">`: its label over its text
            return self._awaits(tab["label"].strip())
        return self._after_title(_plain_line(line))

    def _myst(self, line: str) -> str | None:
        """A line MyST reads apart (the page shows nothing of it, or a box's title; a code block's opening): what is
        left of it, or None for any other line. The fence that closes a box closes it."""
        stripped = line.strip()
        if self.directives and stripped == self.directives[-1]:
            self.directives.pop()
            self._show_title()
            return ""
        comment = _MYST_COMMENT.match(line) is not None and self.after_break  # "% of GPUs" ending a sentence is text
        self.after_break = not stripped or comment
        if comment or _MYST_TARGET.match(line):
            return ""
        directive = _MYST_DIRECTIVE.match(line)
        if directive is not None and directive["name"].lower() in _MYST_CODE and directive["fence"][0] != ":":
            # ```` ```{code-block} bash ````: a code block in that language (its options dropped)
            self.fence = directive["fence"]
            self.options = True
            return f"{line[:len(line) - len(line.lstrip())]}{directive['fence']}{directive['argument'].strip()}"
        if directive is None or directive["name"].lower() not in _MYST_BOXES:
            return None
        self._show_title()
        self.directives.append(directive["fence"])
        self.options = True
        name, argument = directive["name"].lower(), directive["argument"].strip()
        # `{admonition} Title` shows its argument; `{note}` its kind, its argument being its first line of text
        title = argument if name == "admonition" else name.capitalize()
        self._awaits(title)
        return self._after_title(argument) if argument and name != "admonition" else ""

    def _indented_box(self, raw: str, title: str) -> str:
        """The opening line of an MkDocs box or content tab: the lines indented under it are its text."""
        self._show_title()
        self.boxes.append(_indent(raw) + BOX_INDENT)
        return self._awaits(title)

    def _awaits(self, title: str) -> str:
        """The opening line of a box: empty, its title waiting for the box's first line of text."""
        self.title = (len(self.out), title) if title else None
        return ""

    def _after_title(self, line: str) -> str:
        """A line, after a box's title when it is the box's first: in front of a paragraph's first line, or on the
        opening line when the box starts with a list, a table or code."""
        if self.title is None or not line.strip():
            return line
        if _OPENS_BLOCK.match(line) or _indent(line) >= BOX_INDENT:
            self._show_title(":")
            return line
        title, self.title = self.title[1], None
        text = line.lstrip()
        return f"{line[:len(line) - len(text)]}{title}: {text}"

    def _show_title(self, end: str = "") -> None:
        """A title whose box had no paragraph to stand before: on the box's opening line."""
        if self.title is not None:
            at, title = self.title
            self.out[at] = f"{title}{end}"
            self.title = None


def _indent(line: str) -> int:
    """The columns of a line's indentation (a tab, to the next multiple of four)."""
    columns = 0
    for char in line:
        if char == " ":
            columns += 1
        elif char == "\t":
            columns += 4 - columns % 4
        else:
            break
    return columns


def _dedent(line: str, columns: int) -> str:
    """A line with up to `columns` of its indentation taken off."""
    taken = 0
    for i, char in enumerate(line):
        if taken >= columns or char not in " \t":
            return line[i:]
        taken += 1 if char == " " else 4 - taken % 4
    return ""


def _plain_line(line: str) -> str:
    if _MDX_STATEMENT.match(line) or _JSX_EXPRESSION.match(line) or _MKDOCS_SNIPPET.match(line):
        return ""
    header = _component_header(line) if line.lstrip().startswith("<") else None
    if header is not None:
        level = _HTML_HEADING.search(header)
        text = " ".join(_without_tags(header).split())
        return f"{'#' * int(level.group(1)) if level else '##'} {text}" if text else ""
    if _is_component_line(line):
        return ""  # <Tabs>, </CollapsibleContent>, <div align="center">: structure, no text
    if "{%" in line or "{:" in line:
        line = _KRAMDOWN_ATTRIBUTES.sub("", _LIQUID_TAG.sub("", _LIQUID_LINK.sub(r"\1", line)))
    return _without_shortcodes(line) if "{{" in line else line


def _component_header(line: str) -> str | None:
    """What a component's `header={…}` holds (`<h2>Title</h2>`), from the first `header={` to the first `}`
    after it that ends the tag (`}>`, `} />`), stripped; None when the line has none."""
    start = line.find("header={")
    if start < 0:
        return None
    end = _HEADER_END.search(line, start + len("header={"))
    return line[start + len("header={"):end.start()].strip() if end else None


def _is_component_line(line: str) -> bool:
    """A line that is one tag and nothing else: `<Tabs>`, `</Tab>`, `<Chart data={[{x: 1}]} />`. Between the
    name and the closing `>` a `<` or `>` may stand only inside braces (`{<b>x</b>}`): after a `{` that no
    `}` has closed yet, with a `}` still to come."""
    text = line.strip()
    if is_placeholder(text):
        return False  # `<team>` alone on a line is text
    name = _COMPONENT_NAME.match(text)
    if name is None or not text.endswith(">"):
        return False
    rest = text[name.end():-1]  # what stands between the name and the closing `>`
    if rest in ("", "/"):
        return True
    if not rest[0].isspace():
        return False  # `<a{b}>`, `<ab<c>`: not a name followed by attributes
    opened = waiting = False  # a `{` not yet closed; a `<` or `>` inside it, waiting for its `}`
    for char in rest:
        if char == "}":
            opened = waiting = False
        elif char == "{":
            opened = True
        elif char in "<>":
            if not opened:
                return False
            waiting = True
    return not waiting


def _without_shortcodes(line: str) -> str:
    """Hugo shortcodes replaced by the text the published page shows there (`_shortcode_text`), or dropped. A
    shortcode ends at the first `}` after its name, which must be that of a closing `>}}` or `%}}`; each
    candidate is settled by looking at that one `}`, so the line is read once."""
    out: list[str] = []
    done = 0  # the line up to here is in `out`
    close = -1  # the first `}` after the candidate's name
    for head in _SHORTCODE_HEAD.finditer(line):
        if head.start() < done:
            continue  # inside the shortcode just replaced
        if close < head.end():
            close = line.find("}", head.end())
            if close < 0:
                break  # no `}` left: no shortcode ends on this line
        if line[close - 1] in ">%" and line.startswith("}}", close):
            shown = "" if head["closing"] else _shortcode_text(head["name"], line[head.end():close - 1])
            out += [line[done:head.start()], shown]
            done = close + 2
    return "".join(out) + line[done:] if out else line


# The headings Hugo sites write as `{{% heading "prerequisites" %}}`: what the Kubernetes website shows for each.
SHORTCODE_HEADINGS = {"prerequisites": "Before you begin", "objectives": "Objectives", "cleanup": "Cleaning up",
                      "whatsnext": "What's next", "synopsis": "Synopsis", "options": "Options",
                      "seealso": "See also", "lessoncontent": "Lesson content"}
# Shortcodes that open a callout box ("Note:", "Caution:"), as admonitions do; `notice` names its kind
# (`{{% notice tip %}}`: "Tip:").
SHORTCODE_CALLOUTS = frozenset({"note", "caution", "warning", "tip", "info", "important", "danger"})


def _shortcode_text(name: str, arguments: str) -> str:
    """What a published page shows for an opening shortcode (`arguments`: what follows its name): its title, or a
    tab's name, as a lead ("Linux: "); the text it marks up (`glossary_tooltip text="Job"`: "Job"); a section
    heading (`heading "prerequisites"`: "Before you begin"); a callout's kind ("Note: "); the name of the file a
    code sample shows; nothing for the others (`feature-state`, `include`), whose text lives elsewhere."""
    if title := _SHORTCODE_TITLE.search(arguments) or (
            _SHORTCODE_TAB_NAME.search(arguments) if name.lower() == "tab" else None):
        return f"{title.group(1)}: "
    if text := _SHORTCODE_TEXT.search(arguments):
        return text.group(1)
    lowered = name.lower()
    if lowered == "heading" and (key := _SHORTCODE_ARGUMENT.match(arguments)):
        return SHORTCODE_HEADINGS.get(key.group(1).lower(), key.group(1).replace("_", " ").capitalize())
    if lowered in SHORTCODE_CALLOUTS:
        return f"{lowered.capitalize()}: "
    if lowered == "notice" and (kind := _SHORTCODE_KIND.match(arguments)):
        return f"{kind.group(1).capitalize()}: "
    if file := _SHORTCODE_FILE.search(arguments):
        return file.group(1).rsplit("/", 1)[-1]
    return ""


# -- sections --------------------------------------------------------------------------------------------

def _sections(tokens: list[Token], first_line: int) -> tuple[list[_Section], str | None]:
    """The sections in document order (the first one, before any heading, has an empty path) and the text
    of the first level-1 heading."""
    sections = [_Section(level=0, path=(), line=first_line)]
    first_heading: str | None = None
    stack: list[tuple[int, str]] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        line = first_line + (token.map[0] if token.map else 0)
        if token.type == "heading_open":
            level = int(token.tag[1])
            text = _heading_text(tokens[i + 1])
            i += 3
            if level == 1 and first_heading is None:  # the page's own heading: its title, over every section
                first_heading = text
                stack = []
                if sections[-1].path or sections[-1].blocks:
                    sections.append(_Section(level=1, path=(), line=line))
                sections[-1].under_first_heading = True
                sections[-1].line = line
                continue
            # A later level-1 heading ("# StorageClass Parameters" after "# Driver Options") opens a part of the
            # page of its own: its sections stand under it, not under the first one's.
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, text))
            sections.append(_Section(level=level, path=tuple(t for _, t in stack), line=line,
                                     under_first_heading=first_heading is not None and stack[0][0] > 1))
            continue
        blocks, i = _blocks(tokens, i, line)
        sections[-1].blocks.extend(blocks)
    return sections, first_heading


_LIST_MARK = re.compile(r"^\s*+(?:[-*+]|\d++[.)])\s++")
CONTENTS_ITEMS = 3  # a list of at least this many items ...
CONTENTS_SHARE = 0.8  # ... this share of which are headings of the same page is its table of contents


def _fold_heading(text: str) -> str:
    return " ".join(text.casefold().split())


def _is_contents(section: _Section, headings: set[str]) -> bool:
    """Whether a section holds nothing but a table of contents: lists whose items are, nearly all, the page's
    own headings ("- [Quick Start](#quick-start)", its links kept apart as every link's are)."""
    if not all(block.kind == "list" for block in section.blocks):
        return False
    items = [_fold_heading(_LIST_MARK.sub("", line)) for block in section.blocks
             for line in block.text.split("\n") if line.strip()]
    return len(items) >= CONTENTS_ITEMS and sum(item in headings for item in items) >= CONTENTS_SHARE * len(items)


def _heading_text(inline: Token) -> str:
    text = _inline_text(inline)
    bold = _BOLD.match(text)
    return (bold.group(1) or bold.group(2)).strip() if bold else text


def _blocks(tokens: list[Token], i: int, line: int) -> tuple[list[Block], int]:
    """The blocks that start at token `i`, and the index of the token after them."""
    token = tokens[i]
    if token.type in ("fence", "code_block"):
        return _code(token, line), i + 1
    if token.type == "paragraph_open":
        text = _inline_text(tokens[i + 1])
        return ([Block("text", text, line)] if text else []), i + 3
    if token.type in ("bullet_list_open", "ordered_list_open"):
        end = _closing(tokens, i)
        return _list_blocks(tokens[i:end + 1], line), end + 1
    if token.type == "table_open":
        end = _closing(tokens, i)
        rows = _table_rows(tokens[i:end + 1])
        text = "\n".join(" | ".join(row) for row in rows)
        return ([Block("table", text, line, rows=tuple(rows))] if len(rows) > 1 else []), end + 1
    if token.type == "html_block":
        text = " ".join(_without_tags(_without_comments(token.content)).split())
        return ([Block("text", text, line)] if text else []), i + 1
    return [], i + 1


def _code(token: Token, line: int) -> list[Block]:
    lang = token.info.strip().split()[0] if token.info.strip() else None
    code = token.content.strip("\n")  # no empty line before or after (a MyST code block's options leave one)
    return [Block("code", code, line, lang=lang)] if code.strip() else []


def _closing(tokens: list[Token], i: int) -> int:
    depth = 0
    for j in range(i, len(tokens)):
        depth += tokens[j].nesting
        if depth == 0:
            return j
    return len(tokens) - 1


def _list_blocks(tokens: list[Token], line: int) -> list[Block]:
    """A list's blocks: its items, one line each ("- text" or "1. text", nested items indented), and the code written
    inside an item as a block of its own right after the text that leads into it. The items after the code are a
    list again, and so is an item's text after its code ("Second, select one of the pods by running:"): "3. Drain
    the node:" stays over its `kubectl drain`, as the page shows it."""
    blocks: list[Block] = []
    lines: list[str] = []
    start = tokens[0].map[0] if tokens and tokens[0].map else 0

    def line_of(token: Token) -> int:
        return line + (token.map[0] - start if token.map else 0)

    at = line
    counters: list[int | None] = []  # per open list: the last number given, None for a bullet list
    fresh = False
    for token in tokens:
        if token.type in ("bullet_list_open", "ordered_list_open"):
            counters.append(int(token.attrGet("start") or 1) - 1 if token.type == "ordered_list_open" else None)
        elif token.type in ("bullet_list_close", "ordered_list_close"):
            counters.pop()
        elif token.type == "list_item_open":
            fresh = True
        elif token.type in ("fence", "code_block"):
            if lines:
                blocks.append(Block("list", "\n".join(lines), at))
                lines = []
            blocks += _code(token, line_of(token))
        elif token.type == "inline" and (text := _inline_text(token)):
            if not lines:
                at = line_of(token)
            indent = "  " * (len(counters) - 1)
            if fresh:
                number = counters[-1]
                if number is not None:
                    counters[-1] = number = number + 1
                lines.append(f"{indent}{'-' if number is None else f'{number}.'} {text}")
                fresh = False
            elif not lines:  # an item's text after its code block
                lines.append(f"{indent}{text}")
            else:
                lines[-1] += f" {text}"
    if lines:
        blocks.append(Block("list", "\n".join(lines), at))
    return blocks


def _table_rows(tokens: list[Token]) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    cells: list[str] = []
    for token in tokens:
        if token.type == "tr_open":
            cells = []
        elif token.type == "inline":
            cells.append(_inline_text(token))
        elif token.type == "tr_close":
            rows.append(tuple(cells))
    return rows


def _inline_text(inline: Token) -> str:
    """The text a person reads: links as their text, code as `code`, images and tags dropped."""
    out: list[str] = []
    for child in inline.children or ():
        if child.type == "text":
            out.append(child.content)
        elif child.type == "code_inline":
            out.append(f"`{child.content}`")
        elif child.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif child.type == "html_inline" and is_placeholder(child.content):
            out.append(child.content)
        elif child.type == "html_inline" and (shown := _inline_component_text(child.content)):
            out.append(shown)
        # images and other inline tags are dropped; a link's text is among the text children
    return " ".join("".join(out).split())


def _inline_component_text(tag: str) -> str:
    """What a site shows for a component written inside a sentence with no content of its own (`<PyObject
    module="dagster" object="in_process_executor" />`, `<Badge text="beta" />`): the attribute it displays
    (`INLINE_COMPONENT_SHOWS`, the first it has), a name of code as `code`; "" for any other tag."""
    component = _INLINE_COMPONENT.fullmatch(tag.strip())
    if component is None:
        return ""
    attributes = {m["key"]: m["double"] if m["double"] is not None else m["single"]
                  for m in _ATTRIBUTE.finditer(component["attributes"])}
    shown = next((attributes[key].strip() for key in INLINE_COMPONENT_SHOWS if attributes.get(key, "").strip()), "")
    return f"`{shown}`" if shown and is_code_name(shown) else shown


def links(text: str) -> Iterator[tuple[str, str]]:
    """(text, URL) of every link of a Markdown text, for a renderer that shows them."""
    for token in _PARSER.parseInline(text):
        label: list[str] = []
        href: str | None = None
        for child in token.children or ():
            if child.type == "link_open":
                href, label = str(child.attrGet("href") or ""), []
            elif child.type == "link_close" and href is not None:
                yield "".join(label).strip(), href
                href = None
            elif href is not None and child.type in ("text", "code_inline"):
                label.append(child.content)


# -- what the front matter says ----------------------------------------------------------------------

def _text_value(values: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = values.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _title(values: dict[str, Any], first_heading: str | None, path: Path) -> str:
    stem = _LANG_SUFFIX.sub("", path.stem)  # "notas.es.md": "notas"
    return _text_value(values, TITLE_KEYS) or first_heading or stem.replace("-", " ").replace("_", " ")


def _language(values: dict[str, Any], body: str, path: Path) -> str:
    given = (_text_value(values, LANG_KEYS) or "").lower()[:2]
    if given in LANGUAGES:
        return given
    suffix = _LANG_SUFFIX.search(path.stem)  # "runbook.es.md"
    if suffix:
        return suffix.group(1)
    prose = "\n".join(line for line in _without_code(body) if line.strip())
    return detect_language(prose[:20_000])


def _without_code(body: str) -> Iterator[str]:
    fence = False
    for line in body.split("\n"):
        if FENCE_LINE.match(line):
            fence = not fence
            continue
        if not fence:
            yield line
