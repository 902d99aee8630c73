"""`make calibrate` and the test that refits the bundled model read the same labelled lines (the Makefile's
`FIT_LINES`, which `tests/conftest.py` reads), and the bundled model was fitted on them: a question file or a folder
of pages added to the Makefile and not refitted, or fitted by hand on others, would ship a model nobody can
reproduce."""

from __future__ import annotations

import json
from pathlib import Path

from bot.answering.answerability import MODEL_FILE
from bot.config import PROJECT_ROOT
from tests.conftest import FIT_DOC_FILES, FIT_DOC_FOLDERS, FIT_FILES, makefile_fit_lines


def relative(paths: tuple[Path, ...]) -> list[str]:
    return [p.relative_to(PROJECT_ROOT).as_posix() for p in paths]


def test_make_calibrate_fits_the_quiz_files_then_the_doc_files_and_each_exists() -> None:
    files, folders = makefile_fit_lines()
    assert relative(files) == relative((*FIT_FILES, *FIT_DOC_FILES))
    assert folders == FIT_DOC_FOLDERS and FIT_DOC_FILES and FIT_DOC_FOLDERS
    assert all(f.is_file() for f in files) and all(f.is_dir() for f in folders)


def test_the_bundled_model_was_fitted_on_the_makefiles_lines() -> None:
    about = json.loads(MODEL_FILE.read_text(encoding="utf-8"))["about"]
    assert about["files"] == relative(makefile_fit_lines()[0])


def test_every_fitted_doc_question_is_about_a_page_of_a_folder_fitted_with_it() -> None:
    names = {folder.name for folder in FIT_DOC_FOLDERS}
    sources = {json.loads(line)["source"] for path in FIT_DOC_FILES
               for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}
    assert sources and {source.split("/", 1)[0] for source in sources} <= names
