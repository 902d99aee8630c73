"""What the terminal quiz (`eksbot quiz`) says, in Spanish and English; and text made safe for a terminal."""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from rich.console import Console
from rich.text import Text

from bot.messages import Catalog
from bot.messages import say as bot_say
from bot.text.control import C0_BUT_LAYOUT, C1

_CONTROL = re.compile(f"[{C0_BUT_LAYOUT}{C1}]")  # C1 too: a terminal reads those as escape sequences
# Joiners shape emoji and some scripts' letters, and move nothing around them: they are kept.
_JOINERS = frozenset("\u200c\u200d")
_NOT_PLAIN_ASCII = re.compile(r"[^\x20-\x7e]")


def _shown(char: str) -> str:
    """A character as the terminal gets it: a line or paragraph separator as a new line (a terminal does not
    break there); invisible formatting (bidi overrides and isolates, marks, byte order marks) and lone
    surrogates not at all."""
    category = unicodedata.category(char)
    if category in ("Zl", "Zp"):
        return "\n"
    if category in ("Cf", "Cs") and char not in _JOINERS:
        return ""
    return char


def printable(text: str) -> str:
    """Knowledge text as a terminal may show it: a document, an entry or a note can neither send escape
    sequences to the terminal (control characters, C1's included) nor make what follows read in another order
    than it is written (U+202E and the other bidi controls)."""
    text = _CONTROL.sub("", text)
    return text if text.isascii() else "".join(map(_shown, text))


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    if printable(char) == char:
        return char
    code = ord(char)
    if code > 0xFFFF:  # JSON writes it as its UTF-16 surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def json_line(value: Any) -> str:
    """`value` as one line of JSON for a terminal: text as it is (accents too), except what `printable` would
    drop or change, which is written as a `\\uXXXX` escape: nothing is lost and nothing reaches the terminal."""
    return _NOT_PLAIN_ASCII.sub(_escaped, json.dumps(value, ensure_ascii=False))


def maintainers_note(lang: str, note: str) -> Text:
    """A maintainers' note after a blank line, its label in yellow: "Note from the maintainers: …"."""
    label = bot_say(lang, "maintainers_note", text="").rstrip()
    return Text.assemble("\n", (label, "bold yellow"), " ", printable(note.strip()))


TEXTS: dict[str, dict[str, str]] = {
    "es": {
        "intro": "Cuestionario de entrenamiento en EKS para {user}. Tu progreso se guarda.",
        "help": "Responde con una letra (añade ? si lo adivinaste, ! si estás seguro); "
                "s: estadísticas; q: salir.",
        "answer": "Tu respuesta",
        "correct": "✅ ¡Correcto!",
        "wrong": "❌ Incorrecto: la respuesta es {letter}) {text}",
        "again": "(ya respondida: cuenta tu primera respuesta, {letter})",
        "next": "Volverá en {wait}.",
        "bye": "Hasta la próxima: tu progreso está guardado.",
        "stats": "Estadísticas de {user}",
        "figures": "Respondidas: {answered} · Correctas: {correct} · Acierto: {accuracy} · "
                   "Días seguidos acertando: {current} (mejor: {best}) · Pendientes de repaso: {due}",
        "topic": "Tema",
        "not_tried": "Sin intentar todavía: {topics}",
        "progress": "{position} · {score}pendientes de repaso: {due}",
        "score": "aciertos {correct}/{answered} · ",
        "past_pool": "{n} ({pool} en total)",
        "reason_due": "repaso pendiente",
        "reason_new": "nueva",
        "reason_review": "repaso",
        "minutes": "{n} min",
        "hours": "{n} h",
        "days": "{n} días",
    },
    "en": {
        "intro": "EKS training quiz for {user}. Your progress is saved.",
        "help": "Answer with a letter (add ? if you guessed, ! if you are sure); s: stats; q: quit.",
        "answer": "Your answer",
        "correct": "✅ Correct!",
        "wrong": "❌ Wrong: the answer is {letter}) {text}",
        "again": "(already answered: your first answer, {letter}, counts)",
        "next": "It will come back in {wait}.",
        "bye": "See you next time: your progress is saved.",
        "stats": "Stats for {user}",
        "figures": "Answered: {answered} · Correct: {correct} · Accuracy: {accuracy} · "
                   "Days in a row with a right answer: {current} (best: {best}) · Due for review: {due}",
        "topic": "Topic",
        "not_tried": "Not tried yet: {topics}",
        "progress": "{position} · {score}due for review: {due}",
        "score": "score {correct}/{answered} · ",
        "past_pool": "{n} ({pool} in all)",
        "reason_due": "due for review",
        "reason_new": "new",
        "reason_review": "review",
        "minutes": "{n} min",
        "hours": "{n} h",
        "days": "{n} days",
    },
}


say = Catalog(TEXTS)


REPORT_WIDTH = 200  # the columns of a report written to a file or a pipe


def report_console() -> Console:
    """The console for a report's tables (`eksbot eval`, `eksbot gaps`): as wide as the terminal, or, written to a
    file or a pipe (a CI log, `make eval-docs > figures.txt`), wide enough that no column, figure or text is cut to
    "…"."""
    console = Console()
    if not console.is_terminal:
        console.width = REPORT_WIDTH
    return console
