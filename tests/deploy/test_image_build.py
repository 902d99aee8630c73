"""The image build as a platform engineer runs it: which package indexes it needs and how it fails when one is
unreachable, the documented commands (deploy/README.md, docs/deploy.md) complete as printed, the image's labels,
base digest and contents, and what the service in it logs while the database is not ready.

Read statically (deploy/Dockerfile, scripts/, the docs) or run in-process: no image is built here; the image
itself is built by scripts/build-image.sh (deploy/README.md says how, and what it measured).
"""

from __future__ import annotations

import http.server
import itertools
import logging
import os
import re
import shlex
import socket
import subprocess
import sys
import threading
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from bot.answering.assistant import Assistant
from bot.config import Settings
from bot.errors import StorageUnavailableError
from bot.services import Services
from bot.storage import Database
from bot.storage.startup import DatabaseStartup
from tests.conftest import UNREACHABLE_DATABASE
from tests.deploy_tools import DOCKERFILE, DOCKERIGNORE, ROOT, dockerfile_instructions

README = ROOT / "deploy" / "README.md"
DOCS = (README, ROOT / "docs" / "deploy.md", ROOT / "README.md")
BUILD_SCRIPT = ROOT / "scripts" / "build-image.sh"
INDEX_CHECK = ROOT / "scripts" / "check-package-indexes.py"
LOCKS = (ROOT / "requirements" / "runtime.lock", ROOT / "requirements" / "build.lock")
PYTORCH_INDEX = "download.pytorch.org"
# What the runtime environment leaves out: the Hub client that tokenizers requires for downloads, and what only
# it requires (the model and tokenizer load from files in the image).
HUB_CLIENT = {"huggingface-hub", "hf-xet", "filelock", "fsspec", "httpx2", "httpcore2", "truststore"}

Instruction = tuple[str, str]


def instructions() -> list[Instruction]:
    return dockerfile_instructions(DOCKERFILE.read_text(encoding="utf-8"))


def stages() -> list[list[Instruction]]:
    out: list[list[Instruction]] = []
    for instruction in instructions():
        if instruction[0] == "FROM":
            out.append([])
        if out:
            out[-1].append(instruction)
    return out


def build_stage() -> list[Instruction]:
    (stage,) = [stage for stage in stages() if stage[0][1].endswith(" AS build")]
    return stage


def final_stage() -> list[Instruction]:
    return stages()[-1]


def args(stage: list[Instruction]) -> dict[str, str]:
    """The stage's ARGs and their defaults (quotes removed; an ARG without a default maps to "")."""
    out = {}
    for keyword, rest in stage:
        if keyword == "ARG":
            name, _, default = rest.partition("=")
            out[name] = default.strip('"')
    return out


def global_args() -> dict[str, str]:
    return args(list(itertools.takewhile(lambda i: i[0] != "FROM", instructions())))


def env(stage: list[Instruction]) -> dict[str, str]:
    return {m.group(1): m.group(2) for k, a in stage if k == "ENV" for m in re.finditer(r"(\w+)=(\S+)", a)}


def install_run() -> str:
    (run,) = [a for k, a in build_stage() if k == "RUN" and "--require-hashes" in a and "python -m venv" in a]
    return run


def steps(run: str) -> list[str]:
    return [part.strip() for part in run.split("&&")]


def labels(stage: list[Instruction]) -> dict[str, str]:
    found: dict[str, str] = {}
    for keyword, rest in stage:
        if keyword == "LABEL":
            for match in re.finditer(r'([\w.-]+)="([^"]*)"', rest):
                found[match.group(1)] = match.group(2)
    return found


