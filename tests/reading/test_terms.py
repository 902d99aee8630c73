"""How a question's words are read: specificity, chat abbreviations and slang, typos, Spanish in English,
definitions, and what is set aside or reported as not covered. Words only: no model is loaded."""

from __future__ import annotations

import pytest

from bot.answering.assistant import Assistant
from bot.reading import uncovered
from bot.reading.lexicon import Glossary, WordFrequency, spanish_forms, specificity
from bot.reading.terms import Analysis, QueryWord


def read(assistant: Assistant, question: str, lang: str | None = None) -> Analysis:
    text, detected = assistant.prepare(question, lang)
    return assistant.retriever.analyze(text, detected)


def word(analysis: Analysis, text: str) -> QueryWord:
    found = [w for w in analysis.words if w.text.lower() == text.lower()]
    assert found, f"{text!r} not among {[w.text for w in analysis.words]}"
    return found[0]


@pytest.mark.parametrize("question", [
    "what does `--max-restarts` do when a worker dies?",
    "torchrun --max-restarts=3: what happens to the other workers?",
    "¿para qué sirve --max-restarts en torchrun?",
])
def test_a_flag_is_written_as_code_and_named_as_written(fake_assistant: Assistant, question: str) -> None:
    """`--max-restarts` is a name only a command line writes: a named thing, shown back with its dashes, where
    "max-restarts" alone, or "multi-node", is an ordinary compound word."""
    flag = word(read(fake_assistant, question), "--max-restarts")
    assert flag.code_name and flag.named and flag.specificity == 1.0
    terms = uncovered.uncovered_terms(read(fake_assistant, question), fake_assistant.retriever.vocabulary)
    assert any(term.endswith("--max-restarts") for term in terms), terms
    plain = read(fake_assistant, "is a multi-node run ok --- or max-restarts, as the doc says?")
    assert not any(w.code_name for w in plain.words)
    assert [w.text for w in plain.words if w.text.startswith("-")] == []


@pytest.mark.parametrize("question", [
    "Is there a controller flag (delete-access-point-root-dir?) to remove the data too?",
    "¿el chart instala también kube-prometheus-stack-operator o va aparte?",
])
def test_a_setting_written_in_kebab_case_is_a_name_not_a_compound_word(fake_assistant: Assistant,
                                                                         question: str) -> None:
    """Three or more words joined by hyphens, none a function word, are a setting's or a component's name written
    without its dashes: named, and said to be not covered when nothing writes it. "state-of-the-art" and
    "all-or-nothing" are English compounds, as "multi-node" is."""
    analysis = read(fake_assistant, question)
    name = next(w for w in analysis.words if w.text.count("-") >= 2)
    assert name.code_name and name.named and name.specificity == 1.0
    assert name.text in uncovered.uncovered_terms(analysis, fake_assistant.retriever.vocabulary)
    compounds = read(fake_assistant, "is all-or-nothing gang scheduling state-of-the-art for multi-node jobs?")
    assert not any(w.code_name or w.named for w in compounds.words if "-" in w.text)


def test_a_quantity_or_a_rate_is_a_number_not_a_named_thing(fake_assistant: Assistant) -> None:
    """"400gbps", "120B" and a rate per what it is counted in ("US$ 4/GPU-h", "$30/TB", "100gb/s") are figures of
    the person's arithmetic: never named as things the knowledge does not cover."""
    question = ("with minAvailable 8 and 6 nodes idle at US$ 4/GPU-h, 100gb/s EFA and $30/TB storage, is it "
                "all-or-nothing?")
    analysis = read(fake_assistant, question)
    rates = [w for w in analysis.words if "/" in w.text]
    assert {w.text for w in rates} == {"4/GPU-h", "100gb/s", "30/TB"}
    assert not any(w.named for w in rates)
    assert not {"4/GPU-h", "100gb/s", "30/TB"} & set(uncovered.uncovered_terms(analysis,
                                                                               fake_assistant.retriever.vocabulary))
    assert word(read(fake_assistant, "which nvidia.com/gpu limit?"), "nvidia.com/gpu").named


