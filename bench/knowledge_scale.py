"""The service with today's knowledge against the same service with about 10,000 sections of team docs, in
one run: index build time, time from a changed document to its first answer, memory and answer latency.

    .venv/bin/python bench/knowledge_scale.py [--sections 10000] [--quick] [--profile]

Two knowledge directories are made in a temporary directory: `today` (knowledge/ as shipped: the quiz) and
`scaled` (the same and `--sections` sections of synthetic team docs, about 67 sections a doc). The docs are
generated deterministically (`--seed`) to look like a team wiki: "Runbook: <service> on <cluster>" and the
like, headings at levels 2-4, paragraphs of 2-5 sentences made by a word chain over the prose of knowledge/
and tests/docs (so their words are the domain's), generated identifiers (`svc-ab12`, environment variables,
numbers), yaml and bash blocks of 5-20 lines, tables of 3-6 rows and lists; about one doc in ten in Spanish.

Per knowledge, with the same backend (EKSBOT_EMBEDDING_BACKEND, default onnx) and settings (SQLite in a
temporary data dir, no Slack, rate limit off, a look for changed files every EKSBOT_KNOWLEDGE_REFRESH_SECONDS,
default 0.5):

1. `eksbot index build` wall time into a fresh index dir (the model's ONNX export is made once beforehand
   and copied in, so the figure is the index's own);
2. both servers started (the serving install, .venv-runtime, when there is one); answer p50 and p90 of a
   fixed list of questions (held-out questions and a few about the synthetic docs), sequential keep-alive
   requests, the two servers alternating question by question, after a warm-up;
3. RSS (VmRSS) of each server once it has answered them, and again after `--spread` more questions, each about
   another section of the synthetic docs (what a replica in service is asked over days: whatever an answer
   keeps per page or section shows there, not in the timed list, which touches a few pages);
4. changed document to first answer: with the server running, a new section holding a unique fact is
   written into a doc (`scaled`: an existing synthetic doc; `today`: a new doc, as the quiz files are in the
   quiz format) and the question only it answers is asked every 0.1 s until the answer cites it; the median
   of `--trials`, with the server's own "knowledge reloaded" seconds from its JSON log. Then RSS and peak
   RSS (VmHWM: the old and the new index live together while a refresh runs).

`--profile` samples the scaled server with py-spy (`pip install py-spy`) during one more change and prints
where the refresh spends its time. Targets (the product's requirements), at the scaled size: a changed
document answered within 2 s; answer p50 at most 2x today's; RSS at most +150 MB over today's (after the timed
questions, and after the spread ones). The machine
may be shared: the ratios of one run mean more than absolute times.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from http.client import HTTPConnection, RemoteDisconnected
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import (  # noqa: E402
    ROOT,
    LogTail,
    percentile,
    proc_status_mb,
    start_logged_server,
    stop_server,
)

DEV_EKSBOT = Path(sys.executable).parent / "eksbot"
RUNTIME_EKSBOT = ROOT / ".venv-runtime" / "bin" / "eksbot"
HOLDOUT = ROOT / "tests" / "eval" / "holdout.jsonl"
SECTIONS_PER_DOC = 67
SYNTHETIC_FOLDER = "team-docs"
REFRESH_TARGET_S = 2.0
P50_RATIO_TARGET = 2.0
RSS_TARGET_MB = 150.0
TRIAL_TIMEOUT_S = 300.0
POLL_S = 0.1


# -- synthetic team docs ------------------------------------------------------------------------------

_FENCE = re.compile(r"^\s*(```|~~~)")
_WORD = re.compile(r"\S+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z¿¡`])")
_BACKTICKED = re.compile(r"`([^`\s]{3,40})`")
_TERM = re.compile(r"\b(?:[A-Z][a-z]+[A-Z][A-Za-z0-9]*|[A-Z]{2,}[A-Za-z0-9-]*|[A-Z][a-z]+-[A-Z0-9][\w-]*)\b")

SERVICES = ("trainer-api", "feature-store", "checkpoint-sync", "dataset-loader", "eval-runner", "model-registry",
            "inference-gateway", "gpu-scheduler", "metrics-exporter", "notebook-hub", "label-service",
            "artifact-cache", "sweep-controller", "token-service", "embedding-indexer", "batch-scorer")
TEAMS = ("nlp", "vision", "speech", "ranking", "platform", "research", "ads", "search", "safety", "recsys")
ENVS = ("prod", "stg", "dev")
REGIONS = ("usw2", "use1", "euw1", "apse1", "euc1")
DOC_KINDS = ("Runbook: {service} on {cluster}", "Runbook: {service} on {cluster}", "Runbook: {service} on {cluster}",
             "Service guide: {service} ({team})", "Operations: {service} in {cluster}",
             "Onboarding to {service} for team {team}", "Postmortem notes: {service} on {cluster}")
CHAPTERS = ("Overview", "Architecture", "Deploying {service}", "Configuration", "Scaling", "Monitoring and alerts",
            "Troubleshooting", "Rollback", "On-call", "Capacity planning", "Security and access", "Cost",
            "Data retention", "Dependencies", "Upgrades", "Disaster recovery", "Quotas", "Networking",
            "Storage", "Known issues")
SUBSECTIONS = ("Alert: {term} above {n}%", "Restarting {term}", "{term} configuration", "Checking {term} logs",
               "Draining nodes of {nodegroup}", "Rotating the {term} credentials", "Known issue: {term} timeouts",
               "Tuning {term}", "When {term} is Pending", "Moving {service} to {cluster}", "Limits for {term}",
               "{term} on {nodegroup}", "Upgrading {term} to {version}", "Dashboards for {term}",
               "Requesting more {term}", "Runbook step {n}: {term}", "Why {term} fails on {cluster}")
DETAILS = ("Example", "Verification", "Step {n}", "Expected output", "Caveats", "Manual fallback",
           "Who to page", "Clean-up", "Before you start", "Commands")
SPANISH_CHAPTERS = ("Resumen", "Arquitectura", "Despliegue de {service}", "Configuración", "Escalado",
                    "Monitorización y alertas", "Resolución de problemas", "Marcha atrás", "Guardias",
                    "Capacidad", "Seguridad y acceso", "Costes", "Retención de datos", "Dependencias",
                    "Actualizaciones", "Recuperación ante desastres", "Cuotas", "Red", "Almacenamiento")
SPANISH_SUBSECTIONS = ("Alerta: {term} por encima del {n}%", "Reiniciar {term}", "Configuración de {term}",
                       "Revisar los logs de {term}", "Vaciar los nodos de {nodegroup}", "Rotar credenciales de {term}",
                       "Problema conocido: {term}", "Ajustar {term}", "Cuando {term} queda en Pending",
                       "Mover {service} a {cluster}", "Límites de {term}", "Paso {n}: {term}")
SPANISH_DETAILS = ("Ejemplo", "Verificación", "Paso {n}", "Salida esperada", "Advertencias", "A quién avisar",
                   "Limpieza", "Antes de empezar", "Comandos")


@dataclass
class Vocabulary:
    """Words and phrases of the real knowledge: a word chain per language, technical terms, identifiers."""

    chains: dict[str, dict[tuple[str, str], list[str]]]
    starts: dict[str, list[tuple[str, str]]]
    originals: dict[str, set[str]]
    lengths: dict[str, list[int]]  # words of each source sentence
    terms: list[str]
    identifiers: list[str]

    @classmethod
    def of(cls, files: list[Path]) -> Vocabulary:
        chains: dict[str, dict[tuple[str, str], list[str]]] = {"en": {}, "es": {}}
        starts: dict[str, list[tuple[str, str]]] = {"en": [], "es": []}
        originals: dict[str, set[str]] = {"en": set(), "es": set()}
        lengths: dict[str, list[int]] = {"en": [], "es": []}
        terms: Counter[str] = Counter()
        identifiers: Counter[str] = Counter()
        for path in files:
            lang = "es" if ".es." in path.name else "en"
            for sentence in _prose_sentences(path.read_text(encoding="utf-8")):
                words = _WORD.findall(sentence)
                terms.update(t for t in _TERM.findall(sentence) if len(t) <= 30)
                identifiers.update(_BACKTICKED.findall(sentence))
                lengths[lang].append(len(words))
                if len(words) < 6:
                    continue
                originals[lang].add(sentence)
                starts[lang].append((words[0], words[1]))
                chain = chains[lang]
                for a, b, c in zip(words, words[1:], [*words[2:], ""], strict=False):
                    chain.setdefault((a, b), []).append(c)
        return cls(chains, starts, originals, lengths, [t for t, n in terms.most_common() if n >= 2],
                   [i for i, n in identifiers.most_common() if n >= 1])

    def sentence(self, rng: random.Random, lang: str) -> str:
        """A sentence from the word chain, as long as a source sentence drawn at random (6-30 words), not a
        copy of one of the sources."""
        chain = self.chains[lang]
        for _ in range(20):
            a, b = rng.choice(self.starts[lang])
            words = [a, b]
            length = min(30, max(6, rng.choice(self.lengths[lang])))
            while len(words) < length:
                following = chain.get((words[-2], words[-1]))
                if not following:
                    break
                nxt = rng.choice(following)
                if not nxt:
                    break
                words.append(nxt)
                if nxt.endswith((".", "?", "!")) and len(words) >= 6:
                    break
            text = " ".join(words)
            if len(words) >= 6 and text not in self.originals[lang] and text.count("`") % 2 == 0 and (
                    text.count("(") == text.count(")")):
                return text if text.endswith((".", "?", "!", ":")) else text.rstrip(",;:") + "."
        return text.rstrip(",;:") + "."


def _prose_sentences(text: str) -> list[str]:
    """The sentences of a Markdown file's prose: no front matter, code, tables, headings, options or markup."""
    lines = text.split("\n")
    if lines and lines[0].strip() in ("---", "+++"):
        end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "+++", "...")), 0)
        lines = lines[end + 1:]
    prose: list[str] = []
    paragraph: list[str] = []
    fenced = False
    for line in lines:
        if _FENCE.match(line):
            fenced = not fenced
            continue
        stripped = line.strip()
        skip = (fenced or not stripped or stripped.startswith(("#", "|", "<", "import ", "export ", ":::", "{{", "!"))
                or re.match(r"^[-*]\s+[A-D]\)", stripped) or re.match(r"^(Answer|Respuesta|Topic|Tema):", stripped))
        if skip:
            if paragraph:
                prose.append(" ".join(paragraph))
                paragraph = []
            continue
        paragraph.append(re.sub(r"^(?:[-*]|\d+\.)\s+", "", stripped))
    if paragraph:
        prose.append(" ".join(paragraph))
    out: list[str] = []
    for block in prose:
        block = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", block)  # links keep their text
        block = re.sub(r"^(Explanation|Explicación):\s*", "", block)
        out.extend(s.strip() for s in _SENTENCE_END.split(block) if s.strip())
    return out