def pyproject_version() -> str:
    return str(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"])


def sh_blocks_after(text: str, heading: str) -> list[str]:
    section = text[text.index(heading):]
    following = re.search(r"\n#{1,3} ", section[len(heading):])
    if following:
        section = section[:len(heading) + following.start()]
    return re.findall(r"```sh\n(.*?)```", section, flags=re.S)


def commands(block: str) -> list[str]:
    """The block's commands: continuation lines joined, comments dropped."""
    joined = re.sub(r"\\\n\s*", " ", block)
    return [line.split("  #")[0].strip() for line in joined.splitlines()
            if line.strip() and not line.strip().startswith("#")]


# --- 16: no PyTorch index for what the image serves; fail fast, naming the index; the commands complete ------


def test_no_index_is_asked_for_every_package_and_pytorchs_for_torch_alone() -> None:
    build_args = args(build_stage())
    assert build_args["PIP_EXTRA_INDEX_URL"] == "", "an extra index is asked for every package pip installs"
    assert PYTORCH_INDEX in build_args["TORCH_INDEX_URL"]
    for lock in LOCKS:
        text = lock.read_text(encoding="utf-8")
        assert PYTORCH_INDEX not in text
        assert not re.search(r"^\s*(-i|-f|--index-url|--extra-index-url|--find-links)\b", text, flags=re.M), lock
    # PyTorch's index appears once, as TORCH_INDEX_URL's default, and reaches torch's install only.
    assert DOCKERFILE.read_text(encoding="utf-8").count(PYTORCH_INDEX) == 1
    installs = [step for step in steps(install_run()) if " install " in step]
    torch_installs = [step for step in installs if "torch_from" in step]
    assert len(torch_installs) == 1 and "--requirement requirements/torch.lock" in torch_installs[0]
    (runtime,) = [step for step in installs if "/opt/venv/bin/python install" in step]
    assert "--requirement requirements/runtime-image.lock" in runtime
    for step in installs:
        if step not in torch_installs:
            assert "index-url" not in step and "torch_from" not in step, step
    (choice,) = [step for step in steps(install_run()) if "torch_from=" in step]
    assert "/wheels/torch-" in choice and "--no-index" in choice, "a torch wheel on disk must not ask an index"


def test_the_lock_split_keeps_every_package_once() -> None:
    """The build splits requirements/build.lock into torch and the rest: every pin lands in exactly one."""
    (pick,) = [step for step in steps(install_run()) if step.startswith("pick()")]
    program = re.search(r"'(.*)'", pick)
    assert program is not None
    build_lock = (ROOT / "requirements" / "build.lock").read_text(encoding="utf-8")

    def run_pick(keep: int, names: str, text: str) -> set[str]:
        proc = subprocess.run(["awk", "-v", f"names= {names} ", "-v", f"keep={keep}", program.group(1)],
                              input=text, capture_output=True, text=True, check=True)
        return {line.split("==")[0] for line in proc.stdout.splitlines() if re.match(r"[a-z0-9]", line)}

    pins = {line.split("==")[0] for line in build_lock.splitlines() if re.match(r"[a-z0-9]", line)}
    torch, rest = run_pick(1, "torch", build_lock), run_pick(0, "torch", build_lock)
    assert torch == {"torch"} and rest == pins - {"torch"}
    runtime_lock = (ROOT / "requirements" / "runtime.lock").read_text(encoding="utf-8")
    runtime_pins = {line.split("==")[0] for line in runtime_lock.splitlines() if re.match(r"[a-z0-9]", line)}
    (runtime_pick,) = [step for step in steps(install_run()) if "requirements/runtime-image.lock" in step
                       and step.startswith("pick ")]
    names = re.search(r'pick 0 "([^"]+)"', runtime_pick)
    assert names is not None and set(names.group(1).split()) == HUB_CLIENT
    assert run_pick(0, names.group(1), runtime_lock) == runtime_pins - HUB_CLIENT


def test_pip_fails_fast_and_each_index_is_checked_before_pip_runs() -> None:
    build_env = env(build_stage())
    assert int(build_env["PIP_RETRIES"]) <= 1, "pip's default retries an unreachable index 5 times per package"
    assert 0 < int(build_env["PIP_TIMEOUT"]) <= 30
    assert ("COPY", "scripts/check-package-indexes.py ./scripts/") in build_stage()
    run_steps = steps(install_run())
    (check,) = [i for i, step in enumerate(run_steps) if "scripts/check-package-indexes.py" in step]
    first_pip = min(i for i, step in enumerate(run_steps) if " install " in step)
    assert check < first_pip
    assert '"${indexes[@]}"' in run_steps[check]
    assert "TORCH_INDEX_URL" in " ".join(run_steps[:check]) and "PIP_INDEX_URL" in " ".join(run_steps[:check])
    assert "scripts/check-package-indexes.py" in {
        p.strip().lstrip("!") for p in DOCKERIGNORE.read_text(encoding="utf-8").splitlines()}


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def run_index_check(*names: str, **values: str) -> tuple[subprocess.CompletedProcess[str], float]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "TORCH_"))}
    environ.update(values, INDEX_CHECK_TIMEOUT="5", NO_PROXY="127.0.0.1", no_proxy="127.0.0.1")
    started = time.monotonic()
    proc = subprocess.run([sys.executable, str(INDEX_CHECK), *names], env=environ, capture_output=True, text=True,
                          timeout=60)
    return proc, time.monotonic() - started