def known(assistant: Assistant, w: QueryWord) -> bool:
    return w.found_in(assistant.retriever.vocabulary.everywhere)


def test_specificity_tells_names_from_everyday_words(fake_assistant: Assistant) -> None:
    a = read(fake_assistant, "How do I set up IRSA and DCGM on the cluster with NCCL_IB_DISABLE?")
    spec = {w.text: w.specificity for w in a.words}
    assert spec["IRSA"] == spec["DCGM"] == spec["NCCL_IB_DISABLE"] == 1.0
    assert 0.0 < spec["cluster"] < 0.75
    assert "How" not in spec and spec.get("set", 0.0) == 0.0
    assert all(word(a, t).named for t in ("IRSA", "DCGM", "NCCL_IB_DISABLE"))
    assert not word(a, "cluster").named


def test_word_frequencies_come_from_the_bundled_table() -> None:
    frequency = WordFrequency.bundled()
    assert frequency.zipf("the", "the", "en") > 7.0
    assert frequency.zipf("entrenamiento", "entren", "es") > 4.0
    assert frequency.zipf("karpenter", "karpent", "en") == 0.0
    assert specificity(7.0) == 0.0 and specificity(0.0) == 1.0
    # Portuguese is a neighbouring language, looked up apart: never a language a question is read in
    assert frequency.neighbour_zipf("treinamento") > 4.0 and frequency.zipf("treinamento", "treinament", "es") == 0
    assert frequency.neighbour_zipf("karpenter") == 0.0
    assert frequency.neighbour_zipf("doncs") > 4.0 and frequency.zipf("doncs", "donc", "es") == 0  # and Catalan


def test_chat_abbreviations_read_as_what_they_stand_for(fake_assistant: Assistant) -> None:
    a = read(fake_assistant, "oye pa q sirve el offload de zero xq lo activo o no??")
    texts = [w.text.lower() for w in a.words]
    assert not {"pa", "q", "xq", "sirve", "oye"} & set(texts), texts
    assert "offload" in texts and "zero" in texts
    assert "para que" in a.search_text


def test_contractions_leave_no_half_words(fake_assistant: Assistant) -> None:
    a = read(fake_assistant, "Does Volcano ask Karpenter for nodes when minAvailable isn't met?")
    assert "isn" not in [w.text.lower() for w in a.words]


@pytest.mark.parametrize(("question", "written", "meant"), [
    ("grad ckpt ahorra memoria", "ckpt", "checkpoint"),
    ("karpeter zone requirement", "karpeter", "karpenter"),
    ("zero3 offload", "zero3", None),  # the knowledge's "ZeRO-3" run together
    ("k8s gang scheduling", "k8s", "kubernetes"),
    ("which slurm piece uses mariadb, dbd or ctld?", "ctld", "slurmctld"),
])
def test_slang_typos_and_run_in_digits_find_the_knowledge_word(
    fake_assistant: Assistant, question: str, written: str, meant: str | None
) -> None:
    w = word(read(fake_assistant, question), written)
    assert meant is None or meant in w.readings
    assert known(fake_assistant, w)


def test_two_words_the_knowledge_writes_as_one_are_read_together(fake_assistant: Assistant) -> None:
    a = read(fake_assistant, "What is Hugging Face?")
    assert [w.text for w in a.words] == ["Hugging Face"]
    assert known(fake_assistant, a.words[0])


def test_a_spanish_question_is_also_read_in_english(fake_assistant: Assistant) -> None:
    a = read(fake_assistant, "tb hay q poner algo en el yaml pa q el pod pida efa", "es")
    pida = word(a, "pida")
    assert "request" in pida.readings and known(fake_assistant, pida)
    assert word(a, "pod").readings == ()  # "pod" is no form of "poder"
    assert word(a, "yaml").readings == () and known(fake_assistant, word(a, "yaml"))  # snippets' language
    english = read(fake_assistant, "qué reparte el data parallelism", "es")
    assert word(english, "data").readings == ()  # an English word in a Spanish question stays itself


