"""A declined question is told what the knowledge covers in a line a person reads: every topic of the quiz, and
once a team's pages bring a topic each, the ones closest to the question and how many others there are."""

from __future__ import annotations

from pathlib import Path

from bot.answering.assistant import TOPICS_CLOSEST, TOPICS_LISTED, Assistant
from tests.support.extra_knowledge import with_documents

TOOLS = ("Harbor registry", "Tekton pipelines", "Flux deployments", "Velero backups", "Istio gateways",
         "Linkerd proxies", "Vault secrets", "Loki logging", "Tempo tracing", "Thanos retention", "Cilium policies",
         "Falco alerts", "Kyverno rules", "Crossplane claims", "Backstage catalog", "Kubecost reports",
         "Argo Rollouts", "Sealed Secrets", "External DNS", "Cert-manager issuers")


def _pages() -> dict[str, str]:
    return {f"platform/{name.lower().replace(' ', '-')}.md":
            f"# {name}\n\n## Where it runs\n\n{name} run in the `{name.split()[0].lower()}` namespace of every "
            f"cluster, managed by the platform team.\n" for name in TOOLS}


def test_the_quiz_alone_names_every_topic_it_covers(fake_assistant: Assistant) -> None:
    answer = fake_assistant.answer("How do I bake sourdough bread?", "en")
    topics = fake_assistant.topics("en")
    assert not answer.answered and len(topics) <= TOPICS_LISTED
    assert answer.topics == topics and ", ".join(topics) in answer.text and "more)" not in answer.text


def test_many_pages_name_the_closest_topics_and_count_the_others(
        fake_assistant: Assistant, knowledge_copy: Path) -> None:
    assistant = with_documents(fake_assistant, knowledge_copy, _pages())
    everything = assistant.topics("en")
    assert len(everything) > TOPICS_LISTED and {"Velero backups", "Karpenter"} <= set(everything)

    answer = assistant.answer("How do I bake sourdough bread?", "en")
    assert not answer.answered
    assert len(answer.topics) == TOPICS_CLOSEST and set(answer.topics) <= set(everything)
    assert f"{', '.join(answer.topics)} (and {len(everything) - TOPICS_CLOSEST} more)." in answer.text
    # What is left out is named nowhere in the text: the line stays a line.
    left_out = [t for t in everything if t not in answer.topics]
    assert left_out and not any(t in answer.text for t in left_out)

    # Closest first: the page a question is about leads the topics named, wherever it stands in the knowledge.
    [retrieval] = assistant.retrieve_many([("which namespace do the velero backups run in?", "en")])
    named, others = assistant.named_topics("en", retrieval)
    assert named[0] == "Velero backups" and others == len(everything) - TOPICS_CLOSEST
    # Without a question (an empty mention), the knowledge's first topics: the quiz's.
    first, _ = assistant.named_topics("en")
    assert first == everything[:TOPICS_CLOSEST]


def test_spanish_says_how_many_more_in_spanish(fake_assistant: Assistant, knowledge_copy: Path) -> None:
    assistant = with_documents(fake_assistant, knowledge_copy, _pages())
    answer = assistant.answer("¿Cómo se hace pan de masa madre?", "es")
    assert not answer.answered
    assert f"(y {len(assistant.topics('es')) - TOPICS_CLOSEST} más)." in answer.text
