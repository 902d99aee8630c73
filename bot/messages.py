"""Every text the bot says to a person, in Spanish and English."""

from __future__ import annotations

from typing import Any

TEXTS: dict[str, dict[str, str]] = {
    "es": {
        "dont_know": (
            "No lo sé: la base de conocimiento no cubre esa pregunta, así que prefiero no inventar una respuesta."
        ),
        "covers": "Puedo ayudarte con estos temas: {topics}.",
        "covers_closest": "Los temas más cercanos con los que puedo ayudarte: {topics} (y {count} más).",
        "related": "Relacionado, aunque no responde a tu pregunta: {titles}",
        "related_item": "pregunta {number} («{title}»)",
        "not_covered": "La base de conocimiento no dice nada de {terms}. Sobre {topic}:",
        "part_not_answered": "La base de conocimiento no responde a «{part}».",
        "on_topic": "Sobre {topic}:",
        "quiz_ref": "Pregunta {number} del cuestionario («{title}»): la respuesta correcta es {answer}.",
        "section_ref": "Fuente: {title} ({source}).",
        "source_in_other_language": "(La fuente está en inglés.)",
        "maintainers_note": "Nota de los mantenedores: {text}",
        "related_section": "«{title}»",
        "suggestion": "Lo más cercano que conozco (una sugerencia, no la respuesta): pregunta {number}, «{title}».",
        "no_such_question": "La base de conocimiento ya no tiene la pregunta {number}.",
        "suggestion_section": "Lo más cercano que conozco (una sugerencia, no la respuesta): «{title}».",
        "citation": "Pregunta {number} · {title}",
        "more_lines": "… {count} líneas más en la pregunta {number}",
        "empty_question": "La pregunta está vacía: escribe qué quieres saber.",
        "too_long": "La pregunta tiene {length} caracteres; el máximo es {limit}.",
        "unknown_lang": "Idioma desconocido {lang!r}: usa 'es' o 'en'.",
        "more_lines_section": "… {count} líneas más en la sección «{title}»",
        "more_in_page": "Más en esta página: {sections}",
    },
    "en": {
        "dont_know": "I don't know: the knowledge base does not cover that question, so I won't make an answer up.",
        "covers": "I can help with these topics: {topics}.",
        "covers_closest": "The closest topics I can help with: {topics} (and {count} more).",
        "related": "Related, though it does not answer your question: {titles}",
        "related_item": "question {number} (\u201c{title}\u201d)",
        "not_covered": "The knowledge base says nothing about {terms}. On {topic}:",
        "part_not_answered": "The knowledge base does not answer \u201c{part}\u201d.",
        "on_topic": "On {topic}:",
        "quiz_ref": "Quiz question {number} (\u201c{title}\u201d): the correct answer is {answer}.",
        "section_ref": "Source: {title} ({source}).",
        "source_in_other_language": "(The source is in Spanish.)",
        "maintainers_note": "Note from the maintainers: {text}",
        "related_section": "\u201c{title}\u201d",
        "suggestion": "Closest I know (a suggestion, not the answer): question {number}, \u201c{title}\u201d.",
        "no_such_question": "The knowledge base no longer has question {number}.",
        "suggestion_section": "Closest I know (a suggestion, not the answer): \u201c{title}\u201d.",
        "citation": "Question {number} · {title}",
        "more_lines": "… {count} more lines in question {number}",
        "empty_question": "The question is empty: write what you want to know.",
        "too_long": "The question is {length} characters long; the limit is {limit}.",
        "unknown_lang": "Unknown language {lang!r}: use 'es' or 'en'.",
        "more_lines_section": "… {count} more lines in the section \u201c{title}\u201d",
        "more_in_page": "More in this page: {sections}",
    },
}


class Catalog:
    """Texts per language; a key missing in one language falls back to English."""

    def __init__(self, texts: dict[str, dict[str, str]]) -> None:
        self.texts = texts

    def __call__(self, lang: str, key: str, /, **values: Any) -> str:
        table = self.texts.get(lang, self.texts["en"])
        return table.get(key, self.texts["en"][key]).format(**values)


say = Catalog(TEXTS)