def test_a_spanish_question_is_said_in_english_word_by_word(fake_assistant: Assistant) -> None:
    said = read(fake_assistant, "¿Cuántas GPUs puede pedir un pod con ancho de banda de EFA?", "es").english_text
    words = said.split()
    assert {"GPUs", "request", "pod", "bandwidth", "EFA"} <= set(words)  # names and identifiers as written
    assert not {"un", "de", "con", "ancho", "banda", "pedir"} & set(words)  # function words out, expressions as one
    assert read(fake_assistant, "How many GPUs can a team request?", "en").english_text == ""


def test_everyday_spanish_is_said_in_english_but_matches_nothing(fake_assistant: Assistant) -> None:
    # The words around the technical ones ("sigue", "puse", "a mano") are read in English for the embedding
    # model, which reads only English; they are not readings the knowledge's words are matched with.
    a = read(fake_assistant, "¿Por qué mi pod sigue en Pending si ya puse la toleración a mano?", "es")
    assert {"continue", "put", "manually", "pod", "Pending"} <= set(a.english_text.split()), a.english_text
    assert not {"sigue", "puse", "mano"} & set(a.english_text.split())
    assert word(a, "sigue").readings == () and word(a, "puse").readings == ()
    # a word both glossaries know is said as the technical one says it ("pone": "set", not "put")
    said = read(fake_assistant, "¿Dónde se pone el límite de GPUs?", "es").english_text.split()
    assert "set" in said and "put" not in said, said


def test_glossary_inflections_include_stem_changes_and_no_strangers() -> None:
    assert {"pida", "pide", "piden", "pedimos", "pedido"} <= spanish_forms("pedir")
    assert {"puede", "pueden", "podemos"} <= spanish_forms("poder")
    assert "pod" not in spanish_forms("poder")
    assert {"capas"} <= spanish_forms("capa")
    glossary = Glossary.bundled()
    assert glossary.word("arrancan") == ["start"]
    assert glossary.phrase(("ancho", "de", "banda")) == ["bandwidth"]


def test_a_generated_form_far_commoner_than_its_lemma_is_another_words() -> None:
    """The regular endings and stem changes generate "puede" of "podar" ("prune") as they do of "poder": a form a
    hundred times as common as the lemma is the commoner word's, and "¿puede escalar?" is never read as pruning.
    A lemma's own common forms stay ("poda", "podan"), and so do a common verb's."""
    glossary = Glossary.bundled()
    assert glossary.entry("podar") == ["prune"]
    for form in ("puede", "pueden", "puedo", "podemos"):
        assert "prune" not in glossary.word(form), form
        assert "can" in glossary.word(form), form
    assert "prune" in glossary.word("poda") and "prune" in glossary.word("podan")
    assert "usually" not in glossary.word("solo") and "usually" in glossary.word("suele")
    assert "be left over" not in Glossary.everyday().word("sobre")


def test_a_word_that_is_an_entry_of_its_own_means_that_before_what_it_inflects(fake_assistant: Assistant) -> None:
    # "solo" is an entry of its own, "only"; said in English, it is that.
    assert Glossary.bundled().entry("solo") == ["only"]
    said = read(fake_assistant, "Quiero que solo los namespaces con la label team=vision manden jobs", "es")
    assert "only" in said.english_text.split() and "usually" not in said.english_text.split(), said.english_text
    # "no se programan" is a verb's reflexive, not "no sé": nothing of it is said as "I don't know"; "como mucho"
    # is "at most" and "por encima de" is "above".
    said = read(fake_assistant, "Los pods no se programan nunca; quiero como mucho 1 CPU por encima de la cuota",
                "es")
    assert "know" not in said.english_text.split(), said.english_text
    assert {"at", "most", "above"} <= set(said.english_text.split()), said.english_text