@dataclass
class DocPlan:
    path: Path
    title: str
    service: str
    cluster: str
    lang: str
    headings: list[str] = field(default_factory=list)


class DocWriter:
    """One synthetic doc, section by section."""

    def __init__(self, vocab: Vocabulary, rng: random.Random, lang: str, service: str, cluster: str,
                 team: str) -> None:
        self.vocab, self.rng, self.lang = vocab, rng, lang
        self.service, self.cluster, self.team = service, cluster, team
        self.nodegroup = f"{cluster.split('-')[2]}-gpu-{rng.choice(('p4d', 'p5', 'g5', 'trn1'))}-train-" \
                         f"{rng.choice('abc')}"
        self.prefix = team.upper()

    def ident(self) -> str:
        rng = self.rng
        kind = rng.randrange(6)
        if kind == 0:
            letters = "abcdefghkmnpqrstuvwxyz"
            return f"svc-{rng.choice(letters)}{rng.choice(letters)}{rng.randrange(10, 99)}"
        if kind == 1:
            return f"{self.prefix}_{rng.choice(('MAX', 'MIN', 'DEFAULT', 'GPU', 'NCCL', 'FSX', 'S3'))}_" \
                   f"{rng.choice(('RETRIES', 'TIMEOUT', 'WORKERS', 'BUCKET', 'PATH', 'REPLICAS', 'BATCH'))}"
        if kind == 2:
            return rng.choice(self.vocab.identifiers)
        if kind == 3:
            return f"{self.service}-{rng.randrange(1000, 9999)}"
        if kind == 4:
            return f"{rng.randrange(2, 512)}{rng.choice(('Gi', 'Mi', 'ms', 's', 'm', '%', ' GPUs', ' nodes'))}"
        return self.cluster

    def term(self) -> str:
        return self.rng.choice(self.vocab.terms[:400]) if self.rng.random() < 0.7 else self.service

    def fill(self, template: str) -> str:
        return template.format(service=self.service, cluster=self.cluster, team=self.team, term=self.term(),
                               nodegroup=self.nodegroup, n=self.rng.randrange(2, 95),
                               version=f"{self.rng.randrange(1, 4)}.{self.rng.randrange(0, 30)}")

    def sentence(self) -> str:
        text = self.vocab.sentence(self.rng, self.lang)
        if self.rng.random() < 0.35:  # a team's own names in the middle of the domain's words
            words = text.split(" ")
            at = self.rng.randrange(1, len(words))
            words.insert(at, f"`{self.ident()}`" if self.rng.random() < 0.7 else self.service)
            text = " ".join(words)
        return text

    def paragraph(self) -> str:
        return " ".join(self.sentence() for _ in range(self.rng.randint(2, 5)))

    def code(self) -> str:
        rng = self.rng
        lines = rng.randint(5, 20)
        if rng.random() < 0.5:
            body = [f"apiVersion: {rng.choice(('apps/v1', 'batch/v1', 'kubeflow.org/v1', 'v1'))}",
                    f"kind: {rng.choice(('Deployment', 'Job', 'PyTorchJob', 'ConfigMap', 'ResourceQuota'))}",
                    "metadata:", f"  name: {self.service}-{rng.randrange(100, 999)}", f"  namespace: team-{self.team}",
                    "spec:"]
            while len(body) < lines:
                key = re.sub(r"[^A-Za-z0-9]", "", self.term())[:20] or "replicas"
                value = self.ident()
                body.append(f"  {key[0].lower()}{key[1:]}: \"{value}\"")
            return "```yaml\n" + "\n".join(body[:lines]) + "\n```"
        body = []
        commands = (f"kubectl -n team-{self.team} get pods -l app={self.service} -o wide",
                    f"kubectl -n team-{self.team} rollout restart deployment/{self.service}",
                    f"kubectl -n team-{self.team} logs deploy/{self.service} --since=1h | grep -i error",
                    f"aws eks update-kubeconfig --name {self.cluster} --region us-west-2",
                    f"kubectl describe node -l acme.io/pool={self.nodegroup}",
                    f"helm upgrade {self.service} charts/{self.service} -f values-{self.cluster}.yaml",
                    f"aws s3 ls s3://acme-{self.team}-{self.service}/ --recursive | tail",
                    f"kubectl top pods -n team-{self.team} --sort-by=memory",
                    f"kubectl cordon {self.nodegroup}-{rng.randrange(10, 99)}")
        while len(body) < lines:
            if rng.random() < 0.3:
                body.append(f"export {self.prefix}_{rng.choice(('TIMEOUT', 'WORKERS', 'RETRIES'))}="
                            f"{rng.randrange(1, 600)}")
            else:
                body.append(rng.choice(commands))
        return "```bash\n" + "\n".join(body) + "\n```"

    def table(self) -> str:
        rng = self.rng
        headers = rng.choice((("Setting", "Default", "Notes"), ("Alert", "Threshold", "Action"),
                              ("Node group", "Instance", "Min / max"), ("Component", "Owner", "Dashboard")))
        if self.lang == "es":
            headers = rng.choice((("Ajuste", "Valor", "Notas"), ("Alerta", "Umbral", "Acción")))
        rows = [f"| {' | '.join(headers)} |", "|" + "---|" * len(headers)]
        for _ in range(rng.randint(3, 6)):
            rows.append(f"| `{self.ident()}` | {self.ident()} | {' '.join(self.sentence().split()[:8])} |")
        return "\n".join(rows)

    def bullets(self) -> str:
        return "\n".join(f"- {self.sentence()}" for _ in range(self.rng.randint(3, 6)))

    def body(self) -> str:
        parts = [self.paragraph()]
        roll = self.rng.random()
        if roll < 0.25:
            parts.append(self.code())
        elif roll < 0.40:
            parts.append(self.table())
        elif roll < 0.55:
            parts.append(self.bullets())
        if self.rng.random() < 0.35:
            parts.append(self.paragraph())
        return "\n\n".join(parts)


