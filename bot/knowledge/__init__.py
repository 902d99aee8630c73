"""The knowledge the bot serves: Markdown documents in one or two editions (es, en)."""

from bot.knowledge.loader import KnowledgeBase, knowledge_digest, load_knowledge
from bot.knowledge.model import Block, Document, Option, Question

__all__ = ["Block", "Document", "KnowledgeBase", "Option", "Question", "knowledge_digest", "load_knowledge"]