@pytest.mark.parametrize(("question", "subject"), [
    ("What is AWS?", ["AWS"]),
    ("what's a DaemonSet in Kubernetes?", ["DaemonSet"]),
    ("¿Qué es el gang scheduling?", ["gang", "scheduling"]),
    ("What is MPI, the Message Passing Interface?", ["MPI"]),
    ("What does HPC mean?", ["HPC"]),
    ("HPC qué es?", ["HPC"]),
    ("me explicas qué es un deadlock?", ["deadlock"]),
])
def test_definition_questions_name_their_subject(fake_assistant: Assistant, question: str, subject: list[str]) -> None:
    assert [w.text for w in read(fake_assistant, question).definition_of] == subject


@pytest.mark.parametrize("question", [
    "What is slotsPerWorker for?", "What's the difference between MPIJob and PyTorchJob?",
    "para qué sirve RDMAV_FORK_SAFE", "What is NVIDIA BioNeMo used for?", "How do I enable EFA?",
])
def test_other_questions_are_no_definitions(fake_assistant: Assistant, question: str) -> None:
    assert read(fake_assistant, question).definition_of == ()


@pytest.mark.parametrize(("question", "number", "defines"), [
    ("What is a SlurmNodeSet?", 4, True),  # "SlurmNodeSet: Defines groups of compute nodes"
    ("What is activation checkpointing?", 11, True),  # "Gradient checkpointing (also called activation …)"
    ("¿Qué es el gang scheduling?", 9, True),  # the topic: "Gang scheduling con Volcano"
    ("What is AWS?", 15, False),  # "EFA uses AWS's custom network interface": a passing mention
    ("What is a StatefulSet?", 3, False),  # a table cell
    ("What is MPI?", 13, False),  # "Total MPI processes = …"
])
def test_a_question_defines_what_it_explains_not_what_it_mentions(
    fake_assistant: Assistant, question: str, number: int, defines: bool
) -> None:
    subject = read(fake_assistant, question).definition_of
    assert subject
    assert fake_assistant.judge.definitions.defines(("eks-training-quiz", number), subject) is defines


def test_what_a_thing_does_is_said_by_any_sentence_that_starts_with_it(fake_assistant: Assistant) -> None:
    """"What does X do?" is a definition too; a sentence that starts with X and goes on says what X does ("X
    waits…"), where "what is X?" needs one that says what it is ("X is…", "X: …")."""
    from bot.answering.definitions import Definitions

    definitions = Definitions([(("doc", 1), "sentence", "The Zorblax scheduler waits for every pod of a group.")], [])
    does = read(fake_assistant, "What does the Zorblax scheduler do?")
    assert does.definition_acts and [w.text for w in does.definition_of] == ["Zorblax", "scheduler"]
    assert definitions.defines(("doc", 1), does.definition_of, acts=True)
    is_ = read(fake_assistant, "What is the Zorblax scheduler?")
    assert not is_.definition_acts and not definitions.defines(("doc", 1), is_.definition_of)
    spanish = read(fake_assistant, "¿Qué hace el planificador Zorblax?", "es")
    assert spanish.definition_acts and spanish.definition_of


