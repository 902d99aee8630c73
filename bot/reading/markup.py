"""The question a person typed, without the markup chat adds to it, and the parts of it that are pasted.

Slack writes mentions (`<@U123>`), channels and links (`<https://…|label>`): `clean_question` removes them
and keeps a link's label between backticks, as code; that is the text kept and shown back (a gap, a note).
For reading, `reading_text` also drops emoji codes (`:coffee:`) and bold, italics and strike-through marks
(`*x*`, `_x_`, `~x~`). Code (fenced, or inline of several words) and link labels are context
(`context_spans`): a pasted log or snippet holds words the person did not choose; an identifier in it that
the knowledge has is evidence, its other words never "unknown things". People paste without fences too: in a
message of several lines, a line that reads as machine output (a shell command, a traceback, a log line with
its timestamp or level, a table of aligned columns, mostly paths, numbers and hosts) is fenced as code by
`clean_question` (`fence_pasted_lines`), and a quote marker (`> `) is taken off its line. `own_text` is what
is left of a message without its pasted code: the person's own words.

A message is cleaned once, by `read_message`, which every surface's question goes through (`Assistant.prepare`
calls it; the Slack surface calls it first, to answer an empty mention itself): its result, a `ReadMessage`,
is given back as it is by `read_message` and `clean_question`, however many layers of the core validate it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from bot.reading.rules import claim_checks, email_rules
from bot.text.control import CONTROL
from bot.text.normalise import strip_accents

# Slack's markup in a message, for every module that reads it: a mention (`<@U1>`, `<@U1|ana>`: the label is
# group 1), a channel (`<#C1|general>`: group 1), a link (`<https://…|label>`: the URL is group 1, the label
# group 2) and the rest of `<!…>` (`<!here>`, `<!subteam^S1|@team>`, `<!date^…|text>`: the name is group 1,
# the label group 2). Slack writes a `<` of the text as `&lt;`, so no entity holds one: a label or URL stops at
# `<`, and an entity never closed is given up at the next one, instead of each being read on to the end of the
# message.
SLACK_USER = re.compile(r"<@[UW][A-Z0-9]+(?:\|([^<>]*))?>")
SLACK_CHANNEL = re.compile(r"<#[CG][A-Z0-9]+(?:\|([^<>]*))?>")
SLACK_LINK = re.compile(r"<((?:https?|mailto):[^|<>]+)(?:\|([^<>]*))?>")
SLACK_SPECIAL = re.compile(r"<!([^|<>]*)(?:\|([^<>]*))?>")
_BROADCAST = re.compile(r"here|channel|everyone|subteam\^[A-Z0-9]+")  # the `<!…>` a question is read without
_EMOJI_CODE = re.compile(r"(?<!\S):[a-z0-9+][a-z0-9_+'-]*:(?::skin-tone-\d:)?(?!\S)")
_FORMATTING = re.compile(r"(?<![\w*_~`])([*_~])(?=\S)([^*_~`\n]*?\S)\1(?![\w*_~`])")
PASTED_WORDS = 3  # inline code this long is pasted, not a term the person names
_FENCED = re.compile(r"```.*?(?:```|$)", re.DOTALL)
_CODE = re.compile(rf"{_FENCED.pattern}|`[^`]+`", re.DOTALL)
# A comment that asks, inside pasted code ("# FIXME: minAvailable 4 but only 3 nodes -> ¿arranca con 3?", "// why
# bf16 here?", "<!-- ¿hace falta la zona? -->"): the person's question, written where it applies. From the marker
# of a line comment or a comment block to its question mark, within ASKING_COMMENT_CHARS.
ASKING_COMMENT_CHARS = 300
_ASKING_COMMENT = re.compile(rf"(?<!\S)(?:#|//|--|<!--|/\*)\s([^#`?]{{0,{ASKING_COMMENT_CHARS}}}\?)")
_QUOTE = re.compile(r"^[ \t]*(?:>|&gt;)[ \t]?", re.MULTILINE)
# Who says a line of a thread pasted from chat, and when, as read once a message's lines are joined: a handle
# opening the message ("@jordi swears …") or before a time in brackets ("@marta [10:44]"), and the time (the plain
# text of a copied thread, where Slack's own markup writes a mention as `<@U1>`). Neither is what is asked; a
# handle elsewhere ("the @script decorator") is a word.
_SPEAKER = re.compile(r"^[ \t]*@[A-Za-z][\w.-]*:?(?=[ \t])|(?<![\w@])@[A-Za-z][\w.-]*(?=[ \t]*\[)"
                      r"|\[\d{1,2}:\d{2}(?::\d{2})?(?:[ \t]?[AaPp][Mm])?\]")
# What reads as machine output, whatever the language of the message around it.
_PROMPT = re.compile(r"^\s*(?:[$#%]|>>>|PS [A-Z]:\\\S*>|[\w.-]+@[\w.-]+:\S*[$#])\s")  # "$ kubectl get pods"
_TRACE = re.compile(r'^\s*(?:Traceback \(most recent call last\)|File "[^"]+", line \d+|at [\w.$<>]+\(|'
                    r"[\w.]*(?:Error|Exception|Warning)(?:\[\w+\])?: \S)")
_LOG = re.compile(r"\d{1,2}:\d{2}:\d{2}|\d{4}-\d{2}-\d{2}|\[(?:INFO|WARN(?:ING)?|ERROR|DEBUG|FATAL|CRITICAL)\]|"
                  r"\b(?:INFO|WARN|WARNING|ERROR|DEBUG|FATAL)\b(?=[ :])")
# A table's row: columns apart by runs of spaces, four or more, or three of which none is a lower-case word
# (a header: "NAME    STATUS    AGE"); a sentence typed with two double spaces is no table.
_COLUMNS = re.compile(r"\S(?:(?: {2,}|\t)\S+){3}")
_HEADER = re.compile(r"\S(?:(?: {2,}|\t)\S+){2}")
_LOWER_WORD = re.compile(r"(?<!\S)[a-záéíóúñü]{2,}(?!\S)")
_INDENTED_CODE = re.compile(r"^(?: {4,}|\t)\S.*[(){}\[\]=;]")
_MACHINE_TOKEN = re.compile(r"\w[./:=@]\w|^[\d.,%]+\w{0,3}$|^[-=_*#~]{3,}$")  # "0/4", "p4d.24xlarge", "12G", "----"
MACHINE_SHARE = 0.3  # a line this much of machine tokens is output, not prose (as a sentence: `bot.reading.terms`)
MACHINE_LINE_TOKENS = 3
SIGNATURE_WORDS = 8  # a signature's lines are this short: a name, a title, a company, a phone


class ReadMessage(str):
    """A message as read (`read_message`): the text every part of the core reads. `shown` is the message as it
    is kept and shown back (`clean_question`: a gap, a log line), with its formatting marks."""

    shown: str

    def __new__(cls, read: str, shown: str | None = None) -> ReadMessage:
        message = super().__new__(cls, read)
        message.shown = read if shown is None else shown
        return message


def read_message(text: str) -> ReadMessage:
    """The one cleaning of a message: without Slack markup, control characters, emoji codes, formatting marks or
    extra spaces, lines pasted without fences fenced (`clean_question`, then `reading_text`). A message already
    read is given back as it is: a message is cleaned once, whoever asks again."""
    if isinstance(text, ReadMessage):
        return text
    shown = clean_question(text)
    return ReadMessage(reading_text(shown), shown)


def clean_question(text: str) -> str:
    """The question a person typed, without Slack markup, control characters or extra spaces; code and link
    labels stay, between backticks, and lines pasted without fences are fenced (`fence_pasted_lines`). What
    is kept and shown back of a message; of a message already read (`read_message`), what it was shown as."""
    if isinstance(text, ReadMessage):
        return text.shown
    text = fence_pasted_lines(text)
    text = SLACK_USER.sub(" ", text)
    text = SLACK_CHANNEL.sub(lambda m: f"#{m.group(1) or ''}", text)
    text = SLACK_LINK.sub(lambda m: f"`{(m.group(2) or m.group(1)).replace('`', '')}`", text)
    text = SLACK_SPECIAL.sub(lambda m: " " if _BROADCAST.fullmatch(m.group(1)) else m.group(0), text)
    text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    text = CONTROL.sub(" ", text)
    return " ".join(text.split())


def reading_text(text: str) -> str:
    """A clean question (`clean_question`) as it is read: without emoji codes and formatting marks."""
    return " ".join(_outside_code(text, _prose).split())


def context_spans(text: str) -> list[tuple[int, int]]:
    """Where `text` holds pasted code: fenced blocks (an unclosed one runs to the end), and inline code or link
    labels of several words. One or two words in backticks (`save_total_limit`) are the person's own term, and so
    is a comment inside a fenced block that asks (`_ASKING_COMMENT`): a reviewer's "# ¿esto debería ser stage 3?"
    is the question, the code around it the context."""
    spans: list[tuple[int, int]] = []
    for match in _CODE.finditer(text):
        code = match.group(0)
        if not code.startswith("```"):
            if len(code.split()) >= PASTED_WORDS:
                spans.append(match.span())
            continue
        offset = start = match.start()
        for asked in _ASKING_COMMENT.finditer(code):  # the code up to each such comment, then after it
            if offset + asked.start(1) > start:
                spans.append((start, offset + asked.start(1)))
            start = offset + asked.end(1)
        if start < match.end():
            spans.append((start, match.end()))
    return spans


def own_text(text: str) -> str:
    """A clean question without its pasted code (`context_spans`): the person's own words ("" when the message
    is all code)."""
    out: list[str] = []
    last = 0
    for start, end in context_spans(text):
        out.append(text[last:start])
        last = end
    out.append(text[last:])
    return " ".join("".join(out).split())


def fence_pasted_lines(text: str) -> str:
    """`text` with quote markers taken off its lines and, in a message of several lines, runs of lines that read
    as machine output (`is_machine_line`) or were quoted (and do not ask) fenced as code. Fenced code stays as
    it is; a message whose every line reads as output is left as it is (it is all the person wrote)."""
    return _outside_code(text, _fence_lines, _FENCED)


def is_machine_line(line: str) -> bool:
    """Whether a line reads as pasted output rather than a person's sentence: a shell prompt, a traceback's line,
    a log line (timestamp or level), a table's row, indented code, or mostly machine tokens; never a line that
    asks ("?")."""
    stripped = line.strip()
    if not stripped or stripped.endswith("?") or re.fullmatch(r"`[^`]+`", stripped):
        return False  # empty, asking, or already code
    if _PROMPT.match(line) or _TRACE.match(line) or _INDENTED_CODE.match(line):
        return True
    tokens = stripped.split()
    if len(tokens) < MACHINE_LINE_TOKENS:
        return False
    if _LOG.search(stripped) or _COLUMNS.search(stripped) or (
            _HEADER.search(stripped) and not _LOWER_WORD.search(stripped)):
        return True
    return sum(1 for t in tokens if _MACHINE_TOKEN.search(t)) >= MACHINE_SHARE * len(tokens)


def _fence_lines(text: str) -> str:
    # A quoted line beside the person's own lines is someone else's words or pasted output: context, unless it
    # asks. A message all quoted is all the person wrote, and so are quoted words the person's own lines check
    # ("> @pau: ZeRO-2 already offloads the parameters … who is right?"): what was said is what is asked.
    written = without_envelope(text.split("\n"))
    text = "\n".join(written)
    quoted = [bool(_QUOTE.match(line)) for line in written]
    if any(quoted) and (all(q or not line.strip() for q, line in zip(quoted, written, strict=True)) or any(
            check.search(_own_lines(written, quoted)) for check in claim_checks())):
        quoted = [False] * len(quoted)
    text = _QUOTE.sub("", text)
    lines = text.split("\n")
    if len(lines) < 2:
        return text
    machine = [is_machine_line(line) or (was_quoted and bool(line.strip()) and not line.strip().endswith("?"))
               for line, was_quoted in zip(lines, quoted, strict=True)]
    if all(pasted or not line.strip() for line, pasted in zip(lines, machine, strict=True)):
        return text
    out: list[str] = []
    run: list[str] = []
    for line, pasted in zip(lines, machine, strict=True):
        if pasted:
            run.append(line)
            continue
        if run:
            out.append("```" + "\n".join(run) + "```")
            run = []
        out.append(line)
    if run:
        out.append("```" + "\n".join(run) + "```")
    return "\n".join(out)


def without_envelope(lines: list[str]) -> list[str]:
    """The lines of a message of several without what an e-mail forwarded or pasted into it wraps its words in
    (`email` in the rules' files): header lines ("From: …", "Enviado: …", two or more of them), a phone's "Sent from
    my iPhone", a forwarded message's separator, a signature (the short lines, none asking, after a line that
    closes the message with "Thanks," or "Quedo atenta,", to its end) with that closing, and a confidentiality
    notice (to the end of its paragraph). A subject line keeps its subject ("Asunto: RV: presupuesto
    almacenamiento"). None of it is what is asked ("Mil gracias" is no thousand), and a signature's names and phone
    numbers are nobody's question to keep. A message that is all envelope is all the person wrote."""
    rules = email_rules()
    if len(lines) < 2:  # one line: only a closing after what it says ("… de los pesos. Mil gracias.")
        return [_without_closing(line, rules.closing) for line in lines]
    plain = [strip_accents(_QUOTE.sub("", line)) for line in lines]
    header = [bool(rules.header.match(line)) for line in plain]
    mail = sum(header) >= 2
    signature_ends = _signature_ends(plain)
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = plain[i]
        if rules.disclaimer.match(line):
            while i < len(lines) and plain[i].strip():
                i += 1
            continue
        if (mail and header[i]) or rules.device.match(line) or rules.separator.match(line):
            i += 1
            continue
        if subject := rules.subject.match(line):
            said = (subject["subject"] if subject["subject"] is not None else subject["plain"]).strip()
            out.append(said if not said or said[-1] in ".?!:" else f"{said}.")  # a title, not a sentence's start
            i += 1
            continue
        if rules.closing.search(line) and (end := signature_ends[i + 1]) is not None:
            if not rules.alone.match(line):
                out.append(_without_closing(lines[i], rules.closing))
            i = end
            continue
        out.append(lines[i])
        i += 1
    return out if any(line.strip() for line in out) else lines  # all envelope: all the person wrote


def _is_log_line(line: str) -> bool:
    """A shell prompt's, a traceback's or a log's line (`is_machine_line`'s, but a line mostly of numbers: a phone)."""
    return bool(_PROMPT.match(line) or _TRACE.match(line) or _LOG.search(line))


def _without_closing(line: str, closing: re.Pattern[str]) -> str:
    """A line without the closing it ends with after what it says ("Hi all, forwarding from Andrés. Thank you!")."""
    found = closing.search(line)  # a closing is written without accents ("gracias", "saludos")
    return line[: found.start()].rstrip(" ,;") if found and found.start() > 0 else line


def _signature_ends(plain: list[str]) -> list[int | None]:
    """For each line, where a signature starting there would end (the message's end, or a notice or a device line
    after it): short lines that do not ask; None when a line after them does, is long or reads as output (a
    closing before it was not the end). One pass from the end: a message of many closings is read once."""
    rules = email_rules()
    ends: list[int | None] = [len(plain)] * (len(plain) + 1)
    for at in range(len(plain) - 1, -1, -1):
        line = plain[at]
        if rules.disclaimer.match(line) or rules.device.match(line):
            ends[at] = at
        elif "?" in line or "¿" in line or len(line.split()) > SIGNATURE_WORDS or _is_log_line(line):
            ends[at] = None  # it asks, says more than a signature does, or is output pasted after the thanks
        else:
            ends[at] = ends[at + 1]
    return ends


def _own_lines(lines: list[str], quoted: list[bool]) -> str:
    """The lines of a message not quoted, without accents, as the rules' phrases are written."""
    return strip_accents("\n".join(line for q, line in zip(quoted, lines, strict=True) if not q))


def _prose(text: str) -> str:
    """Prose without emoji codes, formatting marks, and who says a pasted thread's lines when (`_SPEAKER`)."""
    text = _SPEAKER.sub(" ", text)
    text = _EMOJI_CODE.sub(" ", text)
    return _FORMATTING.sub(r"\2", text)


def _outside_code(text: str, change: Callable[[str], str], code: re.Pattern[str] = _CODE) -> str:
    """`text` with `change` applied to what is outside the matches of `code` (any code, or fenced blocks)."""
    out: list[str] = []
    last = 0
    for match in code.finditer(text):
        out.append(change(text[last : match.start()]))
        out.append(match.group(0))
        last = match.end()
    out.append(change(text[last:]))
    return "".join(out)
