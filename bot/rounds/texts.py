"""What the team rounds tell a person when a request is refused, in Spanish and English."""

from __future__ import annotations

from bot.messages import Catalog

TEXTS: dict[str, dict[str, str]] = {
    "es": {
        "bad_size": "Una ronda tiene de 1 a {max} preguntas.",
        "bad_minutes": "Una ronda dura de 1 minuto a {max} horas.",
        "busy": "Ya hay una ronda en marcha en este canal: `/quiz round end` la termina.",
        "no_round": "No hay ninguna ronda en marcha en este canal.",
        "not_yours": "Solo quien empezó la ronda, o un administrador, puede terminarla.",
        "round_over": "Esta ronda ya terminó: las respuestas ya no cuentan.",
        "unknown_round": "No encuentro esa ronda: quizá ya no existe.",
        "no_questions_left": "No quedan preguntas para esta ronda: la ronda anterior usó todas las de este tema.",
        "too_many_schedules": "Este canal ya tiene {max} rondas programadas: cancela una antes.",
        "no_schedule": "No hay ninguna ronda programada en este canal.",
        "unknown_schedule": "No hay ninguna ronda programada #{id} en este canal.",
        "which_schedule": "Este canal tiene varias rondas programadas: di cuál (p. ej. `/quiz schedule cancel {id}`).",
        "not_your_schedule": "Solo quien programó la ronda, o un administrador, puede cambiarla.",
    },
    "en": {
        "bad_size": "A round has 1 to {max} questions.",
        "bad_minutes": "A round lasts from 1 minute to {max} hours.",
        "busy": "A round is already running in this channel: `/quiz round end` ends it.",
        "no_round": "There is no round running in this channel.",
        "not_yours": "Only whoever started the round, or an admin, can end it.",
        "round_over": "This round is over: answers no longer count.",
        "unknown_round": "I can't find that round: it may no longer exist.",
        "no_questions_left": "No questions left for this round: the previous round used every one on this topic.",
        "too_many_schedules": "This channel already has {max} scheduled rounds: cancel one first.",
        "no_schedule": "There is no scheduled round in this channel.",
        "unknown_schedule": "There is no scheduled round #{id} in this channel.",
        "which_schedule": "This channel has several scheduled rounds: say which (e.g. `/quiz schedule cancel {id}`).",
        "not_your_schedule": "Only whoever scheduled the round, or an admin, can change it.",
    },
}

say = Catalog(TEXTS)
