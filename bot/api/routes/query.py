"""POST /v1/query: the same answer object as `eksbot ask --json`."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from bot.api.deps import Authorized, MetricsDep, ServicesDep
from bot.api.schemas import AnswerOut, QueryRequest, error_responses

router = APIRouter(prefix="/v1", tags=["answers"], dependencies=[Authorized])

ERRORS = error_responses(
    e422="Invalid question (empty, too long, wrong type, unknown lang) or history (over 10 turns, a turn too long)."
)


@router.post("/query", response_model=AnswerOut, responses=ERRORS,
             summary="Answer a question with citations")
async def query(body: QueryRequest, request: Request, services: ServicesDep, metrics: MetricsDep) -> JSONResponse:
    """Answer from the knowledge, citing the quiz question, excerpt and snippet; or say it does not know.
    With `history`, a follow-up is read together with the earlier turns of its conversation."""
    asked = await services.answers.ask(body.question, body.lang, earlier=body.history or ())
    answer = asked.answer
    metrics.answer(answer.answered, "http")
    request.state.outcome = "answered" if answer.answered else "abstained"
    if request.app.state.settings.log_questions:
        request.state.question = body.question
    # The core's object already has the documented shape: no second validation on the hot path.
    out = answer.to_dict()
    if body.history is not None:
        out["read_as"] = asked.reading.text
    return JSONResponse(out)
