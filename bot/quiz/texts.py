"""What the quiz engine tells a person (why a request is refused), in Spanish and English."""

from __future__ import annotations

from bot.messages import Catalog

TEXTS: dict[str, dict[str, str]] = {
    "es": {
        "unknown_topic": "No tengo preguntas sobre «{topic}». Temas disponibles: {topics}.",
        "in_open_round": "La pregunta {number} está en la ronda de equipo abierta en este canal: se revela al "
                         "terminar la ronda. Pídela de nuevo entonces.",
        "unknown_question": (
            "No hay ninguna pregunta {number} en el cuestionario. Temas disponibles: {topics}."
        ),
        "no_questions": "El cuestionario no tiene preguntas.",
        "unknown_attempt": "No encuentro esa pregunta del cuestionario: pide una nueva.",
        "not_your_attempt": "Esa pregunta del cuestionario era para otra persona: pide la tuya.",
        "not_answered": "Esa pregunta del cuestionario aún no tiene respuesta.",
        "invalid_choice": "Respuesta {choice!r} no válida: elige una de {letters}.",
        "invalid_confidence": "Confianza {confidence!r} no válida: usa 'sure' (seguro) o 'guessed' (a ojo).",
        "already_answered": "Ya respondiste esta pregunta ({choice}); cuenta la primera respuesta.",
    },
    "en": {
        "unknown_topic": "I have no questions about \u201c{topic}\u201d. Topics: {topics}.",
        "unknown_question": "There is no question {number} in the quiz. Topics: {topics}.",
        "in_open_round": "Question {number} is in the team round open in this channel: it is revealed when the "
                         "round ends. Ask for it again then.",
        "no_questions": "The quiz has no questions.",
        "unknown_attempt": "I can't find that quiz question: ask for a new one.",
        "not_your_attempt": "That quiz question was for someone else: ask for your own.",
        "not_answered": "That quiz question has not been answered yet.",
        "invalid_choice": "Invalid answer {choice!r}: choose one of {letters}.",
        "invalid_confidence": "Invalid confidence {confidence!r}: use 'sure' or 'guessed'.",
        "already_answered": "You already answered this question ({choice}); the first answer counts.",
    },
}


say = Catalog(TEXTS)
