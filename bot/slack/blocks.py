"""Block Kit messages for answers and quizzes, within Slack's limits, with escaped text.

Limits kept here: 3,000 characters per section or context text, 50 blocks per message, 25 elements per
actions block, 75 characters per button label and 2,000 per button value (a document's id, its path, goes in
a button as a digest when it is long: `doc_value`, read back by `payloads.doc_named`). Every message carries a
non-empty plain `text` fallback for notifications and screen readers. Text that did not come from the
bot itself (questions, topics, knowledge text) is escaped, so it can neither format links nor ping
`@channel`, `@here` or `@everyone`. The one link the bot makes is a citation's source, to the URL the
knowledge gives for its document, and only when that is a plain http(s) URL (`link_target`).
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any
from urllib.parse import urlsplit

from bot.answering.assistant import Answer
from bot.knowledge.citations import SNIPPET_CHARS, SNIPPET_LINES, Citation, cut_snippet
from bot.messages import say
from bot.quiz import LeaderboardEntry, QuizPrompt, QuizResult, UserStats
from bot.slack.action_ids import (
    FEEDBACK_DOWN_ACTION,
    FEEDBACK_UP_ACTION,
    QUIZ_ME_ACTION,
    QUIZ_NEXT_ACTION,
    QUIZ_SHARE_ACTION,
    SUGGESTION_ACTION,
    quiz_answer_action,
)
from bot.slack.texts import t
from bot.text.control import C0

SECTION_LIMIT = 3000
MAX_BLOCKS = 50
MAX_ACTIONS = 25
LABEL_LIMIT = 75
VALUE_LIMIT = 2000
FALLBACK_LIMIT = 3000
SECTION_CHARS = 500  # a cited heading path, escaped
SOURCE_CHARS = 200  # a cited file's name, escaped
URL_CHARS = 1000  # a longer URL is not made a link
DOC_IN_BUTTON = 1000  # characters of a button's value a document's id may take; a longer one goes as its key
DOC_KEY_CHARS = 32
Block = dict[str, Any]
Message = dict[str, Any]

_PARTIAL_ENTITY = re.compile(r"&[a-z]{0,3}$")
_NOT_IN_A_LINK = re.compile(rf"[<>|\s{C0}]")  # what would end a link or start markup
SLACK_USER_ID = re.compile(r"[UW][A-Z0-9]{1,20}")  # a user id the bot writes as a mention, or takes as one
_FENCE = "```"


def escape(text: str) -> str:
    """Slack's escaping of &, < and >: user text can neither format links nor ping @channel/@here."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def truncate(text: str, limit: int) -> str:
    """At most `limit` characters, ending with "…" when cut, never in the middle of an escape (&amp;)."""
    if len(text) <= limit:
        return text
    cut = _PARTIAL_ENTITY.sub("", text[: limit - 1]).rstrip()
    return cut + "…"


def section(text: str) -> Block:
    return {"type": "section", "text": {"type": "mrkdwn", "text": truncate(text, SECTION_LIMIT) or " "}}


def code_section(code: str) -> Block:
    """A code block; the code is escaped and cut to fit, and the fences always close."""
    body = escape(code.replace(_FENCE, "`\u200b``")).strip("\n")
    body = truncate(body, SECTION_LIMIT - 2 * len(_FENCE) - 2)
    return {"type": "section", "text": {"type": "mrkdwn", "text": f"{_FENCE}\n{body}\n{_FENCE}"}}


def quoted_blocks(citation: Citation, lang: str) -> list[Block]:
    """What a citation quotes: its excerpt, then its snippet; or, when it shows several code blocks, each text with
    the block it leads into, in the section's order."""
    if not citation.parts:
        return ([section(escape(citation.excerpt))] if citation.excerpt else []) + snippet_blocks(citation, lang)
    blocks: list[Block] = []
    for part in citation.parts:
        if part.text:
            blocks.append(section(escape(part.text)))
        if part.snippet:
            blocks += snippet_blocks(citation, lang, part.snippet)
    return blocks


