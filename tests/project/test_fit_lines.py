"""`make calibrate` and the test that refits the bundled model read the same labelled lines: a question file or a
folder of pages added to one and not the other would ship a model nobody can reproduce."""

from __future__ import annotations

import re

from bot.config import PROJECT_ROOT
from tests.conftest import FIT_DOC_FILES, FIT_DOC_FOLDERS, FIT_FILES


def makefile_fit_lines() -> tuple[list[str], list[str]]:
    """The files and `--docs` folders of the Makefile's FIT_LINES, globs expanded as the shell does."""
    makefile = (PROJECT_ROOT / "Makefile").read_text(encoding="utf-8")
    found = re.search(r"^FIT_LINES = ((?:.*\\\n)*.*)$", makefile, re.MULTILINE)
    assert found, "no FIT_LINES in the Makefile"
    words = found.group(1).replace("\\\n", " ").split()
    folders = [words[i + 1] for i, w in enumerate(words) if w == "--docs"]
    files = [w for i, w in enumerate(words) if w != "--docs" and (i == 0 or words[i - 1] != "--docs")]
    expanded = [p.relative_to(PROJECT_ROOT).as_posix() for w in files
                for p in (sorted(PROJECT_ROOT.glob(w)) if "*" in w else [PROJECT_ROOT / w])]
    return expanded, folders


def test_make_calibrate_fits_the_lines_the_refit_test_fits() -> None:
    files, folders = makefile_fit_lines()
    assert files == [p.relative_to(PROJECT_ROOT).as_posix() for p in (*FIT_FILES, *FIT_DOC_FILES)]
    assert folders == [p.relative_to(PROJECT_ROOT).as_posix() for p in FIT_DOC_FOLDERS]
    assert all((PROJECT_ROOT / f).is_file() for f in files) and all((PROJECT_ROOT / f).is_dir() for f in folders)
