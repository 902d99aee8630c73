"""What people paste (logs, errors, snippets) and how Slack writes are read as context, not as the question."""

from __future__ import annotations

import pytest

from bot.answering.assistant import Assistant
from bot.reading.markup import clean_question, own_text, read_message
from bot.reading.uncovered import other_kinds, uncovered_terms

PENDING = ("```\nWarning  FailedScheduling  0/8 nodes are available: 8 Insufficient vpc.amazonaws.com/efa. "
           "preemption: 0/8 nodes are available\n```\nhow does the pod spec request EFA?")


def read(assistant: Assistant, text: str, lang: str = "en") -> tuple[list[str], list[str]]:
    question = clean_question(text)
    analysis = assistant.retriever.analyze(question, lang)
    return [w.text for w in analysis.words], uncovered_terms(analysis, assistant.retriever.vocabulary)


def test_a_pasted_scheduler_error_adds_no_unknown_things(fake_assistant: Assistant) -> None:
    words, uncovered = read(fake_assistant, PENDING)
    assert uncovered == []
    assert "FailedScheduling" not in words and "preemption" not in words
    assert "vpc.amazonaws.com/efa" in words  # the knowledge has it: evidence
    assert "EFA" in words  # the person's own sentence is read as always


def test_a_term_in_backticks_is_the_persons_own(fake_assistant: Assistant) -> None:
    words, uncovered = read(fake_assistant, "what does `neuron_parallel_compile_x` do?")
    assert "neuron_parallel_compile_x" in words and uncovered == ["neuron_parallel_compile_x"]


def test_a_capital_that_opens_a_sentence_names_nothing(fake_assistant: Assistant) -> None:
    _, uncovered = read(fake_assistant, "Our job sat Pending for hours. Yesterday it happened again with Volcano, "
                                        "why?")
    assert "Yesterday" not in " ".join(uncovered)
    _, named = read(fake_assistant, "Can we use it with Yesterdayfoo Kueue?")
    assert "Kueue" in " ".join(named)


def test_slack_markup_around_a_question_changes_nothing(fake_assistant: Assistant) -> None:
    plain = fake_assistant.answer("¿qué ventaja tiene bf16 frente a fp16 al entrenar?")
    marked = fake_assistant.answer(":coffee: <@U0BOT> _pregunta rápida_: ¿qué ventaja tiene *bf16* frente a fp16 "
                                   "al entrenar? <https://pytorch.org/docs/stable/amp.html|docs de AMP>")
    assert (marked.answered, marked.ranked[:1], marked.uncovered) == (plain.answered, plain.ranked[:1], plain.uncovered)


def test_the_sentences_around_the_question_are_context(fake_assistant: Assistant) -> None:
    words, uncovered = read(fake_assistant, "We run 4 p5 nodes on EKS. NCCL logs show plain TCP sockets, sloooow. "
                                            "What is missing in the pods to use EFA?")
    assert "TCP" not in words and "sloooow" not in words and uncovered == []
    assert {"NCCL", "EFA"} <= set(words)  # what the knowledge has of the scenario is evidence


def test_a_question_that_points_back_keeps_what_the_scenario_names(fake_assistant: Assistant) -> None:
    _, uncovered = read(fake_assistant, "We're trialing Zorblax on EKS. Can it do gang scheduling like Volcano?")
    assert uncovered == ["Zorblax"]


@pytest.mark.parametrize(("text", "lang"), [
    ("Me dicen que con Zorblax el entrenamiento sale la mitad de caro que con EFA. ¿Es cierto?", "es"),
    ("Un compañero dice que Zorblax reemplaza a Volcano en todo el clúster. ¿Tiene razón?", "es"),
    ("Someone said Zorblax replaces Volcano for gang scheduling. True?", "en"),
])
def test_a_claim_to_check_is_what_is_asked(fake_assistant: Assistant, text: str, lang: str) -> None:
    """A question that only checks what was told before it ("¿Es cierto?", "True?") asks about the claim: its
    words are the question's, so what the knowledge does not cover in it is named, not read past as a scenario."""
    words, uncovered = read(fake_assistant, text, lang)
    assert "Zorblax" in uncovered
    assert not {"cierto", "razon", "razón", "True"} & set(words)  # the check frames the question


def test_a_frame_in_the_other_language_frames_too(fake_assistant: Assistant) -> None:
    """People mix languages: an English frame around a Spanish question, a Spanish one around an English question."""
    spanish, _ = read(fake_assistant, "In plain terms, ¿qué ganamos con BF16 frente a FP16?", "es")
    english, _ = read(fake_assistant, "en cristiano, what do we gain with BF16 over FP16?", "en")
    assert "plain" not in spanish and "BF16" in spanish
    assert "cristiano" not in english and "BF16" in english


