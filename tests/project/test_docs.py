"""The documentation stays true: docs/settings.md is generated from the settings, the README stays a front
door, every relative link resolves (anchors included) and every `EKSBOT_*` variable named is real.

Fast: reads files and imports the settings, loads no model.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from bot.config import PROJECT_ROOT
from tests.support.scripts import load_script

README = PROJECT_ROOT / "README.md"
DOCS = PROJECT_ROOT / "docs"
README_MAX_LINES = 200
# Variables the documentation may name that are no setting: read by the test suite, not by the application.
READ_ELSEWHERE = frozenset({
    "EKSBOT_TEST_POSTGRES_URL",  # tests/conftest.py: the PostgreSQL server of the postgres tests
    "EKSBOT_REQUIRE_POSTGRES",  # tests/conftest.py: fail, not skip, without PostgreSQL
    "EKSBOT_REQUIRE_HELM",  # tests/deploy/test_deploy.py: fail, not skip, without helm
    "EKSBOT_HELM",  # tests/deploy_tools.py: which helm
    "EKSBOT_HADOLINT",  # tests/deploy_tools.py: which hadolint
})
ENV_VARIABLE = re.compile(r"EKSBOT_[A-Z_]+")
FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"`+[^`]*`+")
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def settings_doc() -> ModuleType:
    return load_script("settings_doc")


def documents() -> list[Path]:
    return [README, PROJECT_ROOT / "CONTRIBUTING.md", *sorted(DOCS.rglob("*.md"))]


def prose_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) outside fenced code blocks."""
    fenced = False
    for number, line in enumerate(text.splitlines(), start=1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def links(text: str) -> Iterator[tuple[int, str]]:
    """(line number, target) of every Markdown link and reference definition outside code."""
    for number, line in prose_lines(text):
        if reference := REFERENCE.match(line):
            yield number, reference.group(1)
            continue
        for match in LINK.finditer(INLINE_CODE.sub("", line)):
            yield number, match.group(1)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text without markup, lower case, punctuation dropped (letters,
    digits, `-` and `_` kept), each space a hyphen."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").lower()
    return "".join(c for c in text if c.isalnum() or c in "-_ ").replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every heading's anchor; a repeated one gets -1, -2, ... as on GitHub."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    for _, line in prose_lines(text):
        if heading := HEADING.match(line):
            base = slug(heading.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(path: Path, root: Path = PROJECT_ROOT) -> list[str]:
    """What is wrong with each relative link of a Markdown file (URLs are not checked)."""
    problems = []
    for number, target in links(path.read_text(encoding="utf-8")):
        if SCHEME.match(target) or target.startswith("//"):
            continue  # a URL: not checked here
        file_part, _, anchor = target.partition("#")
        destination = (path.parent / file_part).resolve() if file_part else path
        where = f"{path.relative_to(root)}:{number}: {target}"
        if not destination.exists():
            problems.append(f"{where}: no such file")
        elif not destination.is_relative_to(root):
            problems.append(f"{where}: outside the repository")
        elif anchor and destination.suffix == ".md" and anchor not in anchors(destination.read_text(encoding="utf-8")):
            problems.append(f"{where}: no heading #{anchor} in {destination.relative_to(root)}")
        elif anchor and destination.suffix != ".md":
            problems.append(f"{where}: an anchor into a file that is not Markdown")
    return problems


# -- docs/settings.md ------------------------------------------------------------------------------------

def test_the_settings_page_is_current() -> None:
    expected = settings_doc().render()
    current = (DOCS / "settings.md").read_text(encoding="utf-8") if (DOCS / "settings.md").is_file() else ""
    assert current == expected, (
        "docs/settings.md is not what bot/config.py says: run `.venv/bin/python scripts/settings_doc.py`")


def test_the_settings_page_has_a_row_per_setting() -> None:
    module = settings_doc()
    text = module.render()
    for name in module.all_env_names():
        assert f"`{name}`" in text, name
    assert "`knowledge/`" in text and "`600`" in text and "`onnx`, `onnx-int8` or `torch`" in text
    assert str(PROJECT_ROOT) not in text  # paths relative to the checkout, never this machine's


def test_a_setting_without_a_description_stops_the_generator(monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.config import Settings

    module = settings_doc()
    field = Settings.model_fields["rate_limit"]
    monkeypatch.setattr(field, "description", None)
    with pytest.raises(ValueError, match="rate_limit"):
        module.render()


# -- README.md -------------------------------------------------------------------------------------------

def test_the_readme_is_a_front_door() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, (
        f"README.md has {len(lines)} lines (at most {README_MAX_LINES}): move the detail to docs/")


def test_the_readme_keeps_the_two_set_up_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert "make run" in text and "make test" in text and "/v1/query" in text


# -- links -----------------------------------------------------------------------------------------------

def test_the_documents_exist() -> None:
    names = {path.relative_to(PROJECT_ROOT).as_posix() for path in documents()}
    assert {"README.md", "CONTRIBUTING.md", "docs/settings.md", "docs/architecture.md"} <= names
    assert all(path.is_file() for path in documents())


@pytest.mark.parametrize("path", documents(), ids=lambda path: path.relative_to(PROJECT_ROOT).as_posix())
def test_every_relative_link_resolves(path: Path) -> None:
    problems = broken_links(path)
    assert not problems, "broken links:\n" + "\n".join(problems)


def test_the_link_checker_finds_broken_links(tmp_path: Path) -> None:
    tmp_path = tmp_path.resolve()
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# Other\n\n## Follow-up questions\n\n## Step 1: `eksbot ask`\n",
                                       encoding="utf-8")
    page.write_text(
        "# Page\n\n[ok](other.md#follow-up-questions) [ok](other.md#step-1-eksbot-ask) [ok](#page)\n"
        "[ok](https://example.com/x) `[not a link](nowhere.md)`\n"
        "```\n[not a link](nowhere.md)\n```\n"
        "[gone](missing.md) [bad anchor](other.md#nothing) [bad self](#nothing)\n"
        "[ref]: missing-too.md\n",
        encoding="utf-8",
    )
    problems = broken_links(page, root=tmp_path)
    assert [problem.split(": ", 1)[1] for problem in problems] == [
        "missing.md: no such file", "other.md#nothing: no heading #nothing in other.md",
        "#nothing: no heading #nothing in page.md", "missing-too.md: no such file",
    ]


def test_slugs_follow_github() -> None:
    assert slug("Follow-up questions") == "follow-up-questions"
    assert slug("3a. HTTP mode") == "3a-http-mode"
    assert slug("2. Create the Slack app (both modes)") == "2-create-the-slack-app-both-modes"
    assert slug("I don't know") == "i-dont-know"
    assert slug("`eksbot gaps`") == "eksbot-gaps"
    assert slug("Speed — and memory") == "speed--and-memory"
    assert anchors("# A\n## A\n```\n# not a heading\n```\n") == {"a", "a-1"}


# -- environment variables -------------------------------------------------------------------------------

def test_every_variable_named_is_a_setting_or_read_elsewhere() -> None:
    known = settings_doc().all_env_names() | READ_ELSEWHERE
    unknown = sorted({
        f"{path.relative_to(PROJECT_ROOT)}: {name}"
        for path in documents() for name in ENV_VARIABLE.findall(path.read_text(encoding="utf-8"))
        if name not in known
    })
    assert not unknown, "variables that are no setting (bot/config.py) nor in READ_ELSEWHERE:\n" + "\n".join(unknown)


def test_the_variables_read_elsewhere_are_read() -> None:
    sources = "\n".join(path.read_text(encoding="utf-8")
                        for folder in ("bot", "tests") for path in (PROJECT_ROOT / folder).rglob("*.py")
                        if path.name != "test_docs.py")
    unread = sorted(name for name in READ_ELSEWHERE if f'"{name}"' not in sources)
    assert not unread, f"no longer read anywhere (take them out of READ_ELSEWHERE and the docs): {unread}"

