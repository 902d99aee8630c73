"""Maintainers change the knowledge while the service runs: entries (texts and quiz questions), notes on quiz
questions and sections, and the knowledge gaps they answer. Every surface (HTTP, Slack, the command line)
calls `Curation`; the database is the source of truth, and every replica picks a change up from it."""
