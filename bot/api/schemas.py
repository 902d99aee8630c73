"""Request and response bodies of the HTTP API, documented field by field for /openapi.json."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, JsonValue, StrictInt, StrictStr

from bot.answering.conversation import MAX_TURN_CHARS, MAX_TURNS
from bot.curation.service import EntryDraft
from bot.knowledge.citations import SNIPPET_CHARS, SNIPPET_LINES
from bot.knowledge.entries import MAX_BODY, MAX_NOTE, MAX_TITLE, MAX_TOPIC
from bot.lang import Lang
from bot.quiz import DEFAULT_TEAM
from bot.text.control import C0


def valid_unicode(value: str) -> str:
    """Refuse text that is not valid Unicode (a lone surrogate such as `\\ud800`, which JSON can carry):
    it cannot be encoded, stored or shown, so it is refused here rather than deeper in."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("is not valid Unicode text (it holds a lone surrogate)") from None
    return value


# Every text field and query parameter a client sends.
Text = Annotated[StrictStr, AfterValidator(valid_unicode)]

# Printable text with at least one visible character, in a regex dialect that JSON Schema (ECMA-262),
# Python and pydantic's Rust engine read alike: explicit ranges, no `\s`. "Visible" is what `str.strip()`
# keeps: neither a control character (`C0`, tab and new line included) nor whitespace.
_SPACE = r"\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
PRINTABLE = f"^[^{C0}]*[^{C0}{_SPACE}][^{C0}]*$"


class QueryRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: Text = Field(
        min_length=1,
        description="The question, in Spanish or English. Slack markup is accepted and ignored.",
        examples=["¿Qué variables de entorno necesito para que NCCL use EFA?"],
    )
    lang: Lang | None = Field(
        default=None, description="Answer in this language instead of the question's own.", examples=["en"]
    )
    history: list[Annotated[StrictStr, Field(max_length=MAX_TURN_CHARS)]] | None = Field(
        default=None, max_length=MAX_TURNS,
        description=f"Earlier turns of the conversation, oldest first (at most {MAX_TURNS}, each at most "
                    f"{MAX_TURN_CHARS:,} characters): the questions asked before this one. A short or elliptic "
                    "follow-up (\"and stage 2?\", \"¿y en Trainium?\") is read together with what they were "
                    "about; a self-contained question, or one about something the knowledge never mentions, is "
                    "read alone. The answer then says how the question was read (`read_as`).",
        examples=[["Which DeepSpeed ZeRO stage offloads parameters to CPU memory?"]],
    )


class PartOut(BaseModel):
    text: str = Field(description="What the quote says before the block (may be empty).",
                      examples=["For `llama.cpp` workloads a configuration file might look like this:"])
    snippet: str | None = Field(description="The code block it leads into, bounded as `snippet` is; null for what "
                                            "follows the last block.", examples=["gpu_layers: 22"])


class CitationOut(BaseModel):
    question: int = Field(description="Number of the cited quiz question, or of the cited section in its document "
                                      "(in document order, from 1).", examples=[5])
    title: str = Field(
        description="Title of the cited question, or the heading of the cited section.",
        examples=["¿Qué variable de entorno habilita EFA (Elastic Fabric Adapter) en NCCL?"],
    )
    excerpt: str = Field(description="The most relevant sentences of its explanation (of a section: of its text).",
                         examples=["Para habilitar redes EFA con NCCL ... debes establecer variables de entorno:"])
    snippet: str | None = Field(description="The best matching code or YAML block, if the question has one: at "
                                            f"most {SNIPPET_LINES} lines and {SNIPPET_CHARS:,} characters. When it "
                                            "was cut, it ends with a line \"…\"; a single line longer than that is "
                                            "cut inside and ends with \"…\".",
                                examples=["export FI_PROVIDER=efa"])
    source: str = Field(description="Knowledge file the citation comes from, relative to the knowledge directory.",
                        examples=["eks-training-quiz.es.md"])
    score: float = Field(description="Retrieval score, higher is closer (not a probability).", examples=[1.36])
    doc: str = Field(description="Id of the cited document: a quiz's `id`, or a document's path in the knowledge "
                                 "directory without its extension.",
                     examples=["eks-training-quiz"])
    section: str = Field(
        description="The cited section's heading path, the document's title first, joined with \" › \"; empty for "
                    "a quiz question.",
        examples=["GPU training on EKS — ML Platform runbook › GPU quotas › Requesting a quota increase"],
    )
    url: str | None = Field(
        description="Where readers find the cited document (its front matter's `source_url`, or its folder's "
                    "`sources.yaml`); null when the knowledge does not say, or says anything but a plain http(s) "
                    "URL.",
        examples=["https://wiki.acme.internal/ml-platform/runbooks/gpu-training"],
    )
    notes: list[str] = Field(
        description="Maintainers' notes on the cited question or section (`POST /v1/admin/notes`), in the reader's "
                    "language when there is one in it, else in the other; empty when there are none.",
        examples=[["Current Slinky releases name these kinds NodeSet and Cluster, in the slinky.slurm.net group."]],
    )
    beside: list[CitationOut] = Field(
        default_factory=list, examples=[[]],
        description="On the first citation of an answer from a document: the section of the same part of its page "
                    "(its parent or a subsection, or a section under the same heading) weighed about as close and "
                    "quoted with it under its own heading, in the same shape; empty otherwise.",
    )
    parts: list[PartOut] = Field(
        default_factory=list, examples=[[]],
        description="When what is quoted shows several code blocks: the quote in the section's order, each text "
                    "with the block it leads into (\"For llama.cpp …:\" over its YAML, \"For diffusers …:\" over "
                    "its own), so that a reader sees which block each sentence introduces. `excerpt` and `snippet` "
                    "hold the same text and blocks, each together. Empty when it shows one block or none.",
    )


