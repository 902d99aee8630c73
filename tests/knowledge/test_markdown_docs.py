"""Teams' own Markdown docs in the knowledge directory: the public pages and runbooks of tests/docs load next to
the quiz files as they are, cut into sections by heading path, with their title, language, source URL, code,
tables and lines; docs that cannot be read are skipped with the reason; the questions of tests/docs/questions.jsonl
find their answers in the section they name."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from bot.config import PROJECT_ROOT
from bot.errors import KnowledgeError
from bot.knowledge import KnowledgeBase, load_knowledge
from bot.knowledge.chunks import chunk_knowledge
from bot.knowledge.loader import UnreadableError, knowledge_digest
from bot.knowledge.markdown import parse_markdown
from bot.knowledge.model import Block, Document, Question
from tests.conftest import KNOWLEDGE

DOCS = PROJECT_ROOT / "tests" / "docs"
QUIZ_ID = "eks-training-quiz"

LLAMA = "public/data-on-eks-llama2-trainium"
KUBEFLOW = "public/kubeflow-trainer-pytorch-guide"
VOLCANO = "public/volcano-network-topology-aware-scheduling"
GPU_RUNBOOK = "runbook/gpu-training-runbook"
CKPT_RUNBOOK = "runbook/checkpoints-runbook.es"

LLAMA_TITLE = "Llama-2 with Nemo-Megatron on Trn1"
LLAMA_HEADING = f"{LLAMA_TITLE} › Training a Llama-2 Model using Trainium, Neuronx-Nemo-Megatron and MPI operator"
KUBEFLOW_TITLE = "PyTorch Guide"
VOLCANO_TITLE = "Network Topology Aware Scheduling User Guide"
GPU_TITLE = "GPU training on EKS — ML Platform runbook"
CKPT_TITLE = "Checkpoints de entrenamiento — dónde se guardan y cómo restaurarlos"
CKPT_HEADING = f"{CKPT_TITLE} › Checkpoints de entrenamiento en Acme"  # its front matter's title, then its "# …"

# doc id: (file under the knowledge dir, title, language, source_url)
EXPECTED_DOCS: dict[str, tuple[str, str, str, str | None]] = {
    LLAMA: ("public/data-on-eks-llama2-trainium.mdx", LLAMA_TITLE, "en", None),
    KUBEFLOW: ("public/kubeflow-trainer-pytorch-guide.md", KUBEFLOW_TITLE, "en", None),
    VOLCANO: ("public/volcano-network-topology-aware-scheduling.md", VOLCANO_TITLE, "en", None),
    GPU_RUNBOOK: ("runbook/gpu-training-runbook.md", GPU_TITLE, "en",
                  "https://wiki.acme.internal/ml-platform/runbooks/gpu-training"),
    CKPT_RUNBOOK: ("runbook/checkpoints-runbook.es.md", CKPT_TITLE, "es",
                   "https://wiki.acme.internal/ml-platform/runbooks/checkpoints"),
}


def make_knowledge_dir(target: Path) -> Path:
    """The quiz files of knowledge/ (and its README) with the public pages and runbooks in their folders."""
    target.mkdir(parents=True)
    for path in KNOWLEDGE.glob("*.md"):
        shutil.copy(path, target / path.name)
    for file in [*(file for file, *_ in EXPECTED_DOCS.values()), "public/SOURCES.md"]:
        (target / file).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(DOCS / file, target / file)
    return target


def quiz_only_dir(target: Path) -> Path:
    """The quiz files alone: a knowledge dir that loads, for tests that add their own docs."""
    target.mkdir(parents=True)
    for path in KNOWLEDGE.glob("eks-training-quiz.*.md"):
        shutil.copy(path, target / path.name)
    return target


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def doc(kb: KnowledgeBase, doc_id: str) -> Document:
    found = [d for d in kb.documents if d.doc_id == doc_id]
    assert len(found) == 1, f"{doc_id!r}: {[d.doc_id for d in kb.documents]}"
    return found[0]


def sections(document: Document, section: str) -> list[Question]:
    return [q for q in document.questions if q.section == section]


def section(document: Document, path: str) -> Question:
    found = sections(document, path)
    assert len(found) == 1, f"{path!r} in {[q.section for q in document.questions]}"
    return found[0]


def all_blocks(kb: KnowledgeBase) -> list[tuple[str, str, Block]]:
    return [(d.doc_id, q.section, b) for d in kb.documents if d.kind == "doc" for q in d.questions for b in q.blocks]


def plain(text: str) -> str:
    """Text compared modulo what the reader changes: inline code keeps its backticks, whitespace is collapsed."""
    return " ".join(text.replace("`", "").split())


def section_text(question: Question) -> str:
    return plain(" ".join(b.text for b in question.blocks))


@pytest.fixture(scope="module")
def docs_kb(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    return load_knowledge(make_knowledge_dir(tmp_path_factory.mktemp("docs") / "knowledge"))


@pytest.fixture
def docs_dir(tmp_path: Path) -> Path:
    return make_knowledge_dir(tmp_path / "knowledge")


# -- the public pages and runbooks load with the quiz -------------------------------------------------------


def test_every_page_and_runbook_loads_with_the_quiz_and_nothing_is_skipped(docs_kb: KnowledgeBase) -> None:
    assert docs_kb.skipped == ()
    assert sorted((d.doc_id, d.lang, d.kind) for d in docs_kb.documents) == sorted(
        [(QUIZ_ID, "en", "quiz"), (QUIZ_ID, "es", "quiz")] + [(i, e[2], "doc") for i, e in EXPECTED_DOCS.items()]
    )
    # knowledge/README.md and public/SOURCES.md were copied too: a repository's own files, not knowledge
    assert not {d.source for d in docs_kb.documents} & {"README.md", "public/SOURCES.md"}


@pytest.mark.parametrize("doc_id", list(EXPECTED_DOCS))
def test_title_language_source_and_url_of_each_doc(docs_kb: KnowledgeBase, doc_id: str) -> None:
    source, title, lang, url = EXPECTED_DOCS[doc_id]
    document = doc(docs_kb, doc_id)
    assert (document.source, document.title, document.lang, document.source_url) == (source, title, lang, url)
    assert document.kind == "doc"
    assert all(q.path[0] == title and q.topic == title and q.lang == lang for q in document.questions)
    assert all(q.source == source and q.doc_id == doc_id for q in document.questions)
    assert [q.number for q in document.questions] == list(range(1, len(document.questions) + 1))
    assert all(q.options == () and q.answer is None for q in document.questions)


def test_llama_page_sections_follow_its_headings_the_jsx_header_and_the_bold_heading(docs_kb: KnowledgeBase) -> None:
    llama = doc(docs_kb, LLAMA)
    paths = [q.section for q in llama.questions]
    t = LLAMA_HEADING
    for expected in (
        f"{t} › What is Llama-2? › Llama-2-chat",
        f"{t} › Which Llama-2 model size should I use?",  # `### **Which … use?**`
        f"{t} › Solution Architecture",
        f"{t} › Deploying the Solution",
        f"{t} › Prerequisites",  # <CollapsibleContent header={<h2><span>Prerequisites</span></h2>}>
        f"{t} › Prerequisites › Verify the resources",
        f"{t} › Distributed training › Modify dataset and tokenizer paths in the training script",
        f"{t} › Distributed training › Cleaning up",
    ):
        assert expected in paths
    assert not [p for p in paths if "*" in p or "<" in p or "{" in p]
    # the level-1 heading "# Training a Llama-2 Model …", which names the page otherwise than its front matter's
    # title, stands over every section under it: the author's words, found when a question uses them
    assert paths[0] == LLAMA_TITLE and all(p.startswith(t) for p in paths[1:])

    prerequisites = section(llama, f"{t} › Prerequisites")
    assert prerequisites.line == 79
    assert prerequisites.title == "Prerequisites"
    assert prerequisites.blocks[0].text.startswith("Before we begin, ensure you have all the prerequisites")
    bold = section(llama, f"{t} › Which Llama-2 model size should I use?")
    assert bold.line == 52
    assert bold.title == "Which Llama-2 model size should I use?"
    # what the JSX header opens is no longer part of the section before it
    assert "Before we begin" not in section_text(section(llama, f"{t} › Deploying the Solution"))


@pytest.mark.parametrize("fragment", ["import CollapsibleContent", ":::", "{{%", "%}}", "<CollapsibleContent",
                                      "</CollapsibleContent", "<h2", "![", "](", "**"])
def test_no_block_keeps_site_generator_syntax(docs_kb: KnowledgeBase, fragment: str) -> None:
    assert not [(i, s, b.text[:80]) for i, s, b in all_blocks(docs_kb) if fragment in b.text]


@pytest.mark.parametrize(("doc_id", "path", "text"), [
    pytest.param(LLAMA, LLAMA_TITLE,  # :::caution, its link kept as its text
                 "The AI on EKS content is being migrated to a new repository. 🔗 👉 Read the full migration "
                 "announcement »", id="admonition-caution"),
    pytest.param(LLAMA, LLAMA_TITLE,
                 "Note: Use of this Llama-2 model is governed by the Meta license. In order to download the model "
                 "weights and tokenizer, please visit the website and accept the license", id="admonition-danger"),
    pytest.param(KUBEFLOW, f"{KUBEFLOW_TITLE} › Create TrainJob with PyTorch Training › Configure PyTorch Training "
                 "Function", "Note: All necessary imports must be included inside the function body so that the "
                 "TrainJob can recognize them on every training node.", id="hugo-alert-keeps-its-title"),
    pytest.param(KUBEFLOW, f"{KUBEFLOW_TITLE} › PyTorch Distributed Overview",
                 "You can use the Kubeflow Python SDK to create your TrainJobs with PyTorch Distributed Data Parallel "
                 "(DDP), Fully Sharded Data Parallel (FSDP), FSDP2, or any other parallelism", id="links-keep-text"),
    pytest.param(VOLCANO, f"{VOLCANO_TITLE} › 1 Background", "Volcano proposed the Network Topology Aware "
                 "Scheduling strategy", id="bold-markers-dropped"),
    pytest.param(CKPT_RUNBOOK, f"{CKPT_HEADING} › Dónde se guardan › Cómo llega a S3",
                 "El CronJob ckpt-uploader (namespace ml-platform) copia a S3 cada 30 minutos", id="spanish-prose"),
])
def test_text_the_reader_keeps(docs_kb: KnowledgeBase, doc_id: str, path: str, text: str) -> None:
    assert any(plain(text) in section_text(q) for q in sections(doc(docs_kb, doc_id), path))

def test_a_level_1_heading_is_kept_where_it_differs_from_the_title_and_over_its_sections_only(tmp_path: Path
                                                                                              ) -> None:
    """The page's first "# …" is its title when the front matter gives none or the same one; one that says
    something else ("… at Acme") is kept in the heading path of the sections under it, and a later "# …" opens a
    part of its own, as does the first one further down a page (nothing of the author's headings is dropped)."""
    page = tmp_path / "page.md"
    page.write_text("---\ntitle: Checkpoints\n---\nIntro.\n\n# Checkpoints at Acme\n\nWhere they go.\n\n"
                    "## Retention\n\nThirty days.\n\n# Restoring\n\n## From Glacier\n\nA restore first.\n",
                    encoding="utf-8")
    document = parse_markdown(page.read_text(encoding="utf-8"), page, doc_id="page", source="page.md")
    assert [q.path for q in document.questions] == [
        ("Checkpoints",), ("Checkpoints", "Checkpoints at Acme"),
        ("Checkpoints", "Checkpoints at Acme", "Retention"), ("Checkpoints", "Restoring", "From Glacier")]
    same = tmp_path / "same.md"
    same.write_text("---\ntitle: Checkpoints\n---\n# Checkpoints\n\nWhere.\n\n## Retention\n\nDays.\n",
                    encoding="utf-8")
    assert [q.path for q in parse_markdown(same.read_text(encoding="utf-8"), same, doc_id="s", source="s.md"
                                           ).questions] == [("Checkpoints",), ("Checkpoints", "Retention")]



def test_images_are_dropped_but_the_text_around_them_stays(docs_kb: KnowledgeBase) -> None:
    architecture = section(doc(docs_kb, LLAMA), f"{LLAMA_HEADING} › Solution Architecture")
    text = section_text(architecture)
    assert "Llama-2-trn1" not in text and "llama2-trainium.png" not in text
    assert "FSx for Lustre: A shared, high-performance filesystem" in text


def test_sections_and_blocks_point_at_their_lines_in_the_file(docs_kb: KnowledgeBase) -> None:
    for document in docs_kb.documents:
        if document.kind != "doc":
            continue
        lines = document.path.read_text(encoding="utf-8").split("\n")
        for q in document.questions:
            if len(q.path) > 1:
                assert q.path[-1] in lines[q.line - 1].replace("**", ""), (document.doc_id, q.line, q.path)
            for b in q.blocks:
                source = lines[b.line - 1]
                where = (document.doc_id, b.line, b.kind, source)
                if b.kind == "code":
                    assert source.lstrip().startswith(("```", "~~~")), where
                    assert lines[b.line].strip() == b.text.split("\n")[0].strip(), where
                elif b.kind == "table":
                    assert source.startswith("|") and b.rows[0][0] in source, where
                else:
                    first, *rest = b.text.split()
                    if first.endswith(":") and rest and first[:3] not in source:
                        # a box's kind or title, shown before its text, stands on the box's opening line above
                        above = lines[max(0, b.line - 4):b.line - 1]
                        assert any(first[:-1].lower() in line.lower() for line in above), where
                        first = rest[0]
                    assert first.strip("`*[]")[:3] in source, where


# -- questions.jsonl: each answer sits in the section it names ----------------------------------------------

QUESTIONS: list[dict[str, Any]] = [
    json.loads(line) for line in (DOCS / "questions.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()
]
ANSWERABLE = [q for q in QUESTIONS if q["answerable"]]
SOURCE_IDS = {source: doc_id for doc_id, (source, *_) in EXPECTED_DOCS.items()}


def test_questions_file_has_the_answerable_questions_of_every_document() -> None:
    assert len(QUESTIONS) == 87
    assert len(ANSWERABLE) == 57
    per_source = {s: sum(1 for q in ANSWERABLE if q["source"] == s) for s in SOURCE_IDS}
    assert per_source == {EXPECTED_DOCS[LLAMA][0]: 12, EXPECTED_DOCS[KUBEFLOW][0]: 11, EXPECTED_DOCS[VOLCANO][0]: 11,
                          EXPECTED_DOCS[GPU_RUNBOOK][0]: 12, EXPECTED_DOCS[CKPT_RUNBOOK][0]: 11}


@pytest.mark.parametrize(
    "question", ANSWERABLE,
    ids=[f"{Path(q['source']).stem.split('-')[0]}-{n}" for n, q in enumerate(ANSWERABLE, start=1)],
)
def test_answer_of_each_question_is_in_the_section_it_names(docs_kb: KnowledgeBase, question: dict[str, Any]) -> None:
    document = doc(docs_kb, SOURCE_IDS[question["source"]])
    named = sections(document, question["section"])
    assert named, f"no section {question['section']!r} in {[q.section for q in document.questions]}"
    wanted = [plain(s) for s in question["answer_contains"]]
    assert wanted
    holding = [q for q in named if all(w in section_text(q) for w in wanted)]
    assert holding, [(w, [w in section_text(q) for q in named]) for w in wanted]


# -- code and tables ----------------------------------------------------------------------------------------

_OPEN_FENCE = re.compile(r"^(?P<indent> *)(?P<fence>```+|~~~+)\s*(?P<info>\S*)")


def fenced_code(path: Path) -> list[tuple[int, str | None, str]]:
    """(line of the opening fence, language, content without the fence's indentation) of each fenced block."""
    lines = path.read_text(encoding="utf-8").split("\n")
    found: list[tuple[int, str | None, str]] = []
    i = 0
    while i < len(lines):
        opened = _OPEN_FENCE.match(lines[i])
        if not opened:
            i += 1
            continue
        indent, fence = len(opened["indent"]), opened["fence"]
        end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == fence)
        content = "\n".join(line[indent:] if line[:indent].strip() == "" else line.lstrip()
                            for line in lines[i + 1:end])
        found.append((i + 1, opened["info"] or None, content))
        i = end + 1
    return found


@pytest.mark.parametrize("doc_id", list(EXPECTED_DOCS))
def test_every_fenced_block_is_a_code_block_with_its_language_and_content(docs_kb: KnowledgeBase, doc_id: str) -> None:
    document = doc(docs_kb, doc_id)
    code = [(b.line, b.lang, b.text) for q in document.questions for b in q.blocks if b.kind == "code"]
    expected = [c for c in fenced_code(document.path) if c[2].strip()]
    assert len(expected) >= 3
    assert sorted(code) == expected


@pytest.mark.parametrize(("doc_id", "path", "lang", "first", "contains"), [
    pytest.param(VOLCANO, f"{VOLCANO_TITLE} › 3 User Guide › 3.3 Deploy Workloads Using Network Topology Aware "
                 "Scheduling › 3.3.1 Deploying Using Volcano Job With Network Topology Constraints Configured",
                 "yaml", "apiVersion: batch.volcano.sh/v1alpha1", "  networkTopology:\n    mode: hard\n"
                 "    highestTierAllowed: 1\n", id="volcano-yaml-in-list-item"),
    pytest.param(VOLCANO, f"{VOLCANO_TITLE} › 3 User Guide › 3.3 Deploy Workloads Using Network Topology Aware "
                 "Scheduling › 3.3.1 Deploying Using Volcano Job With Network Topology Constraints Configured",
                 "shell", "$ kubectl get pod -owide", "network-topology-job-t0-4   0/1     Pending",
                 id="volcano-output"),
    pytest.param(LLAMA, f"{LLAMA_HEADING} › Prerequisites", "bash", "export TF_VAR_enable_mpi_operator=true",
                 "export TF_VAR_trn1_32xl_desired_size=4", id="llama-bash-in-jsx-section"),
    pytest.param(KUBEFLOW, f"{KUBEFLOW_TITLE} › Get PyTorch Runtime Packages", "py",
                 "from kubeflow.trainer import TrainerClient", "get_runtime_packages", id="kubeflow-py"),
    pytest.param(GPU_RUNBOOK, f"{GPU_TITLE} › Submitting a training job › Example PyTorchJob", "yaml",
                 "apiVersion: kubeflow.org/v1", "kind: PyTorchJob", id="runbook-yaml"),
])
def test_code_blocks_keep_language_and_content(
    docs_kb: KnowledgeBase, doc_id: str, path: str, lang: str, first: str, contains: str
) -> None:
    code = [b for b in section(doc(docs_kb, doc_id), path).code_blocks if b.text.startswith(first)]
    assert len(code) == 1, [b.text[:60] for b in section(doc(docs_kb, doc_id), path).code_blocks]
    assert code[0].lang == lang
    assert contains in code[0].text


def test_yaml_in_a_numbered_list_item_is_a_code_block_right_after_its_item(docs_kb: KnowledgeBase) -> None:
    q = section(doc(docs_kb, VOLCANO), f"{VOLCANO_TITLE} › 3 User Guide › 3.3 Deploy Workloads Using Network "
                "Topology Aware Scheduling › 3.3.1 Deploying Using Volcano Job With Network Topology Constraints "
                "Configured")
    assert [(b.kind, b.lang, b.line) for b in q.blocks] == [("list", None, 162), ("code", "yaml", 163),
                                                             ("list", None, 189), ("code", "shell", 190),
                                                             ("list", None, 202)]
    assert q.blocks[0].text.startswith("1. Create a Volcano job where each Pod requests the full CPU resources")
    assert q.blocks[2].text == "2. The scheduling result is as follows:"  # numbered as on the page
    assert "```" not in q.blocks[0].text and "apiVersion" not in q.blocks[0].text
    lines = (DOCS / "public" / "volcano-network-topology-aware-scheduling.md").read_text(encoding="utf-8")
    assert q.blocks[1].text == "\n".join(line[3:] for line in lines.split("\n")[163:187])  # list indent removed


STEPS = """# Node maintenance

1. Find the node:

   ```sh
   kubectl get pods -o wide
   ```

2. Drain it. First cordon it:

   ```sh
   kubectl cordon $node
   ```

   Then evict its pods:

   ```sh
   kubectl drain $node --ignore-daemonsets
   ```

3. Check the job.
4. Uncordon the node:

   ```sh
   kubectl uncordon $node
   ```
"""


def test_each_step_of_a_procedure_stands_over_its_own_command(tmp_path: Path) -> None:
    """A numbered procedure whose steps hold their commands reads as the page shows it: each step (or the text of a
    step after one of its commands) right before the command it introduces, the steps numbered as written."""
    from bot.knowledge.markdown import parse_markdown

    (q,) = parse_markdown(STEPS, tmp_path / "maintenance.md", doc_id="maintenance", source="maintenance.md").questions
    assert [(b.kind, b.text) for b in q.blocks] == [
        ("list", "1. Find the node:"), ("code", "kubectl get pods -o wide"),
        ("list", "2. Drain it. First cordon it:"), ("code", "kubectl cordon $node"),
        ("list", "Then evict its pods:"), ("code", "kubectl drain $node --ignore-daemonsets"),
        ("list", "3. Check the job.\n4. Uncordon the node:"), ("code", "kubectl uncordon $node"),
    ]
    assert [b.line for b in q.blocks if b.kind == "code"] == [5, 11, 17, 24]  # each where the page writes it


@pytest.mark.parametrize(("doc_id", "path", "rows"), [
    pytest.param(GPU_RUNBOOK, f"{GPU_TITLE} › Clusters and node groups › Cluster inventory", (
        ("Cluster", "Region", "Use", "Kubernetes"),
        ("`acme-ml-prod-usw2`", "us-west-2", "production training", "1.30"),
        ("`acme-ml-stg-use1`", "us-east-1", "staging, pre-release runs", "1.30"),
        ("`acme-ml-dev-usw2`", "us-west-2", "notebooks, small experiments", "1.31"),
    ), id="cluster-inventory"),
    pytest.param(GPU_RUNBOOK, f"{GPU_TITLE} › Clusters and node groups › Node group naming convention › Production "
                 "GPU node groups", (
        ("Node group", "Instance", "GPUs per node", "Min / max", "Capacity"),
        ("`prod-gpu-p4d-train-a`", "p4d.24xlarge", "8 × A100 40 GB", "0 / 16",
         "On-Demand Capacity Reservation `cr-0f3a9c21d7e4b5a60`"),
        ("`prod-gpu-p5-train-c`", "p5.48xlarge", "8 × H100 80 GB", "0 / 6", "EC2 Capacity Block, renewed monthly"),
        ("`prod-gpu-g5-burst-b`", "g5.12xlarge", "4 × A10G 24 GB", "0 / 20", "Spot"),
        ("`prod-cpu-m6i-sys-a`", "m6i.2xlarge", "—", "3 / 6", "On-Demand"),
    ), id="node-groups"),
    pytest.param(GPU_RUNBOOK, f"{GPU_TITLE} › Escalation and on-call", (
        ("Situation", "Who", "How"),
        ("Question, quota, slow queue", "ML Platform", "`#ml-platform-help` (business hours, 09:00–18:00 PT)"),
        ("Prod training outage, all GPU nodes NotReady, device plugin down cluster-wide", "ML Platform on-call",
         "PagerDuty service ML Platform – Training (escalation policy `mlplat-training-primary`)"),
        ("EKS control plane or VPC problem", "Infrastructure on-call",
         "PagerDuty service Core Infra via `/pd trigger core-infra`"),
    ), id="escalation-bold-dropped"),
    pytest.param(CKPT_RUNBOOK, f"{CKPT_HEADING} › Retención", (
        ("Dónde", "Regla"),
        ("FSx", "últimos 3 checkpoints por job; todo lo de más de 14 días se borra"),
        ("S3 Standard", "días 0 a 30"),
        ("S3 Glacier Flexible Retrieval", "del día 31 al 365"),
        ("S3", "se elimina el día 366"),
    ), id="retencion-es"),
])
def test_tables_become_table_blocks_with_rows(
    docs_kb: KnowledgeBase, doc_id: str, path: str, rows: tuple[tuple[str, ...], ...]
) -> None:
    tables = [b for b in section(doc(docs_kb, doc_id), path).blocks if b.kind == "table"]
    assert len(tables) == 1
    assert tables[0].rows == rows
    assert tables[0].text == "\n".join(" | ".join(row) for row in rows)


# -- language -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("file", "lang"), [("checkpoints-runbook.es.md", "es"), ("gpu-training-runbook.md", "en")])
def test_language_is_detected_from_the_text_when_no_front_matter_gives_it(tmp_path: Path, file: str, lang: str) -> None:
    knowledge = quiz_only_dir(tmp_path / "knowledge")
    text = (DOCS / "runbook" / file).read_text(encoding="utf-8")
    front, body = text.split("\n---\n", 1)
    assert not re.search(r"^(lang|language|locale)\s*:", front, re.MULTILINE)
    write(knowledge / "runbook.md", body)  # no front matter at all: title from the `#` heading
    runbook = doc(load_knowledge(knowledge), "runbook")
    assert runbook.lang == lang
    assert runbook.title == body.split("\n")[1].removeprefix("# ")


@pytest.mark.parametrize("key", ["lang: es", "language: es", "locale: es-ES"])
def test_language_from_front_matter_wins_over_detection(tmp_path: Path, key: str) -> None:
    knowledge = quiz_only_dir(tmp_path / "knowledge")
    write(knowledge / "notes.md", f"---\ntitle: Notes\n{key}\n---\n\nThe training job writes a checkpoint every "
                                  "hour to the shared file system, and the team restores the newest one.\n")
    write(knowledge / "notes-en.md", "---\ntitle: Notes\n---\n\nThe training job writes a checkpoint every hour to "
                                     "the shared file system, and the team restores the newest one.\n")
    kb = load_knowledge(knowledge)
    assert (doc(kb, "notes").lang, doc(kb, "notes-en").lang) == ("es", "en")


# -- source_url ---------------------------------------------------------------------------------------------

LLAMA_URL = "https://awslabs.github.io/data-on-eks/docs/gen-ai/training/Neuron/Llama2"


def urls(kb: KnowledgeBase) -> dict[str, str | None]:
    return {d.doc_id: d.source_url for d in kb.documents if d.kind == "doc"}


def test_source_url_from_a_name_in_sources_yaml(docs_dir: Path) -> None:
    write(docs_dir / "public" / "sources.yaml", f"data-on-eks-llama2-trainium.mdx: {LLAMA_URL}\n")
    assert urls(load_knowledge(docs_dir)) == {
        LLAMA: LLAMA_URL, KUBEFLOW: None, VOLCANO: None,
        GPU_RUNBOOK: EXPECTED_DOCS[GPU_RUNBOOK][3], CKPT_RUNBOOK: EXPECTED_DOCS[CKPT_RUNBOOK][3],
    }


def test_source_url_from_base_url_in_sources_yaml_and_a_name_beside_it(docs_dir: Path) -> None:
    write(docs_dir / "public" / "sources.yaml",
          f"base_url: https://docs.example.com/public/\ndata-on-eks-llama2-trainium.mdx: {LLAMA_URL}\n")
    found = urls(load_knowledge(docs_dir))
    assert found[LLAMA] == LLAMA_URL
    assert found[KUBEFLOW] == "https://docs.example.com/public/kubeflow-trainer-pytorch-guide"
    assert found[VOLCANO] == "https://docs.example.com/public/volcano-network-topology-aware-scheduling"


def test_front_matter_source_url_wins_over_sources_yaml(docs_dir: Path) -> None:
    write(docs_dir / "runbook" / "sources.yaml", "base_url: https://wiki.example.com/runbooks\n"
                                                 "gpu-training-runbook.md: https://wiki.example.com/other\n")
    write(docs_dir / "runbook" / "storage-notes.md", "# Storage notes\n\nFSx is mounted at /fsx.\n")
    found = urls(load_knowledge(docs_dir))
    assert found[GPU_RUNBOOK] == "https://wiki.acme.internal/ml-platform/runbooks/gpu-training"
    assert found[CKPT_RUNBOOK] == "https://wiki.acme.internal/ml-platform/runbooks/checkpoints"
    assert found["runbook/storage-notes"] == "https://wiki.example.com/runbooks/storage-notes"


@pytest.mark.parametrize("subfolder", [
    "wiki",  # sorts after "sources.yaml": its sources.yaml is read last
    "guides",  # sorts before it: the nearest sources.yaml still has the last word
])
def test_the_nearest_sources_yaml_names_a_file_in_a_subfolder(tmp_path: Path, subfolder: str) -> None:
    knowledge = quiz_only_dir(tmp_path / "knowledge")
    write(knowledge / "team" / "sources.yaml", "base_url: https://docs.example.com/team\n")
    write(knowledge / "team" / "a.md", "# A\n\nText of a.\n")
    write(knowledge / "team" / subfolder / "sources.yaml", "b.md: https://wiki.example.com/b-page\n")
    write(knowledge / "team" / subfolder / "b.md", "# B\n\nText of b.\n")
    found = urls(load_knowledge(knowledge))
    assert found == {"team/a": "https://docs.example.com/team/a", f"team/{subfolder}/b": "https://wiki.example.com/b-page"}


# -- which files load, their ids and titles -----------------------------------------------------------------


def test_a_doc_without_front_matter_or_heading_takes_its_title_from_the_file_name(tmp_path: Path) -> None:
    knowledge = quiz_only_dir(tmp_path / "knowledge")
    write(knowledge / "gpu-node_notes.md", "Drain the node before replacing a GPU.\n\nThen cordon it.\n")
    notes = doc(load_knowledge(knowledge), "gpu-node_notes")
    assert notes.title == "gpu node notes"
    assert [(q.path, q.line, [b.text for b in q.blocks]) for q in notes.questions] == [
        (("gpu node notes",), 1, ["Drain the node before replacing a GPU.", "Then cordon it."])
    ]


def test_a_later_level_one_heading_opens_a_part_of_the_page_its_sections_stand_under(tmp_path: Path) -> None:
    knowledge = quiz_only_dir(tmp_path / "knowledge")
    write(knowledge / "driver.md", "# Driver Options\n\nOptions of the driver container.\n\n"
          "# StorageClass Parameters\n\nSet in the StorageClass.\n\n## Common Parameters\n\n`subnetId` is required.\n")
    driver = doc(load_knowledge(knowledge), "driver")
    assert driver.title == "Driver Options"
    assert [(q.section, q.title) for q in driver.questions] == [
        ("Driver Options", "Driver Options"),
        ("Driver Options › StorageClass Parameters", "StorageClass Parameters"),
        ("Driver Options › StorageClass Parameters › Common Parameters", "Common Parameters"),
    ]


def test_hugo_shortcodes_show_what_the_published_page_shows_and_comments_nothing(tmp_path: Path) -> None:
    """The Kubernetes website's way of writing: a glossary term is a shortcode around its text, a heading is a
    shortcode naming it, a note is a shortcode box, a code sample names its file; comments mark the page's parts."""
    knowledge = quiz_only_dir(tmp_path / "knowledge")
    write(knowledge / "pod-failure-policy.md", (
        '---\ntitle: Pod failure policy\n---\n\n<!-- overview -->\n\nRetry pods within a '
        '{{<glossary_tooltip text="Job" term_id="job">}}, except on '
        '{{<glossary_tooltip text="preemption" term_id="preemption" >}}.\n\n'
        '## {{% heading "prerequisites" %}}\n\n{{< include "task-tutorial-prereqs.md" >}}\n\n'
        'You should know Jobs.\n\n## Ignore disruptions\n\n<!-- steps -->\n\n{{< note >}}\n'
        'The Job controller counts a <pod> failure once.\n{{< /note >}}\n\n{{% notice tip %}}\nDrain first.\n'
        '{{% /notice %}}\n\nCreate the Job:\n\n'
        '{{% code_sample file="/controllers/job-pod-failure-policy-ignore.yaml" %}}\n\n'
        '<!-- a closed comment\nof two lines -->\n\nThen run it.\n\n<!-- a comment left open\nkeeps its text\n'))
    page = doc(load_knowledge(knowledge), "pod-failure-policy")
    texts = {q.section: [b.text for b in q.blocks] for q in page.questions}
    assert texts == {
        "Pod failure policy": ["Retry pods within a Job, except on preemption."],
        "Pod failure policy › Before you begin": ["You should know Jobs."],
        "Pod failure policy › Ignore disruptions": [
            "Note: The Job controller counts a <pod> failure once.", "Tip: Drain first.", "Create the Job:",
            "job-pod-failure-policy-ignore.yaml", "Then run it.", "a comment left open keeps its text"],
    }


def blocks_by_section(page: Document) -> dict[str, list[tuple[str, str]]]:
    """Each section's blocks, as (kind, text), by heading path."""
    return {q.section: [(b.kind, b.text) for b in q.blocks] for q in page.questions}


def test_every_generators_boxes_and_tabs_show_their_title_then_their_text_as_prose(tmp_path: Path) -> None:
    """MkDocs boxes (`!!! warning`, `??? tip`) indent their text under them: read as written it is code (after a
    blank line) or "!!! Warning Each …" (without one). GitHub's `> [!NOTE]` and Docusaurus's `:::tip` name their
    kind in a marker. A reader sees a box headed by its title or kind, then its text, lists and code as such; a
    tab (MkDocs `=== "Helm"`, indented as a box; Hugo's `tab name=`; Docusaurus's `<TabItem label=>`) shows its
    name the same way."""
    knowledge = quiz_only_dir(tmp_path / "knowledge")
    write(knowledge / "locks.md", (
        "# Locks\n\n!!! Warning\n    Each synchronization block may only refer to a semaphore or a mutex.\n"
        "    If you specify both only the semaphore will be locked.\n\n"
        '!!! note "Shared <team> locks"\n\n    Locks are kept in the controller.\n\n    A second paragraph.\n\n'
        "??? tip\n    - drain the node first\n    - then delete the pod\n\nText after the boxes.\n\n"
        '???+ example ""\n    ```yaml\n    kind: Workflow\n    ```\n\n'
        "```markdown\n!!! note\n    shown as written, in code\n```\n\n"
        "## Labels\n\n> [!WARNING]\n> Label values are strings.\n\n:::tip\n\nDocusaurus text.\n\n:::\n\n"
        ":::info Custom title\nTitled text.\n:::\n\n:::tip[Bracketed title]\nMore text.\n:::\n\n:::caution\n:::\n\n"
        "## Install\n\n"
        '=== "Helm"\n\n    ```bash\n    helm install gfd nvdp/gpu-feature-discovery\n    ```\n\n'
        '=== "Kustomize"\n\n    Apply the overlay of your cluster.\n\n'
        '{{< tab name="Linux" >}}Run `make`.{{< /tab >}}\n\n<Tabs>\n  <TabItem value="eks" label="EKS" default>\n\n'
        "Use the managed add-on.\n\n  </TabItem>\n</Tabs>\n\n--8<-- \"includes/abbreviations.md\"\n"))
    page = doc(load_knowledge(knowledge), "locks")
    assert blocks_by_section(page) == {
        "Locks": [
            ("text", "Warning: Each synchronization block may only refer to a semaphore or a mutex. If you specify "
                     "both only the semaphore will be locked."),
            ("text", "Shared <team> locks: Locks are kept in the controller."), ("text", "A second paragraph."),
            ("text", "Tip:"), ("list", "- drain the node first\n- then delete the pod"),
            ("text", "Text after the boxes."), ("code", "kind: Workflow"),
            ("code", "!!! note\n    shown as written, in code"),
        ],
        "Locks › Labels": [
            ("text", "Warning: Label values are strings."), ("text", "Tip: Docusaurus text."),
            ("text", "Custom title: Titled text."), ("text", "Bracketed title: More text."), ("text", "Caution"),
        ],
        "Locks › Install": [  # tabs: each one's name over its text
            ("text", "Helm:"), ("code", "helm install gfd nvdp/gpu-feature-discovery"),
            ("text", "Kustomize: Apply the overlay of your cluster."), ("text", "Linux: Run `make`."),
            ("text", "EKS: Use the managed add-on."),
        ],
    }
    lines = (knowledge / "locks.md").read_text(encoding="utf-8").split("\n")
    first = page.questions[0].blocks
    assert lines[first[0].line - 1].strip().startswith("Each synchronization")  # each block at its line
    assert lines[first[4].line - 1].strip() == "- drain the node first"


def test_an_mkdocs_box_written_without_its_space_or_its_indent_shows_its_title_over_its_text(tmp_path: Path
                                                                                              ) -> None:
    """MkDocs reads `!!!warning "Title"` as `!!! warning "Title"` (its space is optional), and pages written so often
    put the box's paragraph right under it, not indented (the AWS Load Balancer Controller's TargetGroupBinding page):
    the title stands in front of that paragraph, never shown as "!!!warning", nor run into it as one sentence. A
    paragraph after a blank line is the page's own; an indented one, the box's text as before."""
    knowledge = quiz_only_dir(tmp_path / "knowledge")
    write(knowledge / "tgb.md", (
        '# TGB\n\n!!!warning "Usage in multi-tenant clusters"\nTenants can import any TargetGroup.\n\n'
        "**Recommendation**: use RBAC.\n\n!!!important\n    Wildcards need `resource.customizations`.\n\n"
        "!!!tip\n\nThe page's own paragraph.\n"))
    assert blocks_by_section(doc(load_knowledge(knowledge), "tgb")) == {"TGB": [
        ("text", "Usage in multi-tenant clusters: Tenants can import any TargetGroup."),
        ("text", "Recommendation: use RBAC."), ("text", "Important: Wildcards need `resource.customizations`."),
        ("text", "Tip"), ("text", "The page's own paragraph."),
    ]}


def test_a_sphinx_myst_page_shows_its_boxes_as_prose_and_none_of_its_comments_or_targets(tmp_path: Path) -> None:
    """MyST (Sphinx) writes a box as a directive fence (```` ```{warning} ````, `:::{note}`, `{admonition} Title`),
    with options under it, a comment as a line opening with `%` and a link target as `(label)=`: the published page
    shows the box's kind or title and its text, and none of the rest. Other directives, and a `%` that ends a
    sentence, stay as written."""
    knowledge = quiz_only_dir(tmp_path / "knowledge")
    write(knowledge / "toolkit.md", (
        "% Date: May 12 2022\n% Author: someone\n\n(toolkit-troubleshooting)=\n\n# Troubleshooting\n\n"
        "## Losing GPUs\n\nA `systemctl daemon-reload` can drop GPU access, on up to 50\n% of the nodes.\n\n"
        "```{warning}\nCertain `runc` versions behave the same.\n\n- update `runc`\n```\n\n"
        ":::{note}\n:class: dropdown\nThe driver keeps its symlinks.\n:::\n\n"
        "````{admonition} Before you start\nStop the jobs:\n\n```bash\nkubectl delete pytorchjob --all\n```\n````\n\n"
        "(next-section)=\n\n## Next\n\n```{code-block} bash\n:caption: configure\nnvidia-ctk runtime configure\n```\n"))
    page = doc(load_knowledge(knowledge), "toolkit")
    assert blocks_by_section(page) == {
        "Troubleshooting › Losing GPUs": [
            ("text", "A `systemctl daemon-reload` can drop GPU access, on up to 50 % of the nodes."),
            ("text", "Warning: Certain `runc` versions behave the same."), ("list", "- update `runc`"),
            ("text", "Note: The driver keeps its symlinks."),
            ("text", "Before you start: Stop the jobs:"), ("code", "kubectl delete pytorchjob --all"),
        ],
        "Troubleshooting › Next": [("code", "nvidia-ctk runtime configure")],
    }
    assert page.questions[-1].blocks[0].lang == "bash"


def test_a_table_of_contents_is_not_a_section_to_answer_from(tmp_path: Path) -> None:
    knowledge = quiz_only_dir(tmp_path / "knowledge")
    write(knowledge / "gfd.md", "# GPU feature discovery\n\n## Table of Contents\n\n- [Overview](#overview)\n"
          "- [Quick Start](#quick-start)\n  * [Node Feature Discovery (NFD)](#node-feature-discovery-nfd)\n\n"
          "## Overview\n\nGFD labels GPU nodes.\n\n## Quick Start\n\n### Node Feature Discovery (NFD)\n\n"
          "Deploy NFD first:\n\n- Overview of the labels\n- Quick start of the daemonset\n- Node Feature Discovery\n")
    gfd = doc(load_knowledge(knowledge), "gfd")
    assert [q.title for q in gfd.questions] == ["Overview", "Node Feature Discovery (NFD)"]
    # a list that names a heading or two among other words is the author's text, kept
    assert "Node Feature Discovery" in gfd.questions[-1].blocks[-1].text


def test_a_doc_in_a_subfolder_gets_its_relative_path_as_id(tmp_path: Path) -> None:
    knowledge = quiz_only_dir(tmp_path / "knowledge")
    write(knowledge / "team" / "sub" / "notes.md", "# Notes\n\n## Quotas\n\nEight GPUs per team.\n")
    write(knowledge / "team" / "page.mdx", "import X from './x';\n\n# Page\n\n<X />\n\nMDX text.\n")
    kb = load_knowledge(knowledge)
    notes = doc(kb, "team/sub/notes")
    assert (notes.source, notes.title, [q.section for q in notes.questions]) == (
        "team/sub/notes.md", "Notes", ["Notes › Quotas"])
    page = doc(kb, "team/page")
    assert (page.source, page.title, [b.text for q in page.questions for b in q.blocks]) == (
        "team/page.mdx", "Page", ["MDX text."])


@pytest.mark.parametrize("name", ["README.md", "readme.md", "LICENSE.md", "CHANGELOG.md", "SOURCES.md",
                                  "CONTRIBUTING.md", "README.es.md", "sub/README.md", ".hidden/notes.md",
                                  "sub/.drafts/notes.mdx", "notes.txt", "notes.markdown.bak"])
def test_repository_files_hidden_folders_and_other_extensions_are_not_loaded(tmp_path: Path, name: str) -> None:
    knowledge = quiz_only_dir(tmp_path / "knowledge")
    write(knowledge / "sub" / "kept.md", "# Kept\n\nThis one loads.\n")
    write(knowledge / name, "# Not knowledge\n\nThis must not load.\n")
    kb = load_knowledge(knowledge)
    assert sorted({d.source for d in kb.documents}) == ["eks-training-quiz.en.md", "eks-training-quiz.es.md",
                                                        "sub/kept.md"]
    assert kb.skipped == ()


# -- unreadable docs are skipped; a broken quiz file stops the load -----------------------------------------


@pytest.mark.parametrize(("name", "content", "reason"), [
    pytest.param("x.md", b"\x00\x01\x02\x03binary\xff\xfe", "a binary file, not text", id="binary"),
    pytest.param("latin.md", "# Año\n\nEl niño entrena el modelo.\n".encode("latin-1"), "not valid UTF-8",
                 id="latin-1"),
    pytest.param("broken.md", b"---\ntitle: [unclosed\nsource_url: https://x\n---\n\n# T\n\nText.\n",
                 "the front matter is not valid YAML", id="broken-yaml"),
    pytest.param("broken-toml.md", b"+++\ntitle = \n+++\n\n# T\n\nText.\n", "the front matter is not valid TOML",
                 id="broken-toml"),
    pytest.param("open.md", b"---\ntitle: T\n\n# T\n\nText.\n", "never closed", id="unclosed-front-matter"),
    pytest.param("list.md", b"---\n- a\n- b\n---\n\n# T\n\nText.\n", "not a mapping", id="front-matter-list"),
    pytest.param("empty.md", b"---\ntitle: Empty\n---\n\n", "no text to answer from", id="empty"),
])
def test_an_unreadable_doc_is_skipped_with_the_reason(docs_dir: Path, name: str, content: bytes, reason: str) -> None:
    path = write(docs_dir / "runbook" / name, content)
    kb = load_knowledge(docs_dir)
    assert [s.path for s in kb.skipped] == [path]
    assert reason in kb.skipped[0].reason
    assert str(kb.skipped[0]).startswith(f"{path}: ")
    assert sorted(d.doc_id for d in kb.documents if d.kind == "doc") == sorted(EXPECTED_DOCS)
    assert len([d for d in kb.documents if d.kind == "quiz"]) == 2


def test_a_latin_1_doc_names_the_byte_that_is_not_utf_8(docs_dir: Path) -> None:
    text = "# Año\n\nEl niño.\n"
    write(docs_dir / "latin.md", text.encode("latin-1"))
    (skipped,) = load_knowledge(docs_dir).skipped
    assert skipped.reason == f"not valid UTF-8 (invalid continuation byte at byte {text.index('ñ')})"


def test_a_broken_quiz_file_still_stops_the_load_with_file_and_line(docs_dir: Path) -> None:
    path = docs_dir / "eks-training-quiz.en.md"
    text = path.read_text(encoding="utf-8")
    assert text.count("\nAnswer: B\n") >= 1
    broken = text.replace("\nAnswer: B\n", "\nAnswer: E\n", 1)
    path.write_text(broken, encoding="utf-8")
    line = broken.split("\n").index("Answer: E") + 1
    with pytest.raises(KnowledgeError) as info:
        load_knowledge(docs_dir)
    assert not isinstance(info.value, UnreadableError)
    assert (info.value.path, info.value.line) == (path, line)
    assert f"{path}:{line}: " in str(info.value)
    assert "'E'" in info.value.reason and "question 1" in info.value.reason


# -- digest -------------------------------------------------------------------------------------------------


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


@pytest.mark.parametrize(("change", "changes_digest"), [
    pytest.param(lambda d: _append(d / "public" / "volcano-network-topology-aware-scheduling.md", "\nMore.\n"),
                 True, id="doc-in-subfolder-edited"),
    pytest.param(lambda d: write(d / "runbook" / "new.md", "# New\n\nA new page.\n"), True, id="doc-added"),
    pytest.param(lambda d: (d / "runbook" / "checkpoints-runbook.es.md").unlink(), True, id="doc-removed"),
    pytest.param(lambda d: write(d / "public" / "sources.yaml", "base_url: https://docs.example.com\n"), True,
                 id="sources-yaml-added"),
    pytest.param(lambda d: _append(d / "runbook" / "sources.yaml", "# another comment\n"), True,
                 id="sources-yaml-edited"),
    pytest.param(lambda d: _append(d / "public" / "SOURCES.md", "\nMore.\n"), False, id="SOURCES-md-edited"),
    pytest.param(lambda d: write(d / ".git" / "notes.md", "# Hidden\n\nNot knowledge.\n"), False,
                 id="hidden-doc-added"),
])
def test_the_knowledge_digest_follows_docs_and_sources_yaml(docs_dir: Path, change: Any, changes_digest: bool) -> None:
    write(docs_dir / "runbook" / "sources.yaml", "base_url: https://docs.example.com\n")
    before = load_knowledge(docs_dir).digest
    assert before == knowledge_digest(docs_dir)
    change(docs_dir)
    after = knowledge_digest(docs_dir)
    assert (after != before) is changes_digest
    assert load_knowledge(docs_dir).digest == after


# -- chunks -------------------------------------------------------------------------------------------------


def test_chunk_headers_of_doc_sections_name_their_heading_path(docs_kb: KnowledgeBase) -> None:
    chunks, _ = chunk_knowledge(docs_kb)
    by_section = {q.section: q for d in docs_kb.documents if d.kind == "doc" for q in d.questions}
    doc_chunks = [c for c in chunks if c.doc_id in EXPECTED_DOCS]
    assert {c.section for c in doc_chunks} == set(by_section)
    for c in doc_chunks:
        assert c.header == c.section + (f" — {c.label}" if c.label else "")
        assert c.indexed_text.startswith(c.header + "\n")
    # a quiz question keeps its numbered title: no section
    assert {c.section for c in chunks if c.doc_id == QUIZ_ID} == {""}

    inventory = f"{GPU_TITLE} › Clusters and node groups › Cluster inventory"
    rows = [c for c in doc_chunks if c.section == inventory and c.kind == "table_row"]
    assert [c.header for c in rows] == [inventory] * 3
    assert rows[0].text == "Cluster: `acme-ml-prod-usw2`; Region: us-west-2; Use: production training; Kubernetes: 1.30"
    (mpi,) = [c for c in doc_chunks if c.kind == "code" and "TF_VAR_enable_mpi_operator=true" in c.text]
    assert (mpi.section, mpi.code_lang, mpi.line, mpi.source) == (
        f"{LLAMA_HEADING} › Prerequisites", "bash", 110, "public/data-on-eks-llama2-trainium.mdx")


# -- code in nested list items -------------------------------------------------------------------------------


def test_code_in_a_nested_list_item_is_kept_as_written(tmp_path: Path) -> None:
    knowledge = quiz_only_dir(tmp_path / "knowledge")
    write(knowledge / "tensors.md", "# Tensors\n\n1. Check the type\n   - In the REPL:\n     ```python\n"
                                    "     >>> type(x)\n     <class 'torch.Tensor'>\n     ```\n")
    (code,) = [b for q in doc(load_knowledge(knowledge), "tensors").questions for b in q.code_blocks]
    assert (code.lang, code.line, code.text) == ("python", 5, ">>> type(x)\n<class 'torch.Tensor'>")


def test_a_language_suffix_names_the_language_and_stays_out_of_the_title(tmp_path: Path) -> None:
    knowledge = quiz_only_dir(tmp_path / "knowledge")
    write(knowledge / "notas-de-guardia.es.md", "Runbook: `kubectl get pods -n ml-train` first.\n")  # English words
    (doc,) = [d for d in load_knowledge(knowledge).documents if d.doc_id == "notas-de-guardia.es"]
    assert (doc.title, doc.lang) == ("notas de guardia", "es")


# -- text as written ----------------------------------------------------------------------------------------

def test_placeholders_stay_as_written_while_html_tags_and_components_go(tmp_path: Path) -> None:
    from bot.knowledge.markdown import parse_markdown

    text = ("# Quotas\n\nEach `train-<team>` namespace, or train-<team> outside code, holds <b>one</b> quota; "
            "checkpoints go to step-<NNNNNN>/ under <your-namespace>.\n\n<Tabs>\n\n<pod>\n\n"
            "<div align=\"center\">centred</div>\n")
    blocks = [b.text for q in parse_markdown(text, tmp_path / "q.md", doc_id="q", source="q.md").questions
              for b in q.blocks]
    assert blocks == [
        "Each `train-<team>` namespace, or train-<team> outside code, holds one quota; checkpoints go to "
        "step-<NNNNNN>/ under <your-namespace>.",
        "<pod>",
        "centred",
    ]


def test_a_component_inside_a_sentence_shows_what_the_site_displays_for_it(tmp_path: Path) -> None:
    """An MDX page's `<PyObject module="dagster" object="in_process_executor" />` inside a sentence is shown by
    the site as the object's name: the sentence keeps it (as code), where dropping it left "the default executor
    - - will run"; a tag with nothing to display still shows nothing."""
    from bot.knowledge.markdown import parse_markdown

    text = ('# Executors\n\nThe default executor - <PyObject section="execution" module="dagster" '
            'object="multi_or_in_process_executor" /> - runs each step in its own process. Use the '
            '<PyObject module="dagster" object="in_process_executor" /> for short steps '
            '<Badge text="beta" /><Icon />.\n')
    (q,) = parse_markdown(text, tmp_path / "x.mdx", doc_id="x", source="x.mdx").questions
    assert [b.text for b in q.blocks] == [
        "The default executor - `multi_or_in_process_executor` - runs each step in its own process. Use the "
        "`in_process_executor` for short steps beta."]


JEKYLL = """# Fair scheduling

To enable the fair scheduler, set `spark.scheduler.mode` to `FAIR`:

{% highlight scala %}
val conf = new SparkConf()
conf.set("spark.scheduler.mode", "FAIR")
{% endhighlight %}

See the [configuration reference]({% link reference/configuration.md %}) and our chart's
[README](https://example.com/charts/README.md){:target="_blank"}.
{: .note }

{% include toc.html %}
"""


def test_a_jekyll_pages_markup_shows_as_the_published_page_does(tmp_path: Path) -> None:
    """A GitHub Pages site's Markdown: `{% highlight %}` is a code block in its language, a `{% link %}` is the
    page it links to, and kramdown's attribute lists and other Liquid tags show nothing."""
    from bot.knowledge.markdown import parse_markdown

    (q,) = parse_markdown(JEKYLL, tmp_path / "fair.md", doc_id="fair", source="fair.md").questions
    assert [(b.kind, b.lang) for b in q.blocks] == [("text", None), ("code", "scala"), ("text", None)]
    assert q.blocks[1].text == 'val conf = new SparkConf()\nconf.set("spark.scheduler.mode", "FAIR")'
    assert q.blocks[2].text == "See the configuration reference and our chart's README."


@pytest.mark.parametrize("page", ["holdout-h/lakefs-deploy-aws.md", "fit-b/spark-job-scheduling.md",
                                  "holdout-g/nfd-feature-labels.md", "holdout-f/deepspeed-getting-started.md"])
def test_no_jekyll_markup_is_left_in_a_published_pages_text(page: str, tmp_path: Path) -> None:
    from bot.knowledge.markdown import parse_markdown

    document = parse_markdown((DOCS / page).read_text(encoding="utf-8"), tmp_path / Path(page).name,
                              doc_id="page", source=page)
    texts = [b.text for q in document.questions for b in q.blocks if b.kind != "code"]
    assert texts and not [t for t in texts if "{%" in t or "{:" in t]


HUGO_CODE = """# Manual injection

To manually inject a deployment, use `istioctl kube-inject`:

{{< text bash >}}
$ istioctl kube-inject -f @samples/sleep/sleep.yaml@ | kubectl apply -f -
$ kubectl get pod  -l app=sleep
NAME                     READY   STATUS    RESTARTS   AGE
sleep-64c6f57bc8-f5n4x   2/2     Running   0          24s
{{< /text >}}

The same in Go, with Hugo's own shortcode:

{{< highlight go "linenos=table,hl_lines=2" >}}
# not a heading
client.Inject(pod)
{{< /highlight >}}

{{< text >}}
plain output
{{< /text >}}
"""


def test_a_hugo_code_shortcode_is_a_code_block_in_its_language(tmp_path: Path) -> None:
    """Hugo's `{{< highlight go >}}` and the `{{< text bash >}}` of sites such as Istio's show a code block: its
    lines as written (a command's output keeps its columns, a `#` line is no heading), not a paragraph of them."""
    from bot.knowledge.markdown import parse_markdown

    (q,) = parse_markdown(HUGO_CODE, tmp_path / "inject.md", doc_id="inject", source="inject.md").questions
    assert [(b.kind, b.lang) for b in q.blocks] == [
        ("text", None), ("code", "bash"), ("text", None), ("code", "go"), ("code", None)]
    assert q.blocks[1].text.split("\n")[3] == "sleep-64c6f57bc8-f5n4x   2/2     Running   0          24s"
    assert q.blocks[3].text == "# not a heading\nclient.Inject(pod)" and q.blocks[4].text == "plain output"
    istio = parse_markdown((DOCS / "holdout-j/istio-sidecar-injection.md").read_text(encoding="utf-8"),
                           tmp_path / "istio.md", doc_id="istio", source="istio.md")
    texts = [b.text for s in istio.questions for b in s.blocks if b.kind != "code"]
    assert texts and not [t for t in texts if "{{<" in t or t.startswith("$ ")]


# -- every page of the evaluation sets, and where each question's answer is -----------------------------------

QUESTION_FILES = sorted(DOCS.glob("questions*.jsonl")) + sorted(DOCS.glob("*/questions.jsonl"))
EVERY_QUESTION = [(path.relative_to(DOCS).as_posix(), n, json.loads(line)) for path in QUESTION_FILES
                  for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1) if line.strip()]


