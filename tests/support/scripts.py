"""The project's scripts (scripts/*.py) as modules, for tests of what they compute."""

from __future__ import annotations

import importlib.util
from types import ModuleType

from bot.config import PROJECT_ROOT


def load_script(name: str) -> ModuleType:
    """`scripts/NAME.py`, loaded as a module (scripts are not a package)."""
    spec = importlib.util.spec_from_file_location(name, PROJECT_ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
