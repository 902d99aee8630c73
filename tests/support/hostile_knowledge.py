"""Knowledge a careless maintainer or an attacker can write, for the fault suite and `bench/hardening.py`:
lines that make a regular expression backtrack, YAML alias bombs, a quiz file with an error, a link to a secret
outside the folder, thousands of files at once and one huge file."""

from __future__ import annotations

from pathlib import Path

HOSTILE_LINES = (
    "<a " + "{}" * 5_000 + "<",  # exponential for a component-line pattern with nested repetition
    "<x header={" + " " * 10_000 + "x",  # cubic for a lazy component-header search
    "{{< " * 2_500,  # an unclosed shortcode, many times
    "<Chart data={[" + ", ".join(f"{{x: {i}, y: {i * 2}}}" for i in range(600)) + "]} <",
)
ALIAS_BOMB = "\n".join(
    ["lol: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    + [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 9)]
)
SECRET = "hunter2-outside-the-knowledge"
HOSTILE_FILES = 5_000
HUGE_BYTES = 50 * 1024 * 1024


def drop_hostile_knowledge(knowledge: Path, outside: Path, files: int = HOSTILE_FILES) -> None:
    """Write every hostile input below `knowledge` (a link to a secret written in `outside` among them)."""
    bad = knowledge / "hostile"
    bad.mkdir()
    (bad / "patterns.mdx").write_text("# Component lines\n\n" + "\n\n".join(HOSTILE_LINES) + "\n", encoding="utf-8")
    (bad / "bomb-doc.md").write_text(f"---\n{ALIAS_BOMB}\ntitle: bomb\n---\n\n# Bomb\n\nText.\n", encoding="utf-8")
    (bad / "bomb-note.md").write_text(f"---\nnote_for: quiz\nquestion: 1\nlang: en\n{ALIAS_BOMB}\n---\n\nA note.\n",
                                      encoding="utf-8")
    (bad / "bomb-quiz.md").write_text(f"---\nkind: quiz\n{ALIAS_BOMB}\nid: *l8\nlang: en\ntitle: t\n---\n",
                                      encoding="utf-8")
    (bad / "broken-quiz.md").write_text(
        "---\nid: broken\nlang: en\ntitle: A quiz with an error\nkind: quiz\n---\n\n"
        "## 1. Which one?\n\nTopic: Broken\n\n- A) this\n- B) that\n\nExplanation: no answer line above.\n",
        encoding="utf-8")
    (outside / "credentials.md").write_text(f"# Credentials\n\nThe database password is {SECRET}.\n", encoding="utf-8")
    (bad / "credentials.md").symlink_to(outside / "credentials.md")
    many = knowledge / "many"
    many.mkdir()
    for i in range(files):
        (many / f"page-{i}.md").write_text(f"# Widget {i}\n\nWidget {i} is calibrated by crew {i}.\n", encoding="utf-8")
    with (bad / "huge.md").open("w", encoding="utf-8") as out:
        line = "The quick brown fox jumps over the lazy dog. " * 20 + "\n"
        for _ in range(HUGE_BYTES // len(line) + 1):
            out.write(line)
