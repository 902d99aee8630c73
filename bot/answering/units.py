"""What an answer from a document quotes: the unit a person would quote, not loose sentences.

A document's section (or an entry) is read into **units**: a paragraph; a list with the sentence that
introduces it; a code block with the sentence that leads into it; a table row with its header (and the sentence
that introduces the table). Each unit is scored against the question with what the index already holds (the
vectors of its sentences, of its code block and of its table rows, so nothing new is embedded) and with the
question's words found in it, each weighed by how specific it is (an identifier such as `nvidia.com/gpu` or
`--max-restarts` counts far more than "how"). The best unit is quoted whole, with the code block it leads into,
and beside it a unit that answers a part of the question it leaves out (two rows of a table for a question about
two values), and for a message of several questions the unit of each; a short section, a few sentences, is quoted
whole.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from sys import intern

from bot.knowledge.model import Block, Question
from bot.reading.lexicon import page_initials
from bot.reading.questions import opens_pointing_back
from bot.reading.terms import Analysis, Form, holds_any, singular_of_name
from bot.text.identifiers import parts
from bot.text.normalise import fold
from bot.text.sentences import sentences
from bot.text.uncached import knowledge_tokens

SHORT_SECTION_SENTENCES = 8  # a section of at most this many sentences (and no more than SHORT_SECTION_CHARS, the
SHORT_SECTION_CHARS = 900  # most one unit quotes: UNIT_CHARS) is quoted whole: cutting it would leave out what its
# first sentence leads to. One of several code blocks, at most SHORT_SECTION_CODE (a short procedure: a step, its
# command, the next), is quoted whole only when shorter: its blocks are often alternatives ("Latest development
# build", "Release version"), of which a question asks for one.
SHORT_SECTION_CODE = 3
BLOCKS_SECTION_SENTENCES = 6
BLOCKS_SECTION_CHARS = 600
UNIT_CHARS = 900  # a paragraph or list longer than this is quoted from its best sentence on, to this length
LIST_ITEMS = 8  # items of a list quoted at most (the rest are named by their count)
CODE_CLOSENESS = 0.6  # a code block's closeness counts for this share of a sentence's (see `_unit_closeness`)
LEXICAL_WEIGHT = 0.6  # a unit holding every specific word of the question gains this over its closeness
HEADING_WEIGHT = 0.3  # a section whose own heading holds every word of the question gains this over the others
PAGE_WORD_WEIGHT = 0.3  # a word most of the page's sections use tells them apart this much of another
PAGE_WORD_SHARE = 0.5  # ... "most": at least this share of its sections, of at least PAGE_WORD_SECTIONS
PAGE_WORD_SECTIONS = 4
CONTEXT_WEIGHT = 0.3  # a word of pasted text or a scenario's telling counts this much of an asked one
SECOND_UNIT = 0.08  # a second unit this close to the best one is quoted as well (the answer spans two)
# A unit that holds this share of the question's weight which the quoted ones do not is quoted as well: "which
# values switch queue-processor mode on and name the SQS queue?" asks about two rows of a table, "does it drain
# on spot interruptions, and on rebalance recommendations?" about two of its parameters.
COMPLEMENT = 0.25
# A code block holding at least this share of its terms (and this many) from what the person pasted shows what they
# pasted: the best ranked unit after it that does not is quoted as well (`_after_echo`).
ECHO_SHARE = 0.5
ECHO_TERMS = 4
PART_FOUND = 0.5  # a unit holding this share of one question's words of a message of several may answer it
ROWS_QUOTED = 3  # rows of one table quoted at most (each answering a part of the question the others do not)
LEAST_SPECIFIC = 0.05  # every word counts a little, so that a question of ordinary words still tells units apart
# Between the units of one section, a word of the question counts at least this much: the subject's names are in
# the heading, which every unit stands under, and what tells the units apart is what the person asks in ordinary
# words ("the release version instead of the latest", "which metrics"), however common they are in general.
WITHIN_SECTION_WORD = 0.2
TEXTS_KEPT = 1024  # units whose terms are kept once read: those of the sections a few answers weigh


@dataclass(frozen=True)
class Unit:
    """One quotable piece of a section: its sentences (what is quoted, in order) and, for a code block or a
    table row, that block and the row."""

    kind: str  # "paragraph", "list", "code", "row"
    lines: tuple[str, ...]  # the sentences or list items quoted, the lead-in first
    code: Block | None = None  # the code block it leads into (or is)
    row: str | None = None  # a table row with its header ("Node group: prod-gpu-p5; GPUs: 8")
    order: int = 0  # its place in the section
    shown: str = ""  # a table row as quoted: "Parameter: `queueURL` · Default: ``", a cell under no header alone

    @property
    def text(self) -> str:
        parts = list(self.lines)
        if self.row:
            parts.append(self.row)
        if self.code is not None:
            parts.append(self.code.text)
        return "\n".join(parts)


@dataclass(frozen=True)
class Quote:
    """What an answer from a section quotes: the excerpt, and the code block that goes with it (or None)."""

    excerpt: str
    code: Block | None
    score: float = 0.0  # how well its best unit matches the question (closeness and specific words found)
    # When it shows several code blocks: the quote in the section's order, each text with the block it leads into
    # ("For `llama.cpp` … like this:" over its YAML, then "For diffusers instead …:" over its own); () otherwise.
    parts: tuple[tuple[str, Block | None], ...] = ()


def units_of(question: Question) -> list[Unit]:
    """The units of a section, in its order. A sentence that ends with a colon, or the paragraph right before a
    list, a table or a code block, leads into it and is quoted with it."""
    blocks = question.blocks
    out: list[Unit] = []
    lead: tuple[str, ...] = ()  # the paragraph before the current block, when it leads into it
    for index, block in enumerate(blocks):
        following = blocks[index + 1] if index + 1 < len(blocks) else None
        if block.kind == "text":
            said = tuple(sentences(block.text))
            if not said:
                continue
            leads = following is not None and following.kind in ("list", "table", "code") and (
                said[-1].endswith(":") or len(said) <= 2)
            if leads:
                lead = said
                if not said[-1].endswith(":"):  # a statement of its own as well
                    out.append(Unit("paragraph", said, order=len(out)))
                continue
            out.append(Unit("paragraph", said, order=len(out)))
        elif block.kind == "list":
            items = tuple(_items(block.text))
            if items and following is not None and following.kind == "code":
                # A README's "- Release Version" over its command: the item the code block follows leads into
                # it (a list of one item is only that lead-in, with what introduces the list).
                if len(items) > 1:
                    out.append(Unit("list", (*lead, *items), order=len(out)))
                lead = (*lead, *items) if len(items) == 1 else items[-1:]
                continue
            if items:
                out.append(Unit("list", (*lead, *items), order=len(out)))
        elif block.kind == "code":
            out.append(Unit("code", lead, code=block, order=len(out)))
        elif block.kind == "table" and block.rows:
            header, *rows = block.rows
            for row in rows:
                # As the index holds the row (`bot.knowledge.chunks`): its closeness is found by this text.
                cells = "; ".join(f"{h}: {c}" for h, c in zip(header, row, strict=False))
                shown = " · ".join(f"{h}: {c}" if h.strip() else c for h, c in zip(header, row, strict=False)
                                   if c.strip())
                out.append(Unit("row", lead, row=cells, order=len(out), shown=shown))
        lead = ()
    return out


def _items(text: str) -> list[str]:
    """A list's items as written, nested ones indented, each one line."""
    return [line.rstrip() for line in text.split("\n") if line.strip()]