def write_synthetic_docs(directory: Path, sections: int, seed: int) -> list[DocPlan]:
    """About `sections` sections in docs of about 67 each (the intro counts as one), written into
    `directory`; deterministic for a seed."""
    sources = sorted([*(ROOT / "knowledge").glob("*.md"), *(ROOT / "tests" / "docs").rglob("*.md"),
                      *(ROOT / "tests" / "docs").rglob("*.mdx")])
    vocab = Vocabulary.of([p for p in sources if p.stem.split(".")[0].upper() not in ("README", "SOURCES")])
    rng = random.Random(seed)
    docs = max(1, round(sections / SECTIONS_PER_DOC))
    directory.mkdir(parents=True, exist_ok=True)
    plans: list[DocPlan] = []
    for d in range(docs):
        count = sections // docs + (1 if d < sections % docs else 0)
        lang = "es" if d % 10 == 9 else "en"
        team = rng.choice(TEAMS)
        service = rng.choice(SERVICES)
        cluster = f"{team}-ml-{rng.choice(ENVS)}-{rng.choice(REGIONS)}"
        title = rng.choice(DOC_KINDS).format(service=service, cluster=cluster, team=team)
        if lang == "es":
            title = f"Runbook: {service} en {cluster}"
        writer = DocWriter(vocab, rng, lang, service, cluster, team)
        plan = DocPlan(directory / f"{team}-{service}-{d:03d}{'.es' if lang == 'es' else ''}.md", title, service,
                       cluster, lang)
        chapters, subsections, details = ((SPANISH_CHAPTERS, SPANISH_SUBSECTIONS, SPANISH_DETAILS) if lang == "es"
                                          else (CHAPTERS, SUBSECTIONS, DETAILS))
        out = ["---", f"title: \"{title}\"", f"owner: team-{team}", f"lang: {lang}",
               f"last_reviewed: 2026-{rng.randrange(1, 12):02d}-{rng.randrange(1, 28):02d}", "---", "",
               f"# {title}", "", writer.paragraph(), ""]
        written = 1
        level = 2
        while written < count:
            if level == 2 or rng.random() < 0.15:
                heading = writer.fill(rng.choice(chapters))
                level = 2
            elif level >= 3 and rng.random() < 0.3:
                heading = writer.fill(rng.choice(details))
                level = 4
            else:
                heading = writer.fill(rng.choice(subsections))
                level = 3
            out += [f"{'#' * level} {heading}", "", writer.body(), ""]
            plan.headings.append(heading)
            written += 1
            level = 3 if level == 2 else level
            if level == 4 and rng.random() < 0.5:
                level = 3
        plan.path.write_text("\n".join(out), encoding="utf-8")
        plans.append(plan)
    return plans


