"""What Slack refuses or shows broken in a Block Kit message, checked the same way for every message."""

from __future__ import annotations

import re
from typing import Any

import pytest

from bot.slack import blocks


def check_limits(message: dict[str, Any]) -> None:
    """What Slack refuses (or shows broken): too many blocks, long texts, empty texts, long labels."""
    assert isinstance(message["text"], str) and message["text"].strip(), "every message needs a text fallback"
    assert len(message["text"]) <= blocks.FALLBACK_LIMIT
    assert 1 <= len(message["blocks"]) <= blocks.MAX_BLOCKS
    block_ids = [b["block_id"] for b in message["blocks"] if "block_id" in b]
    assert len(block_ids) == len(set(block_ids))
    for block in message["blocks"]:
        if block["type"] == "section":
            assert 1 <= len(block["text"]["text"]) <= blocks.SECTION_LIMIT
            if block["text"]["text"].startswith("```"):
                assert block["text"]["text"].endswith("\n```")
        elif block["type"] == "context":
            assert 1 <= len(block["elements"]) <= 10
            assert all(1 <= len(e["text"]) <= blocks.SECTION_LIMIT for e in block["elements"])
        elif block["type"] == "actions":
            assert 1 <= len(block["elements"]) <= blocks.MAX_ACTIONS
            for element in block["elements"]:
                assert 1 <= len(element["text"]["text"]) <= blocks.LABEL_LIMIT
                assert len(element["value"]) <= blocks.VALUE_LIMIT and len(element["action_id"]) <= 255
        else:
            pytest.fail(f"unexpected block {block['type']}")


def all_texts(message: dict[str, Any]) -> list[str]:
    out = [message["text"]]
    for block in message["blocks"]:
        if "text" in block:
            out.append(block["text"]["text"])
        out += [e["text"] if isinstance(e["text"], str) else e["text"]["text"] for e in block.get("elements", [])]
    return out


def check_escaped(message: dict[str, Any]) -> None:
    """No markup but the bot's own: no special mention, no link, no raw < or & from the input."""
    for text in all_texts(message):
        assert not re.search(r"<(?!@U[0-9A-Z]+>)", text), text
        assert not re.search(r"&(?!amp;|lt;|gt;)", text), text