@pytest.fixture(scope="module")
def every_page(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    target = quiz_only_dir(tmp_path_factory.mktemp("every-page") / "knowledge")
    for folder in (p for p in DOCS.iterdir() if p.is_dir()):
        shutil.copytree(folder, target / folder.name)
    return load_knowledge(target)


def test_every_page_of_the_evaluation_sets_loads_with_the_quiz(every_page: KnowledgeBase) -> None:
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.glob("*/*") if p.suffix in (".md", ".mdx")
             and p.name not in ("SOURCES.md", "README.md")}
    loaded = {d.source for d in every_page.documents if d.kind == "doc"}
    assert pages <= loaded, sorted(pages - loaded)
    assert not every_page.skipped


@pytest.mark.parametrize("where,line,question", EVERY_QUESTION,
                         ids=[f"{w}:{n}" for w, n, _ in EVERY_QUESTION])
def test_each_answerable_question_names_a_section_that_holds_its_answer(
        every_page: KnowledgeBase, where: str, line: int, question: dict[str, Any]) -> None:
    """As the bot reads the page (not only as the file is written): the section exists and its own text holds
    every string of the answer, so a figure on these sets measures the bot and not the labels."""
    assert question["lang"] in ("en", "es") and isinstance(question["q"], str) and question["q"].strip()
    if not question["answerable"]:
        assert "section" not in question
        return
    document = next((d for d in every_page.documents if d.source == question["source"]), None)
    assert document is not None, question["source"]
    named = sections(document, question["section"])
    assert named, f"no section {question['section']!r} in {[q.section for q in document.questions]}"
    wanted = [plain(s) for s in question["answer_contains"]]
    assert wanted and any(all(w in section_text(q) for w in wanted) for q in named), wanted