class AnswerOut(BaseModel):
    answered: bool = Field(description="False when the knowledge does not cover the question.", examples=[True])
    language: Lang = Field(description="Language of the answer.", examples=["es"])
    text: str = Field(description="The answer, or a plain 'I don't know' with the topics covered.",
                      examples=["Para habilitar redes EFA con NCCL ... la respuesta correcta es B) FI_PROVIDER=efa."])
    citations: list[CitationOut] = Field(
        description="Sources, best first. When not answered: related quiz questions, if any really are "
                    "(they share a specific term with the question), with empty excerpts."
    )
    confidence: float = Field(
        ge=0.0, le=1.0, examples=[0.97],
        description="Estimated probability that the best quiz question answers the question (a calibrated "
                    "logistic model); the bot answers at 0.5 or more unless EKSBOT_ABSTAIN_THRESHOLD says "
                    "otherwise.",
    )
    uncovered: list[str] = Field(
        examples=[["PyTorchJob"]],
        description="Terms of the question the knowledge never mentions, as written. When answered, the answer "
                    "covers the rest and the text says what it does not cover.",
    )
    suggestion: CitationOut | None = Field(
        default=None, examples=[None],
        description="Only when not answered, and one quiz question or section stands out: the closest the knowledge "
                    "has, offered as a suggestion and not as the answer (its excerpt is empty). Ask for it by name "
                    "(\"question 9\") to get its answer.",
    )
    read_as: str | None = Field(
        default=None, examples=["what about stage 2? DeepSpeed ZeRO offloads parameters CPU"],
        description="Only when `history` was given: the question as it was read, with the words carried over "
                    "from the earlier turns (the question itself when it was read alone).",
    )


class ErrorOut(BaseModel):
    error: str = Field(description="What is wrong, in words a person can act on.", examples=["question is empty"])
    detail: list[dict[str, object]] | None = Field(default=None, description="Field-level validation errors.")


class Health(BaseModel):
    status: Literal["ok", "starting", "unavailable"] = Field(examples=["ok"])
    reason: str | None = Field(default=None, description="Why the service is not ready.", examples=[None])


class KnowledgeSync(BaseModel):
    ok: bool = Field(description="git-sync's last sync of the folder worked (no error file).", examples=[False])
    failing_since: datetime | None = Field(
        default=None, description="When the failures began (UTC; the first failure seen), while failing.",
        examples=["2026-12-03T09:12:44Z"])
    last_failure: datetime | None = Field(default=None, description="git-sync's last failed attempt (UTC).",
                                          examples=["2026-12-03T09:40:44Z"])
    error: str | None = Field(
        default=None, description="git-sync's last error, first line, without credentials.",
        examples=["error syncing repo, will retry: Run(git fetch https://git.example.com/platform/runbooks.git): "
                  "exit status 128"])


