"""YAML from anyone, read without aliases: front matter, `sources.yaml`, entry files.

An alias (`*name`) repeats what an anchor (`&name`) holds; nested a few levels deep, 363 bytes expand to
billions of nodes ("billion laughs"). No knowledge file needs one, so an alias is refused with the line it is
on, before anything is built. The document's size is bounded by the loader, so what is left takes time in
proportion to the text.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.nodes import Node



class AliasError(ComposerError):
    """A YAML alias (`*name`): refused in knowledge files."""


class _NoAliasLoader(yaml.SafeLoader):
    """The pure-Python safe loader (the C one composes nodes in C, out of reach of this check)."""

    def compose_node(self, parent: Node | None, index: object) -> Node | None:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise AliasError(None, None, "YAML aliases (*name) are not allowed in knowledge files",
                             event.start_mark)
        return super().compose_node(parent, index)  # type: ignore[no-any-return]


def load_yaml(text: str) -> Any:
    """The value of one YAML document, as `yaml.safe_load` gives it, with aliases refused (`AliasError`, a
    `yaml.YAMLError` whose `problem_mark` says where)."""
    loader = _NoAliasLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()
