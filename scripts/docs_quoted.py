"""The passage quoted, answered right and declined right on questions about documents, with whatever code is on
PYTHONPATH: it uses only what every version answers with (an answer's top citation, its excerpt and snippet), so
that two commits can be compared over the same knowledge and index.

    PYTHONPATH=<a checkout> .venv/bin/python scripts/docs_quoted.py KNOWLEDGE_DIR INDEX_DIR QUESTIONS.jsonl...

Questions are lines of tests/docs/questions.jsonl's shape (`bot/evaluation/documents.py`); a string of the
answer counts as quoted as `eksbot eval` counts it (inline code marks, emphasis, escapes and entities aside).
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from pathlib import Path

from bot.answering.assistant import Assistant
from bot.config import Settings

_MARKS = re.compile(r"[`*_\\]|&[a-z]+;")


def comparable(text: str) -> str:
    return " ".join(_MARKS.sub("", text).casefold().split())


def main(knowledge: str, index: str, *files: str) -> None:
    assistant = Assistant.from_settings(Settings(knowledge_dir=Path(knowledge), index_dir=Path(index)))
    for name in files:
        counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
        for line in Path(name).read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            q = json.loads(line)
            answer = assistant.answer(q["q"], q["lang"])
            top = answer.citations[0] if answer.answered and answer.citations else None
            for group in (q["lang"], "all"):
                row = counts[group]
                if q["answerable"]:
                    right = top is not None and top.source == q["source"]
                    passage = comparable(f"{top.excerpt}\n{top.snippet or ''}") if top else ""
                    row[0] += 1
                    row[1] += right and any(comparable(s) in passage for s in q["answer_contains"])
                    row[2] += right
                else:
                    row[3] += 1
                    row[4] += not answer.answered
        for group, (n, quoted, right, near, declined) in sorted(counts.items()):
            print(f"{name} {group}: answerable {n}, quoted {quoted / max(n, 1):.3f}, answered right "
                  f"{right / max(n, 1):.3f}; near {near}, declined {declined / max(near, 1):.3f}")


if __name__ == "__main__":
    main(*sys.argv[1:])