def snippet_blocks(citation: Citation, lang: str, snippet: str | None = None) -> list[Block]:
    """The citation's snippet (or `snippet`, one of its parts' blocks), cut at a sensible line when long, with a
    note of what is left out."""
    snippet = snippet or citation.snippet
    if not snippet:
        return []
    code, left = cut_snippet(snippet, SNIPPET_LINES, SNIPPET_CHARS)  # raw text: escaping adds to it
    blocks = [code_section(code)]
    if left:
        more = (say(lang, "more_lines_section", count=left, title=citation.title) if citation.section
                else say(lang, "more_lines", count=left, number=citation.question))
        blocks.append(context(escape(more)))
    return blocks


def note_blocks(notes: tuple[str, ...], lang: str) -> list[Block]:
    """The maintainers' notes on what is cited, one section each, escaped (a note is written by people)."""
    return [section("📝 " + escape(say(lang, "maintainers_note", text=note))) for note in notes if note.strip()]


def context(text: str) -> Block:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": truncate(text, SECTION_LIMIT) or " "}]}


def encoded_value(value: dict[str, Any]) -> str:
    """A button's value as Slack carries it: compact JSON."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def doc_key(doc_id: str) -> str:
    """A short, stable name of a document for a button (a digest of its id), looked up again when clicked."""
    return hashlib.sha256(doc_id.encode()).hexdigest()[:DOC_KEY_CHARS]


def doc_value(doc_id: str) -> dict[str, str]:
    """Which document a button is about: its id ("d") when short enough, else its key ("k"). A document's id is
    its path, which can be longer than a button's whole value may be."""
    return {"d": doc_id} if len(encoded_value({"d": doc_id})) <= DOC_IN_BUTTON else {"k": doc_key(doc_id)}


def button(text: str, action_id: str, value: dict[str, Any], style: str | None = None) -> Block:
    encoded = encoded_value(value)
    if len(encoded) > VALUE_LIMIT:
        raise ValueError(f"button value of {len(encoded)} characters is over Slack's {VALUE_LIMIT}")
    element: Block = {
        "type": "button", "text": {"type": "plain_text", "text": truncate(text, LABEL_LIMIT), "emoji": True},
        "action_id": action_id, "value": encoded,
    }
    if style:
        element["style"] = style
    return element


def actions(block_id: str, elements: list[Block]) -> list[Block]:
    """Actions blocks of at most 25 elements each (the first keeps `block_id`)."""
    return [
        {"type": "actions", "block_id": block_id if i == 0 else f"{block_id}_{i}",
         "elements": elements[start:start + MAX_ACTIONS]}
        for i, start in enumerate(range(0, len(elements), MAX_ACTIONS))
    ]


def message(text: str, blocks: list[Block]) -> Message:
    """A message: `text` (already escaped) is the fallback; at most 50 blocks, the last one kept."""
    if len(blocks) > MAX_BLOCKS:
        blocks = [*blocks[: MAX_BLOCKS - 1], blocks[-1]]
    return {"text": truncate(text.strip(), FALLBACK_LIMIT) or "…", "blocks": blocks}


def cite(lang: str, citation: Citation) -> str:
    """`📖 Question 5 · title · _source_` for a quiz question; `📖 Title › Heading › Subheading · _source_`
    for a document's section. The source links to the document's URL when it has a safe one."""
    label = truncate(escape(citation.source), SOURCE_CHARS)
    target = link_target(citation.url)
    source = f"_<{target}|{label}>_" if target else f"_{label}_"
    if citation.section:
        return f"📖 {cited_section(citation)} · {source}"
    number = t(lang, "question_n", number=citation.question)
    return f"📖 {number} · {escape(citation.title)} · {source}"


def cited_section(citation: Citation) -> str:
    """A document section's heading path, escaped and cut to fit in a citation line."""
    return truncate(escape(citation.section), SECTION_CHARS)


def _section_link(citation: Citation) -> str:
    """A section of the cited page by its own heading, linked to the page when it has a safe URL."""
    heading = truncate(escape(citation.section.rsplit(" › ", 1)[-1]), SECTION_CHARS)
    target = link_target(citation.url)
    return f"<{target}|{heading}>" if target else heading


