"""The public shape of an answer's citation (HTTP, `eksbot ask --json`), as the tests of each surface check it."""

CITATION_KEYS = frozenset({"question", "title", "excerpt", "snippet", "source", "score", "doc", "section", "url",
                           "notes", "beside", "parts"})
