"""The one list of languages and its one check, as every surface and the core use them."""

from __future__ import annotations

import pytest

from bot.errors import InputError
from bot.lang import LANGUAGES, check_lang, is_lang


def test_the_bot_speaks_spanish_and_english() -> None:
    assert LANGUAGES == ("es", "en")
    assert [check_lang(lang) for lang in LANGUAGES] == ["es", "en"]
    assert check_lang(None) is None  # nothing asked: the caller decides (detect, or the default)


@pytest.mark.parametrize("lang", ["fr", "ES", "", " es", "english"])
def test_any_other_language_is_refused_with_the_languages_to_use(lang: str) -> None:
    with pytest.raises(InputError) as raised:
        check_lang(lang)
    assert str(raised.value) == f"Unknown language {lang!r}: use 'es' or 'en'."
    assert not is_lang(lang)


@pytest.mark.parametrize("value", [None, 1, ["es"], "fr"])
def test_values_from_outside_fall_back_quietly(value: object) -> None:
    assert not is_lang(value)
    assert is_lang("es") and is_lang("en")