def link_target(url: str | None) -> str | None:
    """`url` ready to go in a Slack link (`<url|label>`), or None when it must not become one: only an http or
    https URL with a host, at most URL_CHARS long, with nothing that could end the link or start markup (`<`,
    `>`, `|`, spaces, control characters). `&` is escaped, as Slack expects (and counts in the length)."""
    if not url or _NOT_IN_A_LINK.search(url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    target = url.replace("&", "&amp;")
    return target if len(target) <= URL_CHARS else None


QUESTION_IN_BUTTON = 300  # characters of the question a 👎 passes on to the knowledge gaps


def answer_message(answer: Answer, *, question: str | None = None) -> Message:
    """An answer: the excerpt (what answers the question asked), the snippet, the maintainers' notes on what it
    cites (once: `answer.text` carries them too, and is not shown), then the citation with the cited quiz
    question's own answer line, and feedback buttons.

    When the knowledge covers only part of the question, what it does not cover comes first. When it does
    not cover the question, only the short "I don't know" text (with the topics it does cover and the
    related quiz questions, if any): no citation, no buttons. `question` (what was answered) goes with the
    feedback buttons, so that a 👎 can tell the knowledge gaps what the answer was for."""
    lang = answer.language
    if not answer.answered and answer.suggestion is not None:  # "closest I know": a button shows that answer
        offered = answer.suggestion
        return message(escape(answer.text), [section(escape(answer.text)), *actions("suggestion_actions", [
            button(t(lang, "show_suggestion"), SUGGESTION_ACTION, {**doc_value(offered.doc_id),
                                                                   "q": offered.question, "l": lang})])])
    if not answer.answered or not answer.citations:
        return message(escape(answer.text), [section(escape(answer.text))])
    top = answer.citations[0]
    blocks: list[Block] = []
    if top.section:  # from a document: where it comes from first (heading path and link), then what it says
        blocks.append(context(cite(lang, top)))
    if answer.caveat:
        blocks.append(section(f":warning: _{escape(answer.caveat)}_"))
    blocks += quoted_blocks(top, lang)
    for beside in top.beside:  # a section of the same part of the page, quoted under its own heading
        blocks.append(context(f"📖 {cited_section(beside)}"))
        blocks += quoted_blocks(beside, lang)  # its excerpt is never empty: `Assistant._quoted_beside`
    blocks += note_blocks(top.notes, lang)
    lines = [] if top.section else [cite(lang, top)]
    if answer.answer_line:
        lines.append(f"*{t(lang, 'quiz_answer')}:* {escape(answer.answer_line)}")
    same_page = [c for c in answer.citations[1:] if c.section and c.doc_id == top.doc_id]
    if same_page:  # the next-best sections of the same page, by their own headings
        lines.append(f"{t(lang, 'more_in_page')}: " + "; ".join(_section_link(c) for c in same_page))
    others = [c for c in answer.citations[1:] if c not in same_page]
    if others:
        lines.append(f"{t(lang, 'also')}: " + "; ".join(
            cited_section(c) if c.section else f"{c.question}. {escape(c.title)}" for c in others))
    if lines:
        blocks.append(context("\n".join(lines)))
    feedback: dict[str, Any] = {**doc_value(top.doc_id), "q": top.question, "l": lang}
    if question:  # what was answered, for the knowledge gaps when the answer gets 👎
        feedback["t"] = _fitted(feedback, "t", truncate(question, QUESTION_IN_BUTTON))
    buttons = [
        button(t(lang, "helpful"), FEEDBACK_UP_ACTION, feedback),
        button(t(lang, "not_helpful"), FEEDBACK_DOWN_ACTION, feedback),
    ]
    if not top.section:  # a document's section has no quiz question to ask
        buttons.append(button(t(lang, "quiz_me"), QUIZ_ME_ACTION, feedback))
    blocks += actions("answer_actions", buttons)
    cited = top.section or t(lang, "question_n", number=top.question) + f": {top.title}"
    parts = [answer.caveat or "", top.excerpt, *(f"{b.section}: {b.excerpt}" for b in top.beside), cited,
             answer.answer_line or ""]
    return message(escape("\n".join(p for p in parts if p)), blocks)


def _fitted(value: dict[str, Any], key: str, text: str) -> str:
    """`text` cut until `value` with it under `key` fits in a button (escaping in JSON can make text longer)."""
    while text and len(encoded_value({**value, key: text})) > VALUE_LIMIT:
        text = truncate(text, len(text) // 2)
    return text


def quiz_message(prompt: QuizPrompt) -> Message:
    """A question: the options as text and one button per letter. The buttons carry only the attempt
    id and the letter; nothing in the message tells the answer."""
    lang = prompt.lang
    header = t(lang, "quiz_header", number=prompt.question, topic=escape(prompt.topic))
    options = "\n".join(f"*{o.key})* {escape(o.text)}" for o in prompt.options)
    blocks = [
        section(f"*{header}*\n{escape(prompt.prompt)}"),
        section(options),
        *actions("quiz_options", [
            button(o.key, quiz_answer_action(o.key), {"a": prompt.attempt_id, "c": o.key}) for o in prompt.options
        ]),
        context(t(lang, "quiz_hint")),
    ]
    fallback = f"{prompt.prompt}\n" + "\n".join(f"{o.key}) {o.text}" for o in prompt.options)
    return message(escape(fallback), blocks)


def result_message(result: QuizResult) -> Message:
    """The graded answer, in the attempt's language: ✅ or ❌ in words, the right answer, the explanation, the
    maintainers' notes on the question, snippet and citation."""
    lang, prompt_title = result.lang, result.title
    verdict = t(lang, "correct") if result.correct else t(lang, "incorrect")
    answer = f"{result.correct_choice}) {escape(result.correct_text)}"
    lines = [verdict]
    if not result.correct:
        lines.append(t(lang, "your_choice", choice=escape(result.choice)))
    lines.append(t(lang, "right_answer", answer=answer))
    blocks: list[Block] = [
        section(f"*{escape(prompt_title)}*\n" + " ".join(lines)),
        section(escape(result.explanation)),
        *note_blocks(result.notes, lang),
    ]
    blocks += snippet_blocks(result.citation, lang)
    blocks.append(context(cite(lang, result.citation)))
    if result.already_answered:
        blocks.append(context(f"⚠️ {t(lang, 'already')}"))
    blocks += actions("quiz_result", [
        button(t(lang, "next"), QUIZ_NEXT_ACTION, {"l": lang}, style="primary"),
        button(t(lang, "share"), QUIZ_SHARE_ACTION, {"a": result.attempt_id}),
    ])
    mark = "✅ " + t(lang, "correct_plain") if result.correct else "❌ " + t(lang, "incorrect_plain")
    fallback = f"{mark} {prompt_title}: {result.correct_choice}) {result.correct_text}"
    if result.already_answered:
        fallback += f"\n{t(lang, 'already')}"
    return message(escape(fallback), blocks)


def stats_message(stats: UserStats, lang: str) -> Message:
    if not stats.answered:
        return text_message(t(lang, "no_stats"))
    line = t(lang, "stats_line", answered=stats.answered, correct=stats.correct,
             accuracy=f"{stats.accuracy:.0%}", streak=stats.current_streak, best=stats.best_streak, due=stats.due)
    blocks = [section(f"{t(lang, 'stats_title')}\n{line}")]
    lines, untried = [], []
    for name, values in stats.per_topic.items():
        accuracy = values["accuracy"]
        if accuracy is None:
            untried.append(escape(name))
        else:
            lines.append(f"• {escape(name)}: {values['correct']}/{values['answered']} ({accuracy:.0%})")
    if untried:
        lines.append(t(lang, "not_tried", topics=", ".join(untried)))
    if lines:
        blocks.append(section(f"{t(lang, 'per_topic')}\n" + "\n".join(lines)))
    return message(line.replace("*", ""), blocks)


def leaderboard_message(entries: list[LeaderboardEntry], lang: str) -> Message:
    if not entries:
        return text_message(t(lang, "top_empty"))
    lines = [
        t(lang, "top_line", rank=rank, user=mention(e.user), correct=e.correct, accuracy=f"{e.accuracy:.0%}")
        for rank, e in enumerate(entries, start=1)
    ]
    text = t(lang, "top_title") + "\n" + "\n".join(lines)
    return text_message(text)


def mention(user: str) -> str:
    """`<@U123>` for a Slack user id; anything else is shown escaped, never as markup."""
    return f"<@{user}>" if SLACK_USER_ID.fullmatch(user) else escape(user)


def text_message(text: str) -> Message:
    """A short message of the bot's own text (already safe), for help, notes and errors."""
    return message(text, [section(text)])
