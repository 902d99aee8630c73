"""The Markdown file an entry is written as on the command line: what `eksbot knowledge add` and `edit` read
and `history --show` prints.

Front matter (optional) gives title, lang, topic, and for a quiz question options (a list of 4) and answer (a
letter); the rest is the text (a quiz question's explanation). Without a title, the first `# heading` is the
title and leaves the body. The file is read into the core's `EntryDraft`, which `Curation` checks; an entry as
the knowledge reads it is another format (`bot.knowledge.entries.to_markdown`, what `export` writes).
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from bot.curation.service import EntryDraft
from bot.errors import InputError, KnowledgeError
from bot.knowledge.entries import LETTERS
from bot.knowledge.markdown import FENCE_LINE, read_front_matter

ENTRY_KEYS = ("title", "lang", "topic", "options", "answer")
_TITLE_HEADING = re.compile(r"#[ \t]++(.*)")  # `# Title`, not `## Section`; the closing `#`s are cut in code
_LETTERED = re.compile(r"^([A-D])\)\s+")  # an option written as `A) text`


def read_entry_file(path: Path) -> EntryDraft:
    """The draft a Markdown file says; its `lang` is "" when the file gives none (the command then takes
    `--lang`, the entry's, or the one the text is written in) and its `topic` None. InputError (naming the
    file) when it cannot be read so."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror or exc.__class__.__name__})") from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not valid UTF-8 ({exc.reason} at byte {exc.start})") from exc
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    try:
        front = read_front_matter(text, path)
    except KnowledgeError as exc:
        raise InputError(str(exc)) from exc
    values = front.values
    if "kind" in values or "id" in values:
        raise InputError(f"{path}: a file in the knowledge format (it has id or kind), not an entry's file: "
                         "'eksbot knowledge history ID --show N' prints an entry as a file to edit")
    unknown = sorted(str(key) for key in values if key not in ENTRY_KEYS)
    if unknown:
        raise InputError(f"{path}: unknown front matter key {unknown[0]!r} (an entry's are {', '.join(ENTRY_KEYS)})")
    title = _scalar(values, "title", path)
    body = front.body
    if title is None:
        title, body = _heading_title(body)
        if title is None:
            raise InputError(f"{path}: no title: give one in the front matter (title: …) or as a first '# heading'")
    raw_options = values.get("options")
    if raw_options is not None and not isinstance(raw_options, list):
        raise InputError(f"{path}: options must be a list of the 4 options, A first")
    options = tuple(_option(value, i) for i, value in enumerate(raw_options or ()))
    return EntryDraft(title=title, body=body, lang=_scalar(values, "lang", path) or "",
                      topic=_scalar(values, "topic", path), options=options, answer=_scalar(values, "answer", path))


def _scalar(values: dict[str, object], key: str, path: Path) -> str | None:
    value = values.get(key)
    if value is None:
        return None
    if isinstance(value, (list, dict)):
        raise InputError(f"{path}: {key} must be text, not a {'list' if isinstance(value, list) else 'mapping'}")
    return str(value).strip()


def _option(value: object, index: int) -> str:
    """An option's text; `B) text` in second place is `text`."""
    text = str(value).strip()
    lettered = _LETTERED.match(text)
    return text[lettered.end():] if lettered and index < len(LETTERS) and lettered.group(1) == LETTERS[index] else text


def _heading_title(body: str) -> tuple[str | None, str]:
    """The first `# heading` outside code (None: there is none) and the body without it."""
    lines = body.split("\n")
    fence: str | None = None
    for i, line in enumerate(lines):
        opened = FENCE_LINE.match(line)
        if opened:
            marker = opened.group(1)
            if fence is None:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence):
                fence = None
            continue
        if fence is None and (title := _title_heading(line)):
            return title, "\n".join(lines[:i] + lines[i + 1:])
    return None, body


def _title_heading(line: str) -> str | None:
    """The text of a `# Title` line without its closing `#`s (`# Title ##`), or None. Cut with string methods:
    a lazy pattern before an optional closing sequence takes time in the square of a run of spaces."""
    heading = _TITLE_HEADING.match(line)
    if heading is None:
        return None
    text = heading.group(1).rstrip(" \t")
    unclosed = text.rstrip("#")
    if unclosed != text and unclosed.endswith((" ", "\t")):
        text = unclosed  # `Title ##`: the `#`s close the heading when spaces stand before them
    return text.strip() or None


def entry_file_text(draft: EntryDraft) -> str:
    """An entry as the file `add` and `edit` read (`history --show`): read back, it gives the same draft."""
    front: dict[str, object] = {"title": draft.title, "lang": draft.lang}
    if draft.topic:
        front["topic"] = draft.topic
    if draft.options:
        front["options"] = [f"{letter}) {option}" for letter, option in zip(LETTERS, draft.options, strict=False)]
        front["answer"] = draft.answer
    header = yaml.safe_dump(front, allow_unicode=True, sort_keys=False, width=1_000_000)
    return f"---\n{header}---\n\n{draft.body}\n"
