"""The shape of a question: a definition ("what is X?"), a comparison, and where it goes on to another."""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.text.identifiers import QUERY_WORD
from bot.text.normalise import fold, strip_accents
from bot.text.rules import points_back

_DEFINITION = re.compile(
    r"^\s*(?:¿\s*)?(?:(?:me\s+)?(?:explicas|puedes\s+explicar(?:me)?|podr[ií]as\s+explicar(?:me)?|"
    r"can\s+you\s+explain|could\s+you\s+explain|(?:can|could)\s+you\s+tell\s+me)\s+)?(?:"
    r"what(?:'s|\s+is|\s+are|\s+was)|whats|define|definition\s+of|explain|describe|who\s+is|"
    r"(?:que|qué)\s+(?:es|son|significa)|define|definici[oó]n\s+de|explica(?:me)?|describe"
    r")\s+(?:(?:an?|the|el|la|los|las|un|una|unos|unas|lo)\s+)?(?P<subject>[^?.!,;:]+)",
    re.IGNORECASE,
)
# "What does X mean?", "what does X stand for?", "X, ¿qué es?", "X qué significa?"
_MEANING = re.compile(
    r"^\s*(?:what\s+does\s+(?P<subject>[^?.!,;:]+?)\s+(?:mean|stand\s+for)|"
    r"¿?\s*(?P<first>[^?.!,;:¿]+?)\s*,?\s*¿?\s*(?:qu[eé]\s+(?:es|son|significa)|what\s+is\s+(?:it|that))"
    r")\s*\??\s*$",
    re.IGNORECASE,
)
_NOT_A_SUBJECT = frozenset(fold(w) for w in """
    difference differences diferencia diferencias best mejor purpose proposito point punto way forma manera
    reason razon benefit benefits beneficio ventaja ventajas use uso role papel problem problema recommended
    recomendado recomendada right correct correcto good bueno buena better peor worst limit limite max maximo
    min minimo default value valor lo que this that esto eso
""".split())
# What may follow X in a definition question ("what is X in Kubernetes?"), and what makes it a question
# about X's purpose or use instead ("what is X for?", "what is X used for?"), which is no definition.
_QUALIFIER_TAIL = re.compile(
    r"\b(?:en\s+(?:kubernetes|k8s|aws|eks|general)|in\s+(?:kubernetes|k8s|aws|eks|general|simple\s+terms|"
    r"general\s+terms|a\s+nutshell)|exactly|exactamente|again|otra\s+vez)\b.*$",
    re.IGNORECASE,
)
_PURPOSE = re.compile(r"\b(?:for|used|good|do|does|para|sirve|usa|utiliza|needed|necesario)\b", re.IGNORECASE)
# Where a message goes on to another question: "?", ";", a new sentence, "¿", or a clause joined on with
# ", and" / ", y" / "+" / "—" / "also".
SEGMENT_BREAK = re.compile(
    r"[?!;]+|\.(?=\s)|\s[¿¡]|,\s*(?:and|y|e|plus|but|pero|also|tambi[eé]n|and also|y tambi[eé]n)\b|\s[+—–]\s|"
    r"\s-\s|\b(?:and also|y tambi[eé]n|plus|also)\b",
    re.IGNORECASE,
)
QUESTION_END = re.compile(r"\?+(?=\s*\S)|\?+\s*$")
def definition_subject(question: str) -> frozenset[str]:
    """For "what is X?" questions, the folded words of X; empty for any other question (or an X of more than
    four words, which names no one thing)."""
    plain = strip_accents(question)
    meaning = _MEANING.match(plain)
    match = meaning or _DEFINITION.match(plain)
    if not match:
        return frozenset()
    subject = _QUALIFIER_TAIL.sub("", match.group("subject") or match.group("first") or "").strip()
    if not subject or _PURPOSE.search(subject) or fold(subject.split()[0]) in _NOT_A_SUBJECT:
        return frozenset()  # "what is X for?", "what's the difference between…": not a definition
    wanted = frozenset(fold(w) for w in QUERY_WORD.findall(subject))
    return wanted if len(wanted) <= 4 else frozenset()


def referred_to_later(tokens: Sequence[str], segments: Sequence[int], segment: int) -> bool:
    """Whether a later sentence or question of the message refers back with a pronoun, so what
    `segment` names is what the rest asks about (`tokens` lowercased and folded)."""
    words = list(tokens)
    return any(segments[i] > segment and points_back(words, i) for i in range(len(words)))