@pytest.mark.parametrize(("question", "aside", "rest"), [
    ("What's the difference between MPIJob and PyTorchJob?", ("PyTorchJob",), "MPIJob"),
    ("¿FSx for Lustre o FSx for OpenZFS para los checkpoints?", ("FSx for OpenZFS",), "Lustre"),
    ("¿qué recursos pide BioNeMo en EKS? ¿y se puede exponer con NIM?", ("NIM",), "BioNeMo"),
    ("How do I give pods access to S3 with EKS Pod Identity or IRSA?", (), None),  # no explained side
    ("How do I set up IRSA for training pods?", (), None),  # nothing beside it
    ("How much memory does ZeRO-3 save? And does DeepSpeed-Ulysses support it?", ("DeepSpeed-Ulysses",), "ZeRO"),
    # the rest points back at the unknown thing: the whole message is about it
    ("What does NCCL_NET_GDR_LEVEL do, and should we set it on the EFA nodes?", (), None),
    ("¿Qué hace NCCL_NET_GDR_LEVEL? ¿Hay que ponerlo en los nodos con EFA?", (), None),
    ("We tried Kueue. Does it work with the Volcano gang scheduling?", (), None),
    # what the question compares with: the counterpart is asked for, described by the rest
    ("What's the EKS equivalent of Zorblax when NCCL runs over EFA?", ("Zorblax",), "EFA"),
    ("What's the EKS equivalent of Zorblax for NCCL over EFA?", ("Zorblax",), "EFA"),  # not "Zorblax for NCCL"
    ("In Zorblax we mounted the dataset with a fuse driver. What reads it fastest with FSx for Lustre?",
     ("Zorblax",), "Lustre"),
    ("¿Cuál es el equivalente de Zorblax cuando NCCL va por EFA?", ("Zorblax",), "EFA"),
    ("What's the EKS equivalent of Zorblax?", (), None),  # nothing describes the counterpart but the platform
])
def test_an_unknown_thing_beside_an_explained_one_is_set_aside(
    fake_assistant: Assistant, question: str, aside: tuple[str, ...], rest: str | None
) -> None:
    a = read(fake_assistant, question)
    assert a.set_aside == aside
    if rest:
        assert rest in a.search_text and all(term.split()[-1] not in a.search_text for term in aside)


@pytest.mark.parametrize(("question", "terms"), [
    ("Mountpoint for S3 vs FSx Lustre for streaming training shards", ["Mountpoint for S3"]),
    ("EFS or FSx for NetApp ONTAP for shared configs?", ["FSx for NetApp ONTAP"]),
    ("seq parallel vs context parallel, what gets split?", []),  # plain words name nothing for sure
    ("BF16 vs FP8 on H100 for training", ["FP8"]),
    ("How do I use IRSA and Pod Identity with DCGM?", ["IRSA", "Pod Identity", "DCGM"]),
    ("Which DeepSpeed ZeRO stage offloads parameters to CPU?", []),
    # a wrong option writes it: the quiz mentions it, and the question that offers it answers why it is wrong
    ("why not EBS gp3 for the training data?", []),
    ("in the Karpenter one, why is consolidationPolicy: WhenEmpty wrong?", []),
    ("On Q9 I went with D. Does Volcano ask Karpenter for nodes?", []),  # the quiz's own numbering
    # the plural of a name the knowledge writes is no thing it does not cover; another's plural is
    ("We have 32 H100s and 64 A100s: how do we split TP and PP?", []),
    ("Can Karpenter NodePools launch B200s for training?", ["B200s"]),
    ("La capa no cabe en una GPU: ¿qué paralelismo uso para trocearla?", []),  # a verb with its pronoun
])
def test_terms_the_knowledge_never_mentions_are_named_as_written(
    fake_assistant: Assistant, question: str, terms: list[str]
) -> None:
    text, lang = fake_assistant.prepare(question)
    analysis = fake_assistant.retriever.vocabulary.analyze(
        text, lang, fake_assistant.retriever.frequency, fake_assistant.retriever.glossary)
    assert uncovered.uncovered_terms(analysis, fake_assistant.retriever.vocabulary) == terms