def choose(question: Question, analysis: Analysis, sentence_sims: Mapping[str, float],
           code_sims: Mapping[int, float], row_sims: Mapping[str, float],
           page_words: frozenset[str] = frozenset()) -> Quote:
    """The quote for a section: the whole section when it is short, else its best unit (and, for a message of
    several questions, the unit that answers each, `_parts`).

    `sentence_sims`: the closeness of each of its sentences to the question (by text); `code_sims`: of each code
    block (by its line); `row_sims`: of each table row (by its text as the index holds it); `page_words`: terms
    most sections of the page use (its subject: "Acme" in Acme's runbook), which tell its sections apart less.
    """
    units = units_of(question)
    if not units:
        return Quote("", None)
    placed = _weights_at(analysis, question.lang, page_words)
    weights = [(w, forms) for _, w, forms in placed]
    # Every unit stands under the section's heading path: its words count for each unit ("Retention" over a
    # table of days).
    heading = _terms_of(" ".join(question.path), question.lang) if question.path else frozenset()
    # Between sections, the best unit's score, and one whose own heading names what is asked ("Requesting a quota
    # increase") is about it.
    own = _terms_of(question.path[-1], question.lang) if question.path else frozenset()
    words = {u.order: _terms_of(u.text, question.lang) for u in units}  # each unit's words, read once
    read = [(u, _unit_closeness(u, sentence_sims, code_sims, row_sims), words[u.order] | heading)
            for u in units]  # then scored both ways
    best_score = max(close + LEXICAL_WEIGHT * _found(weights, terms) for _, close, terms in read
                     ) + HEADING_WEIGHT * _found(weights, own)
    # Within it, the words its heading holds tell no unit apart, and the others count as `WITHIN_SECTION_WORD`.
    within = _within_section(weights, heading)
    scored = sorted(((close + LEXICAL_WEIGHT * _found(within, terms), -u.order, u) for u, close, terms in read),
                    key=lambda s: (s[0], s[1]), reverse=True)
    codes = [u.code for u in units if u.code is not None]
    prose = [u for u in units if u.kind in ("paragraph", "list")]
    said = [line for u in prose for line in u.lines]
    sentences_at_most, chars_at_most = (SHORT_SECTION_SENTENCES, SHORT_SECTION_CHARS) if len(codes) <= 1 else (
        BLOCKS_SECTION_SENTENCES, BLOCKS_SECTION_CHARS)
    if (not any(u.kind == "row" for u in units) and len(said) <= sentences_at_most
            and sum(map(len, said)) <= chars_at_most and len(codes) <= SHORT_SECTION_CODE):
        # A short section is quoted whole: its prose in order (each lead-in once), its code blocks together.
        lines: list[str] = []
        in_order: list[tuple[str, Block | None]] = []
        for unit in units:
            text = _quoted(unit, sentence_sims, weights, question.lang) if unit.kind == "list" else _joined_lines(
                unit.lines)
            lines = _adding(lines, text)
            in_order.append((text, unit.code if unit.kind == "code" else None))
        return Quote("\n".join(lines), _together(codes), best_score,
                     _in_order(in_order, lines) if len(codes) > 1 else ())
    chosen = [scored[0][2]]
    # What follows a symptom the person pasted is quoted with it; else a second unit about as close.
    chosen += _after_echo(chosen, [u for _, _, u in scored], analysis, question.lang)
    if len(chosen) == 1 and len(scored) > 1 and scored[1][0] >= scored[0][0] - SECOND_UNIT and not (
            scored[0][2].kind == scored[1][2].kind == "row"):  # rows of one table look alike: the best says it
        chosen.append(scored[1][2])
    chosen += _continued(chosen, units)
    chosen += _complements(chosen, [u for _, _, u in scored], weights, words, heading)
    chosen += _parts(chosen, [u for _, _, u in scored], placed, analysis, words, heading)
    # The code block shown is the best unit's, else the first of the others' in the section's order; when several
    # lead-ins are quoted, each with the block it introduces ("To list the jobs …:", "To list the pods …:"), their
    # blocks are shown together in the same order: a lead-in is never quoted over another one's code.
    code = next((u.code for u in [chosen[0], *sorted(chosen[1:], key=lambda u: u.order)] if u.code is not None), None)
    chosen.sort(key=lambda u: u.order)
    introduced = [u.code for u in chosen if u.kind == "code" and u.code is not None and u.lines]
    if len(introduced) > 1:
        code = _together(introduced)
    if code is None:  # a paragraph or list that leads into code right after it
        for unit in chosen:
            after = next((u for u in units if u.order == unit.order + 1), None)
            if after is not None and after.kind == "code" and after.lines and set(after.lines) <= set(unit.lines):
                code = after.code
                break
    quoted: list[str] = []
    in_order = []
    for i, unit in enumerate(chosen):
        # A row after another row of its table is quoted without the sentence that introduces the table again.
        again = unit.kind == "row" and any(u.kind == "row" and u.lines == unit.lines for u in chosen[:i])
        text = unit.shown if again else _quoted(unit, sentence_sims, weights, question.lang)
        quoted = _adding(quoted, text)
        in_order.append((text, unit.code if unit.code in introduced else None))
    return Quote("\n".join(quoted), code, best_score, _in_order(in_order, quoted) if len(introduced) > 1 else ())


