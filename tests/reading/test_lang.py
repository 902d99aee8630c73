"""The one list of languages and its one check, as every surface and the core use them."""

from __future__ import annotations

import pytest

from bot.config import load_settings
from bot.errors import InputError
from bot.lang import LANGUAGES, check_lang, is_lang, locale_lang

LOCALE = ("LC_ALL", "LC_MESSAGES", "LANG")


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


@pytest.mark.parametrize(("environ", "lang"), [
    ({"LANG": "es_ES.UTF-8"}, "es"),
    ({"LANG": "es_MX"}, "es"),
    ({"LANG": "es"}, "es"),
    ({"LANG": "en_US.UTF-8"}, "en"),
    ({"LANG": "fr_FR.UTF-8"}, "en"),
    ({"LANG": "C.UTF-8"}, "en"),
    ({"LANG": "et_EE.UTF-8"}, "en"),  # Estonian starts with an e, not with es
    ({}, "en"),
    ({"LANG": "en_GB.UTF-8", "LC_MESSAGES": "es_AR.UTF-8"}, "es"),  # messages are what it says
    ({"LANG": "es_ES.UTF-8", "LC_MESSAGES": "", "LC_ALL": "C"}, "en"),  # LC_ALL wins over both
])
def test_the_locale_tells_the_language(environ: dict[str, str], lang: str) -> None:
    assert locale_lang(environ) == lang


@pytest.mark.parametrize(("lang_variable", "expected"), [("es_ES.UTF-8", "es"), ("en_US.UTF-8", "en")])
def test_without_a_default_language_set_the_locale_chooses(
    lang_variable: str, expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in (*LOCALE, "EKSBOT_DEFAULT_LANG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", lang_variable)
    assert load_settings().default_lang == expected
    monkeypatch.setenv("EKSBOT_DEFAULT_LANG", "es" if expected == "en" else "en")  # the setting wins
    assert load_settings().default_lang != expected