@pytest.mark.parametrize(("text", "lang"), [
    ("A student asked me whether EFA needs a security group rule. What do I tell him?", "en"),
    ("Un alumno me preguntó si EFA necesita una regla en el security group. ¿Qué le digo?", "es"),
])
def test_a_question_someone_asked_is_the_question(fake_assistant: Assistant, text: str, lang: str) -> None:
    """"What do I tell him?" asks nothing of its own: what the student asked is the question, and who asked it and
    who is told are neither its subject nor what it asks."""
    words, uncovered = read(fake_assistant, text, lang)
    assert "EFA" in words and uncovered == []
    assert not {"student", "alumno", "him", "digo", "tell"} & set(words)


def test_a_question_of_its_own_after_a_claim_keeps_the_claim_as_context(fake_assistant: Assistant) -> None:
    words, _ = read(fake_assistant, "Me dicen que Zorblax es muy lento. ¿Cómo pido EFA en el pod?", "es")
    assert "Zorblax" not in words and "EFA" in words


def test_an_unfenced_pasted_error_before_a_spanish_question_is_context(fake_assistant: Assistant) -> None:
    words, uncovered = read(fake_assistant, "Pending 0/4 nodes are available: 4 Insufficient vpc.amazonaws.com/efa — "
                                            "¿cómo pido EFA en el pod?", "es")
    assert uncovered == [] and "Insufficient" not in words and "EFA" in words


def test_a_lead_in_that_names_what_is_compared_is_part_of_the_question(fake_assistant: Assistant) -> None:
    analysis = fake_assistant.retriever.analyze("Slinky vs Zorblax HyperPod: ¿dónde se define la partición?", "es")
    assert "Zorblax HyperPod" in analysis.set_aside  # set aside as the other side of the comparison


PASSAGE = ["Tensor parallelism splits layers across GPUs.", "Pipeline parallelism splits the model into stages.",
           "Data parallelism copies the model."]


def test_a_kind_the_cited_passage_does_not_name_is_uncovered(fake_assistant: Assistant) -> None:
    for question, lang, kind in [("what is sequence parallelism?", "en", "sequence parallelism"),
                                 ("¿qué es el paralelismo de secuencia?", "es", "paralelismo de secuencia")]:
        analysis = fake_assistant.retriever.analyze(question, lang)
        passage = PASSAGE if lang == "en" else ["El paralelismo de tensores divide capas.",
                                                 "El paralelismo de datos copia el modelo."]
        assert other_kinds(analysis, passage) == [kind]
    named = fake_assistant.retriever.analyze("what is tensor parallelism?", "en")
    assert other_kinds(named, PASSAGE) == []  # a kind the passage names
    one_kind = fake_assistant.retriever.analyze("what is sequence parallelism?", "en")
    assert other_kinds(one_kind, PASSAGE[:1]) == []  # "parallelism" with one modifier: no family of kinds
    # A word before a name is no kind of it: "¿cómo repartiríais TP…?" asks how to split tensor parallelism.
    verb = fake_assistant.retriever.analyze("con 64 GPUs, ¿cómo repartiríais TP y PP?", "es")
    assert other_kinds(verb, ["Shard TP within a node.", "Wide TP crosses nodes.", "Deep TP waits."]) == []


TRACEBACK = ('Traceback (most recent call last):\n  File "/opt/app/train.py", line 88, in <module>\n'
             "    trainer.train()\n"
             "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB\n"
             "the activations are what fills the GPU, can we trade memory for recompute?")
EVENTS = ("  Type     Reason            Age   From       Message\n"
          "  Warning  FailedScheduling  2m    volcano    3/4 tasks in gang unschedulable\n"
          "why does volcano start none of the workers?")
LOG = ("[2025-01-07 10:14:07,311] [INFO] [loss_scaler.py:183:update_scale] Grad overflow on iteration 1204\n"
       "¿bf16 nos ahorraría el loss scaling?")


@pytest.mark.parametrize(("message", "question"), [
    (TRACEBACK, "the activations are what fills the GPU, can we trade memory for recompute?"),
    (EVENTS, "why does volcano start none of the workers?"),
    (LOG, "¿bf16 nos ahorraría el loss scaling?"),
    ("$ kubectl get podgroup -n train\nNAME    STATUS    MINMEMBER\npg-1    Pending   4\nis it stuck forever?",
     "is it stuck forever?"),
])
def test_output_pasted_without_fences_is_code_and_the_question_is_the_persons_own(message: str, question: str
                                                                                  ) -> None:
    cleaned = clean_question(message)
    assert cleaned.count("```") == 2 and own_text(cleaned) == question