def _in_order(read: Sequence[tuple[str, Block | None]], kept: Sequence[str]) -> tuple[tuple[str, Block | None], ...]:
    """The quote as parts in the section's order: each text kept (`_adding`: said once) where it first stands,
    the texts before a code block with it, what follows the last block on its own. `read`: each unit's text as
    quoted, with the code block it leads into (or None), in order."""
    parts: list[tuple[str, Block | None]] = []
    pending: list[str] = []
    shown: set[str] = set()
    for text, code in read:
        if text in kept and text not in shown:
            pending.append(text)
            shown.add(text)
        if code is not None:
            parts.append(("\n".join(pending), code))
            pending = []
    if pending:
        parts.append(("\n".join(pending), None))
    return tuple(parts)


def _adding(quoted: list[str], text: str) -> list[str]:
    """The texts quoted with `text` added, each said once: not when one quoted already holds it, and in place of
    those it holds. Read apart from line breaks: a short paragraph is a unit of its own, its sentences one line,
    and the lead-in of the list after it, one line each."""
    flat = " ".join(text.split())
    if not flat or any(flat in " ".join(q.split()) for q in quoted):
        return quoted
    return [*(q for q in quoted if " ".join(q.split()) not in flat), text]


def _after_echo(chosen: list[Unit], ranked: list[Unit], analysis: Analysis, lang: str) -> list[Unit]:
    """When the best unit's code block is what the person pasted (an error, a command's output), the best ranked
    unit after it that is not: the page shows the symptom, and what follows says what causes it or what to do ("you
    might see the following error: …", then "This occurs because …", "To address this, …"). Within the room
    `_has_room` leaves."""
    best = chosen[0]
    if best.code is None or not analysis.context:
        return []
    pasted = frozenset(t for p in analysis.context for t in knowledge_tokens(analysis.tokens[p], lang))

    def echoes(unit: Unit) -> bool:
        shown = set(knowledge_tokens(unit.code.text, lang)) if unit.code is not None else set()
        return len(shown & pasted) >= max(ECHO_TERMS, ECHO_SHARE * len(shown))

    if not echoes(best):
        return []
    after = next((u for u in ranked if u.order > best.order and u not in chosen and not echoes(u)
                  and u.kind in ("paragraph", "list", "code")), None)
    return [after] if after is not None and _has_room(after, chosen) else []


