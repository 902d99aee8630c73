"""How people write, per language, as data: `bot/data/rules/<lang>.yaml`.

Patterns and classes of words that the reading of a question uses live in one file per language, each
class with example sentences that `tests/reading/test_rules.py` runs, instead of lists and regular expressions in
code. A file that cannot be read, or a pattern that does not compile, stops the start with the file's name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from bot.errors import ConfigError
from bot.lang import LANGUAGES
from bot.text.normalise import fold

RULES_DIR = Path(__file__).resolve().parent.parent / "data" / "rules"


@dataclass(frozen=True)
class QuizReferenceRules:
    """How a message names a quiz question: by number ("question 7") or by what it is about."""

    quiz_words: frozenset[str]  # "quiz", "cuestionario": the message speaks of the quiz
    explain_words: frozenset[str]  # "explain", "why": the message asks about a question it names
    number: tuple[re.Pattern[str], ...]
    number_with_quiz_word: tuple[re.Pattern[str], ...]
    about: tuple[re.Pattern[str], ...]
    about_with_quiz_word: tuple[re.Pattern[str], ...]
    # Taking the quiz ("I picked B", "marqué la C"): as telling as a quiz word, for a bare "Q4" or "the X one".
    taking_words: frozenset[str] = frozenset()
    # "the BF16 one", "la de Volcano": a question named by its subject alone, only beside a quiz word, a word of
    # taking it, or one of `elliptic_words`.
    elliptic: tuple[re.Pattern[str], ...] = ()
    elliptic_words: frozenset[str] = frozenset()
    # "the third question of the quiz", "la segunda pregunta del test": a number in words (`ordinals`), beside a
    # quiz word as `number_with_quiz_word` is.
    ordinal_with_quiz_word: tuple[re.Pattern[str], ...] = ()
    ordinals: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class TypoRules:
    """Misspellings of ordinary words: which edits make one, and how common the word meant must be."""

    common_zipf: float
    swaps: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class EncliticRules:
    """Pronouns joined to a verb ("explícamelo", "activarlo"), as `without_enclitics` takes them off."""

    pronouns: tuple[str, ...]  # every one, longest first
    object_pronouns: frozenset[str]  # "lo", "la", "le": also how nouns end, so taken off only where a verb is sure
    verb_endings: tuple[str, ...]  # how the verb form before them ends ("explica", "corrige", "activar")
    unconjugated: tuple[str, ...]  # an infinitive's or a gerund's ending ("activar", "usando")


@dataclass(frozen=True)
class SuperlativeRules:
    """A superlative and the adjectives it may come from ("larguísima": "larga")."""

    pattern: re.Pattern[str]  # the whole word; its group is the stem
    stem_changes: tuple[tuple[str, str], ...]  # an end of the stem and what it is in the adjective ("gu", "g")
    endings: tuple[str, ...]  # the adjective's endings after the stem


@dataclass(frozen=True)
class SpelledRules:
    """Letters, numbers and characters said aloud, as dictation writes them (`bot.reading.spelled`)."""

    letters: dict[str, str] = field(default_factory=dict)  # "pee", "ene" -> "p", "n"
    numbers: dict[str, str] = field(default_factory=dict)  # "sixteen", "ocho" -> "16", "8"
    joiners: dict[tuple[str, ...], str] = field(default_factory=dict)  # ("guion", "bajo") -> "_"


@dataclass(frozen=True)
class EmailRules:
    """A message forwarded or pasted from e-mail: what of it is its envelope (see `email` in the rules' files).
    Each a pattern over one line, case ignored; the patterns are written without accents, and read against the line
    with its accents taken off (a closing, whose words have none, against the line as written)."""

    header: re.Pattern[str]  # "From: …", "De: …": a header line
    subject: re.Pattern[str]  # "Subject: Fwd: RE: X", "RV: X": group "subject" is what it is about
    closing: re.Pattern[str]  # a line that is, or ends with, a closing ("Thanks,", "… Thank you!", "Quedo atenta,")
    alone: re.Pattern[str]  # a line that is only a closing
    device: re.Pattern[str]  # "Sent from my iPhone"
    separator: re.Pattern[str]  # "---------- Forwarded message ---------"
    disclaimer: re.Pattern[str]  # a confidentiality notice's first line


@dataclass(frozen=True)
class LanguageRules:
    lang: str
    quiz_reference: QuizReferenceRules
    typos: TypoRules
    chat_abbreviations: dict[str, str]  # "pls" -> "please", "xq" -> "porque"
    slang: dict[str, str]  # "ckpt" -> "checkpoint"
    frame_words: frozenset[str]  # "works", "sirve": they frame a question, never its subject
    frame_phrases: tuple[re.Pattern[str], ...]  # "in plain terms", "a colleague says", "en una entrevista": the same
    # (a claim check, below, frames a question too)
    claim_checks: tuple[re.Pattern[str], ...]  # "is that right?", "¿es cierto?": a frame that asks of what was told
    coordination: frozenset[str]  # "or", "vs", "o": two things weighed against each other
    counterparts: tuple[re.Pattern[str], ...]  # "the EKS equivalent of X", "in X we ran": what is compared with
    back_references: frozenset[str]  # "it", "eso": a pointer back to something named earlier
    not_after_lo: frozenset[str]  # Spanish "lo que", "lo mejor": no pointer
    continuation: tuple[str, ...]  # openers of a follow-up ("and", "what about", "¿y")
    addition: tuple[str, ...]  # "also", "además"
    pointers: frozenset[str]  # a follow-up's words that point back ("it", "eso")
    clitic: re.Pattern[str] | None  # Spanish "configurarla": a verb with a pointer joined to it
    comparison: tuple[str, ...]  # "vs", "diferencia entre"
    segment_after_comma: tuple[str, ...]  # ", and …", ", pero …": a clause that goes on to another question
    segment_anywhere: tuple[str, ...]  # "plus …", "y también …"
    question_words: tuple[str, ...]  # "how", "cómo": what opens a question of its own after "and", "y"
    superlatives: SuperlativeRules | None  # Spanish "-ísimo"; None in a language without such a form
    definitions: dict[str, Any]  # what makes "what is X?", as read from the file (see `definition_rules`)
    examples: dict[str, tuple[dict[str, object], ...]]  # class -> its example sentences
    # A sentence of the knowledge that starts with X and says what X is: the verbs that may follow X ("X splits…",
    # "X divide…"), and the words of an alias in parentheses ("X (also called Y)"), read past.
    defining_verbs: frozenset[str] = frozenset()
    alias_words: frozenset[str] = frozenset()
    name_connectors: frozenset[str] = frozenset()  # "for": a name goes on past it ("Mountpoint for S3")
    possessives: frozenset[str] = frozenset()  # "our", "mi": what follows is the person's own ("our MinIO")
    # Per kind of value asked for (`ASKED_KINDS`), the patterns that ask for it: "which X version", "the default
    # expireAfter", "cómo actualizo X a una versión nueva"
    asked: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    spelled: SpelledRules = field(default_factory=SpelledRules)  # "n c c l", "te pe ocho": a name said aloud
    prefixes: tuple[str, ...] = ()  # "mis", "pre": a prefix and a common word make an ordinary word ("misconfigured")
    cognates: tuple[tuple[str, str], ...] = ()  # ("cia", "se"): a word's ending and its English cognate's ("licencia")
    enclitics: EncliticRules | None = None  # "explícamelo": pronouns joined to a verb; None in a language without
    email: dict[str, tuple[str, ...]] = field(default_factory=dict)  # the envelope's patterns (`email_rules`)


def slang(lang: str, word: str) -> str | None:
    """What field slang stands for: the language's own, else the English file's, shared by every language."""
    return rules(lang).slang.get(word) or rules("en").slang.get(word)


@cache
def _quiz_number_patterns() -> tuple[re.Pattern[str], ...]:
    return tuple(p for lang in LANGUAGES for p in rules(lang).quiz_reference.number_with_quiz_word)


def names_a_quiz_question(word: str) -> bool:
    """Whether a word alone is a quiz question's number as people write it ("Q9", "q11"): a reference to the
    quiz, never a thing the knowledge does not cover."""
    return any(p.fullmatch(word) for p in _quiz_number_patterns())


_EMAIL_KEYS = ("headers", "subject", "forwarded", "closings", "devices", "separators", "disclaimers")


@cache
def email_rules() -> EmailRules:
    """What of a message is an e-mail's envelope, in every language (a forwarded thread mixes them)."""
    # each key's patterns of every language as one alternation; one that matches nothing when no file has any
    p = {key: "|".join(pattern for lang in LANGUAGES for pattern in rules(lang).email.get(key, ())) or "(?!)"
         for key in _EMAIL_KEYS}
    return EmailRules(
        header=re.compile(rf"^\s*(?:{p['headers']})\s*:\s*\S", re.IGNORECASE),
        subject=re.compile(rf"^\s*(?:(?:{p['subject']})\s*:\s*)?(?:(?:{p['forwarded']})\s*:\s*)+(?P<subject>.*)$"
                           rf"|^\s*(?:{p['subject']})\s*:\s*(?P<plain>.*)$", re.IGNORECASE),
        closing=re.compile(rf"(?:^|(?<=[.!?,;])\s+)(?:{p['closings']})[\s,.!]*$", re.IGNORECASE),
        alone=re.compile(rf"^\s*(?:{p['closings']})[\s,.!]*$", re.IGNORECASE),
        device=re.compile(rf"^\s*(?:{p['devices']})[\s.]*$", re.IGNORECASE),
        separator=re.compile(rf"^\s*(?:{p['separators']})\s*$", re.IGNORECASE),
        disclaimer=re.compile(rf"^\s*(?:{p['disclaimers']})", re.IGNORECASE),
    )


@cache
def frame_words() -> frozenset[str]:
    """The words that frame a question, in every language (people mix them)."""
    return frozenset().union(*(rules(lang).frame_words for lang in LANGUAGES))


@cache
def frame_phrases() -> tuple[re.Pattern[str], ...]:
    """The phrases that frame a question ("in plain terms", "mi jefa pregunta"), in every language."""
    return tuple(p for lang in LANGUAGES for p in rules(lang).frame_phrases)


@cache
def claim_checks() -> tuple[re.Pattern[str], ...]:
    """The phrases that check a claim told before them ("is that right?", "¿es cierto?"), in every language."""
    return tuple(p for lang in LANGUAGES for p in rules(lang).claim_checks)


@cache
def defining_verbs() -> frozenset[str]:
    """The verbs that say what a thing is when a sentence starts with it ("X is…", "X splits…"), in every
    language (a knowledge document may mix them)."""
    return frozenset().union(*(rules(lang).defining_verbs for lang in LANGUAGES))


@cache
def alias_words() -> frozenset[str]:
    """The words of an alias in parentheses ("also called", "conocido como"), in every language."""
    return frozenset().union(*(rules(lang).alias_words for lang in LANGUAGES))


@cache
def name_connectors() -> frozenset[str]:
    """The words a name goes on past ("Mountpoint for S3", "FSx for NetApp ONTAP"), in every language."""
    return frozenset().union(*(rules(lang).name_connectors for lang in LANGUAGES))


@cache
def possessives() -> frozenset[str]:
    """The words that make what follows the person's own ("our MinIO", "mi PyTorchJob"), in every language."""
    return frozenset().union(*(rules(lang).possessives for lang in LANGUAGES))


@cache
def coordination_words() -> frozenset[str]:
    """The words that join two things weighed against each other, in every language."""
    return frozenset().union(*(rules(lang).coordination for lang in LANGUAGES))


@cache
def counterparts() -> tuple[re.Pattern[str], ...]:
    """The spans that name what a question compares with or comes from ("the EKS equivalent of X", "in X we
    ran", "como el X de Y"), in every language (people mix them)."""
    return tuple(p for lang in LANGUAGES for p in rules(lang).counterparts)


# The kinds of value a question may ask for that a passage must state (`bot.reading.uncovered.unstated_values`): a
# version ("which Neuron SDK version"), a default ("what's the default consolidateAfter", "¿viene activado por
# defecto?"), how to upgrade a thing ("how do we upgrade Volcano", "¿cómo actualizo KAITO a una versión nueva?"), how
# to install one ("how do I install the EFA device plugin?", "¿cómo se instala Volcano?"), a limit ("the minimum
# storage capacity of an FSx for Lustre file system").
ASKED_KINDS = ("asked_versions", "asked_defaults", "asked_upgrades", "asked_installs", "asked_limits",
               "asked_removals")


@cache
def asked_patterns(kind: str) -> tuple[re.Pattern[str], ...]:
    """What asks for a kind of value (one of `ASKED_KINDS`), in every language (people mix them): patterns whose
    group `what` is the value as named."""
    return tuple(re.compile(p, re.IGNORECASE) for lang in LANGUAGES for p in rules(lang).asked.get(kind, ()))


@cache
def continuation() -> re.Pattern[str]:
    """A message that opens as a continuation of the one before ("and …", "¿y …", "what about …")."""
    return re.compile(r"^\W*(?:" + "|".join(_all("continuation")) + r")\b", re.IGNORECASE)


@cache
def addition() -> re.Pattern[str]:
    """A message that adds to what was asked before ("also", "además")."""
    return re.compile(r"\b(?:" + "|".join(_all("addition")) + r")\b", re.IGNORECASE)


@cache
def comparison() -> re.Pattern[str]:
    """A question that weighs two things against each other or offers them as alternatives ("vs", "or",
    "diferencia entre", "o")."""
    return re.compile(r"\b(?:" + "|".join(_all("comparison")) + r")\b", re.IGNORECASE)


COGNATE_STEM = 3  # letters a word keeps before the ending its cognate changes


def cognates(word: str, lang: str) -> list[str]:
    """The English cognates a folded word's ending may give (`LanguageRules.cognates`: "licencia" -> "licence",
    "licency", "license"), longest ending first; which of them is a word is for the caller to say."""
    return list(dict.fromkeys(word[: -len(ending)] + english for ending, english in rules(lang).cognates
                              if word.endswith(ending) and len(word) - len(ending) >= COGNATE_STEM))


ENCLITICS_JOINED = 2  # pronouns joined to one verb at most ("explíca-me-lo")
ENCLITIC_VERB = 4  # letters of the verb form before them, at least


def without_enclitics(word: str, lang: str) -> list[str]:
    """The verb forms a folded word may be with the pronouns joined to it taken off (`EncliticRules`:
    "explicamelo" -> "explicame", "explica"; "recomiendame" -> "recomienda"; "activarlo" -> "activar"), nearest
    first; which of them is a word is for the caller to say. An object pronoun ("lo", "la", "le") is also how many
    nouns end ("masala", "pozole"): it is taken off only after an infinitive or a gerund, or with another pronoun
    before it. Empty in a language that joins none."""
    table = rules(lang).enclitics
    if table is None:
        return []
    out: list[str] = []
    for _ in range(ENCLITICS_JOINED):
        ending = next((p for p in table.pronouns if word.endswith(p) and len(word) - len(p) >= ENCLITIC_VERB), None)
        if ending is None:
            break
        rest = word[: -len(ending)]
        # An object pronoun after a conjugated verb only with another pronoun before it ("explíca-me-lo"), never
        # alone ("masala", "pozole").
        sure = ending not in table.object_pronouns or rest.endswith(table.unconjugated) or any(
            rest.endswith(p) for p in table.pronouns if p not in table.object_pronouns)
        if not (sure and rest.endswith(table.verb_endings)):
            break
        word = rest
        out.append(word)
    return out


def superlative_adjectives(word: str) -> list[str]:
    """The adjectives a superlative may come from, in any language's rules: "larguisima" -> "largo", "larga"…;
    "poquisimo" -> "poco"; "felicisimo" -> "feliz". Empty for a word that is no superlative."""
    out: list[str] = []
    for lang in LANGUAGES:
        table = rules(lang).superlatives
        match = table.pattern.fullmatch(word) if table is not None else None
        if table is None or match is None:
            continue
        stem = match.group(1)
        stems = dict.fromkeys([stem, *(stem[: -len(end)] + to for end, to in table.stem_changes
                                       if stem.endswith(end))])
        out += [f"{s}{ending}" for s in stems for ending in table.endings]
    return out


@cache
def segment_break() -> re.Pattern[str]:
    """Where a message goes on to another question: "?", ";", a new sentence, "¿", a dash, or a clause joined
    on with the words of either language's `segments`."""
    return re.compile(r"[?!;]+|\.(?=\s)|\s[¿¡]|,\s*(?:" + "|".join(_all("segment_after_comma")) + r")\b|\s[+—–]\s|"
                      r"\s-\s|\b(?:" + "|".join(_all("segment_anywhere")) + r")\b", re.IGNORECASE)


@cache
def clause_cut() -> re.Pattern[str]:
    """Where a message goes on to a question of its own: before the word that joins it on (`segments`'
    `after_comma`, with or without a comma, or opening a sentence) when one of `question_words` follows ("…, and
    how should we back it up?", "¿Para qué sirve BioNeMo y qué licencia necesito?", "… ok. But when a node dies,
    how does the job resume?"); `bot.reading.questions.question_parts` cuts there when a "?" comes after."""
    return re.compile(r"(?<=[\s,])(?=(?:" + "|".join(_all("segment_after_comma")) + r")\s+(?:"
                      + "|".join(_all("question_words")) + r")\b)", re.IGNORECASE)


@cache
def part_opening() -> re.Pattern[str]:
    """The word that joins a question on to the one before ("and", "y", "also"), at the start of the question."""
    return re.compile(r"^(?:(?:" + "|".join(_all("segment_after_comma")) + r")\b[\s,:]*)+", re.IGNORECASE)


@cache
def pointer_words() -> frozenset[str]:
    return frozenset().union(*(rules(lang).pointers for lang in LANGUAGES))


def is_clitic(token: str) -> bool:
    """A verb with an object pronoun joined to it ("activarlo"): it points back too."""
    return any(table.clitic is not None and table.clitic.match(token) for table in map(rules, LANGUAGES))


@dataclass(frozen=True)
class DefinitionRules:
    """What makes a question ask what a thing is ("what is X?", "¿qué es X?", "X, what is it?")."""

    definition: re.Pattern[str]  # the question, with X as `subject`
    meaning: tuple[re.Pattern[str], ...]  # "what does X mean?" (`subject`), "X, ¿qué es?" (`first`)
    acting: tuple[re.Pattern[str], ...]  # "what does X do?", "¿qué hace X?" (`subject`)
    qualifier_tail: re.Pattern[str]  # what may follow X ("in Kubernetes")
    purpose: re.Pattern[str]  # X's purpose or use is asked, not what it is ("for", "para")
    not_a_subject: frozenset[str]  # an X that starts with one of these is no subject ("difference")
    hedges: re.Pattern[str]  # words that only soften the asking ("what *exactly* is X?"), read past


@cache
def definition_rules() -> DefinitionRules:
    """Both languages' definition rules in one set of patterns (people mix languages)."""
    en, es = rules("en").definitions, rules("es").definitions

    def joined(*lists: list[str]) -> str:
        return "|".join(str(p) for items in lists for p in items)

    definition = (r"^\s*(?:¿\s*)?(?:(?:me\s+)?(?:" + joined(es["asking"], en["asking"]) + r")\s+)?(?:"
                  + joined(en["verbs"], es["verbs"]) + r")\s+(?:(?:" + joined(en["articles"], es["articles"])
                  + r")\s+)?(?P<subject>[^?.!,;:]+)")
    tail = (r"^\s*¿?\s*(?P<first>[^?.!,;:¿]+?)\s*,?\s*¿?\s*(?:" + joined(es["meaning_tail"], en["meaning_tail"])
            + r")\s*\??\s*$")

    def asking(patterns: list[str]) -> tuple[re.Pattern[str], ...]:
        return tuple(re.compile(r"^\s*(?:¿\s*)?" + str(p) + r"\s*(?:\?|$)", re.IGNORECASE) for p in patterns)

    return DefinitionRules(
        definition=re.compile(definition, re.IGNORECASE),
        meaning=(*asking([*en["meaning"], *es["meaning"]]), re.compile(tail, re.IGNORECASE)),
        acting=asking([*en["acting"], *es["acting"]]),
        qualifier_tail=re.compile(r"\b(?:" + joined(es["qualifier_tail"], en["qualifier_tail"]) + r")\b.*$",
                                  re.IGNORECASE),
        purpose=re.compile(r"\b(?:" + joined(en["purpose"], es["purpose"]) + r")\b", re.IGNORECASE),
        not_a_subject=frozenset(fold(str(w)) for w in [*en["not_a_subject"], *es["not_a_subject"]]),
        hedges=re.compile(r"\s+(?:" + joined(en["hedges"], es["hedges"]) + r")\b", re.IGNORECASE),
    )


def _all(field: str) -> list[str]:
    return [pattern for lang in LANGUAGES for pattern in getattr(rules(lang), field)]


def points_back(tokens: list[str] | tuple[str, ...], i: int) -> bool:
    """Whether the folded token at `i` points back to something named earlier ("it", "eso", "activarlo")."""
    token = tokens[i]
    for lang in LANGUAGES:
        table = rules(lang)
        if token == "lo" and "lo" in table.back_references:
            if i + 1 < len(tokens) and tokens[i + 1] not in table.not_after_lo:
                return True
        elif token in table.back_references or (table.clitic is not None and table.clitic.match(token)):
            return True
    return False


@cache
def rules(lang: str) -> LanguageRules:
    """The rules of `lang` (one of `LANGUAGES`), read once."""
    path = RULES_DIR / f"{lang}.yaml"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        ref, typos = data["quiz_reference"], data["typos"]
        return LanguageRules(
            lang=lang,
            quiz_reference=QuizReferenceRules(
                quiz_words=frozenset(fold(w) for w in ref["quiz_words"]),
                explain_words=frozenset(fold(w) for w in ref["explain_words"]),
                number=_patterns(ref["number"]), number_with_quiz_word=_patterns(ref["number_with_quiz_word"]),
                about=_patterns(ref["about"]), about_with_quiz_word=_patterns(ref["about_with_quiz_word"]),
                taking_words=frozenset(fold(w) for w in ref.get("taking_words", ())),
                elliptic=_patterns(ref.get("elliptic", [])),
                elliptic_words=frozenset(fold(w) for w in ref.get("elliptic_words", ())),
                ordinal_with_quiz_word=_patterns(ref.get("ordinal_with_quiz_word", [])),
                ordinals={fold(str(w)): int(n) for w, n in ref.get("ordinals", {}).items()},
            ),
            typos=TypoRules(common_zipf=float(typos["common_zipf"]),
                            swaps=tuple((str(a), str(b)) for a, b in typos["swaps"])),
            chat_abbreviations=_words(data["chat_abbreviations"]["words"]),
            slang=_words(data["slang"]["words"]),
            frame_words=frozenset(fold(str(w)) for w in data["frame_words"]["words"]),
            frame_phrases=_patterns(data["frame_words"].get("phrases", [])),
            claim_checks=_patterns(data["frame_words"].get("claims", [])),
            coordination=frozenset(fold(str(w)) for w in data["coordination"]["words"]),
            counterparts=_patterns(data.get("counterparts", {}).get("patterns", [])),
            back_references=frozenset(fold(str(w)) for w in data["back_references"]["words"]),
            not_after_lo=frozenset(fold(str(w)) for w in data["back_references"].get("not_after_lo", ())),
            continuation=tuple(str(p) for p in data["follow_ups"]["continuation"]),
            addition=tuple(str(p) for p in data["follow_ups"]["addition"]),
            pointers=frozenset(fold(str(w)) for w in data["follow_ups"]["pointers"]),
            clitic=re.compile(data["follow_ups"]["clitic"]) if "clitic" in data["follow_ups"] else None,
            comparison=tuple(str(p) for p in data["comparison"]["patterns"]),
            segment_after_comma=tuple(str(p) for p in data["segments"]["after_comma"]),
            segment_anywhere=tuple(str(p) for p in data["segments"]["anywhere"]),
            question_words=tuple(str(p) for p in data["segments"].get("question_words", ())),
            superlatives=SuperlativeRules(
                pattern=re.compile(data["superlatives"]["pattern"]),
                stem_changes=tuple((str(a), str(b)) for a, b in data["superlatives"]["stem_changes"]),
                endings=tuple(str(e) for e in data["superlatives"]["endings"]),
            ) if "superlatives" in data else None,
            definitions=dict(data["definitions"]),
            defining_verbs=frozenset(fold(str(w)) for w in data["defining_sentences"]["verbs"]),
            alias_words=frozenset(fold(str(w)) for w in data["defining_sentences"]["alias_words"]),
            name_connectors=frozenset(fold(str(w)) for w in data.get("name_connectors", {}).get("words", ())),
            possessives=frozenset(fold(str(w)) for w in data.get("possessives", {}).get("words", ())),
            asked={kind: tuple(str(p) for p in data.get(kind, {}).get("patterns", ())) for kind in ASKED_KINDS},
            spelled=_spelled(data.get("spelled", {})),
            prefixes=tuple(fold(str(p)) for p in data.get("derivations", {}).get("prefixes", ())),
            cognates=tuple((fold(str(a)), fold(str(b))) for a, b in data.get("cognates", {}).get("endings", ())),
            enclitics=EncliticRules(
                pronouns=tuple(sorted((fold(str(p)) for p in data["enclitics"]["pronouns"]), key=len, reverse=True)),
                object_pronouns=frozenset(fold(str(p)) for p in data["enclitics"]["object_pronouns"]),
                verb_endings=tuple(fold(str(e)) for e in data["enclitics"]["verb_endings"]),
                unconjugated=tuple(fold(str(e)) for e in data["enclitics"]["unconjugated"]),
            ) if "enclitics" in data else None,
            email={key: tuple(str(p) for p in data.get("email", {}).get(key, ())) for key in _EMAIL_KEYS},
            examples={name: tuple(section.get("examples", ())) for name, section in data.items()
                      if isinstance(section, dict)},
        )
    except (OSError, yaml.YAMLError, KeyError, TypeError, ValueError, re.error) as exc:
        raise ConfigError(f"cannot read the rules of {lang!r} in {path} ({exc})") from exc


def _spelled(data: dict[str, Any]) -> SpelledRules:
    return SpelledRules(
        letters={fold(str(k)): str(v) for k, v in data.get("letters", {}).items()},
        numbers={fold(str(k)): str(v) for k, v in data.get("numbers", {}).items()},
        joiners={tuple(fold(str(k)).split()): str(v) for k, v in data.get("joiners", {}).items()},
    )


def _words(mapping: dict[object, object]) -> dict[str, str]:
    return {str(k): str(v) for k, v in mapping.items()}


def _patterns(items: list[str]) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p, re.IGNORECASE) for p in items)