class Readiness(Health):
    knowledge_revision: dict[str, str] | None = Field(
        default=None, description="The commit served of each folder synced from Git (only when there is one).",
        examples=[{"team-docs": "1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b"}])
    knowledge_sync: dict[str, KnowledgeSync] | None = Field(
        default=None, description="Whether each folder synced from Git can be synced now (only when there is "
                                  "one). While it fails, the commit in `knowledge_revision` is still answered from.")


# Lengths as stored.
UserId = Field(min_length=1, max_length=128, pattern=PRINTABLE, description="Who is playing (any stable id).",
               examples=["alice"])
Team = Field(default=DEFAULT_TEAM, min_length=1, max_length=64, pattern=PRINTABLE,
             description="Team or workspace of the user.",
             examples=["platform-team"])


class QuizNextRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user: Text = UserId
    team: Text = Team
    topic: Text | None = Field(default=None, max_length=200,
                                    description="Only questions on this topic (a topic name or free text).",
                                    examples=["slurm"])
    lang: Lang | None = Field(default=None, description="Language of the question (default: the setting).",
                              examples=["es"])


class OptionOut(BaseModel):
    key: str = Field(description="Letter shown for this option in this attempt.", examples=["A"])
    text: str = Field(description="The option.", examples=["FI_PROVIDER=efa"])


class QuizPromptOut(BaseModel):
    attempt_id: str = Field(description="Opaque id of this attempt; send it back with the answer.",
                            examples=["3q2-LwVZz0kE4QHc2WbFqw"])
    question: int = Field(description="Number of the quiz question.", examples=[5])
    prompt: str = Field(description="The question.", examples=["Which environment variable enables EFA in NCCL?"])
    options: list[OptionOut] = Field(description="Options, shuffled for this attempt.")


class QuizAnswerRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user: Text = UserId
    attempt_id: StrictStr = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$",
                                  description="From /v1/quiz/next.",
                                  examples=["3q2-LwVZz0kE4QHc2WbFqw"])
    choice: Text = Field(min_length=1, max_length=5, description="The letter chosen.", examples=["B"])
    confidence: Literal["sure", "guessed"] | None = Field(
        default=None, description="How sure the user was; tunes the review schedule.", examples=["sure"]
    )


class QuizResultOut(BaseModel):
    correct: bool = Field(description="Whether the choice was right.", examples=[True])
    correct_choice: str = Field(description="The right letter in this attempt.", examples=["B"])
    explanation: str = Field(description="Why, from the knowledge.", examples=["To enable EFA networking ..."])
    citation: CitationOut = Field(description="The question, excerpt and snippet it comes from.")
    already_answered: bool = Field(default=False, description="True when this attempt had been graded before.",
                                   examples=[False])
    notes: list[str] = Field(
        description="Maintainers' notes on the question, in the attempt's language when there is one in it, else "
                    "in the other (also in `citation.notes`); empty when there are none.",
        examples=[["Las versiones actuales de Slinky usan NodeSet y Cluster."]],
    )


class TopicStatsOut(BaseModel):
    answered: int = Field(description="Answers on this topic.", examples=[3])
    correct: int = Field(description="Right answers on this topic.", examples=[2])
    accuracy: float | None = Field(description="correct / answered; null for a topic never attempted.",
                                   examples=[0.6667])


class UserStatsOut(BaseModel):
    user: str = Field(description="Whose progress.", examples=["alice"])
    answered: int = Field(description="Questions answered.", examples=[12])
    correct: int = Field(description="Right answers.", examples=[9])
    accuracy: float | None = Field(description="correct / answered (null before any answer, as each topic's).",
                                   examples=[0.75])
    current_streak: int = Field(description="Days in a row, up to today or yesterday, with a right answer (UTC).",
                                examples=[3])
    best_streak: int = Field(description="The longest such run.", examples=[5])
    due: int = Field(description="Questions due for review now.", examples=[2])
    per_topic: dict[str, TopicStatsOut] = Field(
        description="Every topic of the quiz, named in `lang`, in the quiz's order.",
        examples=[{"Karpenter": {"answered": 3, "correct": 2, "accuracy": 0.6667},
                   "BF16": {"answered": 0, "correct": 0, "accuracy": None}}],
    )
    lang: Lang = Field(description="Language of the topic names: the one asked, else the one of the user's "
                                   "latest answer, else the default.", examples=["en"])


# -- knowledge entries and notes (admin) ---------------------------------------------------------------

_DOC_TITLE = "GPU quota for the research team"
_DOC_BODY = ("The research team has a quota of 64 `nvidia.com/gpu` in namespace `research-train`.\n\n"
             "```bash\nkubectl describe resourcequota gpu -n research-train\n```")
