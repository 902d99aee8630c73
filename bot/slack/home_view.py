"""The App Home tab as a Block Kit view, in the person's language, within Slack's limits.

Limits kept here besides those of `blocks`: 100 blocks per view, 150 characters per header. Every list is
one section of lines (cut to fit its 3,000 characters), but for the knowledge gaps, one section each with its
"Answer this" button, at most GAP_SECTIONS of them; so the view stays far below 100 blocks whatever the data,
and the builder still refuses to go beyond. Text that did not come from the bot is escaped, or shown as plain
text (the gaps).
"""

from __future__ import annotations

from typing import Any

from bot.home import HomeView
from bot.lang import LANGUAGES, Lang
from bot.quiz import TopicTally
from bot.slack import blocks
from bot.slack.action_ids import GAP_ACTION, LANGUAGE_ACTION, REVIEW_ACTION
from bot.slack.blocks import Block, escape, mention
from bot.slack.knowledge_views import LANGUAGE_NAMES, cut, plain
from bot.slack.texts import t
from bot.storage import GapRecord

MAX_VIEW_BLOCKS = 100
HEADER_LIMIT = 150
GAP_SECTIONS = 20  # gaps shown, one section each


def home_view(view: HomeView, *, gaps_recorded: bool = True, retention_days: int = 90) -> dict[str, Any]:
    """The `view` argument of `views.publish` for `view`'s person."""
    lang = view.lang
    out: list[Block] = [header(t(lang, "home_title")), *_progress(view), {"type": "divider"}, *_due(view),
                        {"type": "divider"}, *_leaders(view), {"type": "divider"}, _language_choice(lang)]
    if view.maintainer is not None:
        out += [{"type": "divider"}, header(t(lang, "home_maintainers")),
                *_gaps(view.maintainer.gaps, lang, recorded=gaps_recorded, days=retention_days),
                _hardest(view, lang)]
    if len(out) > MAX_VIEW_BLOCKS:
        raise ValueError(f"a Home view of {len(out)} blocks is over Slack's {MAX_VIEW_BLOCKS}")
    return {"type": "home", "callback_id": "home", "blocks": out}


def header(text: str) -> Block:
    return {"type": "header", "text": {"type": "plain_text", "text": blocks.truncate(text, HEADER_LIMIT),
                                       "emoji": True}}


def lines_section(title: str, lines: list[str]) -> Block:
    """A title and as many whole lines as fit in one section."""
    kept: list[str] = []
    size = len(title)
    for line in lines:
        size += len(line) + 1
        if size > blocks.SECTION_LIMIT - 2:
            kept.append("…")
            break
        kept.append(line)
    return blocks.section("\n".join([title, *kept]))


def _progress(view: HomeView) -> list[Block]:
    lang, stats = view.lang, view.stats
    if not stats.answered:
        return [blocks.section(t(lang, "home_no_stats"))]
    line = t(lang, "home_stats", answered=stats.answered, accuracy=f"{stats.accuracy:.0%}",
             streak=stats.current_streak, best=stats.best_streak)
    topics = [_topic_line(lang, name, tally) for name, tally in stats.per_topic.items()]
    return [blocks.section(line), lines_section(t(lang, "home_topics_title"), topics)]


def _topic_line(lang: str, name: str, tally: TopicTally) -> str:
    accuracy = tally["accuracy"]
    if accuracy is None:  # never tried
        return t(lang, "home_topic_unseen", topic=escape(name))
    return t(lang, "home_topic_line", topic=escape(name), correct=tally["correct"], answered=tally["answered"],
             accuracy=f"{accuracy:.0%}")


def _due(view: HomeView) -> list[Block]:
    lang = view.lang
    start = blocks.button(t(lang, "home_review" if view.due else "home_start"), REVIEW_ACTION, {"l": lang},
                          style="primary")
    if not view.due:
        return [blocks.section(t(lang, "home_due_none")), *blocks.actions("home_due", [start])]
    lines = [t(lang, "home_due_line", number=d.question, title=escape(d.title)) for d in view.due]
    return [lines_section(t(lang, "home_due_title", count=view.stats.due), lines),
            *blocks.actions("home_due", [start])]


def _leaders(view: HomeView) -> list[Block]:
    lang = view.lang
    if not view.leaders:
        return [blocks.section(t(lang, "top_empty"))]
    lines = [
        t(lang, "top_line", rank=rank, user=mention(e.user), correct=e.correct, accuracy=f"{e.accuracy:.0%}")
        for rank, e in enumerate(view.leaders, start=1)
    ]
    own = (t(lang, "home_you", rank=view.rank, correct=view.own.correct, accuracy=f"{view.own.accuracy:.0%}")
           if view.rank and view.own else t(lang, "home_you_unranked"))
    return [lines_section(t(lang, "home_leaders_title"), lines), blocks.context(own)]


def _language_choice(lang: Lang) -> Block:
    options = [{"text": {"type": "plain_text", "text": LANGUAGE_NAMES[code]}, "value": code} for code in LANGUAGES]
    return {
        "type": "section", "block_id": "home_language",
        "text": {"type": "mrkdwn", "text": t(lang, "home_language")},
        "accessory": {"type": "static_select", "action_id": LANGUAGE_ACTION, "options": options,
                      "initial_option": next(o for o in options if o["value"] == lang)},
    }


def _gaps(gaps: list[GapRecord], lang: Lang, *, recorded: bool, days: int) -> list[Block]:
    """The gaps, one section each with "Answer this" (its button names only the gap's id), at most
    GAP_SECTIONS of them. A gap is someone's words: its line is plain text, so nothing in it is read as markup
    (no mention, link, bold or code)."""
    title = t(lang, "home_gaps_title", days=days)
    if not recorded and not gaps:
        return [blocks.section(f"{title}\n{t(lang, 'home_gaps_off')}")]
    if not gaps:
        return [blocks.section(f"{title}\n{t(lang, 'home_gaps_none')}")]
    out = [blocks.section(title)]
    for g in gaps[:GAP_SECTIONS]:
        line = t(lang, "home_gap_line", count=g.count, kind=t(lang, f"gap_{g.kind}"), lang=g.lang,
                 text=f"“{cut(g.text, 200)}”",
                 extra=t(lang, "home_gap_question", number=g.question) if g.question else "",
                 seen=g.last_seen.strftime("%Y-%m-%d"))
        out.append({"type": "section", "text": plain(line, blocks.SECTION_LIMIT),  # as typed: no markup at all
                    "accessory": blocks.button(t(lang, "home_gap_answer"), GAP_ACTION, {"g": g.id, "l": lang})})
    if len(gaps) > GAP_SECTIONS:
        out.append(blocks.context(t(lang, "home_gaps_more", count=len(gaps) - GAP_SECTIONS)))
    return out


def _hardest(view: HomeView, lang: Lang) -> Block:
    assert view.maintainer is not None
    hardest = view.maintainer.hardest
    title = t(lang, "home_hardest_title")
    if not hardest:
        return blocks.section(f"{title}\n{t(lang, 'home_hardest_none')}")
    return lines_section(title, [
        t(lang, "home_hardest_line", number=q.question, title=escape(q.title), accuracy=f"{q.accuracy:.0%}",
          answered=q.answered)
        for q in hardest
    ])
