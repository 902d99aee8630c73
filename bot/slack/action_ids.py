"""The `action_id` of every button and menu the bot sends, which Slack hands back when one is used: defined
here once, for the module that builds the element and for `app`, which routes the action to its listener.

A quiz option's and a round option's id carry the option (and the round's question), each unique in its
message; the patterns are what `app` routes on.
"""

from __future__ import annotations

import re

QUIZ_ANSWER_ACTION = "quiz_answer"  # quiz_answer_<letter>
QUIZ_NEXT_ACTION = "quiz_next"
QUIZ_SHARE_ACTION = "quiz_share"
QUIZ_ME_ACTION = "quiz_me"  # under an answer: a quiz question on what it cites
FEEDBACK_UP_ACTION = "feedback_up"
FEEDBACK_DOWN_ACTION = "feedback_down"
SUGGESTION_ACTION = "show_suggestion"  # under an "I don't know": the answer of the question it suggests
REVIEW_ACTION = "home_review"  # the Home tab's start or review button
LANGUAGE_ACTION = "home_language"  # the Home tab's language menu
GAP_ACTION = "gap_answer"  # "Answer this" next to a knowledge gap on the Home tab
NOTE_ACTION = "note_add"  # "Add a note" after a 👎
ROUND_ANSWER_ACTION = "round_answer"  # round_answer_<position>_<letter>

QUIZ_ANSWERS = re.compile(rf"^{QUIZ_ANSWER_ACTION}_[A-Z]$")
FEEDBACK_ACTIONS = re.compile(rf"^(?:{FEEDBACK_UP_ACTION}|{FEEDBACK_DOWN_ACTION})$")
ROUND_ANSWERS = re.compile(rf"^{ROUND_ANSWER_ACTION}_\d{{1,2}}_[A-Z]$")


def quiz_answer_action(letter: str) -> str:
    return f"{QUIZ_ANSWER_ACTION}_{letter}"


def round_answer_action(position: int, letter: str) -> str:
    return f"{ROUND_ANSWER_ACTION}_{position}_{letter}"
