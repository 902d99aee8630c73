"""What the Slack tests do and read again and again: wait for a condition, ask `/quiz`, click a button, read
a message back as a person sees it (and what of it Slack reads as markup), and read the application's
metrics."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from tests.support.slack_fake import FakeSlack, SlackSender, button


def eventually(check: Callable[[], bool], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.01)


def sample(sender: SlackSender, name: str, labels: dict[str, str]) -> float:
    return sender.app.state.metrics.registry.get_sample_value(name, labels) or 0.0


def markup_texts(view: dict[str, Any]) -> list[str]:
    """Every text of a message's or view's blocks that Slack reads as markup (mrkdwn), at any depth."""
    found: list[str] = []

    def walk(item: object) -> None:
        if isinstance(item, dict):
            if item.get("type") == "mrkdwn":
                found.append(str(item["text"]))
            for value in item.values():
                walk(value)
        elif isinstance(item, list):
            for value in item:
                walk(value)

    walk(view["blocks"])
    return found


def context_text(message: dict[str, Any]) -> str:
    return "\n".join(e["text"] for b in message["blocks"] if b["type"] == "context" for e in b["elements"])


def ask(slack: SlackSender, fake: FakeSlack, text: str = "", *, user: str = "U1") -> dict[str, Any]:
    """Run `/quiz text` and return what came back through its response URL."""
    response, path = slack.command(text, user=user)
    assert response.status_code == 200
    return fake.wait_for("response", path=path)[0].body


def click(slack: SlackSender, fake: FakeSlack, element: dict[str, Any], *, user: str = "U1",
          **kwargs: Any) -> dict[str, Any]:
    response, path = slack.click(element, user=user, **kwargs)
    assert response.status_code == 200
    return fake.wait_for("response", path=path)[0].body


def prompt_of(message: dict[str, Any]) -> dict[str, Any]:
    """The question as a person reads it in the message: its number and the options under each letter."""
    number = re.search(r"(?:Pregunta|Question) (\d+) ·", header(message))
    assert number is not None, header(message)
    options = re.findall(r"^\*([A-Z])\)\* (.*)$", message["blocks"][1]["text"]["text"], re.MULTILINE)
    unescape = {"&lt;": "<", "&gt;": ">", "&amp;": "&"}
    return {"question": int(number.group(1)), "options": [
        {"key": key, "text": re.sub(r"&(lt|gt|amp);", lambda m: unescape[m.group(0)], text)} for key, text in options
    ]}


def answer_button(message: dict[str, Any], letter: str) -> dict[str, Any]:
    return button(message, f"quiz_answer_{letter}")


def header(message: dict[str, Any]) -> str:
    return str(message["blocks"][0]["text"]["text"])