def count_sections(directory: Path) -> tuple[int, int]:
    """(sections of Markdown docs, quiz questions of every edition) as the product loads them."""
    from bot.knowledge import load_knowledge

    knowledge = load_knowledge(directory)
    docs = sum(len(d.questions) for d in knowledge.documents if d.kind == "doc")
    quiz = sum(len(d.questions) for d in knowledge.documents if d.kind != "doc")
    return docs, quiz


# -- the questions ------------------------------------------------------------------------------------

def question_list(plans: list[DocPlan], size: int = 40, synthetic: int = 6) -> list[str]:
    """Held-out questions spread over the file, and a few about the synthetic docs (the same list for both)."""
    lines = [json.loads(line) for line in HOLDOUT.read_text(encoding="utf-8").splitlines() if line.strip()]
    step = max(1, len(lines) // (size - synthetic))
    held = [line["q"] for line in lines[::step]][: size - synthetic]
    english = [p for p in plans if p.lang == "en"]
    about = []
    for i in range(min(synthetic, len(english))):
        plan = english[(i * 7) % len(english)]
        heading = plan.headings[(i * 11) % len(plan.headings)]
        about.append(f"{heading.rstrip('.')}: what do I do for {plan.service} on {plan.cluster}?")
    return held + about


def spread_questions(plans: list[DocPlan], count: int) -> list[str]:
    """`count` questions about the synthetic docs, each about another section, spread over every doc: what a
    replica in service is asked over days (the timed list touches a few pages only)."""
    if not plans or count <= 0:
        return []
    out = []
    for i in range(count):
        plan = plans[i % len(plans)]
        heading = plan.headings[(i // len(plans) * 7 + i) % len(plan.headings)]
        out.append(f"{heading.rstrip('.')}: what should I check for {plan.service} on {plan.cluster}?")
    return out


# -- the servers --------------------------------------------------------------------------------------

@dataclass
class Figures:
    sections: int = 0
    quiz: int = 0
    chunks: int = 0
    build_wall: float = float("nan")
    build_manifest: float = float("nan")
    sentences: int = 0
    cold_start: float = float("nan")
    latencies: list[float] = field(default_factory=list)
    answered: int = 0
    rss: float = float("nan")  # MB
    refresh: list[float] = field(default_factory=list)  # s, file written to first answer citing it
    reloaded: list[float] = field(default_factory=list)  # s, the server's "knowledge reloaded"
    refresh_failures: int = 0
    rss_spread: float = float("nan")  # MB, after the spread questions too
    rss_after: float = float("nan")
    peak: float = float("nan")


class Client:
    """One keep-alive HTTP connection (the standard library's: a light client, so the figure is the server's)."""

    def __init__(self, base: str) -> None:
        host, port = base.removeprefix("http://").split(":")
        self.connection = HTTPConnection(host, int(port), timeout=120)

    def query(self, question: str) -> dict[str, object]:
        try:
            return self._query(question)
        except (ConnectionError, RemoteDisconnected):  # the server closed the idle keep-alive connection
            self.connection.close()
            return self._query(question)

    def _query(self, question: str) -> dict[str, object]:
        self.connection.request("POST", "/v1/query", body=json.dumps({"question": question}),
                                headers={"content-type": "application/json"})
        response = self.connection.getresponse()
        body = response.read()
        if response.status != 200:
            raise RuntimeError(f"POST /v1/query: {response.status} {body[:200]!r}")
        return dict(json.loads(body))

    def chunks(self) -> int:
        self.connection.close()  # a new connection: the last one may have been idle for long
        self.connection.request("GET", "/metrics")
        response = self.connection.getresponse()
        text = response.read().decode()
        found = re.search(r"^eksbot_index_chunks(?:\{[^}]*\})?\s+([\d.e+]+)", text, re.M)
        return int(float(found.group(1))) if found else -1

    def close(self) -> None:
        self.connection.close()


def server_env(knowledge: Path, index: Path, data: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SLACK_") and k not in ("DATABASE_URL", "EKSBOT_DATABASE_URL", "EKSBOT_API_TOKENS")}
    env.update({"EKSBOT_KNOWLEDGE_DIR": str(knowledge), "EKSBOT_INDEX_DIR": str(index), "EKSBOT_DATA_DIR": str(data),
                "EKSBOT_AUTO_REBUILD": "false", "EKSBOT_RATE_LIMIT": "0", "EKSBOT_LOG_FORMAT": "json",
                "EKSBOT_LOG_LEVEL": "INFO"})
    return env


def build(eksbot: Path, knowledge: Path, index: Path, export_from: Path, figures: Figures,
          reuse: bool = False) -> None:
    """`eksbot index build` into a fresh index dir holding only the model's export. `reuse`: an index
    already there (an earlier run's, kept) is used as it is, its build figures those of its manifest (the
    server refuses it if it does not fit the knowledge or the code)."""
    if reuse and (index / "manifest.json").exists():
        manifest = json.loads((index / "manifest.json").read_text())
        figures.build_wall = figures.build_manifest = float(manifest["build_seconds"])
        figures.sentences = int(manifest["sentences"])
        return
    shutil.rmtree(index, ignore_errors=True)
    index.mkdir(parents=True)
    for export in export_from.glob("onnx*"):
        shutil.copytree(export, index / export.name)
    env = server_env(knowledge, index, index.parent / "unused-data")
    started = time.perf_counter()
    subprocess.run([str(eksbot), "index", "build"], env=env, check=True, capture_output=True, timeout=3600)
    figures.build_wall = time.perf_counter() - started
    manifest = json.loads((index / "manifest.json").read_text())
    figures.build_manifest = float(manifest["build_seconds"])
    figures.sentences = int(manifest["sentences"])


@dataclass
class Change:
    """One new section with a unique fact, and the question only it answers."""

    number: int
    day: str
    hour: int

    @property
    def heading(self) -> str:
        return f"Maintenance window {self.number}"

    @property
    def section(self) -> str:
        return (f"\n## {self.heading}\n\nThe maintenance window of cluster zeta-{self.number} starts every "
                f"{self.day} at {self.hour:02d}:00 UTC.\n")

    @property
    def question(self) -> str:
        return f"When does the maintenance window of cluster zeta-{self.number} start?"


def changes(count: int, seed: int) -> list[Change]:
    rng = random.Random(seed * 7919)
    numbers = rng.sample(range(1000, 9999), count)
    days = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
    return [Change(n, rng.choice(days), rng.randrange(0, 24)) for n in numbers]


def write_change(knowledge: Path, change: Change, target: Path | None) -> float:
    """Write the section (into `target`, or as a new doc) in one step (a rename); the time it was written."""
    if target is None:
        target = knowledge / f"maintenance-{change.number}.md"
        text = f"# Maintenance notes {change.number}\n" + change.section
    else:
        text = target.read_text(encoding="utf-8").rstrip("\n") + "\n" + change.section
    staging = target.parent / f".{target.name}.partial"
    staging.write_text(text, encoding="utf-8")
    written = time.perf_counter()
    os.replace(staging, target)
    return written


def wait_for_answer(client: Client, change: Change, written: float) -> float | None:
    """Seconds from the write to the first answer citing the new section (None: not within the timeout)."""
    while time.perf_counter() - written < TRIAL_TIMEOUT_S:
        asked = time.perf_counter()
        answer = client.query(change.question)
        citations = answer.get("citations") or []
        assert isinstance(citations, list)
        if answer.get("answered") and any(str(c.get("section", "")).endswith(change.heading) for c in citations):
            return time.perf_counter() - written
        time.sleep(max(0.0, POLL_S - (time.perf_counter() - asked)))
    return None


def reloads(log: LogTail) -> list[float]:
    return [float(str(line["seconds"])) for line in log.json_lines() if line.get("msg") == "knowledge reloaded"]


def refresh_trials(name: str, client: Client, log: LogTail, knowledge: Path, targets: list[Path | None],
                   trials: list[Change], figures: Figures) -> None:
    log.json_lines()  # what the log holds so far is not about these changes
    for change, target in zip(trials, targets, strict=True):
        written = write_change(knowledge, change, target)
        seconds = wait_for_answer(client, change, written)
        if seconds is None:
            figures.refresh_failures += 1
            print(f"  {name}: {change.heading}: not answered within {TRIAL_TIMEOUT_S:.0f} s", flush=True)
            continue
        figures.refresh.append(seconds)
        time.sleep(0.5)  # the log line is written right after the swap
        server_seconds = reloads(log)
        figures.reloaded += server_seconds
        print(f"  {name}: {change.heading}: answered {seconds:.2f} s after the write (server: knowledge reloaded "
              f"in {', '.join(f'{s:.2f}' for s in server_seconds) or '?'} s)", flush=True)
        time.sleep(1.0)


def profile_refresh(server_pid: int, client: Client, knowledge: Path, target: Path, change: Change,
                    expected: float, out: Path) -> None:
    """py-spy samples the server while one more change is indexed; prints the inclusive share of the
    refresh's samples of the functions of bot/ it spends them in."""
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(spy).exists():
        print("profile: py-spy is not installed (.venv/bin/pip install py-spy)")
        return
    duration = int(expected * 1.5 + 5)
    raw = out / "refresh.txt"
    recorder = subprocess.Popen([spy, "record", "--pid", str(server_pid), "--rate", "100", "--format", "raw",
                                 "--duration", str(duration), "--output", str(raw), "--nonblocking"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(1.0)
    written = write_change(knowledge, change, target)
    seconds = wait_for_answer(client, change, written)
    _, error = recorder.communicate(timeout=duration + 60)
    if not raw.exists():
        print(f"profile: py-spy recorded nothing ({error.decode(errors='replace').strip()[-300:]})")
        return
    total = 0
    inclusive: Counter[str] = Counter()
    for line in raw.read_text(encoding="utf-8", errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if "check (bot/answering/refresh.py" not in stack and "encode (bot/answering/refresh.py" not in stack:
            continue
        n = int(count)
        total += n
        seen = set()
        for frame in stack.split(";"):
            found = re.match(r"(\S+) \((?:.*/)?((?:bot|bm25s|faiss|numpy|onnxruntime|tokenizers)/[^:]+)", frame)
            if found and (name := f"{found.group(2)}:{found.group(1)}") not in seen:
                seen.add(name)
                inclusive[name] += n
    print(f"\nprofile of one more change on the scaled server (py-spy, {duration} s at 100 Hz; answered "
          f"{f'{seconds:.2f} s' if seconds is not None else 'not'} after the write): {total} samples in the refresh")
    for name, n in inclusive.most_common(25):
        print(f"  {n / max(total, 1):6.1%}  {name}")


# -- the run ------------------------------------------------------------------------------------------

def fmt_ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b else "—"


def report(today: Figures, scaled: Figures, args: argparse.Namespace, questions: int) -> None:
    def med(values: list[float]) -> float:
        return statistics.median(values) if values else float("nan")

    p50 = (percentile(today.latencies, 50), percentile(scaled.latencies, 50))
    p90 = (percentile(today.latencies, 90), percentile(scaled.latencies, 90))
    rows = [
        ("sections: of Markdown docs + quiz questions (both editions)", f"{today.sections} + {today.quiz}",
         f"{scaled.sections} + {scaled.quiz}", ""),
        ("chunks (/metrics eksbot_index_chunks) / sentences", f"{today.chunks} / {today.sentences}",
         f"{scaled.chunks} / {scaled.sentences}", fmt_ratio(scaled.chunks, today.chunks)),
        ("index build, `eksbot index build` wall", f"{today.build_wall:.1f} s", f"{scaled.build_wall:.1f} s",
         fmt_ratio(scaled.build_wall, today.build_wall)),
        ("  of which making the index (manifest)", f"{today.build_manifest:.1f} s", f"{scaled.build_manifest:.1f} s",
         fmt_ratio(scaled.build_manifest, today.build_manifest)),
        ("cold start to /readyz 200", f"{today.cold_start:.1f} s", f"{scaled.cold_start:.1f} s",
         fmt_ratio(scaled.cold_start, today.cold_start)),
        ("changed doc to first answer, median", f"{med(today.refresh):.2f} s", f"{med(scaled.refresh):.2f} s",
         fmt_ratio(med(scaled.refresh), med(today.refresh))),
        ("  each trial", ", ".join(f"{s:.2f}" for s in today.refresh) or "—",
         ", ".join(f"{s:.2f}" for s in scaled.refresh) or "—", ""),
        ("  server's \"knowledge reloaded\", median", f"{med(today.reloaded):.2f} s", f"{med(scaled.reloaded):.2f} s",
         fmt_ratio(med(scaled.reloaded), med(today.reloaded))),
        (f"answer p50 over HTTP ({len(today.latencies)} requests)", f"{p50[0] * 1000:.1f} ms",
         f"{p50[1] * 1000:.1f} ms", fmt_ratio(p50[1], p50[0])),
        ("answer p90 over HTTP", f"{p90[0] * 1000:.1f} ms", f"{p90[1] * 1000:.1f} ms", fmt_ratio(p90[1], p90[0])),
        (f"answered (of {questions} questions, last round)", str(today.answered), str(scaled.answered), ""),
        ("RSS after the questions (VmRSS)", f"{today.rss:.0f} MB", f"{scaled.rss:.0f} MB",
         f"{scaled.rss - today.rss:+.0f} MB"),
        (f"RSS after {args.spread} more questions spread over the docs", f"{today.rss_spread:.0f} MB",
         f"{scaled.rss_spread:.0f} MB", f"{scaled.rss_spread - today.rss_spread:+.0f} MB"),
        ("RSS after the changes / peak (VmHWM)", f"{today.rss_after:.0f} / {today.peak:.0f} MB",
         f"{scaled.rss_after:.0f} / {scaled.peak:.0f} MB", f"{scaled.peak - today.peak:+.0f} MB peak"),
    ]
    print(f"\n| what | today | {scaled.sections} sections | scaled vs today |")
    print("|---|---|---|---|")
    for label, a, b, c in rows:
        print(f"| {label} | {a} | {b} | {c} |")
    refresh = med(scaled.refresh) if not scaled.refresh_failures else float("inf")
    checks = [
        (f"changed doc answered within {REFRESH_TARGET_S:.0f} s at {scaled.sections} sections",
         f"{refresh:.2f} s" + (f", {scaled.refresh_failures} never" if scaled.refresh_failures else ""),
         refresh <= REFRESH_TARGET_S),
        (f"answer p50 at most {P50_RATIO_TARGET:.0f}x today's", f"{p50[1] / p50[0]:.2f}x",
         p50[1] / p50[0] <= P50_RATIO_TARGET),
        (f"RSS at most +{RSS_TARGET_MB:.0f} MB over today's", f"{scaled.rss - today.rss:+.0f} MB",
         scaled.rss - today.rss <= RSS_TARGET_MB),
        (f"RSS at most +{RSS_TARGET_MB:.0f} MB over today's after {args.spread} more questions",
         f"{scaled.rss_spread - today.rss_spread:+.0f} MB", scaled.rss_spread - today.rss_spread <= RSS_TARGET_MB),
    ]
    print("\ntargets:")
    for label, value, ok in checks:
        print(f"  {'PASS' if ok else 'FAIL'} {label}: {value}")

    # Linear in the sections from the two points of this run: an extrapolation, not a measurement.
    n = scaled.sections / 1000
    answer_slope = (refresh - med(today.refresh)) / n
    ratio_slope = (p50[1] / p50[0] - 1) / n
    rss_slope = (scaled.rss - today.rss) / n
    print("\nper 1,000 sections more (the difference between the two, over the sections added):")
    print(f"  index build +{(scaled.build_wall - today.build_wall) / n:.1f} s; \"knowledge reloaded\" "
          f"+{(med(scaled.reloaded) - med(today.reloaded)) / n:.2f} s; changed doc to first answer "
          f"+{answer_slope:.2f} s; answer p50 +{(p50[1] - p50[0]) * 1000 / n:.2f} ms; RSS +{rss_slope:.1f} MB; "
          f"peak RSS +{(scaled.peak - today.peak) / n:.1f} MB")

    def limit(slope: float, room: float) -> str:
        return f"{room / slope * 1000:,.0f} sections" if slope > 0 and room > 0 else ("now" if room <= 0 else "—")

    print("linear extrapolation of where each target fails (sections of docs):")
    room = REFRESH_TARGET_S - med(today.refresh)
    print(f"  changed doc within {REFRESH_TARGET_S:.0f} s: {limit(answer_slope, room)}; "
          f"p50 <= {P50_RATIO_TARGET:.0f}x: {limit(ratio_slope, P50_RATIO_TARGET - 1)}; "
          f"RSS <= +{RSS_TARGET_MB:.0f} MB: {limit(rss_slope, RSS_TARGET_MB)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sections", type=int, default=10_000, help="sections of synthetic docs (default 10,000)")
    parser.add_argument("--quick", action="store_true", help="1,000 sections: a fast check that it all works")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the question list (after a warm-up)")
    parser.add_argument("--trials", type=int, default=3, help="changed documents per knowledge (median)")
    parser.add_argument("--spread", type=int, default=600,
                        help="questions spread over the synthetic docs' sections, asked after the timed ones "
                        "(RSS measured again after them)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--profile", action="store_true", help="py-spy on the scaled server's refresh")
    parser.add_argument("--keep", type=Path, help="work in this directory and keep it (default: a temporary one)")
    parser.add_argument("--reuse-index", action="store_true",
                        help="with --keep: use the indexes an earlier run built there (for another measure of the "
                        "serving figures; the build figures are then the manifests')")
    args = parser.parse_args()
    if args.quick:
        args.sections = 1_000
    serving = RUNTIME_EKSBOT if RUNTIME_EKSBOT.exists() else DEV_EKSBOT
    backend = os.environ.get("EKSBOT_EMBEDDING_BACKEND", "onnx")
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at start (a shared machine: compare the "
          f"ratios); backend {backend}; served by {serving.parent.parent.name}", flush=True)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="knowledge-scale-") as tmp_name:
        tmp = args.keep or Path(tmp_name)
        tmp.mkdir(parents=True, exist_ok=True)
        k_today, k_scaled = tmp / "knowledge-today", tmp / "knowledge-scaled"
        for k in (k_today, k_scaled):
            shutil.rmtree(k, ignore_errors=True)
            shutil.copytree(ROOT / "knowledge", k)
        plans = write_synthetic_docs(k_scaled / SYNTHETIC_FOLDER, args.sections, args.seed)
        today, scaled = Figures(), Figures()
        today.sections, today.quiz = count_sections(k_today)
        scaled.sections, scaled.quiz = count_sections(k_scaled)
        scaled.sections -= today.sections
        print(f"synthetic docs: {len(plans)} docs, {scaled.sections} sections "
              f"({sum(p.lang == 'es' for p in plans)} docs in Spanish), in {k_scaled / SYNTHETIC_FOLDER}", flush=True)

        # The model's export, once (the development install has the tools that make it).
        export = tmp / "export"
        if not any(export.glob("onnx*/export.json")):
            subprocess.run([str(DEV_EKSBOT), "index", "build"], env=server_env(k_today, export, tmp / "unused"),
                           check=True, capture_output=True, timeout=1800)
        for name, knowledge, figures in (("today", k_today, today), ("scaled", k_scaled, scaled)):
            build(serving, knowledge, tmp / f"index-{name}", export, figures, reuse=args.reuse_index)
            print(f"index build ({name}): {figures.build_wall:.1f} s wall, {figures.build_manifest:.1f} s making "
                  f"the index, {figures.sentences} sentences", flush=True)

        questions = question_list(plans)
        servers = {}
        try:
            for name, knowledge, figures in (("today", k_today, today), ("scaled", k_scaled, scaled)):
                log = tmp / f"server-{name}.log"
                log.unlink(missing_ok=True)  # a kept directory's earlier run wrote its own
                base, process, figures.cold_start = start_logged_server(
                    server_env(knowledge, tmp / f"index-{name}", tmp / f"data-{name}"), log, str(serving))
                servers[name] = (process, Client(base), LogTail(log))
                print(f"server ({name}) ready in {figures.cold_start:.1f} s", flush=True)
            pairs = [("today", today), ("scaled", scaled)]
            for name, figures in pairs:
                figures.chunks = servers[name][1].chunks()
                for q in questions:  # warm-up
                    servers[name][1].query(q)
            for r in range(args.rounds):
                for i, q in enumerate(questions):  # the two servers alternate, so both see the same machine
                    order = pairs if (i + r) % 2 == 0 else pairs[::-1]
                    for name, figures in order:
                        t0 = time.perf_counter()
                        answer = servers[name][1].query(q)
                        figures.latencies.append(time.perf_counter() - t0)
                        if r == args.rounds - 1:
                            figures.answered += bool(answer.get("answered"))
            for name, figures in pairs:
                figures.rss = proc_status_mb(servers[name][0].pid, "VmRSS")
            print(f"answers: {args.rounds} rounds of {len(questions)} questions on each server", flush=True)
            for q in spread_questions(plans, args.spread):
                for name, _ in pairs:
                    servers[name][1].query(q)
            for name, figures in pairs:
                figures.rss_spread = proc_status_mb(servers[name][0].pid, "VmRSS")
            print(f"answers: {args.spread} more questions spread over the docs on each server", flush=True)

            trials = changes(args.trials * 2 + 1, args.seed)
            english = [p.path for p in plans if p.lang == "en"]
            scaled_targets: list[Path | None] = [english[(i * 13) % len(english)] for i in range(args.trials + 1)]
            refresh_trials("today", servers["today"][1], servers["today"][2], k_today, [None] * args.trials,
                           trials[: args.trials], today)
            refresh_trials("scaled", servers["scaled"][1], servers["scaled"][2], k_scaled, scaled_targets[:-1],
                           trials[args.trials: 2 * args.trials], scaled)
            for name, figures in pairs:
                figures.rss_after = proc_status_mb(servers[name][0].pid, "VmRSS")
                figures.peak = proc_status_mb(servers[name][0].pid, "VmHWM")
            if args.profile:
                expected = statistics.median(scaled.reloaded) if scaled.reloaded else 30.0
                profile_refresh(servers["scaled"][0].pid, servers["scaled"][1], k_scaled,
                                english[(args.trials * 13) % len(english)], trials[-1], expected, tmp)
        finally:
            for process, client, _ in servers.values():
                client.close()
                stop_server(process)
    report(today, scaled, args, len(questions))
    print(f"\n(whole run: {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
