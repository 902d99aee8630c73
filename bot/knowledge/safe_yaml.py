"""YAML from anyone, read without aliases: front matter, `sources.yaml`, entry files.

An alias (`*name`) repeats what an anchor (`&name`) holds; nested a few levels deep, 363 bytes expand to
billions of nodes ("billion laughs"). No knowledge file needs one, so an alias is refused with the line it is
on, before anything is built. Nesting is bounded too (`MAX_DEPTH`): a few thousand `[` would otherwise end in
Python's recursion limit instead of an error that names the line. The document's size is bounded by the
loader, so what is left takes time in proportion to the text.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.nodes import Node

MAX_DEPTH = 50  # lists and mappings inside one another; front matter and entry files nest a few levels


class AliasError(ComposerError):
    """A YAML alias (`*name`): refused in knowledge files."""


class NestingError(ComposerError):
    """Lists and mappings nested deeper than `MAX_DEPTH`."""


class _NoAliasLoader(yaml.SafeLoader):
    """The pure-Python safe loader (the C one composes nodes in C, out of reach of these checks)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self._depth = 0

    def fetch_flow_collection_start(self, TokenClass: Any) -> None:  # noqa: N803 - PyYAML's name
        # `[` and `{` are refused as they are met: the scanner looks far ahead for keys inside open brackets,
        # so waiting for the composer to reach the depth would first scan the brackets that follow.
        if self.flow_level >= MAX_DEPTH:
            raise NestingError(None, None, f"lists and mappings nested more than {MAX_DEPTH} deep", self.get_mark())
        super().fetch_flow_collection_start(TokenClass)

    def compose_node(self, parent: Node | None, index: int) -> Node | None:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise AliasError(None, None, "YAML aliases (*name) are not allowed in knowledge files",
                             event.start_mark)
        if self._depth >= MAX_DEPTH:
            raise NestingError(None, None, f"lists and mappings nested more than {MAX_DEPTH} deep",
                               self.peek_event().start_mark)
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def load_yaml(text: str) -> Any:
    """The value of one YAML document, as `yaml.safe_load` gives it, with aliases and deep nesting refused
    (`AliasError`, `NestingError`: `yaml.YAMLError`s whose `problem_mark` says where)."""
    loader = _NoAliasLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()
