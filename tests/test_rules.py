"""The rules of how people write (`bot/data/rules/<lang>.yaml`) do what their own examples say."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.answering.references import find_reference
from bot.errors import ConfigError
from bot.text import rules as rules_module
from bot.text.rules import rules

EXAMPLES = [(lang, example) for lang in ("en", "es") for example in rules(lang).examples["quiz_reference"]]


@pytest.mark.parametrize(("lang", "example"), EXAMPLES, ids=[str(e["text"]) for _, e in EXAMPLES])
def test_each_quiz_reference_example_is_read_as_its_file_says(lang: str, example: dict[str, object]) -> None:
    found = find_reference(str(example["text"]), lang)
    if example.get("none"):
        assert found is None
    elif "number" in example:
        assert found is not None and found.number == example["number"]
    else:
        assert found is not None and found.about == example["about"]


def test_every_language_has_examples_of_references_and_of_non_references() -> None:
    for lang in ("en", "es"):
        examples = rules(lang).examples["quiz_reference"]
        assert any(e.get("none") for e in examples) and any("number" in e for e in examples)
        assert any("about" in e for e in examples)


def test_a_pattern_that_does_not_compile_names_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = (rules_module.RULES_DIR / "en.yaml").read_text(encoding="utf-8").replace(
        "(?P<number>\\d{1,3})\\b'", "(?P<number>\\d{1,3}\\b'", 1)
    (tmp_path / "en.yaml").write_text(broken, encoding="utf-8")
    monkeypatch.setattr(rules_module, "RULES_DIR", tmp_path)
    rules.cache_clear()
    try:
        with pytest.raises(ConfigError, match="en.yaml"):
            rules("en")
    finally:
        rules.cache_clear()
