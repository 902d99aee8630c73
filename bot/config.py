"""One validated settings object, built when an application or command starts (never at import)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import UTC, tzinfo
from pathlib import Path
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AliasChoices, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from bot.errors import ConfigError
from bot.lang import Lang, locale_lang
from bot.logs import LogFormat

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def _default_dir(name: str) -> Path:
    """`knowledge/`, `index/`, `data/` next to the package in a checkout, else under the working dir."""
    candidate = PROJECT_ROOT / name
    if (PROJECT_ROOT / "pyproject.toml").exists():
        return candidate
    return Path.cwd() / name


class Settings(BaseSettings):
    """Every setting comes from the environment (prefix `EKSBOT_`, Slack's own names for Slack)."""

    model_config = SettingsConfigDict(env_prefix="EKSBOT_", extra="ignore", populate_by_name=True)

    # The descriptions are the settings' documentation: scripts/settings_doc.py writes docs/settings.md from them.
    knowledge_dir: Path = Field(
        default_factory=lambda: _default_dir("knowledge"),
        description="Knowledge files: the quiz, and any Markdown document (`*.md`, `*.mdx`, in subfolders too).",
    )
    knowledge_refresh_seconds: float = Field(
        default=0.5, ge=0.0, le=3600.0,
        description="How often a running server looks for changed knowledge files (their names, sizes and times "
        "only), besides being told of each write by the system; a change is answered from without a "
        "restart (0: only at start).",
    )
    index_dir: Path = Field(
        default_factory=lambda: _default_dir("index"),
        description="Built index artifacts (with an ONNX backend, also the model's export: `onnx/` or `onnx-int8/`).",
    )
    data_dir: Path = Field(
        default_factory=lambda: _default_dir("data"), description="Where the default SQLite database lives."
    )
    embedding_model: str = Field(
        default="all-MiniLM-L6-v2",
        description="Sentence-transformers model: a name or a directory. The default is the bundled copy; with a "
        "model hub, set `HF_HUB_OFFLINE=0` to pick another.",
    )
    embedding_backend: Literal["onnx", "onnx-int8", "torch"] = Field(
        default="onnx",
        description="What runs the model: `onnx` (ONNX Runtime, fp32), `onnx-int8` (int8 weights: faster, but it "
        "moves some evaluation figures) or `torch` (sentence-transformers on PyTorch; needs the build tools). The "
        "ONNX backends read an export of the model kept next to the index and never import PyTorch. Changing it "
        "rebuilds the index.",
    )
    auto_rebuild: bool = Field(
        default=True,
        description="Rebuild a missing or stale index at start; `false`: refuse to start with a clear message.",
    )
    abstain_threshold: float | None = Field(
        default=None, ge=0.0, le=1.0,
        description="Below this confidence (a probability) the bot says it does not know (default: the calibrated "
        "model's, 1/3: a fair question declined costs twice a wrong answer). A partly covered question, whose "
        "answer names first what the knowledge does not cover, needs less, in the same proportion (0.2 against "
        "the default 1/3).",
    )
    max_question_chars: int = Field(default=2000, ge=10, description="Longest question accepted.")
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(
        default="INFO",
        description="Logs go to stderr, one line per request (route, status, duration, answered or abstained).",
    )
    log_format: LogFormat = Field(
        default="auto",
        description="`json`: one JSON object per line (for log collectors); `text`: readable lines (time, level, "
        "logger, message, `key=value`); `auto`: text on a terminal, JSON otherwise.",
    )
    log_questions: bool = Field(
        default=False, description="Also log the question text (off by default: questions may be private)."
    )

    api_tokens_raw: SecretStr = Field(
        default=SecretStr(""), validation_alias=AliasChoices("EKSBOT_API_TOKENS"),
        description="Comma-separated; when set, `/v1/*` needs `Authorization: Bearer <token>`. An entry "
        "`TOKEN:user=ID`, `TOKEN:team=ID` or `TOKEN:team=ID:user=ID` acts only for that user or team (403 "
        "otherwise; the team is its default), so one token cannot play as everyone on the leaderboard. "
        "`GET /v1/admin/gaps` always needs one.",
    )
    rate_limit: int = Field(
        default=600, ge=0,
        description="Requests per minute per token or address on `/v1/*` (per replica); `0` turns it off.",
    )
    max_body_bytes: int = Field(
        default=64 * 1024, ge=1024, description="Largest request body accepted (413 beyond)."
    )
    body_timeout: float = Field(
        default=10.0, gt=0, description="Seconds a client has to send a request's body (408 beyond)."
    )

    database_url: str = Field(
        default="", validation_alias=AliasChoices("DATABASE_URL", "EKSBOT_DATABASE_URL"),
        description="The database (SQLAlchemy URL); unset: an SQLite file in the data directory. "
        "`postgresql+psycopg://user:pass@host/db` for several replicas.",
    )
    migrate_on_start: bool = Field(
        default=True,
        description="Apply database migrations when the server starts (`false` when a release job runs them, as "
        "the Helm chart does).",
    )
    share_vectors: bool = Field(
        default=True,
        description="Index builds (at start, when the knowledge changes, `eksbot index build`) read the vector of "
        "each text some build embedded before with the same model from the database, and keep there the vectors "
        "they embed: over PostgreSQL, a new replica embeds only the text no replica embedded before. A database "
        "that fails or is slow is logged once and the build embeds the rest itself. `false`: each build embeds "
        "all it lacks.",
    )
    share_vectors_timeout: float = Field(
        default=10.0, gt=0,
        description="Seconds one read or write of the shared vectors may take (a few thousand texts); beyond, or on "
        "an error, the build goes on without the database.",
    )
    default_lang: Lang = Field(
        default_factory=lambda: locale_lang(os.environ),
        description="Language when a request does not tell (`/quiz` alone, `eksbot quiz`); unset: `es` when the "
        "locale (`LC_ALL`, else `LC_MESSAGES`, else `LANG`) is `es_*`, else `en`. The Helm chart sets `es` "
        "(`config.defaultLang`).",
    )
    admins_raw: str = Field(default="", validation_alias=AliasChoices("EKSBOT_ADMINS"),
                            description="Comma-separated Slack user ids (`U0123ABC`) of the admins: they see the "
                                        "knowledge gaps and the hardest quiz questions on their Home, and may end "
                                        "any team round and change any round schedule.")
    record_gaps: bool = Field(
        default=True, description="Record knowledge gaps (no user ids are stored); `false`: none are recorded."
    )
    gaps_retention_days: int = Field(default=90, ge=1, le=3650,
                                     description="A knowledge gap not seen for this many days is forgotten.")
    slack_thread_replies: bool = Field(
        default=False,
        description="Answer replies in the bot's threads without a mention (needs the thread-replies manifest, "
        "with `channels:history`).",
    )
    unanswered_retention_days: int = Field(
        default=30, ge=1,
        description="Quiz questions drawn and never answered are forgotten after this many days (checked hourly).",
    )
    round_retention_days: int = Field(
        default=180, ge=1, le=3650,
        description="Team rounds that ended this many days ago are forgotten with who answered what (checked "
                    "hourly; the answers still count in each person's stats and reviews).",
    )
    timezone: str = Field(
        default="UTC",
        description="Time zone of weekly round schedules that do not name one (an IANA name such as "
        "`Europe/Madrid`).",
    )
    rounds_poll_seconds: float = Field(
        default=2.0, gt=0, le=60, description="How often each process looks for rounds to post, update or reveal."
    )

    slack_bot_token: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("SLACK_BOT_TOKEN"),
        description="The bot's token (`xoxb-...`). With `SLACK_SIGNING_SECRET` too, Slack is on at "
        "`POST /slack/events`; with `SLACK_APP_TOKEN`, `eksbot slack --socket` runs it in Socket Mode.",
    )
    slack_signing_secret: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("SLACK_SIGNING_SECRET"),
        description="The app's signing secret (HTTP mode): every request to `POST /slack/events` is checked "
        "against it.",
    )
    slack_app_token: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("SLACK_APP_TOKEN"),
        description="App-level token (`xapp-...`, scope `connections:write`) for Socket Mode "
        "(`eksbot slack --socket`).",
    )
    slack_api_url: str = Field(
        default="https://slack.com/api/", validation_alias=AliasChoices("SLACK_API_URL", "EKSBOT_SLACK_API_URL"),
        description="Slack Web API base URL (GovSlack, tests).",
    )

    @field_validator("slack_bot_token", "slack_signing_secret", "slack_app_token", mode="before")
    @classmethod
    def _blank_is_none(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("admins_raw")
    @classmethod
    def _slack_user_ids(cls, value: str) -> str:
        ids = [item.strip() for item in value.split(",") if item.strip()]
        wrong = [item for item in ids if not re.fullmatch(r"[UW][A-Z0-9]{2,30}", item)]
        if wrong:
            raise ValueError(f"EKSBOT_ADMINS takes Slack user ids (U0123ABC), not {', '.join(wrong[:3])}")
        return ",".join(ids)

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        zone_named(value)
        return value

    @model_validator(mode="after")
    def _check(self) -> Settings:
        if not self.database_url:
            self.database_url = f"sqlite:///{(self.data_dir / 'eksbot.db').resolve()}"
        if not self.slack_api_url.endswith("/"):
            self.slack_api_url += "/"
        return self

    @property
    def api_tokens(self) -> list[str]:
        return [entry.token for entry in self.api_token_entries]

    @property
    def api_token_entries(self) -> list[ApiToken]:
        return parse_api_tokens(self.api_tokens_raw.get_secret_value())

    @property
    def admins(self) -> frozenset[str]:
        return frozenset(item for item in self.admins_raw.split(",") if item)

    @property
    def zone(self) -> tzinfo:
        return zone_named(self.timezone)

    @property
    def slack_enabled(self) -> bool:
        return self.slack_bot_token is not None and self.slack_signing_secret is not None


@dataclass(frozen=True)
class ApiToken:
    """One entry of EKSBOT_API_TOKENS: `TOKEN`, or `TOKEN:user=ID`, `TOKEN:team=ID` or both
    (`TOKEN:team=ID:user=ID`), a token that acts only for that user or team."""

    token: str
    user: str | None = None
    team: str | None = None


def parse_api_tokens(raw: str) -> list[ApiToken]:
    """The entries of EKSBOT_API_TOKENS (comma-separated). A malformed entry is a ConfigError that names its
    position, never the token."""
    entries = []
    for position, entry in enumerate((e.strip() for e in raw.split(",") if e.strip()), start=1):
        token, *scopes = entry.split(":")
        bound: dict[str, str] = {}
        for scope in scopes:
            key, _, value = scope.partition("=")
            if key not in ("user", "team") or not value.strip() or key in bound:
                raise ConfigError(f"EKSBOT_API_TOKENS entry {position}: after the token, only ':user=ID' and "
                                 "':team=ID' may follow, once each")
            bound[key] = value.strip()
        if not token.strip():
            raise ConfigError(f"EKSBOT_API_TOKENS entry {position} has no token")
        entries.append(ApiToken(token.strip(), user=bound.get("user"), team=bound.get("team")))
    return entries


def zone_named(name: str) -> tzinfo:
    """The time zone of an IANA name ("Europe/Madrid"); "UTC" needs no time zone database."""
    if name.strip().upper() in ("UTC", "Z"):
        return UTC
    try:
        return ZoneInfo(name.strip())
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {name!r} (use an IANA name such as Europe/Madrid)") from None


def load_settings(**overrides: object) -> Settings:
    """Build the settings from the environment; keyword arguments win over the environment."""
    return Settings(**overrides)  # type: ignore[arg-type]