def test_an_unreachable_index_fails_at_once_naming_it_and_not_its_password() -> None:
    port = closed_port()
    proc, took = run_index_check("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "TORCH_INDEX_URL",
                                 PIP_INDEX_URL="https://pypi.org/simple",
                                 TORCH_INDEX_URL=f"http://builder:s3cret@127.0.0.1:{port}/whl/cpu")
    assert proc.returncode == 1, proc.stderr
    assert took < 10
    (line,) = [line for line in proc.stderr.splitlines() if "unreachable" in line]
    assert f"TORCH_INDEX_URL=http://builder:***@127.0.0.1:{port}/whl/cpu" in line
    assert "refused" in line.lower() and "wheels" in line  # why, and what to do
    assert "s3cret" not in proc.stderr + proc.stdout


class _Index(http.server.BaseHTTPRequestHandler):
    statuses: dict[str, int] = {}
    seen: list[tuple[str, str | None]] = []

    def do_GET(self) -> None:  # noqa: N802 - the http.server API
        self.seen.append((self.path, self.headers.get("Authorization")))
        status = next((code for prefix, code in self.statuses.items() if self.path.startswith(prefix)), 404)
        self.send_response(status)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def index_server() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Index)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_an_index_that_answers_passes_and_one_that_refuses_the_build_fails(index_server: str) -> None:
    _Index.statuses = {"/ok/": 200, "/missing/": 404, "/private/": 401, "/down/": 503}
    _Index.seen = []
    proc, _ = run_index_check("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", PIP_INDEX_URL=f"{index_server}/ok/simple",
                              PIP_EXTRA_INDEX_URL=f"{index_server}/missing/simple  http://u:p@{index_server[7:]}/ok/x")
    assert proc.returncode == 0, proc.stderr
    assert ("/ok/simple/numpy/", None) in _Index.seen
    assert ("/ok/x/numpy/", "Basic dTpw") in _Index.seen  # credentials from the URL, sent as pip would
    for path, why in (("/private/simple", "HTTP 401"), ("/down/simple", "HTTP 503")):
        proc, _ = run_index_check("PIP_INDEX_URL", PIP_INDEX_URL=f"{index_server}{path}")
        assert proc.returncode == 1 and why in proc.stderr and "PIP_INDEX_URL" in proc.stderr
    proc, _ = run_index_check("TORCH_INDEX_URL", TORCH_INDEX_URL=f"{index_server}/ok/whl")
    assert proc.returncode == 0 and ("/ok/whl/torch/", None) in _Index.seen
    proc, _ = run_index_check("PIP_EXTRA_INDEX_URL", "TORCH_INDEX_URL")  # unset: nothing to ask
    assert proc.returncode == 0 and "unreachable" not in proc.stderr


def test_the_commands_without_docker_hub_are_complete_as_printed() -> None:
    text = README.read_text(encoding="utf-8")
    block = sh_blocks_after(text, "### Without Docker Hub")[0]
    lines = commands(block)
    assert lines[0].startswith("apt-get update"), "a fresh machine has no package lists"
    (install,) = [line for line in lines if "apt-get install" in line]
    assert {"debootstrap", "buildah", "podman", "runc"} <= set(shlex.split(install.split("apt-get install")[1]))
    assigned = {m.group(1) for line in lines for m in re.finditer(r"(?:^|\s)([A-Z_]+)=", line)}
    used = {m.group(1) for line in lines for m in re.finditer(r"\$\{?([A-Z_]+)", line)}
    assert used <= assigned, f"set nowhere in the block: {used - assigned}"
    for script in {word for line in lines for word in shlex.split(line) if word.startswith("scripts/")}:
        assert os.access(ROOT / script, os.X_OK), script
    (build,) = [line for line in lines if "scripts/build-image.sh" in line]
    tag = shlex.split(build)[-1]
    assert "PIP_EXTRA_INDEX_URL" not in build, "the build must work without turning an index off"
    (run,) = [line for line in lines if " run " in line and line.startswith("podman")]
    assert "--storage-driver vfs" in run, "the image is in the vfs store the build wrote"
    assert f"localhost/{tag}" in run and "--runtime runc" in run
    assert any("curl" in line and "localhost:8080/readyz" in line for line in lines)


