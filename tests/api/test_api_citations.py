"""What an answer cites over HTTP is safe to show as it is: a link only to an http(s) URL, and a snippet of
bounded size that ends with a line "…" when it was cut."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.config import Settings
from bot.knowledge.citations import SNIPPET_CHARS, SNIPPET_LINES
from bot.services import Services
from tests.support.api_helpers import client_for
from tests.support.extra_knowledge import OFFICE_HOURS, services_like, team_doc, with_documents


def asked(settings: Settings, services: Services, knowledge_copy: Path, files: dict[str, str],
          question: str = OFFICE_HOURS) -> dict[str, Any]:
    """The answer to `question` over HTTP, from the knowledge with `files` added."""
    assistant = with_documents(services.assistant, knowledge_copy, files)
    client = client_for(settings.model_copy(update={"knowledge_dir": knowledge_copy}),
                        services_like(services, assistant))
    response = client.post("/v1/query", json={"question": question, "lang": "en"})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    assert body["answered"] is True, body
    return body


def test_a_url_that_is_not_http_is_never_cited(settings: Settings, services: Services, knowledge_copy: Path) -> None:
    for front in ('source_url: "javascript:alert(document.cookie)"\n', "url: data:text/html,<script>x</script>\n",
                  "canonical_url: ' JavaScript:alert(1)'\n"):
        body = asked(settings, services, knowledge_copy, {"team/ml-platform.md": team_doc(front=front)})
        top = body["citations"][0]
        assert top["doc"] == "team/ml-platform" and top["url"] is None, front
    sources = "ml-platform.md: 'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=='\n"
    body = asked(settings, services, knowledge_copy, {"team/ml-platform.md": team_doc(), "team/sources.yaml": sources})
    assert body["citations"][0]["doc"] == "team/ml-platform" and body["citations"][0]["url"] is None
    safe = "source_url: https://wiki.example.com/ml-platform?team=a&b=1\n"
    body = asked(settings, services, knowledge_copy, {"team/ml-platform.md": team_doc(front=safe)})
    assert body["citations"][0]["url"] == "https://wiki.example.com/ml-platform?team=a&b=1"


def test_a_long_snippet_is_cut_to_a_bounded_size_and_says_so(settings: Settings, services: Services,
                                                               knowledge_copy: Path) -> None:
    code = "\n".join(f"echo 'step {i} of the office hours checklist'" for i in range(10_000))
    body = asked(settings, services, knowledge_copy, {"team/ml-platform.md": team_doc(code=code)})
    top = body["citations"][0]
    assert top["doc"] == "team/ml-platform"
    snippet = top["snippet"]
    assert len(snippet.splitlines()) <= SNIPPET_LINES + 1 and len(snippet) <= SNIPPET_CHARS
    kept, marker = snippet.rsplit("\n", 1)
    assert marker == "…" and kept.startswith("echo 'step 0 of") and code.startswith(kept + "\n")  # whole lines

    one_line = "x" * 300_000  # a minified line: cut inside the line, which then ends with "…"
    body = asked(settings, services, knowledge_copy, {"team/ml-platform.md": team_doc(code=one_line)})
    snippet = body["citations"][0]["snippet"]
    assert len(snippet) <= SNIPPET_CHARS and snippet.endswith("…") and one_line.startswith(snippet[:-1])

    short = "kubectl get pods -n ml-platform"
    body = asked(settings, services, knowledge_copy, {"team/ml-platform.md": team_doc(code=short)})
    assert body["citations"][0]["snippet"] == short