def _continued(chosen: list[Unit], units: list[Unit]) -> list[Unit]:
    """When the best unit is a code block, the paragraph or list right after it that opens by pointing back at it
    ("This will create a cluster and a managed nodegroup …", "Esto crea …"): what the command does, said of it.
    Beside a single unit chosen."""
    best = chosen[0]
    if len(chosen) > 1 or best.kind != "code":
        return []
    after = next((u for u in units if u.order == best.order + 1), None)
    if after is None or after.kind not in ("paragraph", "list") or not after.lines:
        return []
    return [after] if opens_pointing_back(after.lines[0]) else []


def _complements(chosen: list[Unit], ranked: list[Unit], weights: Sequence[tuple[float, tuple[Form, ...]]],
                 terms: Mapping[int, frozenset[str]], heading: frozenset[str] = frozenset()) -> list[Unit]:
    """Units that answer a part of the question the chosen ones leave out: each, best first, holds at least
    COMPLEMENT of the question's weight whose words none quoted before holds, nor the section's heading path (which
    the answer shows, and every unit stands under). Rows of a table: up to ROWS_QUOTED in all, one per part of the
    question; any other unit: one, beside a single unit chosen. `terms`: each unit's words, by its order."""
    total = sum(w for w, _ in weights)
    if not total:
        return []

    def holds(unit: Unit, forms: tuple[Form, ...]) -> bool:
        return holds_any(terms[unit.order], forms)

    left = [(w, forms) for w, forms in weights
            if not any(holds(u, forms) for u in chosen) and not holds_any(heading, forms)]
    added: list[Unit] = []
    while left:
        quoted = [*chosen, *added]
        gains = [(sum(w for w, forms in left if holds(u, forms)) / total, u)
                 for u in ranked if u not in quoted and _has_room(u, quoted)]
        gain, unit = max(gains, key=lambda g: g[0], default=(0.0, None))  # the best ranked of equal gains
        if unit is None or gain < COMPLEMENT:
            break
        added.append(unit)
        left = [(w, forms) for w, forms in left if not holds(unit, forms)]
    return added


