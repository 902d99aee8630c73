"""What the tests of knowledge added while serving write and ask: an entry, a quiz question as an entry, and a
maintainers' note on quiz question 4 (the Slinky CRD names the quiz gets wrong)."""

from __future__ import annotations

from typing import Any

RUNBOOK_TITLE = "GPU quota for the research team"
RUNBOOK_BODY = ("The research team has a quota of 64 `nvidia.com/gpu` in namespace `research-train`.\n\n"
                "```bash\nkubectl describe resourcequota gpu -n research-train\n```")
RUNBOOK: dict[str, Any] = {"title": RUNBOOK_TITLE, "body": RUNBOOK_BODY, "lang": "en", "topic": "Quotas"}
ASK_RUNBOOK = "What is the GPU quota of the research team namespace?"
ASK_SLINKY = "Which Slinky CRD defines the Slurm compute nodes?"
SLINKY_NOTE = ("Current Slinky releases name these kinds NodeSet and Cluster, in the slinky.slurm.net group; "
               "SlurmNodeSet and SlurmCluster are the old names.")
QUIZ_ENTRY: dict[str, Any] = {
    "title": "Which kind does Slinky define for a set of Slurm compute nodes?",
    "body": "Current Slinky releases define `NodeSet` in the `slinky.slurm.net` group.",
    "lang": "en", "topic": "Slinky CRD names", "options": ["SlurmNodeSet", "NodeSet", "ComputeSet", "NodeGroup"],
    "answer": "B",
}
