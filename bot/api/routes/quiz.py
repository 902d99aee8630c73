"""The quiz over HTTP: draw, answer, stats, leaderboard and per-question accuracy."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse

from bot.api.deps import Authorized, MetricsDep, QuizServicesDep, SettingsDep, TokenDep, acting_for
from bot.api.schemas import (
    PRINTABLE,
    QuizAnswerRequest,
    QuizNextRequest,
    QuizPromptOut,
    QuizResultOut,
    Text,
    UserStatsOut,
    error_responses,
)
from bot.lang import Lang
from bot.quiz import DEFAULT_TEAM, already_answered_text

router = APIRouter(prefix="/v1/quiz", tags=["quiz"], dependencies=[Authorized])

ERRORS = error_responses(
    e403="The attempt belongs to another user.",
    e404="Unknown attempt or topic (the topics are listed).",
    e409="Already answered: the original result is in `result`.",
    e422="Invalid input (user, choice, lang...).",
)
# Query parameters are checked like the body fields they match (bot.api.schemas).
UserQuery = Annotated[Text, Query(min_length=1, max_length=128, pattern=PRINTABLE, description="User id.")]
TeamQuery = Annotated[Text | None, Query(min_length=1, max_length=64, pattern=PRINTABLE,
                                         description="Team or workspace (default: the token's, else 'default').")]
AnyTeamQuery = Annotated[Text | None, Query(min_length=1, max_length=64, pattern=PRINTABLE,
                                            description="Team or workspace (default: every team).")]
StatsLangQuery = Annotated[Lang | None, Query(
    description="Language of the topic names (default: the one of the user's latest answer, else the setting).")]


@router.post("/next", response_model=QuizPromptOut, responses=ERRORS, summary="Draw the next question")
async def next_question(body: QuizNextRequest, services: QuizServicesDep, settings: SettingsDep,
                        token: TokenDep) -> dict[str, object]:
    """The question due for review, else a new one; `topic` narrows the draw."""
    user = body.user.strip()
    team = acting_for(token, user=user, team=body.team.strip() if "team" in body.model_fields_set else None)
    prompt = await services.run(
        services.quiz.next_question, user, team=team or DEFAULT_TEAM, topic=body.topic,
        lang=body.lang or settings.default_lang,
    )
    return prompt.to_dict()


@router.post("/answer", response_model=QuizResultOut, responses=ERRORS, summary="Answer an attempt")
async def answer(body: QuizAnswerRequest, request: Request, services: QuizServicesDep,
                 metrics: MetricsDep, token: TokenDep) -> dict[str, object] | JSONResponse:
    """Grade the choice once: a second answer to the same attempt gets 409 and changes nothing."""
    # A token bound to a team (or to a person, acting in the default team) grades that team's attempts only.
    team = acting_for(token, user=body.user.strip()) or (DEFAULT_TEAM if token is not None and token.user else None)
    result = await services.run(
        services.quiz.answer, body.user.strip(), body.attempt_id, body.choice, confidence=body.confidence,
        team=team,
    )
    if result.already_answered:
        return JSONResponse({"error": already_answered_text(result), "result": result.to_dict()}, status_code=409)
    metrics.quiz_answers.labels("correct" if result.correct else "incorrect", "http").inc()
    request.state.outcome = "correct" if result.correct else "incorrect"
    return result.to_dict()


@router.get("/stats", response_model=UserStatsOut, responses=ERRORS, summary="A user's stats")
async def stats(services: QuizServicesDep, settings: SettingsDep, token: TokenDep, user: UserQuery,
                team: TeamQuery = None, lang: StatsLangQuery = None) -> dict[str, object]:
    """Answered, correct, accuracy, streaks, questions due and per-topic accuracy."""
    team = acting_for(token, user=user.strip(), team=team.strip() if team else None)
    result = await services.run(
        services.quiz.stats, user.strip(), team=team or DEFAULT_TEAM, lang=lang, default_lang=settings.default_lang
    )
    return result.to_dict()


@router.get("/leaderboard", responses=ERRORS, summary="The team's leaderboard")
async def leaderboard(services: QuizServicesDep, token: TokenDep, team: TeamQuery = None,
                      limit: Annotated[int, Query(ge=1, le=100)] = 10) -> dict[str, object]:
    team = acting_for(token, team=team.strip() if team else None) or DEFAULT_TEAM
    entries = await services.run(services.quiz.leaderboard, team=team, limit=limit)
    return {"team": team, "entries": [e.to_dict() for e in entries]}


@router.get("/questions", responses=ERRORS, summary="Accuracy per question (hardest first)")
async def questions(services: QuizServicesDep, settings: SettingsDep, token: TokenDep, team: AnyTeamQuery = None,
                    lang: Lang | None = None) -> dict[str, object]:
    """Which questions trip people up: for whoever maintains the knowledge."""
    team = acting_for(token, team=team)
    rows = await services.run(services.quiz.question_stats, team=team, lang=lang or settings.default_lang)
    return {"team": team, "questions": [r.to_dict() for r in rows]}