@pytest.mark.parametrize("message", [
    "We run 4 p5 nodes on EKS.\nNCCL logs show plain TCP sockets.\nWhat is missing in the pods?",  # prose lines
    "efa nccl env?",  # one line, however terse
    "we run  volcano  for the gang scheduling\nwhy do the workers not start?",  # double spaces are no table
    "NAME    STATUS    MINMEMBER\npg-1    Pending   4",  # all output: it is all the person wrote
    "```\n$ kubectl get pods\n```\nwhy pending?",  # fenced already
])
def test_prose_and_fenced_code_are_left_as_written(message: str) -> None:
    assert clean_question(message) == " ".join(message.split())


def test_quote_markers_are_taken_off_and_a_quoted_log_line_is_code() -> None:
    assert clean_question("&gt; how do I request EFA in the pod spec?\n&gt; asking for a friend") == (
        "how do I request EFA in the pod spec? asking for a friend")
    quoted = clean_question("&gt; 2025-01-07 10:14:07 ERROR NCCL WARN NET/OFI no provider\nwhy no EFA?")
    assert own_text(quoted) == "why no EFA?"


def test_a_quoted_line_beside_the_persons_own_words_is_context_unless_it_asks() -> None:
    """Someone else's words or an output quoted in Slack: its names are no unknown things asked about."""
    message = clean_question("&gt; Job llm-ft is Pending, podgroup Inqueue\nnothing crashes, is this gang scheduling?")
    assert own_text(message) == "nothing crashes, is this gang scheduling?"
    asking = clean_question("&gt; does Volcano need minAvailable?\nsomeone asked this in #ml-infra")
    assert own_text(asking) == asking


@pytest.mark.parametrize("check", ["who is right?", "Which one is it?", "¿Quién tiene razón?", "is that right?"])
def test_a_thread_quoted_to_settle_who_is_right_is_what_is_asked(check: str) -> None:
    """Colleagues' lines pasted from a thread and a question of whose claim holds: what they said is asked, read
    without who said it when ("@marta [10:44]"); quoted beside any other question, they stay context."""
    thread = ("&gt; @pau [10:15] with ZeRO-2 we already offload the parameters to CPU\n"
              "&gt; @marta [10:17] no, ZeRO-2 only offloads the optimizer :thinking_face:\n")
    read = read_message(thread + check)
    assert own_text(read) == read
    assert "offload the parameters" in read and "only offloads the optimizer" in read
    assert not any(mark in read for mark in ("@pau", "@marta", "[10:15]", "thinking_face"))
    assert own_text(read_message(thread + "how do I set up NVMe offload?")) == "how do I set up NVMe offload?"


def test_a_handle_inside_a_sentence_is_a_word_of_it() -> None:
    """Only who says a pasted line is left out: "the @script decorator" is what the person asks about."""
    assert read_message("can I ship @script functions as a package?") == "can I ship @script functions as a package?"
    assert read_message("@jordi swears gradient checkpointing improves accuracy") == (
        "swears gradient checkpointing improves accuracy")


@pytest.mark.parametrize(("message", "question"), [
    ("```yaml\nspec:\n  minAvailable: 4\n# FIXME: minAvailable 4 but only 3 nodes -> does the job start?\n```",
     "FIXME: minAvailable 4 but only 3 nodes -> does the job start?"),
    ("```python\nmodel = model.to(torch.bfloat16)  // TODO: ¿por qué bf16 y no fp16?\n```",
     "TODO: ¿por qué bf16 y no fp16?"),
    ("```xml\n<nodeSelector/> <!-- ¿hace falta la zona aquí? -->\n```", "¿hace falta la zona aquí?"),
    ("```bash\n-- is this the right variable?\nexport FI_PROVIDER=efa\n```\nLGTM otherwise",
     "is this the right variable? LGTM otherwise"),
])
def test_a_comment_that_asks_inside_pasted_code_is_the_persons_own_words(message: str, question: str) -> None:
    """A reviewer writes the question where it applies, as a comment in the code she pastes."""
    assert own_text(clean_question(message)) == question


@pytest.mark.parametrize("message", [
    "```yaml\nsuccessfulJobsHistoryLimit: 5  # Optional. Default: 100. How many completed jobs are kept.\n```",
    "```\n#include <nccl.h>\ncurl 'http://host/a#b?c=1'\nx = a ? b : c\n```",  # no comment that asks
])
def test_code_whose_comments_do_not_ask_is_all_context(message: str) -> None:
    assert own_text(clean_question(message)) == ""