def _parts(chosen: list[Unit], ranked: list[Unit], placed: Sequence[tuple[int, float, tuple[Form, ...]]],
           analysis: Analysis, terms: Mapping[int, frozenset[str]], heading: frozenset[str] = frozenset()
           ) -> list[Unit]:
    """For a message of several questions ("does NTH drain on spot interruption notices? and what about rebalance
    recommendations?"), the unit that answers a question the chosen ones do not: of each question's own words as
    they tell units apart (`_apart`), it holds at least PART_FOUND, and more than any unit chosen. Best ranked
    first among equals; within the room `_has_room` leaves. `terms`: each unit's words, by its order."""
    by_part: dict[int, list[tuple[float, tuple[Form, ...]]]] = {}
    for position, weight, forms in placed:
        if position not in analysis.context:
            by_part.setdefault(analysis.segments[position], []).append((weight, forms))
    parts = [part for words in by_part.values() if (part := _apart(words, heading))]
    if len(parts) < 2:
        return []
    added: list[Unit] = []
    for part in parts:
        quoted = [*chosen, *added]
        share = {u.order: _found(part, terms[u.order]) for u in ranked}
        held = max(share[u.order] for u in quoted)
        unit = max((u for u in ranked if u not in quoted and _has_room(u, quoted)),
                   key=lambda u: share[u.order], default=None)  # the best ranked of equal shares
        if unit is not None and share[unit.order] >= PART_FOUND and share[unit.order] > held:
            added.append(unit)
    return added


def _has_room(unit: Unit, quoted: Sequence[Unit]) -> bool:
    """Whether a unit may be quoted beside those already quoted: another row of a table already quoted from, up to
    ROWS_QUOTED rows; any other unit beside a single one."""
    rows = sum(u.kind == "row" for u in quoted)
    if unit.kind == "row" and rows:
        return rows < ROWS_QUOTED
    return len(quoted) < 2


def _together(codes: Sequence[Block]) -> Block | None:
    """Code blocks quoted together, as one (in the first one's language when they share it)."""
    if len(codes) <= 1:
        return codes[0] if codes else None
    langs = {c.lang for c in codes}
    return Block("code", "\n\n".join(c.text for c in codes), codes[0].line,
                 lang=codes[0].lang if len(langs) == 1 else None)


def _unit_closeness(unit: Unit, sentence_sims: Mapping[str, float], code_sims: Mapping[int, float],
                    row_sims: Mapping[str, float]) -> float:
    """A unit's closeness to the question: its best sentence's, code block's or row's. A unit's score adds
    LEXICAL_WEIGHT times the share of the question's weight whose words it holds, or its section's heading
    ("Retention" over a table of days)."""
    dense = [_closeness(line, sentence_sims) for line in unit.lines]
    if unit.code is not None:
        # A code block's vector was made with the section's headings before it (`Chunk.indexed_text`): its
        # closeness is the section's as much as the code's, so it counts for less than a sentence's.
        dense.append(CODE_CLOSENESS * code_sims.get(unit.code.line, 0.0))
    if unit.row is not None:
        dense.append(row_sims.get(unit.row, 0.0))
    return max(dense, default=0.0)


def _closeness(line: str, sentence_sims: Mapping[str, float]) -> float:
    """A line's closeness to the question: its best sentence's (a list item may hold several)."""
    found = sentence_sims.get(line)
    if found is not None:
        return found
    return max((sentence_sims.get(s, 0.0) for s in sentences(line)), default=0.0)


