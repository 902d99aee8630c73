"""A named thing another page writes and the cited page does not is a neighbouring feature the page may not
cover ("YuniKorn" asked of a storage page); a named thing the quiz writes is the domain the team asks from ("our
GPU nodes" asked of the same page), not a neighbour, however few pages write it."""

from __future__ import annotations

from pathlib import Path

from bot.answering.assistant import Assistant
from bot.lang import Lang
from tests.support.extra_knowledge import with_documents

STORAGE = """# Lustre volumes

## Required parameters

| Parameter | Type | Description |
|---|---|---|
| `subnetId` | string | The subnet where the file system is created |
| `securityGroupIds` | string | Security groups attached to the file system's network interfaces |
"""

SCHEDULER = """# YuniKorn queues

## Queue quotas

YuniKorn queues hold a guaranteed and a maximum quota of CPU and memory per team.
"""


def _assistant(fake_assistant: Assistant, knowledge_copy: Path) -> Assistant:
    return with_documents(fake_assistant, knowledge_copy,
                          {"storage/lustre-volumes.md": STORAGE, "scheduling/yunikorn-queues.md": SCHEDULER})


def _features(assistant: Assistant, question: str) -> tuple[str, dict[str, float]]:
    [retrieval] = assistant.retrieve_many([(question, "en")])
    top = retrieval.ranked[0].key
    cited = next(d.source for d in assistant.knowledge.documents if d.doc_id == top[0])
    return cited, assistant.judge.features(retrieval)


def test_a_thing_only_another_page_writes_counts_as_off_the_cited_page(
        fake_assistant: Assistant, knowledge_copy: Path) -> None:
    assistant = _assistant(fake_assistant, knowledge_copy)
    cited, features = _features(assistant, "Does YuniKorn need the subnetId and securityGroupIds of the Lustre "
                                           "volumes?")
    assert cited.endswith("lustre-volumes.md")
    assert features["named_off_page"] == 1.0


def test_a_thing_the_quiz_writes_is_the_askers_domain_not_a_neighbour(
        fake_assistant: Assistant, knowledge_copy: Path) -> None:
    assistant = _assistant(fake_assistant, knowledge_copy)
    quiz = [d for d in assistant.knowledge.documents if d.kind == "quiz"]
    assert quiz and all(any("GPU" in b.text for q in d.questions for b in q.blocks) for d in quiz)
    assert "GPU" not in STORAGE
    cited, features = _features(assistant, "On our GPU nodes, which subnetId and securityGroupIds do the Lustre "
                                           "volumes need?")
    assert cited.endswith("lustre-volumes.md")
    assert features["named_off_page"] == 0.0


def test_a_word_of_everyday_words_is_what_the_person_does_not_a_neighbour(
        fake_assistant: Assistant, knowledge_copy: Path) -> None:
    """"hardcoding" and "preprocesado" are written by another page only (here the scheduler's), and are rare in
    general language; but they are made of everyday words ("hard" + "coding", "pre" + "procesado"): what the
    person does, not another product's feature. A name written as one ("YuniKorn") still counts."""
    scheduler = SCHEDULER + "\nAvoid hardcoding quotas; preprocesado jobs get their own queue.\n"
    assistant = with_documents(fake_assistant, knowledge_copy,
                               {"storage/lustre-volumes.md": STORAGE, "scheduling/yunikorn-queues.md": scheduler})
    cited, features = _features(assistant, "Without hardcoding them, where do the subnetId and securityGroupIds "
                                           "of the Lustre volumes come from?")
    assert cited.endswith("lustre-volumes.md")
    assert features["named_off_page"] == 0.0
    [retrieval] = assistant.retrieve_many([("Para el preprocesado, ¿qué subnetId y securityGroupIds necesitan "
                                            "los Lustre volumes?", "es")])
    assert assistant.judge.features(retrieval)["named_off_page"] == 0.0
    cited, features = _features(assistant, "Without hardcoding them, does YuniKorn need the subnetId and "
                                           "securityGroupIds of the Lustre volumes?")
    assert cited.endswith("lustre-volumes.md") and features["named_off_page"] == 1.0


def test_which_words_are_made_of_everyday_words() -> None:
    from bot.reading.lexicon import WordFrequency
    from bot.reading.terms import of_everyday_words

    frequency = WordFrequency.bundled()

    def everyday(text: str, langs: list[str]) -> bool:
        return of_everyday_words(text, langs, frequency)

    for text in ("hardcoding", "backoff", "question/answer", "allow-overwrite"):
        assert everyday(text, ["en"]), text
    for text in ("preprocesado", "hiperparámetros", "reintenta"):
        assert everyday(text, ["es", "en"]), text
    # Names: capitals, digits, underscores, or no everyday word in them.
    for text in ("Toolkit", "g5", "max_failures", "karpenter", "kubeflow", "YuniKorn"):
        assert not everyday(text, ["en"]), text


def test_a_word_is_read_as_made_of_everyday_words_once_with_its_reading(fake_assistant: Assistant) -> None:
    """Whether a named word is made of everyday words is part of reading it (kept with the word, as `named` is),
    not worked out again by every judgement: a name written as one is not."""
    words = {w.text: w for w in fake_assistant.retriever.analyze("without hardcoding the YuniKorn queues", "en").words}
    assert words["hardcoding"].named and words["hardcoding"].everyday
    assert words["YuniKorn"].named and not words["YuniKorn"].everyday


def test_the_persons_own_thing_is_their_setting_not_a_neighbour(
        fake_assistant: Assistant, knowledge_copy: Path) -> None:
    """"our YuniKorn queues", "mi YuniKorn": a thing named one or two words after a possessive is the person's own
    setting, told to place the question; asked about ("does YuniKorn …") it is still a neighbour's feature."""
    assistant = _assistant(fake_assistant, knowledge_copy)
    asked: tuple[tuple[str, Lang], ...] = (
            ("Our YuniKorn queues run the jobs that mount them: which subnetId and securityGroupIds do the Lustre "
             "volumes need?", "en"),
            ("For my team's YuniKorn jobs, which subnetId and securityGroupIds do the Lustre volumes need?", "en"),
            ("Los jobs de mi YuniKorn montan los Lustre volumes: ¿qué subnetId y securityGroupIds necesitan?", "es"))
    for question, lang in asked:
        [retrieval] = assistant.retrieve_many([(question, lang)])
        top = retrieval.ranked[0].key
        assert next(d.source for d in assistant.knowledge.documents if d.doc_id == top[0]).endswith(
            "lustre-volumes.md")
        assert assistant.judge.features(retrieval)["named_off_page"] == 0.0, question
    cited, features = _features(assistant, "Can the Lustre volumes' subnetId and securityGroupIds be set per "
                                           "YuniKorn queue?")
    assert cited.endswith("lustre-volumes.md") and features["named_off_page"] == 1.0
