"""Block Kit for team rounds: the round's channel message (open, with one button per option of each
question, or closed), the private result of a click, the reveal, and the schedules.

A round has at most 10 questions: its message takes 3 blocks per question and the reveal 3, plus a few,
within Slack's 50; a question's 4 or 5 buttons are well within 25 per actions block. Buttons carry only
the round id, the question's place and the letter: nothing tells the answer. Every text that did not
come from the bot (knowledge text, topics) is escaped.
"""

from __future__ import annotations

from datetime import UTC, datetime

from bot.quiz import QuizResult
from bot.rounds import Reveal, RoundView
from bot.slack.action_ids import round_answer_action
from bot.slack.blocks import (
    Block,
    Message,
    actions,
    button,
    cite,
    context,
    escape,
    mention,
    message,
    section,
    text_message,
)
from bot.slack.round_texts import rt
from bot.slack.texts import t
from bot.storage import ScheduleRecord

LEADERS = 10


def round_message(view: RoundView) -> Message:
    lang = view.lang
    count = len(view.questions)
    title = rt(lang, "title_one") if count == 1 else rt(lang, "title", count=count)
    who = rt(lang, "scheduled_by" if view.scheduled else "started_by", user=mention(view.started_by))
    lines = [who]
    if not view.closed:
        lines.append(rt(lang, "ends", when=slack_date(view.ends_at)))
    blocks: list[Block] = [section(f"{title}\n{' · '.join(lines)}")]
    for q in view.questions:
        header = rt(lang, "question", position=q.position + 1, number=q.number, topic=escape(q.topic))
        blocks.append(section(f"*{header}*\n{escape(q.title)}"))
        blocks.append(section("\n".join(f"*{o.key})* {escape(o.text)}" for o in q.options)))
        if not view.closed:
            blocks += actions(f"round_{q.position}", [
                button(o.key, round_answer_action(q.position, o.key), {"r": view.id, "p": q.position, "c": o.key})
                for o in q.options
            ])
    footer = rt(lang, "over") if view.closed else f"{people(lang, view.people)} · {rt(lang, 'hint')}"
    blocks.append(context(footer))
    fallback = rt(lang, "fallback_one") if count == 1 else rt(lang, "fallback", count=count)
    return message(escape(fallback), blocks)


def reveal_message(reveal: Reveal) -> Message:
    view = reveal.round
    lang = view.lang
    head = [rt(lang, "results"), people(lang, reveal.people)]
    if reveal.ended_by:
        head.append(rt(lang, "ended_by", user=mention(reveal.ended_by)))
    blocks: list[Block] = [section(" · ".join(head))]
    for q in reveal.questions:
        header = f"*{q.position + 1}. {escape(q.title)}*"
        answer = rt(lang, "right_answer", letter=q.answer_letter, text=escape(q.answer_text))
        lines = [
            rt(lang, "option_line", mark="✅" if o.correct else "▫️", letter=o.letter, text=escape(o.text),
               count=o.count)
            for o in q.options
        ]
        tally = rt(lang, "right_count", right=q.right, answered=q.answered)
        blocks.append(section(f"{header}\n{answer} · {tally}\n" + "\n".join(lines)))
        blocks.append(section(escape(q.sentence) or " "))
        blocks.append(context(cite(lang, q.citation)))
    if reveal.standings:
        leaders = [
            rt(lang, "leader_line", rank=rank, user=mention(s.user), correct=s.correct, answered=len(reveal.questions))
            for rank, s in enumerate(reveal.standings[:LEADERS], start=1)
        ]
        blocks.append(section(rt(lang, "leaderboard") + "\n" + "\n".join(leaders)))
    else:
        blocks.append(section(rt(lang, "nobody")))
    return message(escape(rt(lang, "fallback_results")), blocks)


def result_message(result: QuizResult) -> Message:
    """What only the person who clicked sees: right or wrong, the explanation and where it comes from."""
    lang = result.lang
    answer = f"{result.correct_choice}) {escape(result.correct_text)}"
    verdict = rt(lang, "verdict_right") if result.correct else rt(lang, "verdict_wrong", choice=result.choice,
                                                                        answer=answer)
    blocks: list[Block] = [
        section(f"{verdict}\n*{escape(result.title)}*"),
        section(escape(result.explanation)),
        context(cite(lang, result.citation)),
    ]
    if result.already_answered:
        blocks.append(context(f"⚠️ {rt(lang, 'already')}"))
    mark = "✅ " + t(lang, "correct_plain") if result.correct else "❌ " + t(lang, "incorrect_plain")
    return message(escape(f"{mark} {result.title}"), blocks)


def schedules_message(schedules: list[ScheduleRecord], lang: str) -> Message:
    if not schedules:
        return text_message(rt(lang, "no_schedules"))
    lines = [schedule_line(s, lang) for s in schedules]
    return text_message(rt(lang, "schedules") + "\n" + "\n".join(lines))


def schedule_line(schedule: ScheduleRecord, lang: str) -> str:
    line = rt(lang, "schedule_line", id=schedule.id, when=weekly(schedule, lang), count=schedule.questions,
              topic=on_topic(schedule.topic, lang), minutes=schedule.minutes, next=slack_date(schedule.next_run))
    if schedule.status == "paused":
        line += " · " + rt(lang, "paused", reason=escape(schedule.paused_reason or "?"), id=schedule.id)
    return line


def scheduled_message(schedule: ScheduleRecord, lang: str) -> Message:
    return text_message(rt(lang, "scheduled", id=schedule.id, when=weekly(schedule, lang), count=schedule.questions,
                           topic=on_topic(schedule.topic, lang), minutes=schedule.minutes,
                           next=slack_date(schedule.next_run)))


def weekly(schedule: ScheduleRecord, lang: str) -> str:
    day = rt(lang, "days").split(",")[schedule.weekday]
    return rt(lang, "weekly", day=day, time=schedule.at_time, zone=escape(schedule.timezone))


def on_topic(topic: str | None, lang: str) -> str:
    return rt(lang, "on_topic", topic=f"_{escape(topic)}_") if topic else ""


def people(lang: str, count: int) -> str:
    if count == 0:
        return rt(lang, "people_none")
    return rt(lang, "people_one") if count == 1 else rt(lang, "people_many", count=count)


def slack_date(moment: datetime) -> str:
    """A moment each reader sees in their own time zone (Slack's date formatting), with a UTC fallback."""
    fallback = moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"<!date^{int(moment.timestamp())}^{{date_short_pretty}} {{time}}|{fallback}>"
