"""An installed package (the image installs one, not the checkout) carries every file the code reads."""

from __future__ import annotations

import fnmatch
import tomllib

from bot.config import PROJECT_ROOT

PACKAGE = PROJECT_ROOT / "bot"


def test_every_data_file_of_the_package_is_declared_as_package_data() -> None:
    patterns = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["bot"]
    files = [p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*")
             if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts]
    assert files, "the package has data files (word frequencies, glossary, answerability model, migrations)"
    missing = [f for f in files if not any(fnmatch.fnmatch(f, pattern) for pattern in patterns)]
    assert not missing, f"not installed with the package: {missing}"
