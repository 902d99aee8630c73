"""Block Kit messages for answers and quizzes, within Slack's limits, with escaped text.

Limits: 3,000 characters per section text, 50 blocks per message, 75 characters per button label;
every message carries a plain `text` fallback for notifications and screen readers.
"""

from __future__ import annotations

import json
from typing import Any

from bot.answers import Answer, Citation
from bot.quiz import LeaderboardEntry, QuizPrompt, QuizResult, UserStats
from bot.slack.texts import t

SECTION_LIMIT = 3000
MAX_BLOCKS = 50
FALLBACK_LIMIT = 3000
Block = dict[str, Any]


def escape(text: str) -> str:
    """Slack's escaping of &, < and >: user text can neither format links nor ping @channel/@here."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def section(text: str) -> Block:
    return {"type": "section", "text": {"type": "mrkdwn", "text": truncate(text, SECTION_LIMIT)}}


def code_section(code: str) -> Block:
    fence = "```"
    body = truncate(escape(code), SECTION_LIMIT - 2 * len(fence) - 2)
    return {"type": "section", "text": {"type": "mrkdwn", "text": f"{fence}\n{body}\n{fence}"}}


def context(text: str) -> Block:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": truncate(text, SECTION_LIMIT)}]}


def button(text: str, action_id: str, value: dict[str, Any] | str, style: str | None = None) -> Block:
    element: Block = {
        "type": "button", "text": {"type": "plain_text", "text": truncate(text, 75), "emoji": True},
        "action_id": action_id, "value": value if isinstance(value, str) else json.dumps(value, separators=(",", ":")),
    }
    if style:
        element["style"] = style
    return element


def message(text: str, blocks: list[Block]) -> dict[str, Any]:
    return {"text": truncate(text, FALLBACK_LIMIT), "blocks": blocks[:MAX_BLOCKS]}


def cite(lang: str, citation: Citation) -> str:
    number = t(lang, "question_n", number=citation.question)
    return f"📖 {number} · {escape(citation.title)} · _{escape(citation.source)}_"


def answer_message(answer: Answer) -> dict[str, Any]:
    lang = answer.language
    if not answer.answered:
        return message(answer.text, [section(escape(answer.text))])
    top = answer.citations[0]
    blocks: list[Block] = []
    if answer.answer_line:
        blocks.append(section(f"*{t(lang, 'quiz_answer')}:* {escape(answer.answer_line)}"))
    blocks.append(section(escape(top.excerpt)))
    if top.snippet:
        blocks.append(code_section(top.snippet))
    lines = [cite(lang, top)]
    if len(answer.citations) > 1:
        others = "; ".join(f"{c.question}. {escape(c.title)}" for c in answer.citations[1:])
        lines.append(f"{t(lang, 'also')}: {others}")
    blocks.append(context("\n".join(lines)))
    feedback = {"d": top.doc_id, "q": top.question, "l": lang}
    blocks.append({
        "type": "actions", "block_id": "answer_actions",
        "elements": [
            button(t(lang, "helpful"), "feedback_up", feedback),
            button(t(lang, "not_helpful"), "feedback_down", feedback),
            button(t(lang, "quiz_me"), "quiz_me", feedback),
        ],
    })
    fallback = f"{answer.answer_line}\n{top.excerpt}" if answer.answer_line else top.excerpt
    return message(fallback, blocks)


def quiz_message(prompt: QuizPrompt) -> dict[str, Any]:
    lang = prompt.lang
    options = "\n".join(f"*{o.key})* {escape(o.text)}" for o in prompt.options)
    blocks = [
        section(f"*{t(lang, 'quiz_header', number=prompt.question, topic=escape(prompt.topic))}*\n"
                f"{escape(prompt.prompt)}"),
        section(options),
        {
            "type": "actions", "block_id": "quiz_options",
            "elements": [
                button(o.key, f"quiz_answer_{o.key}", {"a": prompt.attempt_id, "c": o.key}) for o in prompt.options
            ],
        },
        context(t(lang, "quiz_hint")),
    ]
    fallback = f"{prompt.prompt}\n" + "\n".join(f"{o.key}) {o.text}" for o in prompt.options)
    return message(fallback, blocks)


def result_message(result: QuizResult, prompt_title: str, lang: str) -> dict[str, Any]:
    verdict = t(lang, "correct") if result.correct else t(lang, "incorrect")
    answer = f"{result.correct_choice}) {escape(result.correct_text)}"
    lines = [verdict]
    if not result.correct:
        lines.append(t(lang, "your_choice", choice=result.choice))
    lines.append(t(lang, "right_answer", answer=answer))
    blocks: list[Block] = [
        section(f"*{escape(prompt_title)}*\n" + " ".join(lines)),
        section(escape(result.explanation)),
    ]
    if result.citation.snippet:
        blocks.append(code_section(result.citation.snippet))
    blocks.append(context(cite(lang, result.citation)))
    if result.already_answered:
        blocks.append(context(f"⚠️ {t(lang, 'already')}"))
    blocks.append({
        "type": "actions", "block_id": "quiz_result",
        "elements": [
            button(t(lang, "next"), "quiz_next", {"l": lang}, style="primary"),
            button(t(lang, "share"), "quiz_share", {"a": result.attempt_id}),
        ],
    })
    fallback = ("✅ " if result.correct else "❌ ") + f"{prompt_title}: {result.correct_choice}) {result.correct_text}"
    return message(fallback, blocks)


def stats_message(stats: UserStats, lang: str) -> dict[str, Any]:
    if not stats.answered:
        return message(t(lang, "no_stats"), [section(t(lang, "no_stats"))])
    line = t(lang, "stats_line", answered=stats.answered, correct=stats.correct,
             accuracy=f"{stats.accuracy:.0%}", streak=stats.current_streak, best=stats.best_streak, due=stats.due)
    blocks = [section(f"{t(lang, 'stats_title')}\n{line}")]
    if stats.per_topic:
        topics = "\n".join(
            f"• {escape(name)}: {values['correct']}/{values['answered']} ({float(values['accuracy']):.0%})"
            for name, values in stats.per_topic.items()
        )
        blocks.append(section(f"{t(lang, 'per_topic')}\n{topics}"))
    return message(line.replace("*", ""), blocks)


def leaderboard_message(entries: list[LeaderboardEntry], lang: str) -> dict[str, Any]:
    if not entries:
        return message(t(lang, "top_empty"), [section(t(lang, "top_empty"))])
    lines = [
        t(lang, "top_line", rank=rank, user=escape(e.user), correct=e.correct, accuracy=f"{e.accuracy:.0%}")
        for rank, e in enumerate(entries, start=1)
    ]
    text = t(lang, "top_title") + "\n" + "\n".join(lines)
    return message(text, [section(text)])


def text_message(text: str) -> dict[str, Any]:
    """A short message of the bot's own text (already safe), for help and errors."""
    return message(text, [section(text)])