_DOC_ENTRY: dict[str, JsonValue] = {"title": _DOC_TITLE, "body": _DOC_BODY, "lang": "en", "topic": "Quotas"}
_QUIZ_OPTIONS: list[JsonValue] = ["SlurmNodeSet", "NodeSet", "ComputeSet", "NodeGroup"]
_QUIZ_ENTRY: dict[str, JsonValue] = {
    "title": "Which kind does Slinky define for a set of Slurm compute nodes?",
    "body": "Current Slinky releases define `NodeSet` in the `slinky.slurm.net` group.",
    "lang": "en", "topic": "Slinky CRDs", "options": _QUIZ_OPTIONS, "answer": "B",
}


class EntryIn(BaseModel):
    """A knowledge entry: a text (a Markdown body under a title), or, with `options` and `answer`, a quiz
    question whose body is its explanation."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [_DOC_ENTRY, _QUIZ_ENTRY]})

    title: Text = Field(min_length=1, max_length=MAX_TITLE,
                        description=f"One line, at most {MAX_TITLE} characters: the heading a citation shows; of a "
                                    "quiz question, the question.",
                        examples=[_DOC_TITLE])
    body: Text = Field(min_length=1, max_length=MAX_BODY,
                       description=f"Markdown, at most {MAX_BODY:,} characters (the request body is at most "
                                   "EKSBOT_MAX_BODY_BYTES): what answers quote, code blocks included; of a quiz "
                                   "question, the explanation shown after an answer.",
                       examples=[_DOC_BODY])
    lang: Lang = Field(description="The language the entry is written in.", examples=["en"])
    topic: Text | None = Field(default=None, max_length=MAX_TOPIC,
                               description=f"One line, at most {MAX_TOPIC} characters: what the entry is about; a "
                                           "quiz question is drawn for this topic (`POST /v1/quiz/next`).",
                               examples=["Quotas"])
    options: list[Annotated[Text, Field(min_length=1, max_length=MAX_TITLE)]] | None = Field(
        default=None, max_length=4,
        description="Only for a quiz question: its four options, A to D (one line each). Absent, null or empty "
                    "for a text.",
        examples=[_QUIZ_OPTIONS])
    answer: Literal["A", "B", "C", "D"] | None = Field(
        default=None, description="Only for a quiz question: the letter of the right option.", examples=["B"])

    def draft(self) -> EntryDraft:
        """The body as the core's draft, which `Curation` checks (this schema only parses and documents it)."""
        return EntryDraft(title=self.title, body=self.body, lang=self.lang, topic=self.topic,
                          options=tuple(self.options or ()), answer=self.answer)


