"""GET /v1/admin/gaps: the knowledge gaps, for whoever maintains the knowledge. Always behind a token."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, HTTPException, Query
from pydantic import BaseModel, Field

from bot.api.deps import Authorized, ServicesDep, SettingsDep, get_settings, require_unscoped_token
from bot.api.schemas import error_responses
from bot.config import Settings


async def require_configured_tokens(settings: Annotated[Settings, Depends(get_settings)]) -> None:
    """Admin routes are never open: without EKSBOT_API_TOKENS they refuse every request."""
    if not settings.api_tokens:
        raise HTTPException(403, "the admin routes need an API token: set EKSBOT_API_TOKENS")


router = APIRouter(prefix="/v1/admin", tags=["admin"],
                   dependencies=[Depends(require_configured_tokens), Authorized, Depends(require_unscoped_token)])

ERRORS = error_responses(e403="EKSBOT_API_TOKENS is not set: admin routes are off.",
                         e422="Invalid limit or kind.")


class GapOut(BaseModel):
    kind: Literal["unanswered", "uncovered", "downvoted"] = Field(
        description="unanswered: the bot said it does not know; uncovered: a term of a partly answered question "
                    "the knowledge never mentions; downvoted: an answer got 👎.", examples=["unanswered"])
    lang: Literal["es", "en"] = Field(examples=["en"])
    text: str = Field(description="The question (latest wording of the group), or the uncovered term.",
                      examples=["How do I run a PyTorchJob on EKS?"])
    example: str | None = Field(description="For an uncovered term: the latest question it came from.",
                                examples=[None])
    question: int | None = Field(description="The quiz question the answer cited (uncovered, downvoted).",
                                 examples=[None])
    count: int = Field(description="How many near-identical entries were counted together.", examples=[4])
    first_seen: str = Field(description="ISO 8601, UTC.", examples=["2025-03-03T09:00:00+00:00"])
    last_seen: str = Field(description="ISO 8601, UTC.", examples=["2025-03-10T17:45:12+00:00"])


class GapsOut(BaseModel):
    recording: bool = Field(description="Whether gaps are being recorded (EKSBOT_RECORD_GAPS).", examples=[True])
    retention_days: int = Field(description="Gaps not seen for this long are forgotten (EKSBOT_GAPS_RETENTION_DAYS).",
                                examples=[90])
    gaps: list[GapOut] = Field(description="The most frequent first. No user ids are ever stored.")


@router.get("/gaps", response_model=GapsOut, responses=ERRORS, summary="Knowledge gaps, most frequent first")
async def gaps(services: ServicesDep, settings: SettingsDep,
               limit: Annotated[int, Query(ge=1, le=500, description="How many groups.")] = 50,
               kind: Annotated[Literal["unanswered", "uncovered", "downvoted"] | None,
                               Query(description="Only this kind.")] = None) -> dict[str, object]:
    """Questions the bot did not answer, terms it did not cover and answers that got 👎, grouped."""
    rows = await services.run(services.gaps.listing, limit=limit, kind=kind)
    return {"recording": settings.record_gaps, "retention_days": settings.gaps_retention_days,
            "gaps": [row.to_dict() for row in rows]}
