"""What the terminal quiz (`eksbot quiz`) says, in Spanish and English; and text made safe for a terminal."""

from __future__ import annotations

import re

from rich.text import Text

from bot.messages import Catalog
from bot.messages import say as bot_say

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # all but tabs and new lines


def printable(text: str) -> str:
    """Knowledge text without control characters: a document, an entry or a note cannot send escape sequences
    to the terminal."""
    return _CONTROL.sub("", text)


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
