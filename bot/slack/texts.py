"""What the bot says in Slack, in Spanish and English."""

from __future__ import annotations

from bot.messages import Catalog

TEXTS: dict[str, dict[str, str]] = {
    "es": {
        "quiz_answer": "Respuesta del cuestionario",
        "question_n": "Pregunta {number}",
        "also": "También",
        "helpful": "👍 Útil",
        "not_helpful": "👎 No útil",
        "quiz_me": "Ponme a prueba con esto",
        "thanks": "¡Gracias por tu opinión!",
        "starting": "Estoy arrancando; vuelve a intentarlo en unos segundos.",
        "apology": "Lo siento, algo falló al responder. Ya quedó registrado; inténtalo de nuevo en un momento.",
        "unavailable": "La base de datos no está disponible ahora mismo; inténtalo de nuevo en unos segundos.",
        "bad_button": "Ese botón ya no es válido: pide una pregunta nueva con `/quiz`.",
        "empty_mention": "¿En qué te ayudo? Pregúntame sobre entrenamiento de modelos en EKS. Temas: {topics}.",
        "quiz_header": "Pregunta {number} · {topic}",
        "quiz_hint": "Elige una opción · solo tú ves este mensaje",
        "correct": "✅ *¡Correcto!*",
        "incorrect": "❌ *Incorrecto.*",
        "correct_plain": "¡Correcto!",
        "incorrect_plain": "Incorrecto.",
        "your_choice": "Elegiste *{choice}*.",
        "right_answer": "La respuesta correcta es *{answer}*.",
        "already": "Ya habías respondido esta pregunta: cuenta una sola vez.",
        "next": "Siguiente pregunta",
        "share": "Compartir resultado",
        "shared_right": "{user} respondió bien la pregunta {number} del cuestionario ✅: _{title}_",
        "shared_wrong": "{user} falló la pregunta {number} del cuestionario ❌ (y ya sabe por qué): _{title}_",
        "stats_title": "*Tus estadísticas*",
        "stats_line": "Respondidas: *{answered}* · Correctas: *{correct}* · Acierto: *{accuracy}* · "
                      "Racha: *{streak}* días (mejor: {best}) · Pendientes de repaso: *{due}*",
        "per_topic": "*Por tema*",
        "no_stats": "Aún no has respondido ninguna pregunta. Prueba `/quiz`.",
        "top_title": "*Clasificación del equipo*",
        "top_empty": "Nadie ha respondido todavía. ¡Sé el primero con `/quiz`!",
        "top_line": "{rank}. {user} · {correct} correctas ({accuracy})",
        "unknown_topic": "No tengo preguntas sobre «{topic}». Temas: {topics}.",
        "help": "*`/quiz`*: una pregunta (la que te toca repasar, o una nueva)\n"
                "*`/quiz TEMA`*: una pregunta sobre ese tema (p. ej. `/quiz slurm`) · *`/quiz 5`*: la pregunta 5\n"
                "*`/quiz stats`*: tus estadísticas · *`/quiz top`*: la clasificación del equipo\n"
                "*`/quiz en`* / *`/quiz es`*: en inglés o en español\n"
                "También respondo preguntas si me mencionas o me escribes por mensaje directo.\n"
                "Temas: {topics}.",
    },
    "en": {
        "quiz_answer": "Quiz answer",
        "question_n": "Question {number}",
        "also": "Also",
        "helpful": "👍 Helpful",
        "not_helpful": "👎 Not helpful",
        "quiz_me": "Quiz me on this",
        "thanks": "Thanks for the feedback!",
        "starting": "I am starting up; try again in a few seconds.",
        "apology": "Sorry, something went wrong while answering. It has been logged; please try again shortly.",
        "unavailable": "The database is unavailable right now; please try again in a few seconds.",
        "bad_button": "That button is no longer valid: ask for a new question with `/quiz`.",
        "empty_mention": "How can I help? Ask me about training models on EKS. Topics: {topics}.",
        "quiz_header": "Question {number} · {topic}",
        "quiz_hint": "Pick an option · only you can see this message",
        "correct": "✅ *Correct!*",
        "incorrect": "❌ *Not quite.*",
        "correct_plain": "Correct!",
        "incorrect_plain": "Not quite.",
        "your_choice": "You chose *{choice}*.",
        "right_answer": "The correct answer is *{answer}*.",
        "already": "You had already answered this question: it counts once.",
        "next": "Next question",
        "share": "Share result",
        "shared_right": "{user} got quiz question {number} right ✅: _{title}_",
        "shared_wrong": "{user} missed quiz question {number} ❌ (and now knows why): _{title}_",
        "stats_title": "*Your stats*",
        "stats_line": "Answered: *{answered}* · Correct: *{correct}* · Accuracy: *{accuracy}* · "
                      "Streak: *{streak}* days (best: {best}) · Due for review: *{due}*",
        "per_topic": "*By topic*",
        "no_stats": "You have not answered any question yet. Try `/quiz`.",
        "top_title": "*Team leaderboard*",
        "top_empty": "Nobody has answered yet. Be the first with `/quiz`!",
        "top_line": "{rank}. {user} · {correct} correct ({accuracy})",
        "unknown_topic": "I have no questions about “{topic}”. Topics: {topics}.",
        "help": "*`/quiz`*: a question (the one due for review, or a new one)\n"
                "*`/quiz TOPIC`*: a question on that topic (e.g. `/quiz slurm`) · *`/quiz 5`*: question 5\n"
                "*`/quiz stats`*: your stats · *`/quiz top`*: the team leaderboard\n"
                "*`/quiz en`* / *`/quiz es`*: in English or in Spanish\n"
                "I also answer questions when you mention me or send me a direct message.\n"
                "Topics: {topics}.",
    },
}


t = Catalog(TEXTS)