# --- 17: what podman runs with is installed -------------------------------------------------------------------


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_documented_container_runtime_is_installed_by_the_documented_line(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    installs = [line for line in text.splitlines() if "apt-get install" in line]
    for runtime in ("runc", "crun"):
        if f"--runtime {runtime}" in text:
            assert any(re.search(rf"\b{runtime}\b", line) for line in installs), (doc.name, runtime)
    if "podman" in " ".join(installs):
        assert any(re.search(r"\b(runc|crun)\b", line) for line in installs if "podman" in line)


# --- 19: labels, the base by digest, nothing unused or privileged in the final stage --------------------------


def test_the_image_carries_the_oci_labels_from_build_arguments() -> None:
    final = final_stage()
    found = labels(final)
    expected = {"version": "${VERSION}", "revision": "${REVISION}", "source": "${SOURCE}", "created": "${CREATED}",
                "base.name": "${BASE_IMAGE}", "base.digest": "${BASE_DIGEST}"}
    for key, value in expected.items():
        assert found.get(f"org.opencontainers.image.{key}") == value, key
    final_args = args(final)
    assert final_args["VERSION"] == pyproject_version()
    assert {"REVISION", "SOURCE", "CREATED", "BASE_IMAGE", "BASE_DIGEST"} <= set(final_args)
    # The labels come last, so a new commit does not rebuild the layers before them.
    assert final[-1][0] == "LABEL"
    script = BUILD_SCRIPT.read_text(encoding="utf-8")
    for name in ("VERSION", "REVISION", "SOURCE", "CREATED", "BASE_DIGEST", "TORCH_INDEX_URL"):
        assert re.search(rf"for name in [^;]*\b{name}\b", script, flags=re.S), name
    assert "git rev-parse HEAD" in script and "%Y-%m-%dT%H:%M:%SZ" in script


def test_the_base_image_is_pinned_by_digest_and_another_base_is_taken_as_named() -> None:
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", global_args()["BASE_DIGEST"])
    froms = [a for k, a in instructions() if k == "FROM" and not a.startswith("scratch ")]
    assert froms and all(a.startswith("${BASE_IMAGE}${BASE_DIGEST:+@${BASE_DIGEST}} AS ") for a in froms)
    script = BUILD_SCRIPT.read_text(encoding="utf-8")
    assert 'if [ -n "${BASE_IMAGE:-}" ] && [ -z "${BASE_DIGEST+set}" ]; then BASE_DIGEST=; fi' in script
    readme = README.read_text(encoding="utf-8")
    assert "BASE_DIGEST" in readme and "skopeo inspect" in readme  # how the digest is refreshed


def test_the_built_digest_rule_works_for_each_kind_of_base(tmp_path: Path) -> None:
    """scripts/build-image.sh's arguments, with a stand-in engine that prints them."""
    engine = tmp_path / "docker"
    engine.write_text("#!/bin/sh\nprintf '%s\\n' \"$@\"\n")
    engine.chmod(0o755)
    base_env = {k: v for k, v in os.environ.items() if k not in ("BASE_IMAGE", "BASE_DIGEST", "REVISION")}
    base_env.update(PATH=f"{tmp_path}:{os.environ['PATH']}", ENGINE="docker")

    def build_args(**extra: str) -> list[str]:
        proc = subprocess.run(["bash", str(BUILD_SCRIPT), "eksbot:t"], env={**base_env, **extra},
                              capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        words = proc.stdout.split()
        return [words[i + 1] for i, word in enumerate(words) if word == "--build-arg"]

    default = build_args()
    assert not [a for a in default if a.startswith(("BASE_IMAGE=", "BASE_DIGEST="))]  # the Dockerfile's pin
    assert f"VERSION={pyproject_version()}" in default
    assert any(re.fullmatch(r"REVISION=[0-9a-f]{40}(-dirty)?", a) for a in default)
    assert any(re.fullmatch(r"CREATED=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", a) for a in default)
    local = build_args(BASE_IMAGE="localhost/debian-bookworm-python")
    assert "BASE_IMAGE=localhost/debian-bookworm-python" in local and "BASE_DIGEST=" in local
    pinned = build_args(BASE_IMAGE="mirror.example/python:3.11-slim-bookworm", BASE_DIGEST="sha256:" + "a" * 64)
    assert "BASE_DIGEST=sha256:" + "a" * 64 in pinned
    assert "CREATED=1970-01-02T00:00:00Z" in build_args(SOURCE_DATE_EPOCH="86400")


def test_the_runtime_environment_leaves_out_the_hub_client() -> None:
    runtime_lock = (ROOT / "requirements" / "runtime.lock").read_text(encoding="utf-8")
    # Each package left out is there only for the Hub client (or another one left out).
    needed_by: dict[str, set[str]] = {}
    name = ""
    for line in runtime_lock.splitlines():
        if re.match(r"[a-z0-9]", line):
            name = line.split("==")[0]
            needed_by[name] = set()
        elif not re.fullmatch(r"\s+#\s+via\s*", line) and (
                match := re.fullmatch(r"\s+#\s+(?:via\s+)?([a-z0-9][a-z0-9._-]*)\s*", line)):
            needed_by[name].add(match.group(1))
    for package in HUB_CLIENT:
        assert needed_by[package] and needed_by[package] <= HUB_CLIENT | {"tokenizers"}, (package, needed_by[package])
    modules = {p.replace("-", "_") for p in HUB_CLIENT}
    for source in (ROOT / "bot").rglob("*.py"):
        text = source.read_text(encoding="utf-8")
        imports = set(re.findall(r"^\s*(?:from|import)\s+([A-Za-z_]\w*)", text, flags=re.M))
        assert not imports & modules, (source, imports & modules)
    # The build checks it: neither is importable in the runtime environment, and every module of bot imports.
    (check,) = [a for k, a in build_stage() if k == "RUN" and "find_spec" in a]
    assert "'huggingface_hub'" in check and "'hf_xet'" in check and "walk_packages(bot.__path__" in check
    assert "pkgutil.walk_packages" in check and "python -P -c" in check


def test_the_final_stage_has_no_setuid_files_and_no_package_tools() -> None:
    final = final_stage()
    runs = [a for k, a in final if k == "RUN"]
    (hardening,) = [run for run in runs if "-perm /6000" in run]
    assert "find / -xdev -type f -perm /6000 -exec chmod ug-s {} +" in hardening
    purges = [step.split()[1:] for step in steps(hardening) if step.startswith("dpkg --purge")]
    assert {"apt", "dpkg"} <= {word for words in purges for word in words if not word.startswith("-")}
    assert purges[-1][-1] == "dpkg", "dpkg goes last: it removes the others"
    assert 'test -z "$(find / -xdev -type f -perm /6000)"' in hardening  # checked in the build
    position = {instruction: i for i, instruction in enumerate(final)}
    (user,) = [i for i, (k, _) in enumerate(final) if k == "USER"]
    assert position[("RUN", hardening)] < user
    assert not [a for k, a in final[position[("RUN", hardening)] + 1:] if k == "RUN"], "nothing runs after it"


# --- 18: the service's log while the database is not ready ----------------------------------------------------


def database_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.name == "bot.api.routes.health" and r.levelno >= logging.WARNING]


@pytest.fixture
def services_starting(settings: Settings, fake_assistant: Assistant) -> Iterator[Services]:
    """The services while the database start-up still tries to open it (the database cannot be reached)."""
    database = Database(UNREACHABLE_DATABASE)
    built = Services.assemble(settings, fake_assistant, database,
                              startup=DatabaseStartup(database, migrate=False))
    yield built
    built.close()


def test_polls_of_database_readiness_during_start_up_log_no_warning(
    settings: Settings, services_starting: Services, caplog: pytest.LogCaptureFixture
) -> None:
    from bot.api import create_app

    client = TestClient(create_app(settings, services=services_starting))
    caplog.set_level(logging.DEBUG)
    for _ in range(5):
        response = client.get("/readyz/database")
        assert response.status_code == 503 and "not ready yet" in response.json()["reason"]
    assert database_warnings(caplog) == []  # the start-up logs its own failures, when their kind changes


def test_an_unreachable_database_is_one_warning_however_often_it_is_polled(
    settings: Settings, services_without_database: Services, caplog: pytest.LogCaptureFixture
) -> None:
    from bot.api import create_app

    client = TestClient(create_app(settings, services=services_without_database))
    for _ in range(5):
        assert client.get("/readyz/database").status_code == 503
    (warning,) = database_warnings(caplog)
    assert "Connection refused" in warning  # the details, for the operator


def test_a_database_that_stops_taking_writes_is_one_warning_not_one_per_poll(
    settings: Settings, services: Services, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.api import create_app

    client = TestClient(create_app(settings, services=services))
    assert client.get("/readyz/database").status_code == 200
    original = services.database.check

    def failing() -> None:
        raise StorageUnavailableError("database unavailable", "connection to server at 10.0.0.5 failed")

    caplog.set_level(logging.INFO)
    monkeypatch.setattr(services.database, "check", failing)
    for _ in range(5):
        assert client.get("/readyz/database").status_code == 503
    assert len(database_warnings(caplog)) == 1
    monkeypatch.setattr(services.database, "check", original)
    assert client.get("/readyz/database").status_code == 200
    assert "database ready again" in caplog.text
    monkeypatch.setattr(services.database, "check", failing)
    for _ in range(3):
        assert client.get("/readyz/database").status_code == 503
    assert len(database_warnings(caplog)) == 2  # a new outage is told again
