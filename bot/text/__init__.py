"""Text rules shared by indexing and querying, one module a rule: normalising, tokens, identifiers, sentences,
language detection, and the chat markup removed before a question is read.

Only `normalise`, `identifiers`, `tokens` and `sentences` shape what the index holds; the index's pipeline
digest hashes those (`bot.retrieval.artifacts.pipeline_digest`), so editing `markup` or `language` leaves a
built index fresh.
"""