def test_an_ordinary_spanish_word_in_an_english_question_is_read_as_spanish(fake_assistant: Assistant) -> None:
    """A mixed message ("…, se acaba la memoria") is read in English; its ordinary Spanish words are no unknown
    names, and the Spanish edition's words count for them."""
    a = read(fake_assistant, "how do I enable gradient checkpointing when the GPUs se quedan sin memoria?", "en")
    memoria = word(a, "memoria")
    assert not memoria.named and known(fake_assistant, memoria)
    assert not uncovered.uncovered_terms(a, fake_assistant.retriever.vocabulary)
    assert word(read(fake_assistant, "how do I enable Zeppelin checkpointing?", "en"), "Zeppelin").named


@pytest.mark.parametrize(("question", "lang", "terms"), [
    ("Então, pra treinar o modelo de 200B que o chefe quer, solo data parallel não alcança, né?", "es", []),
    ("EBS gp3 sirve para datos de treinamento distribuido? ou seja, el access mode es ReadWriteOnce?", "es", []),
    ("FSx for Lustre é o recomendado, beleza. E o Mountpoint for S3? é mais barato pro nosso caso?", "es",
     ["Mountpoint for S3"]),
    # a capital inside the sentence is still a name, however common the word is in Portuguese
    ("How do I run Tempo on the training cluster?", "en", ["Tempo"]),
    # Catalan, which a Spanish speaker from Barcelona slips into a message ("doncs", "ostres", "a veure")
    ("ostres, doncs qué storage para los datos de entrenamiento? a veure si FSx for Lustre", "es", []),
    ("Doncs FSx for Lustre para los datos, vale. ¿Y el Mountpoint for S3 és més barat per a nosaltres?", "es",
     ["Mountpoint for S3"]),
    # capitals opening a question are an acronym, not Catalan "mig" (half)
    ("MIG on A100 nodes in EKS?", "en", ["MIG"]),
])
def test_everyday_words_of_a_neighbouring_language_name_nothing(
    fake_assistant: Assistant, question: str, lang: str, terms: list[str]
) -> None:
    """A Spanish speaker's message with Portuguese in it ("treinamento", "alguma coisa", "pra esse"): those words are
    ordinary words, never things the knowledge does not cover; a thing named among them still is."""
    a = read(fake_assistant, question, lang)
    assert uncovered.uncovered_terms(a, fake_assistant.retriever.vocabulary) == terms
    assert not any(w.named for w in a.words if w.text.lower() in {"treinar", "treinamento", "chefe", "nosso"})


def test_a_word_only_a_wrong_option_writes_is_offered_not_known(fake_assistant: Assistant) -> None:
    """A distractor is not knowledge ("gp3" finds no question), but the quiz writes it: it is no unheard-of thing."""
    a = read(fake_assistant, "is EBS gp3 fine for Zorblax checkpoints?")
    gp3, zorblax = word(a, "gp3"), word(a, "Zorblax")
    assert not gp3.known and gp3.offered and not gp3.unheard
    assert not zorblax.offered and zorblax.unheard


def test_the_words_kept_once_read_are_the_most_recently_asked(fake_assistant: Assistant,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A word read once is kept with the sections it is in (thousands at 10,000 sections): a replica keeps the
    words asked most recently, up to READ_CACHE, not the first ones it ever read."""
    from bot.reading import terms

    monkeypatch.setattr(terms, "READ_CACHE", 6)
    vocabulary = fake_assistant.retriever.vocabulary
    vocabulary.forget_words()
    first = read(fake_assistant, "Karpenter", "en")
    for filler in ("NCCL DCGM EFA", "Slurm Volcano MPIJob", "DeepSpeed ZeRO BF16"):
        read(fake_assistant, filler, "en")
        recent = read(fake_assistant, "Trainium", "en")  # asked again and again: it stays
    assert len(vocabulary._read) <= 6
    again = read(fake_assistant, "Trainium", "en")
    assert word(again, "Trainium") is word(recent, "Trainium")  # still kept: the same reading
    assert word(read(fake_assistant, "Karpenter", "en"), "Karpenter") is not word(first, "Karpenter")  # dropped
    vocabulary.forget_words()
