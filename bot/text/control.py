"""Control characters: which characters text from outside (a question, a message, a form, an HTTP body) may not
carry into what the bot keeps, shows or sends, written once for every module that applies the rule.

The C0 controls and DEL move a terminal's cursor, ring its bell, end a line where none was typed or cut a
string short in C; the C1 controls (U+0080 to U+009F) are escape sequences to a terminal too. Tab and new line
lay out what a person wrote (a note, a pasted log), so the rule that keeps layout spares them.

The ranges are written as the inside of a character class, in a dialect Python and JSON Schema (ECMA-262)
read alike, so that a pattern published in /openapi.json says what the server checks.
"""

from __future__ import annotations

import re

C0 = r"\x00-\x1f\x7f"  # the C0 controls and DEL
C0_BUT_LAYOUT = r"\x00-\x08\x0b-\x1f\x7f"  # the same, but tab and new line
C1 = r"\x80-\x9f"
CONTROL = re.compile(f"[{C0_BUT_LAYOUT}]")  # a control character that does not lay out text