def test_an_unknown_thing_asked_about_in_a_code_comment_is_named_as_not_covered(fake_assistant: Assistant) -> None:
    asked = "```yaml\nkind: Job\nspec:\n  minAvailable: 4\n# can Zorblax do this gang scheduling instead?\n```"
    words, uncovered = read(fake_assistant, asked)
    assert uncovered == ["Zorblax"] and "gang" in words
    told = "```yaml\nkind: Job\nspec:\n  minAvailable: 4  # managed by Zorblax, do not edit\n```\nwhy pending?"
    words, uncovered = read(fake_assistant, told)
    assert uncovered == [] and "Zorblax" not in words  # a comment that tells is pasted, as the code is


@pytest.mark.slow
@pytest.mark.parametrize(("log", "question"), [
    ('Traceback (most recent call last):\n  File "/srv/ft.py", line 41, in <module>\n    model(batch)\n'
     "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has 79.1 GiB in use.\n",
     "¿hay forma de no guardar todas las activaciones del forward y cuánto más lento va el paso?"),
    ("```\nip-10-0-7-9:91:120 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.7.9<0>\n```\n",
     "what do the pods need so NCCL uses EFA instead of sockets?"),
])
def test_pasting_the_output_never_lowers_the_confidence_in_the_question(assistant: Assistant, log: str,
                                                                        question: str) -> None:
    alone = assistant.answer(question)
    pasted = assistant.answer(log + question)
    assert pasted.ranked[0] == alone.ranked[0]
    assert pasted.answered or not alone.answered
    assert pasted.confidence >= alone.confidence - 0.05


def test_a_name_of_letters_and_digits_the_knowledge_never_writes_is_unknown(fake_assistant: Assistant) -> None:
    """"g5" is no "g" and a "5" the knowledge writes elsewhere; "zero3" is ZeRO-3, found as its two halves."""
    _, uncovered = read(fake_assistant, "does EFA work on g5 instances?")
    assert uncovered == ["g5"]
    words, uncovered = read(fake_assistant, "what does zero3 offload?")
    assert "zero3" in words and uncovered == []


def test_what_the_person_tells_as_background_weighs_less_than_what_they_ask(fake_assistant: Assistant) -> None:
    """"We already train in BF16. Which technique saves activation memory?": BF16 is background, not the subject.
    In the share of the question's specific words a quiz question uses, a word of the context weighs half."""
    from dataclasses import replace

    text = "We already train in BF16 with loss scaling off. Which technique saves activation memory?"
    analysis = fake_assistant.retriever.analyze(clean_question(text), "en")
    bf16 = [w for w in analysis.words if w.text == "BF16"]
    assert bf16 and bf16[0].position in analysis.context  # the scenario's telling is context
    retriever = fake_assistant.retriever
    place = {key: i for i, key in enumerate(retriever.keys)}
    bf16_question = next(key for key in retriever.keys if key[1] == 10)
    halved = retriever.specific_shares(analysis)[place[bf16_question]]
    whole = Assistant(fake_assistant.index, fake_assistant.embedder, model=fake_assistant.judge.model,
                      tuning=replace(retriever.tuning, context_weight=1.0))
    assert whole.retriever.specific_shares(analysis)[place[bf16_question]] > halved > 0


@pytest.mark.parametrize(("text", "lang", "asked"), [
    ("Summary: DeepSpeed config for a 70B fine-tune\nDescription: which ZeRO stage offloads both the optimizer states "
     "and the parameters to CPU?\nPriority: P2\nComponent: ml-platform", "en", "ZeRO"),
    ("Summary: Crear partición gpu-h100 en Slinky\nDescripción: ¿qué CRD define el grupo de nodos de la partición? "
     "¿SlurmPartition o cuál?\nPrioridad: P3\nComponente: ml-platform", "es", "SlurmPartition"),
    ("PFB my env:\n```\nexport FI_PROVIDER=efa\n```\nwhich NCCL_PROTO goes with EFA? need it for the RCA by EOD", "en",
     "NCCL_PROTO"),
])
def test_a_tickets_form_and_the_workplaces_abbreviations_are_not_what_is_asked(
        fake_assistant: Assistant, text: str, lang: str, asked: str) -> None:
    """A ticket's field labels and the fields that only file it (priority, component), and "PFB", "RCA", "EOD",
    are neither searched with nor named as what the knowledge does not cover: the answer would open with "The
    knowledge base says nothing about “P2”"."""
    words, uncovered = read(fake_assistant, text, lang)
    assert asked in words
    assert not {"Description", "Descripcion", "Priority", "Prioridad", "P2", "P3", "Component", "Componente",
                "ml-platform", "PFB", "RCA", "EOD"} & set(words)
    assert uncovered == []
