"""What a question asks that the knowledge never mentions.

Two uses. Before retrieval, a named thing the knowledge never mentions, asked about *beside* one it
explains ("MPIJob or PyTorchJob?", "¿qué recursos pide BioNeMo? ¿y se puede exponer con NIM?"), is set
aside, so the rest of the question is searched and judged on its own and an answer can cover it. After,
the terms to name in "the knowledge says nothing about …", as the person wrote them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import reduce
from operator import and_

from bot.lang import LANGUAGES
from bot.reading.lexicon import Glossary, WordFrequency
from bot.reading.postings import KeySet
from bot.reading.questions import referred_to_later
from bot.reading.rules import ASKED_KINDS, asked_patterns, coordination_words, is_clitic, name_connectors
from bot.reading.terms import Analysis, QueryWord, Vocabulary, holds_any
from bot.reading.thresholds import THRESHOLDS
from bot.text.identifiers import parts
from bot.text.normalise import fold
from bot.text.tokens import ALL_STOPWORDS
from bot.text.uncached import knowledge_tokens

CONJUNCT_REACH = 3  # tokens between a coordinator and the head of each side ("X vs the new Y")
NAME_GOES_ON = 2  # words of a name past what asks for a version ("versión del Neuron" + "SDK")
# A version as passages state one: "v2.10", "1.35+", "2.12.0", "1.x". "v1" alone names an API, not a release,
# and four numbers are an address ("192.168.0.10").
VERSION_STATED = re.compile(r"(?<![\w.])v?\d+(?:\.(?:\d+|x)){1,2}(?![\w.]*[a-wyz])(?!\.?\d)", re.IGNORECASE)
_A_SETTING = re.compile(r"[^\W_]+(?:_[^\W_]+)*")  # "tensor_split", "managedBy": one word of letters, digits, "_"
# A word that is a version ("v1", "1.29", "v2.3.0"): a value of the thing asked about, never its name.
A_VERSION = re.compile(r"v?\d+(?:\.(?:\d+|x))*", re.IGNORECASE)
# A default as passages state one: "defaults to 30s", "by default", "por defecto", a heading "Default quota".
DEFAULT_STATED = re.compile(r"\b(?:defaults?|defaulted|por defecto|predeterminad[oa]s?|de serie)\b", re.IGNORECASE)
# An upgrade as passages speak of one: "upgrade", "upgrading", "update the chart", "actualizar", "migrate to v1".
UPGRADE_STATED = re.compile(r"\b(?:upgrad\w*|updat\w*|actualiz\w*|migrat\w*|migra\w*)\b", re.IGNORECASE)
# An install as passages speak of one: "install", "helm install", "instalar", "deploy the chart", "kubectl apply -f",
# an add-on created ("eksctl create addon", "aws eks create-addon").
INSTALL_STATED = re.compile(r"\b(?:install\w*|instal\w*|deploy\w*|despleg\w*|desplieg\w*|kubectl\s+(?:apply|create)|"
                            r"create[\s-]addon)\b", re.IGNORECASE)
# A bound as passages state one: "at least 1.2 TiB", "up to 32", "a maximum of 4", "1,200 GiB or more", "como
# mínimo 2", "hasta 8".
LIMIT_STATED = re.compile(r"\b(?:min(?:imum)?|max(?:imum)?|at least|at most|up to|no more than|no less than|"
                          r"m[ií]nim[oa]|m[aá]xim[oa]|al menos|como mucho|hasta)\b[^.\n]{0,40}?\d|"
                          r"\d[^.\n]{0,24}?\b(?:or more|or less|minimum|maximum|como m[ií]nimo|como m[aá]ximo)\b",
                          re.IGNORECASE)
# A removal as passages speak of one: "uninstall", "helm uninstall", "delete", "remove", "tear down", "clean up",
# "cdk destroy", "desinstalar", "borrar", "eliminar", "limpiar".
REMOVAL_STATED = re.compile(r"\b(?:uninstall\w*|remov\w*|delet\w*|tear(?:s|ing)?\s+down|teardown|destroy\w*|"
                            r"clean(?:s|ing)?\s*up|cleanup|desinstal\w*|borr\w*|elimin\w*|limpi\w*)\b", re.IGNORECASE)
# Per kind of value a question asks for (`bot.reading.rules.ASKED_KINDS`): how a passage states it, and whether its
# heading path may state it (a heading's numbers, "3.3 Deploy Workloads", are no versions).
STATED = {"asked_versions": (VERSION_STATED, False), "asked_defaults": (DEFAULT_STATED, True),
          "asked_upgrades": (UPGRADE_STATED, True), "asked_installs": (INSTALL_STATED, True),
          "asked_limits": (LIMIT_STATED, False), "asked_removals": (REMOVAL_STATED, True)}


def read_question(vocabulary: Vocabulary, question: str, language: str, frequency: WordFrequency,
                  glossary: Glossary | None = None, *, cognates: bool = False) -> Analysis:
    """Read a clean question: its content words, their specificity, and the text to search with.

    A named thing the knowledge never mentions, asked about beside one it explains ("MPIJob or PyTorchJob?"),
    is set aside (`set_aside`): the rest is read again, and is what gets searched and judged; the named things
    are kept as `Analysis.set_aside`. `cognates`: a Spanish word no glossary has is read as its English cognate
    (`Vocabulary.analyze`).
    """
    question = vocabulary.said_aloud(question, language)  # "n c c l" is NCCL, for all that follows
    analysis = vocabulary.analyze(question, language, frequency, glossary, cognates=cognates)
    aside = set_aside(analysis, vocabulary)
    if not aside.named:
        return analysis
    rest = remainder(analysis, question, aside)
    terms = tuple(uncovered_terms(analysis, vocabulary, only=set(aside.named)))
    return replace(vocabulary.analyze(rest, language, frequency, glossary, cognates=cognates), set_aside=terms)


@dataclass(frozen=True)
class Aside:
    named: frozenset[int]  # positions of the named things set aside (reported as not covered)
    drop: frozenset[int]  # positions of every token to leave out of the rest of the question


def set_aside(analysis: Analysis, vocabulary: Vocabulary) -> Aside:
    """Positions of named things the knowledge never mentions that the question asks about *beside*
    something it does explain, so that an answer can cover the rest and name what it does not cover:

    - a comparison or alternative, "MPIJob or PyTorchJob", "FSx for Lustre vs OpenZFS": one side
      holds unknown named words, the other none, and a known one that pins a quiz question down;
    - a second question of its own, "what does BioNeMo need? and can we expose it with NIM?": a
      sentence or question of the message with unknown named words and no known specific one,
      next to one that has a known distinctive word;
    - what the question compares with or comes from, "the EKS equivalent of GKE's gVNIC for NCCL", "in Azure
      ML we ran it on NDv4" (`Analysis.compared`): the counterpart is asked for, and the rest of the message
      describes it with a known specific word that is more than the platform's name.
    """
    words = analysis.words
    in_knowledge = [w.known for w in words]
    unknown = {w.position for w in words if w.unheard and w.named and w.specificity >= THRESHOLDS.specific}
    if not unknown:
        return Aside(frozenset(), frozenset())
    known_specific = {w.position for w, known in zip(words, in_knowledge, strict=True)
                      if known and w.specificity >= THRESHOLDS.specific}
    out: set[int] = set()
    drop: set[int] = set()
    # The counterpart asked for, described by the rest of the message with more than the platform ("EKS").
    if any(not vocabulary.names_the_domain(w) for w in words
           if w.position in known_specific and w.position not in analysis.compared):
        out |= unknown & analysis.compared
        drop |= unknown & analysis.compared
    distinctive = {w.position for w in words if w.position in known_specific
                   and vocabulary.questions_using(w) <= THRESHOLDS.pins_down and not vocabulary.names_the_domain(w)}
    if not distinctive:
        return Aside(frozenset(out), frozenset(drop))
    tokens = [t.lower() for t in analysis.tokens]
    for c, token in enumerate(tokens):
        if token not in coordination_words():
            continue
        left = set(range(c - CONJUNCT_REACH, c))
        right = set(range(c + 1, c + 1 + CONJUNCT_REACH))
        for one, other in ((left, right), (right, left)):
            if one & unknown and other & distinctive and not other & unknown:
                out |= one & unknown
                drop |= (one & unknown) | {c}
    segments = analysis.segments
    if len(set(segments)) > 1 and any(segments[p] != segments[u] for p in distinctive for u in unknown):
        for u in unknown:
            here = {p for p in range(len(tokens)) if segments[p] == segments[u]}
            if not here & known_specific and not referred_to_later(tokens, segments, segments[u]):
                out.add(u)
                drop |= here  # the whole question of its own
    return Aside(frozenset(out), frozenset(drop))


def uncovered_terms(analysis: Analysis, vocabulary: Vocabulary, only: set[int] | None = None) -> list[str]:
    """Terms of the question that the knowledge never mentions, as written ("PyTorchJob", "FSx for
    NetApp ONTAP", "sequence parallelism"): each specific named word it never uses, with the words
    around it that belong to the same name (inside what the question compares with, when it is there: "GKE's
    gVNIC", not "gVNIC for NCCL"). A word a wrong option writes ("EBS gp3") is not one: the quiz mentions it, and a
    question about that option is answered by the question that offers it."""
    known = {w.position: w.known for w in analysis.words}
    by_position = {w.position: w for w in analysis.words}
    cores = [
        w for w in analysis.words
        if (only is None or w.position in only) and w.unheard and (
            names_a_thing(w) or _modifies_specific(w, by_position)
        ) and not vocabulary.knows_the_singular(w) and not is_clitic(fold(w.text))  # "trocearla": a verb
    ]
    spans: list[tuple[int, int]] = []
    for core in cores:
        start = end = core.position
        while _joins(by_position, known, analysis.tokens, start - 1, step=-1):
            start -= 2 if by_position.get(start - 1) is None else 1
        while _joins(by_position, known, analysis.tokens, end + 1, step=1):
            end += 2 if by_position.get(end + 1) is None else 1
        if _modifies_specific(core, by_position):
            end = max(end, core.position + 1)
        if core.position in analysis.compared:  # "the equivalent of GKE's gVNIC for NCCL": it ends with the span
            while start not in analysis.compared:
                start += 1
            while end not in analysis.compared or fold(analysis.tokens[end]) in ALL_STOPWORDS:
                end -= 1
        if spans and start <= spans[-1][1] + 1:
            spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
        else:
            spans.append((start, end))
    return list(dict.fromkeys(" ".join(analysis.tokens[a : b + 1]) for a, b in spans))


def unwritten_names(analysis: Analysis, texts_of: Callable[[KeySet], Iterable[str]]) -> list[str]:
    """Names of ordinary capitalised words that the knowledge never writes together ("EKS Auto Mode", "Object
    Lock"), as written: a run of two or more capitalised words a single space parts inside a sentence of the
    person's own (`_capitalised_runs`), at least one of them an ordinary word, each written somewhere in the
    knowledge (a word never written is `uncovered_terms`' already) and the run in none of the texts `texts_of`
    gives for the sections that write them all. Its words alone are known; the thing they name is not. So too a
    setting's name whose parts the knowledge writes, but never the name (`tensor_split`)."""
    out: list[str] = []
    folded: dict[str, str] = {}  # a section's text, folded once for every name looked for in it

    def folded_texts(keys: KeySet) -> Iterator[str]:
        for text in texts_of(keys):
            if text not in folded:
                folded[text] = fold(text)
            yield folded[text]

    for run in _capitalised_runs(analysis):
        if not all(w.known for w in run) or all(w.specificity >= THRESHOLDS.specific for w in run):
            continue
        phrase = " ".join(w.text for w in run)
        wanted = (fold(phrase), fold(phrase).replace(" ", ""))
        if not any(any(w in text for w in wanted) for text in folded_texts(reduce(and_, (w.where for w in run)))):
            out.append(phrase)
    for word in analysis.words:
        # A setting's name of parts ("tensor_split", "managedBy") the knowledge writes only apart ("tensor
        # parallelism ... split"): known by its parts, never written as one, in any spelling ("main-gpu", "main
        # gpu") nor as the start of a longer one ("TF_VAR_enable_mpi"). A dotted, slashed or hyphenated one is a
        # path or a compound, which a page may write a part of ("nvidia.com/gpu", "lakeFS-managed").
        pieces = parts(word.text)
        if (len(pieces) < 2 or not word.known or not word.setting_name or not _A_SETTING.fullmatch(word.text)
                or word.position in analysis.context):
            continue
        joined = re.compile(r"(?<![\w-])" + r"[\s_-]?".join(re.escape(fold(p)) for p in pieces))
        if not any(joined.search(text) for text in folded_texts(word.where)):
            out.append(word.text)
    return out


def _capitalised_runs(analysis: Analysis) -> list[list[QueryWord]]:
    """Runs of two or more words written with a capital letter, one after the other with a single space between
    them, none opening a sentence (where a capital names nothing) and none pasted: "Running=False" is no name."""
    runs: list[list[QueryWord]] = []
    run: list[QueryWord] = []
    for word in sorted(analysis.words, key=lambda w: w.position):
        capital = (not word.opens and word.position not in analysis.context and word.text.isalpha()
                   and word.text[:1].isupper() and word.text[1:2].islower())
        if capital and run and word.position == run[-1].position + 1 and word.position in analysis.spaced:
            run.append(word)
            continue
        if len(run) >= 2:
            runs.append(run)
        run = [word] if capital else []
    return [*runs, run] if len(run) >= 2 else runs


def names_a_thing(word: QueryWord) -> bool:
    """A named word that can be what a question is about: a specific one, or a capitalised one inside
    the sentence ("Jenkins", "Pod Identity", "Capacity Blocks")."""
    return word.named and (word.specificity >= THRESHOLDS.specific or (not word.opens and word.text[:1].isupper()))


def _modifies_specific(word: QueryWord, by_position: dict[int, QueryWord]) -> bool:
    """"sequence parallelism": an unknown word right before a specific one names a kind of it."""
    following = by_position.get(word.position + 1)
    return (
        not word.named and word.specificity >= 0.3 and following is not None
        and following.specificity >= 0.75 and not following.named
    )


def _joins(by_position: dict[int, QueryWord], known: dict[int, bool], tokens: Sequence[str], at: int,
           step: int) -> bool:
    """Whether the token at `at` continues a name: an unknown content word, a named word, or a
    connector ("for", "de") followed by a named word ("Mountpoint for S3")."""
    if at < 0 or at >= len(tokens):
        return False
    word = by_position.get(at)
    if word is not None:
        return word.named or (not known[at] and word.specificity >= THRESHOLDS.specific)
    if tokens[at].lower() in name_connectors():
        beyond = by_position.get(at + step)
        return beyond is not None and beyond.named and tokens[at + step][:1].isupper()
    return False




def remainder(analysis: Analysis, question: str, aside: Aside) -> str:
    """The question without what was set aside."""
    out: list[str] = []
    last = 0
    for p in sorted(aside.drop):
        start, end = analysis.spans[p]
        out.append(question[last:start])
        last = end
    out.append(question[last:])
    return " ".join("".join(out).split())


KIND_SPECIFICITY = 0.15  # a modifier at least this specific can name a kind ("sequence"; not "choose", "best")
KINDS_SEEN = 2  # the cited passage names at least this many kinds of the head word itself


def other_kinds(analysis: Analysis, texts: Iterable[str]) -> list[str]:
    """Kinds of a thing the cited passage does not name: "sequence parallelism" asked of a passage on tensor,
    pipeline and data parallelism. A word the knowledge never uses, next to a word the passage itself uses with
    two or more modifiers of its own (English "X parallelism", Spanish "paralelismo de X"), names another kind
    of it, which the answer does not cover. `texts`: the cited question's or section's chunks."""
    candidates = [w for w in analysis.words if not (w.known or w.named or w.specificity < KIND_SPECIFICITY)]
    if not candidates:
        return []  # most questions: no word the knowledge never uses that could name a kind
    passage = " ".join(fold(t) for t in texts)
    by_position = {w.position: w for w in analysis.words}
    tokens = [fold(t) for t in analysis.tokens]
    out: list[str] = []
    for word in candidates:
        p = word.position
        # English: the modifier comes first, before a common noun ("sequence parallelism"); before a name it is
        # something else ("¿qué variable hace que se utilice EFA?", "cómo repartiríais TP").
        head = by_position.get(p + 1)
        if head is not None and head.known and not head.named and _kinds(passage, tokens[p + 1], before=True
                                                                          ) >= KINDS_SEEN:
            out.append(f"{word.text} {head.text}")
            continue
        head = by_position.get(p - 2) if p >= 2 and tokens[p - 1] == "de" else None  # Spanish: "paralelismo de X"
        if head is not None and head.known and _kinds(passage, tokens[p - 2], before=False) >= KINDS_SEEN:
            out.append(f"{head.text} de {word.text}")
    return out


def _kinds(passage: str, head: str, *, before: bool) -> int:
    """How many different content words modify `head` in the passage ("tensor parallelism", "pipeline
    parallelism": 2), before it (English) or after "de" (Spanish)."""
    pattern = rf"\b(\w+) {re.escape(head)}\b" if before else rf"\b{re.escape(head)} de (\w+)\b"
    return len({m for m in re.findall(pattern, passage) if m not in ALL_STOPWORDS and not m.isdigit()})


def unstated_values(analysis: Analysis, texts: Iterable[str], headings: Iterable[str] = ()) -> list[str]:
    """A version the question asks for (`bot.reading.rules.asked_patterns`, `asked_versions`: "which Neuron SDK
    version…", "¿qué versión mínima de Volcano…?") that the cited passage does not state: no version number in any of
    `texts` (its chunks, without a quiz question's wrong options); and a default it asks for (`asked_defaults`:
    "what's the default expireAfter…", "¿TF32 está activado por defecto?") that neither `texts` nor `headings` (its
    heading path: "Default quota per team") speak of. As the person named it, with its accents; read on their own
    words, not on what they pasted. And how to upgrade a thing (`asked_upgrades`: "how do we upgrade Volcano?"),
    when neither its text nor its heading path speaks of upgrading, updating or migrating; how to install one
    (`asked_installs`: "how do I install the EFA device plugin?"), when neither speaks of installing or deploying; a
    limit (`asked_limits`: "the minimum storage capacity of an FSx for Lustre file system"), when its text states no
    bound with a number. Each, too, when the passage states one but not of the thing asked about
    (`_of_the_thing`): "helm install" of another chart does not say how to install the KAITO workspace
    controller."""
    own = [p for p in range(len(analysis.tokens)) if p not in analysis.context]
    if not own:
        return []
    starts, text = [], ""
    for p in own:
        starts.append(len(text) + (1 if text else 0))
        text = f"{text} {analysis.tokens[p]}" if text else analysis.tokens[p]
    asked = [(kind, found) for kind in ASKED_KINDS
             if (found := next((m for p in asked_patterns(kind) if (m := p.search(text))), None)) is not None]
    if not asked:
        return []
    texts, headings = list(texts), list(headings)
    passage = Passage(" ".join(fold(t) for t in [*texts, *headings]))
    out: list[str] = []
    for kind, found in asked:
        stated, in_headings = STATED[kind]
        where = [*texts, *headings] if in_headings else texts
        inside = _inside(own, starts, found)
        # The thing whose value is asked for: the question's words for it, those that state the kind left out.
        thing = [w for w in analysis.words if w.position in {own[i] for i in inside} and " " not in w.text
                 and not stated.search(w.text) and not A_VERSION.fullmatch(w.text)]
        said = _said_of(stated, thing, texts, headings) if not in_headings and any(w.named for w in thing) else (
            any(stated.search(t) for t in where) and _of_the_thing(thing, passage))
        if not said and (named := _as_named(analysis, own, inside)):
            out.append(named)
    return out


class Passage:
    """A passage (its text and heading path, folded) as `_of_the_thing` reads it: its terms read once, when a
    thing named in ordinary words asks for them."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._terms: frozenset[str] | None = None

    @property
    def terms(self) -> frozenset[str]:
        if self._terms is None:
            self._terms = frozenset(t for lang in LANGUAGES for t in knowledge_tokens(self.text, lang))
        return self._terms


def _inside(own: list[int], starts: list[int], found: re.Match[str]) -> list[int]:
    """The person's own words (indices into `own`, whose text starts at `starts`) inside the group `what` of a
    pattern that asks for a value."""
    begin, end = found.span("what")
    return [i for i, at in enumerate(starts) if begin <= at < end]


def _said_of(stated: re.Pattern[str], thing: list[QueryWord], texts: list[str], headings: list[str]) -> bool:
    """Whether a value (a version, a bound) is stated of a thing the question names: on a line that names it ("-
    Kubernetes 1.23+", not "Download the MLflow chart" under it), or anywhere under a heading that names it."""
    names = [w for w in thing if w.named]
    named = _named(names)
    if named is None:
        return False
    if any(stated.search(t) for t in texts) and named.search(fold(" ".join(headings))):
        return True
    spaced = any(" " in r for w in names for r in (w.text, *w.readings))
    return any(_line_states(stated, named, spaced, line) for t in texts for line in t.splitlines())


def _line_states(stated: re.Pattern[str], named: re.Pattern[str], spaced: bool, line: str) -> bool:
    """Whether a line states a value of one of the names (`named`; `spaced`: one of them is of several words). A
    version is the version of the name nearest it: "Since v2.2.0, GPUStack can be deployed on Kubernetes" states
    GPUStack's, not Kubernetes'; "Kubernetes >= v1.30.0" and "Helm 3.8+, Kubernetes 1.23+" state Kubernetes'. A
    name here is one of the thing's, or a word written as one ("GPUStack", "EKS": `_a_name`)."""
    folded = fold(line)
    if not (stated.search(folded) and named.search(folded)):
        return False
    if stated is not VERSION_STATED or spaced:
        return True
    tokens = [t.strip(".,;:()[]`*\"'") for t in re.split(r"[\s|]+", line)]
    versions = [i for i, t in enumerate(tokens) if VERSION_STATED.fullmatch(t.strip("<>=~^+"))]
    own = [i for i, t in enumerate(tokens) if t and named.search(fold(t))]
    others = [i for i, t in enumerate(tokens) if t and i not in own and not A_VERSION.fullmatch(t.strip("<>=~^+"))
              and _a_name(t)]
    return any(min(abs(v - i) for i in own) <= min((abs(v - i) for i in others), default=len(tokens))
               for v in versions) if own and versions else True


def _named(names: list[QueryWord]) -> re.Pattern[str] | None:
    """One pattern of the names, as written or as they stand for ("k8s": Kubernetes), over a folded text; None
    when there are none."""
    readings = dict.fromkeys(re.escape(fold(reading)) for w in names for reading in (w.text, *w.readings))
    return re.compile(rf"(?<![\w.-])(?:{'|'.join(readings)})(?![\w-])") if readings else None


def _of_the_thing(thing: list[QueryWord], passage: Passage) -> bool:
    """Whether the passage speaks of the thing whose value is asked for. Of the names the question gives it ("the
    KAITO workspace controller", "Neuron SDK"), the passage or its heading path writes one, as written or as it
    stands for ("k8s": Kubernetes); a thing named in ordinary words ("the default collection interval", "what
    memory limit does the chart set by default") is written by every one of them the knowledge does not write
    everywhere. True when the question names none (the passage's own subject: "how do I install it?")."""
    named = _named([w for w in thing if w.named])
    if named is not None:
        return bool(named.search(passage.text))
    plain = [w for w in thing if w.specificity > 0]  # a word the knowledge writes everywhere tells nothing
    return all(any(holds_any(passage.terms, forms) for forms in w.forms.values()) for w in plain)


def _as_named(analysis: Analysis, own: list[int], inside: list[int]) -> str:
    """What a pattern's group `what` holds (`inside`: its words, `_inside`), as the person wrote it: their words from
    it, on past it while they are names ("versión del Neuron" + "SDK")."""
    shown = {w.position: w.text for w in analysis.words if " " not in w.text}
    if not inside:
        return ""
    last = inside[-1]
    while last + 1 < len(own) and last + 1 - inside[-1] <= NAME_GOES_ON and _a_name(analysis.tokens[own[last + 1]]):
        last += 1
    named = [shown.get(own[i], analysis.tokens[own[i]]) for i in range(inside[0], last + 1)]
    while len(named) > 1 and fold(named[-1]) in ALL_STOPWORDS:
        named.pop()
    return " ".join(named)


def _a_name(token: str) -> bool:
    """A token written as a name: a capital or a digit past its first letter ("SDK", "PyTorch", "trn1"); a first
    capital alone may only open a sentence."""
    return fold(token) not in ALL_STOPWORDS and any(c.isupper() or c.isdigit() for c in token[1:])