def _weights_at(analysis: Analysis, lang: str, page_words: frozenset[str] = frozenset()
                ) -> list[tuple[int, float, tuple[Form, ...]]]:
    """Each content word of the question: its position, its specificity (less for a word of the page's subject),
    and its readings in `lang` (the word itself, what it stands for, its translation; each a main term, then an
    identifier's or a compound's parts)."""
    out = []
    for word in (*analysis.words, *analysis.told):
        # Its readings in the section's language first; a name ("AccessDenied", "KMS") is the same in both.
        forms = word.forms.get(lang) or tuple(f for fs in word.forms.values() for f in fs)
        forms = _either_number(word.text, tuple(form for form in forms if form))
        if forms:
            weight = max(word.specificity, LEAST_SPECIFIC)
            if holds_any(page_words, forms):  # "MPI Operator" on the MPI Operator's page
                weight *= PAGE_WORD_WEIGHT
            # A word of pasted text or of a scenario's telling is evidence, not what is asked.
            out.append((word.position, weight * CONTEXT_WEIGHT if word.position in analysis.context else weight,
                        forms))
    return out


def _within_section(weights: Sequence[tuple[float, tuple[Form, ...]]], heading: frozenset[str]
                    ) -> list[tuple[float, tuple[Form, ...]]]:
    """The question's words as they tell a section's units apart (`_apart`); all of them, each weighing at least
    WITHIN_SECTION_WORD, when the heading holds every one."""
    return _apart(weights, heading) or [(max(w, WITHIN_SECTION_WORD), forms) for w, forms in weights]


def _apart(weights: Sequence[tuple[float, tuple[Form, ...]]], heading: frozenset[str]
           ) -> list[tuple[float, tuple[Form, ...]]]:
    """The words that tell a section's units apart: those its heading path holds left out (every unit stands
    under it), the others weighing at least WITHIN_SECTION_WORD."""
    return [(max(w, WITHIN_SECTION_WORD), forms) for w, forms in weights if not holds_any(heading, forms)]


def _either_number(text: str, forms: tuple[Form, ...]) -> tuple[Form, ...]:
    """A word's forms, and for the name of a kind written as one word of parts ("PodGroups", "NodePool",
    "RayClusters") its other number too: a page writes "a PodGroup per worker group" where a question asks which
    PodGroups to expect. Such a name is an identifier, read whole and never stemmed as a plain word is."""
    main = fold(text)
    if len(parts(text)) < 2 or not text.isalnum() or not any(form[0] == main for form in forms):
        return forms
    singular = singular_of_name(text)
    if singular is None and main.endswith("s"):
        return forms  # "NodeClass": no plural, and its own singular
    return (*forms, (singular or f"{main}s",))


def _found(weights: Sequence[tuple[float, tuple[Form, ...]]], terms: frozenset[str]) -> float:
    """The share of the question's weight whose words the unit holds: a word in any of its readings, as its main
    term or all of its parts ("GPU quota" where a sentence says "quota" of GPUs)."""
    total = sum(w for w, _ in weights)
    if not total:
        return 0.0
    return sum(w for w, forms in weights if holds_any(terms, forms)) / total


def _quoted(unit: Unit, sentence_sims: Mapping[str, float],
            weights: Sequence[tuple[float, tuple[Form, ...]]] = (), lang: str = "en") -> str:
    """A unit as quoted: a paragraph whole (from its best sentence on when it is long); a list with its lead-in
    and its items (those that answer, when all of them would be too long: `_answering_items`); a code block's
    lead-in; a table row after the sentence that introduces the table."""
    if unit.kind == "row":
        return " ".join(filter(None, (_joined_lines(unit.lines), unit.shown)))
    # The sentences before the first item lead in; a code block's lead-in is them, and the step it stands under.
    first = next((i for i, line in enumerate(unit.lines) if _is_item(line)), len(unit.lines))
    if unit.kind == "code":
        return "\n".join(filter(None, (_joined_lines(unit.lines[:first]), *unit.lines[first:])))
    if unit.kind == "list":
        lead, items = list(unit.lines[:first]), _item_groups(unit.lines[first:])
        whole = "\n".join([*lead, *(line for item in items for line in item)])
        if not items or (len(items) <= LIST_ITEMS and len(whole) <= UNIT_CHARS):
            return _bounded(whole)
        return _bounded("\n".join(_answering_items(lead, items, sentence_sims, weights, lang)))
    lines = list(unit.lines)
    if sum(map(len, lines)) > UNIT_CHARS:
        start = max(range(len(lines)), key=lambda i: sentence_sims.get(lines[i], 0.0))
        lines = lines[start:] if sum(map(len, lines[start:])) >= UNIT_CHARS // 2 else lines[max(0, start - 1):]
    return _bounded(_joined_lines(lines))


