"""The languages the bot speaks: one type, one tuple, one check. Every other module takes them from here."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal, TypeGuard, overload

from bot.errors import InputError
from bot.messages import say

Lang = Literal["es", "en"]
LANGUAGES: tuple[Lang, ...] = ("es", "en")


def is_lang(value: object) -> TypeGuard[Lang]:
    """Whether `value` names a language the bot speaks (for values that fall back quietly, e.g. a button's)."""
    return value in LANGUAGES


@overload
def check_lang(value: str) -> Lang: ...


@overload
def check_lang(value: None) -> None: ...


def check_lang(value: str | None) -> Lang | None:
    """`value` as a language; None (nothing asked) stays None; anything else is refused with a reason."""
    if value is None or is_lang(value):
        return value
    raise InputError(say("en", "unknown_lang", lang=value))


def locale_lang(environ: Mapping[str, str]) -> Lang:
    """The language of the locale's messages (LC_ALL, else LC_MESSAGES, else LANG, as POSIX reads them):
    Spanish for `es` and `es_*` locales, English for any other (`C`, `en_GB.UTF-8`, `fr_FR`) or none."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name, "").strip()
        if value:
            return "es" if re.match(r"es(?:[_.@]|$)", value, re.IGNORECASE) else "en"
    return "en"