class EntryEditIn(EntryIn):
    """The whole entry as it should be now, and the version it was read at."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{**_DOC_ENTRY, "version": 1}]})

    version: StrictInt = Field(ge=1, description="The entry's `version` when it was read: when someone changed it "
                                                 "since, nothing is saved (409 with the version it is at now).",
                               examples=[1])


class EntryOut(BaseModel):
    id: str = Field(description="The entry's id: an answer citing it has `doc` \"entries/<id>\" and `source` "
                                "\"entries/<id>.md\".", examples=["3f2b9c0e5a7d4e1f9b6c8a2d4e6f8a0b"])
    version: int = Field(description="Grows with each change (edit, delete, restore); send it back to edit.",
                         examples=[1])
    kind: Literal["doc", "quiz"] = Field(description="doc: a text; quiz: a quiz question.", examples=["doc"])
    title: str = Field(examples=[_DOC_TITLE])
    body: str = Field(examples=[_DOC_BODY])
    lang: Lang = Field(examples=["en"])
    topic: str | None = Field(examples=["Quotas"])
    options: list[str] = Field(description="A quiz question's options, A first; empty for a text.", examples=[[]])
    answer: str | None = Field(description="A quiz question's right letter; null for a text.", examples=[None])
    created_by: str = Field(description="Who added it; over HTTP, `token:` and the first 8 hex digits of the "
                                        "SHA-256 of the API token used (never the token itself).",
                            examples=["token:9f86d081"])
    created_at: str = Field(description="ISO 8601, UTC.", examples=["2025-03-10T17:45:12.123456+00:00"])
    updated_by: str = Field(description="Who made the latest change.", examples=["token:9f86d081"])
    updated_at: str = Field(description="ISO 8601, UTC.", examples=["2025-03-10T17:45:12.123456+00:00"])
    deleted: bool = Field(description="Deleted entries are not answered from or drawn; a restore undoes the delete.",
                          examples=[False])


class EntriesOut(BaseModel):
    entries: list[EntryOut] = Field(description="Oldest first.")


class EntryVersionOut(BaseModel):
    version: int = Field(description="The entry's version after this change.", examples=[2])
    action: Literal["create", "edit", "delete", "restore"] = Field(examples=["edit"])
    changed_by: str = Field(description="Who made the change.", examples=["token:9f86d081"])
    changed_at: str = Field(description="ISO 8601, UTC.", examples=["2025-03-11T08:02:40.512300+00:00"])
    kind: Literal["doc", "quiz"] = Field(examples=["doc"])
    title: str = Field(description="The text as it was after this change.", examples=[_DOC_TITLE])
    body: str = Field(examples=[_DOC_BODY.replace("64", "96")])
    lang: Lang = Field(examples=["en"])
    topic: str | None = Field(examples=["Quotas"])
    options: list[str] = Field(examples=[[]])
    answer: str | None = Field(examples=[None])


class EntryHistoryOut(BaseModel):
    id: str = Field(description="The entry's id.", examples=["3f2b9c0e5a7d4e1f9b6c8a2d4e6f8a0b"])
    versions: list[EntryVersionOut] = Field(description="Every change, oldest first, each with the text it left.")


class StaleEditOut(BaseModel):
    error: str = Field(examples=["entry 3f2b9c0e5a7d4e1f9b6c8a2d4e6f8a0b is at version 2, not 1: someone changed it "
                                 "first; read it again"])
    current_version: int = Field(description="The version the entry is at now: read it again, then edit that.",
                                 examples=[2])


_NOTE_TEXT = ("Current Slinky releases name these kinds NodeSet and Cluster, in the slinky.slurm.net group; "
              "SlurmNodeSet and SlurmCluster are the old names.")
_NOTE: dict[str, JsonValue] = {"question": 4, "lang": "en", "text": _NOTE_TEXT}


class NoteIn(BaseModel):
    """A maintainers' note on a quiz question (or a document's section): shown with every answer and quiz result
    that cites it, in the reader's language when there is one in it. It changes nothing else."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [_NOTE]})

    question: StrictInt = Field(ge=1, description="Number of the quiz question (of `doc`: the section's number, as "
                                                  "a citation's `question`).", examples=[4])
    doc: Text | None = Field(default=None, min_length=1, max_length=255,
                             description="Id of the document (a citation's `doc`); default: the quiz.",
                             examples=["eks-training-quiz"])
    lang: Lang = Field(description="The note's language.", examples=["en"])
    text: Text = Field(min_length=1, max_length=MAX_NOTE, description=f"At most {MAX_NOTE:,} characters.",
                       examples=[_NOTE_TEXT])


class NoteOut(BaseModel):
    id: str = Field(description="The note's id.", examples=["a1b2c3d4e5f60718293a4b5c6d7e8f90"])
    doc: str = Field(description="Id of the document it is on.", examples=["eks-training-quiz"])
    question: int = Field(description="Number of the question or section it is on.", examples=[4])
    lang: Lang = Field(examples=["en"])
    text: str = Field(examples=[_NOTE_TEXT])
    created_by: str = Field(description="Who added it.", examples=["token:9f86d081"])
    created_at: str = Field(description="ISO 8601, UTC.", examples=["2025-03-10T17:45:12.123456+00:00"])


class NotesOut(BaseModel):
    notes: list[NoteOut] = Field(description="Every note not deleted, oldest first.")


def error_responses(**specific: str) -> dict[int | str, dict[str, object]]:
    """OpenAPI descriptions of the errors every /v1 route can answer, plus the route's own (`e422=...`)."""
    described = {
        400: "The body could not be parsed (e.g. a malformed form).",
        401: "Missing or invalid API token.",
        408: "The body was not sent within EKSBOT_BODY_TIMEOUT seconds.",
        413: "Body too large.",
        422: "Invalid input.",
        429: "Rate limit exceeded; see Retry-After.",
        503: "Still loading the model and index, or the database is unavailable; see Retry-After.",
        **{int(code.removeprefix("e")): text for code, text in specific.items()},
    }
    return {code: {"model": ErrorOut, "description": text} for code, text in sorted(described.items())}
