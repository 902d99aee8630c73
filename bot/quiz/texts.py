"""Every quiz text shown to a person, in Spanish and English."""

from __future__ import annotations

from bot.messages import Catalog

TEXTS: dict[str, dict[str, str]] = {
    "es": {
        "unknown_topic": "No tengo preguntas sobre «{topic}». Temas disponibles: {topics}.",
        "unknown_question": (
            "No hay ninguna pregunta {number} en el cuestionario. Temas disponibles: {topics}."
        ),
        "no_questions": "El cuestionario no tiene preguntas.",
        "unknown_attempt": "No encuentro esa pregunta del cuestionario: pide una nueva.",
        "not_your_attempt": "Esa pregunta del cuestionario era para otra persona: pide la tuya.",
        "invalid_choice": "Respuesta {choice!r} no válida: elige una de {letters}.",
        "invalid_confidence": "Confianza {confidence!r} no válida: usa 'sure' (seguro) o 'guessed' (a ojo).",
        "already_answered": "Ya respondiste esta pregunta ({choice}); cuenta la primera respuesta.",
        "term_intro": "Cuestionario de entrenamiento en EKS para {user}. Tu progreso se guarda.",
        "term_help": "Responde con una letra (añade ? si lo adivinaste, ! si estás seguro); "
                     "s: estadísticas; q: salir.",
        "term_answer": "Tu respuesta",
        "term_correct": "✅ ¡Correcto!",
        "term_wrong": "❌ Incorrecto: la respuesta es {letter}) {text}",
        "term_again": "(ya respondida: cuenta tu primera respuesta, {letter})",
        "term_next": "Volverá en {wait}.",
        "term_bye": "Hasta la próxima: tu progreso está guardado.",
        "term_stats": "Estadísticas de {user}",
        "term_figures": "Respondidas: {answered} · Correctas: {correct} · Acierto: {accuracy:.0%} · "
                        "Días seguidos acertando: {current} (mejor: {best}) · Pendientes de repaso: {due}",
        "term_topic": "Tema",
        "term_reason_due": "repaso pendiente",
        "term_reason_new": "nueva",
        "term_reason_review": "repaso",
        "minutes": "{n} min",
        "hours": "{n} h",
        "days": "{n} días",
    },
    "en": {
        "unknown_topic": "I have no questions about \u201c{topic}\u201d. Topics: {topics}.",
        "unknown_question": "There is no question {number} in the quiz. Topics: {topics}.",
        "no_questions": "The quiz has no questions.",
        "unknown_attempt": "I can't find that quiz question: ask for a new one.",
        "not_your_attempt": "That quiz question was for someone else: ask for your own.",
        "invalid_choice": "Invalid answer {choice!r}: choose one of {letters}.",
        "invalid_confidence": "Invalid confidence {confidence!r}: use 'sure' or 'guessed'.",
        "already_answered": "You already answered this question ({choice}); the first answer counts.",
        "term_intro": "EKS training quiz for {user}. Your progress is saved.",
        "term_help": "Answer with a letter (add ? if you guessed, ! if you are sure); s: stats; q: quit.",
        "term_answer": "Your answer",
        "term_correct": "✅ Correct!",
        "term_wrong": "❌ Wrong: the answer is {letter}) {text}",
        "term_again": "(already answered: your first answer, {letter}, counts)",
        "term_next": "It will come back in {wait}.",
        "term_bye": "See you next time: your progress is saved.",
        "term_stats": "Stats for {user}",
        "term_figures": "Answered: {answered} · Correct: {correct} · Accuracy: {accuracy:.0%} · "
                        "Days in a row with a right answer: {current} (best: {best}) · Due for review: {due}",
        "term_topic": "Topic",
        "term_reason_due": "due for review",
        "term_reason_new": "new",
        "term_reason_review": "review",
        "minutes": "{n} min",
        "hours": "{n} h",
        "days": "{n} days",
    },
}


say = Catalog(TEXTS)
