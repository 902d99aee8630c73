"""Text rules shared by indexing and querying, one module a rule: normalising, tokens, identifiers, sentences,
language detection and control characters.

Only `normalise`, `identifiers`, `tokens` and `sentences` shape what the index holds; the index's pipeline
digest hashes those (`bot.retrieval.artifacts.pipeline_digest`), so editing `language` or `control` leaves a
built index fresh. Reading a message (its markup, words, framing) is `bot.reading`.
"""