def _item_groups(lines: Sequence[str]) -> list[list[str]]:
    """A list's items, each with what is nested under it or continues it ("- `withinClusterQueue` … The possible
    values are:" with its three values)."""
    marked = [line for line in lines if _is_item(line)]
    if not marked:
        return [[line] for line in lines]
    indent = min(len(line) - len(line.lstrip()) for line in marked)
    groups: list[list[str]] = []
    for line in lines:
        if not groups or (_is_item(line) and len(line) - len(line.lstrip()) <= indent):
            groups.append([line])
        else:
            groups[-1].append(line)
    return groups


def _answering_items(lead: list[str], items: list[list[str]], sentence_sims: Mapping[str, float],
                     weights: Sequence[tuple[float, tuple[Form, ...]]], lang: str) -> list[str]:
    """A list too long to quote whole: its lead-in and the items that answer best (closeness and the question's
    words, as a unit is scored), as many as fit, in the list's order; "…" where items are left out, and their
    count after the last one. "should I page someone?" over a checklist of five steps quotes the fifth, which
    says whom to page, where the first ones alone would fill the quote."""
    def score(item: list[str]) -> float:
        closeness = max((_closeness(line.strip(), sentence_sims) for line in item), default=0.0)
        return closeness + LEXICAL_WEIGHT * _found(weights, _terms_of("\n".join(item), lang))

    room = UNIT_CHARS - sum(len(line) + 1 for line in lead)
    chosen: set[int] = set()
    for i in sorted(range(len(items)), key=lambda i: (-score(items[i]), i)):
        size = sum(len(line) + 1 for line in items[i])
        if chosen and (size > room or len(chosen) >= LIST_ITEMS):
            continue
        chosen.add(i)
        room -= size
    out, last = list(lead), -1
    for i in sorted(chosen):
        if i > last + 1:
            out.append("…")
        out.extend(items[i])
        last = i
    if last < len(items) - 1:
        out.append(f"… (+{len(items) - 1 - last})")
    return out


def _joined_lines(lines: Sequence[str]) -> str:
    return " ".join(line.strip() for line in lines)


def _is_item(line: str) -> bool:
    stripped = line.lstrip()
    return stripped.startswith(("- ", "* ")) or (stripped[:1].isdigit() and ". " in stripped[:5])


def _bounded(text: str) -> str:
    if len(text) <= UNIT_CHARS:
        return text
    cut = text[:UNIT_CHARS]
    space = cut.rfind(" ")
    return (cut[:space] if space > UNIT_CHARS // 2 else cut).rstrip() + " …"


@lru_cache(maxsize=TEXTS_KEPT)
def _terms_of(text: str, lang: str) -> frozenset[str]:
    """A unit's or heading's terms, kept here only (not in the questions' cache of words as well)."""
    return frozenset(intern(t) for t in knowledge_tokens(text, lang))


def page_words(sections: Sequence[Question], name: str = "") -> frozenset[str]:
    """The terms of a page's subject: those of its name (its path: "aws-fsx-csi-driver-options", where a question
    that says "FSx CSI driver" names the page, not one of its parts), the initials of its title's words ("NTH" on
    "AWS Node Termination Handler": `page_initials`), and, for a page of a few sections or more, those at least half
    of its sections use."""
    title = sections[0].path[0] if sections and sections[0].path else ""
    named = (_terms_of(name, sections[0].lang) | page_initials(title)) if name and sections else frozenset()
    if len(sections) < PAGE_WORD_SECTIONS:
        return named
    counts: dict[str, int] = {}
    for section in sections:  # each section read once, past the caches (which would keep its whole text)
        for term in set(knowledge_tokens(" ".join(b.text for b in section.blocks), section.lang)):
            counts[term] = counts.get(term, 0) + 1
    return named | frozenset(term for term, n in counts.items() if n >= PAGE_WORD_SHARE * len(sections))
