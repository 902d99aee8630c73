"""Write docs/settings.md from the settings themselves (`bot.config.Settings`): one table row per setting, with its
environment variable, type, default and description.

    .venv/bin/python scripts/settings_doc.py          # rewrite docs/settings.md
    .venv/bin/python scripts/settings_doc.py --check  # exit 1 when docs/settings.md is not current

`render()` returns the Markdown; tests/project/test_docs.py checks that docs/settings.md equals it. To change what a
setting's row says, edit the `description=` of its field in bot/config.py and run this script.
"""

from __future__ import annotations

import argparse
import sys
import types
import typing
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from annotated_types import Ge, Gt, Le, Lt  # noqa: E402
from pydantic import AliasChoices, SecretStr  # noqa: E402
from pydantic.fields import FieldInfo  # noqa: E402

from bot.config import PROJECT_ROOT, Settings  # noqa: E402

OUTPUT = ROOT / "docs" / "settings.md"
COMMAND = ".venv/bin/python scripts/settings_doc.py"

# Defaults that are computed when the settings are built, said in words (a value computed here would depend on
# this machine's environment).
DEFAULT_IN_WORDS = {
    "database_url": "`sqlite:///<data dir>/eksbot.db`",
    "default_lang": "the locale's",
    "abstain_threshold": "the model's (`1/3`)",
}

HEADER = f"""\
# Settings

<!-- Generated from bot/config.py by scripts/settings_doc.py: edit the fields' descriptions there, then run
     `{COMMAND}`. tests/project/test_docs.py fails when this file is not current. -->

Every setting comes from the environment and is read when the application or a command starts; a value of the
wrong type or out of its bounds stops it with an error that names the setting. With the Helm chart, settings
the chart has no value of its own for go in `config.extraEnv` (for example `EKSBOT_ADMINS: "U0123ABC"`). The
directories default to `knowledge/`, `index/` and `data/` of the checkout (of the working directory when the
package is installed elsewhere).

"""

FOOTER = """
## Read from the environment elsewhere

- `HF_HUB_OFFLINE`, `TRANSFORMERS_OFFLINE`: set to `1` before any model library is imported (a value already
  set wins), so the model is read from local files only and nothing is downloaded at run time. With a model
  hub, `HF_HUB_OFFLINE=0` lets `EKSBOT_EMBEDDING_MODEL` name another model.
- `OMP_NUM_THREADS`: the ONNX backends' compute threads; unset: one per physical core. The image sets `2`,
  the Helm chart `config.threads` (match the CPU limit).
- `LC_ALL`, `LC_MESSAGES`, `LANG`: the default language when `EKSBOT_DEFAULT_LANG` is unset.
- The test suite's own variables (`EKSBOT_TEST_POSTGRES_URL`, `EKSBOT_REQUIRE_POSTGRES`,
  `EKSBOT_REQUIRE_HELM`, `EKSBOT_HELM`, `EKSBOT_HADOLINT`) are described in
  [CONTRIBUTING.md](../CONTRIBUTING.md#running-the-tests).

See also: [Embedding backends](quality.md#embedding-backends) (what each backend measures),
[Privacy](privacy.md) (what the retention settings forget) and [the Helm chart](deploy.md).
"""


def env_names(name: str, field: FieldInfo) -> list[str]:
    """The environment variables a field is read from, the first one preferred."""
    alias = field.validation_alias
    if isinstance(alias, AliasChoices):
        return [str(choice) for choice in alias.choices]
    if isinstance(alias, str):
        return [alias]
    return [f"{Settings.model_config.get('env_prefix', '')}{name}".upper()]


def all_env_names() -> set[str]:
    """Every environment variable a setting is read from."""
    return {env for name, field in Settings.model_fields.items() for env in env_names(name, field)}


def _number(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _type_name(annotation: Any) -> str:
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        choices = [f"`{choice}`" for choice in typing.get_args(annotation)]
        return ", ".join(choices[:-1]) + " or " + choices[-1] if len(choices) > 1 else choices[0]
    if origin in (typing.Union, types.UnionType):
        inner = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        return " or ".join(_type_name(arg) for arg in inner)
    names = {bool: "boolean", int: "integer", float: "number", str: "text", Path: "path", SecretStr: "secret"}
    if annotation in names:
        return names[annotation]
    raise ValueError(f"no name for the type {annotation!r}: add it to scripts/settings_doc.py")


def type_text(field: FieldInfo) -> str:
    """The type, with its bounds: `integer, ≥ 1, ≤ 3650`."""
    bounds = []
    for item in field.metadata:
        for kind, sign in ((Ge, "≥"), (Gt, ">"), (Le, "≤"), (Lt, "<")):
            if isinstance(item, kind):
                bound = getattr(item, kind.__name__.lower())
                bounds.append(f"{sign} {_number(bound)}")
    return ", ".join([_type_name(field.annotation), *bounds])


def default_text(name: str, field: FieldInfo) -> str:
    if name in DEFAULT_IN_WORDS:
        return DEFAULT_IN_WORDS[name]
    value = field.default_factory() if field.default_factory is not None else field.default  # type: ignore[call-arg]
    if isinstance(value, SecretStr):
        value = value.get_secret_value()
    if value is None:
        return "unset"
    if value == "":
        return "empty"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, Path):
        try:
            return f"`{value.resolve().relative_to(PROJECT_ROOT).as_posix()}/`"
        except ValueError:
            return f"`{value}`"
    return f"`{_number(value)}`"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def render() -> str:
    """docs/settings.md, as it should be."""
    missing = [name for name, field in Settings.model_fields.items() if not (field.description or "").strip()]
    if missing:
        raise ValueError(f"settings without a description= in bot/config.py: {', '.join(missing)}")
    unknown = set(DEFAULT_IN_WORDS) - set(Settings.model_fields)
    if unknown:
        raise ValueError(f"DEFAULT_IN_WORDS names no setting: {', '.join(sorted(unknown))}")
    rows = ["| variable | type | default | meaning |", "|---|---|---|---|"]
    for name, field in Settings.model_fields.items():
        variable = " or ".join(f"`{env}`" for env in env_names(name, field))
        rows.append(f"| {variable} | {_cell(type_text(field))} | {_cell(default_text(name, field))} "
                    f"| {_cell(field.description or '')} |")
    return HEADER + "\n".join(rows) + "\n" + FOOTER


def main() -> int:
    parser = argparse.ArgumentParser(description="Write docs/settings.md from bot/config.py.")
    parser.add_argument("--check", action="store_true", help="only tell whether docs/settings.md is current")
    args = parser.parse_args()
    text = render()
    if args.check:
        current = OUTPUT.is_file() and OUTPUT.read_text(encoding="utf-8") == text
        print(f"{OUTPUT.relative_to(ROOT)} is {'current' if current else f'out of date: run {COMMAND}'}")
        return 0 if current else 1
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUTPUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
