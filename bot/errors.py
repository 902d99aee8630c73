"""The project's exceptions, translated at each surface (Slack, HTTP, CLI).

    EksBotError
    ├── ConfigError            a setting is missing or unsafe
    ├── KnowledgeError         a knowledge file is malformed (file, line, reason)
    ├── IndexArtifactError     the built index is missing, stale or foreign
    ├── InputError             a user's input cannot be processed (empty, too long)
    ├── ChannelError           Slack will not take the bot's messages in a channel (gone, or the bot left)
    ├── StorageError           the database failed
    │   ├── StorageUnavailableError   it cannot be reached or used now: retry later
    │   └── StorageIntegrityError     it refused a write that breaks a constraint
    ├── KnowledgeEditError     a change to the knowledge (an entry, a note) cannot be made as asked
    │   ├── UnknownEntryError   there is no such entry or note
    │   └── StaleEditError      the entry changed since the editor read it: nothing was saved
    └── QuizError              a quiz request cannot be honoured
        ├── UnknownAttemptError
        ├── AttemptOwnerError
        ├── InvalidChoiceError
        ├── UnknownTopicError
        └── RoundError         a team round cannot be started, answered, ended or scheduled as asked
            └── RoundClosedError   the round is over: answers no longer count
"""

from __future__ import annotations

from pathlib import Path


class EksBotError(Exception):
    """Base of every error this project raises on purpose."""


class ConfigError(EksBotError):
    pass


class KnowledgeError(EksBotError):
    """A knowledge file is malformed; the message names the file and the line."""

    def __init__(self, path: Path | str, line: int | None, reason: str) -> None:
        self.path = Path(path)
        self.line = line
        self.reason = reason
        where = f"{self.path}:{line}" if line else str(self.path)
        super().__init__(f"{where}: {reason}")


class IndexArtifactError(EksBotError):
    """`reason` says what is wrong (what a rebuild logs); the message adds `fix`, what to do about it."""

    def __init__(self, reason: str, *, fix: str = "") -> None:
        super().__init__(f"{reason}; {fix}" if fix else reason)
        self.reason = reason


class InputError(EksBotError):
    pass


class ChannelError(EksBotError):
    """Slack refuses to post in a channel for good: `code` is Slack's error (`channel_not_found`,
    `not_in_channel`, `is_archived`)."""

    def __init__(self, code: str) -> None:
        super().__init__(f"the channel cannot take messages: {code}")
        self.code = code


class StorageError(EksBotError):
    """The database failed. `str()` names only the kind of failure, safe to show anyone; `detail` is the
    driver's own first line, which may name hosts and users (for the log and the operator's terminal)."""

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.detail = detail or message


class StorageUnavailableError(StorageError):
    pass


class StorageIntegrityError(StorageError):
    pass


class KnowledgeEditError(EksBotError):
    pass


class UnknownEntryError(KnowledgeEditError):
    pass


class StaleEditError(KnowledgeEditError):
    """Another change reached the entry first; `current` is the version it is at now."""

    def __init__(self, message: str, current: int) -> None:
        super().__init__(message)
        self.current = current


class QuizError(EksBotError):
    pass


class UnknownAttemptError(QuizError):
    pass


class AttemptOwnerError(QuizError):
    pass


class InvalidChoiceError(QuizError):
    pass


class UnknownTopicError(QuizError):
    def __init__(self, message: str, topics: list[str]) -> None:
        super().__init__(message)
        self.topics = topics


class RoundError(QuizError):
    pass


class RoundClosedError(RoundError):
    pass
