"""Reading a message: everything that turns what a person wrote into what it asks.

The one cleaning every surface's question goes through, once (`markup.read_message`: Slack's markup, pasted
lines, emoji codes and formatting marks), its words (`terms`: what each means, how specific it is, where the
knowledge uses it; `spelling`, `ordinary` and `lexicon` for slips, abbreviations, slang and the Spanish–English
glossary), its shape (`questions`: a definition, a comparison, where it goes on), the quiz questions it names
(`references`), what it says of the earlier turns (`followups`), the words that make two messages the same
(`keys`), and what it asks that the knowledge never mentions (`uncovered`, which reads a question with those
set aside). The patterns and word classes are data (`bot/data/rules/`, read by `rules`); the thresholds the
reading shares are `thresholds`. The index's side of a word (where the knowledge uses it) is handed in
(`terms.KnowledgeWords`, `postings`): nothing here imports retrieval or answering.
"""
