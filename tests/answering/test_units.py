"""An answer from a document quotes what a person would quote: a paragraph, a list with its lead-in, a code
block with the sentence before it, a table row with its header; a short section or entry whole; placeholders
such as `<team>` as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.answering.assistant import Assistant
from bot.answering.units import choose, page_words, units_of
from bot.knowledge.markdown import parse_markdown
from bot.knowledge.model import Question
from bot.reading.terms import Analysis
from tests.support.extra_knowledge import beside_the_quiz

RUNBOOK = """---
title: Training runbook
---

## Restarting a job

Jobs restart from their last checkpoint when a node fails. The operator counts restarts per job.

To allow more restarts, raise the limit in the job's spec:

```yaml
spec:
  runPolicy:
    backoffLimit: 6
```

Each restart is logged in the job's events. Old events are kept for an hour.

The restart policies are:

- `OnFailure`: restart the failed pod only
- `ExitCode`: restart when the exit code says the failure is retryable
- `Never`: leave the pod failed

| Policy | Restarts the whole job |
|---|---|
| OnFailure | no |
| ExitCode | only for exit codes 128 and above |
"""

QUOTA_ENTRY = """# GPU quota

GPU quota is a ResourceQuota on `requests.nvidia.com/gpu` in each `train-<team>` namespace. To get more, open a
request in #ml-platform-requests with the team, the number of GPUs and for how long.
"""


def section(text: str, heading: str) -> Question:
    document = parse_markdown(text, Path("runbook.md"), doc_id="runbook", source="runbook.md")
    return next(q for q in document.questions if q.path[-1] == heading)


def analysis_of(*words: tuple[str, float], parts: tuple[int, ...] = ()) -> Analysis:
    """A question read as these words (index term, specificity), as `bot.reading.terms` gives them; `parts`: which
    sentence of the message each word is in (all in one when not given)."""
    from bot.reading.terms import QueryWord

    read = tuple(QueryWord(text=w, readings=(), forms={"en": ((w,),)}, specificity=s, named=s > 0.5,
                           position=i) for i, (w, s) in enumerate(words))
    return Analysis(words=read, tokens=tuple(w for w, _ in words), spans=(), segments=parts or (0,) * len(words),
                    search_text="", definition_of=(), comparison=False)


def test_a_section_is_read_into_paragraphs_lists_with_their_lead_in_code_with_its_lead_in_and_rows() -> None:
    units = units_of(section(RUNBOOK, "Restarting a job"))
    kinds = [u.kind for u in units]
    assert kinds == ["paragraph", "code", "paragraph", "list", "row", "row"]
    code = units[1]
    assert code.lines == ("To allow more restarts, raise the limit in the job's spec:",)
    assert code.code is not None and "backoffLimit: 6" in code.code.text
    listed = units[3]
    assert listed.lines[0] == "The restart policies are:" and len(listed.lines) == 4
    assert units[5].row == "Policy: ExitCode; Restarts the whole job: only for exit codes 128 and above"


def test_the_unit_holding_the_questions_specific_words_is_quoted_with_the_code_it_leads_into() -> None:
    question = section(RUNBOOK, "Restarting a job")
    quote = choose(question, analysis_of(("backofflimit", 1.0), ("restarts", 0.3)), {}, {}, {})
    assert "raise the limit" in quote.excerpt
    assert quote.code is not None and "backoffLimit: 6" in quote.code.text
    # The same section asked about a policy by name: the list with its lead-in, and no unrelated code.
    quote = choose(question, analysis_of(("exitcode", 1.0), ("policy", 0.2)), {}, {}, {})
    assert "The restart policies are:" in quote.excerpt and "`ExitCode`: restart when" in quote.excerpt


def test_closeness_of_a_sentence_chooses_between_units_that_share_no_word_with_the_question() -> None:
    question = section(RUNBOOK, "Restarting a job")
    sims = {"Each restart is logged in the job's events.": 0.7, "Old events are kept for an hour.": 0.6}
    quote = choose(question, analysis_of(("history", 0.4)), sims, {}, {})
    assert quote.excerpt == "Each restart is logged in the job's events. Old events are kept for an hour."


GANG_PAGE = """## Under the hood

The operator watches every RayCluster and reconciles it at each change of its spec. It records what it did in the
cluster's events, so that anyone can follow it with kubectl describe. Nothing of this needs a restart of the
operator, and nothing of it changes the pods already running, which keep the placement they were given.

When gang scheduling is on, the operator creates these before any pod:

1. A `Workload` object named after the cluster
2. One `PodGroup` per worker group, named `<cluster>-worker-<group>`

The Workload and its PodGroups are owned by the RayCluster and garbage collected with it.

Turning gang scheduling off again leaves the running pods where they are. The operator stops creating the objects
for new clusters, and a cluster already running keeps them until it is deleted or its spec changes. Upgrading the
operator keeps the objects it created with the release before.
"""


def test_a_kinds_name_asked_in_the_plural_finds_the_unit_that_names_it_in_the_singular() -> None:
    """"Which PodGroups will I see for my worker groups?": the list that says "One `PodGroup` per worker group"
    answers, not the sentence that only repeats "PodGroups". A kind's name is read whole, never stemmed."""
    from bot.reading.terms import QueryWord

    words = (("PodGroups", "podgroups", 1.0), ("workers", "worker", 0.3))
    read = tuple(QueryWord(text=text, readings=(), forms={"en": ((term,),)}, specificity=weight, named=weight > 0.5,
                           position=i) for i, (text, term, weight) in enumerate(words))
    asked = Analysis(words=read, tokens=tuple(t for t, _, _ in words), spans=(), segments=(0, 0), search_text="",
                     definition_of=(), comparison=False)
    quote = choose(section(GANG_PAGE, "Under the hood"), asked, {}, {}, {})
    assert "One `PodGroup` per worker group" in quote.excerpt and "garbage collected" not in quote.excerpt


CHART = """## Configuration

Unknown values are ignored, and a value set twice keeps the last one written.

The values of the chart, for every mode of the handler:

| Parameter | Description | Default |
|---|---|---|
| `replicas` | Replicas of the deployment in queue mode | `1` |
| `queueURL` | The SQS queue the handler listens to | `""` |
| `enableSpotDraining` | Drain a node on a spot interruption notice | `true` |
| `enableRebalanceDraining` | Drain a node on a rebalance recommendation | `false` |
| `webhookURL` | Where notifications are posted | `""` |
| `dryRun` | Log what would be done, and do nothing | `false` |
"""


def test_a_question_about_two_values_of_a_table_is_quoted_with_both_rows_under_one_lead_in() -> None:
    """"Does it drain on spot interruptions, and on rebalance recommendations?" asks about two rows: each is quoted,
    the sentence that introduces the table once; a question about one value gets its row alone."""
    question = section(CHART, "Configuration")
    both = choose(question, analysis_of(("spot", 0.8), ("interrupt", 0.6), ("rebal", 0.8), ("recommend", 0.4),
                                        ("drain", 0.3)), {}, {}, {})
    assert "`enableSpotDraining`" in both.excerpt and "`enableRebalanceDraining`" in both.excerpt
    assert both.excerpt.count("The values of the chart") == 1
    assert "`webhookURL`" not in both.excerpt and "`dryRun`" not in both.excerpt
    one = choose(question, analysis_of(("rebal", 0.8), ("recommend", 0.4), ("drain", 0.3)), {}, {}, {})
    assert "`enableRebalanceDraining`" in one.excerpt and "`enableSpotDraining`" not in one.excerpt


def test_each_question_of_a_message_of_several_is_quoted_with_the_unit_that_answers_it() -> None:
    """"Does it drain on rebalance recommendations? And can it only log what it would do?" asks two questions: the
    row of each is quoted, though the second's words weigh too little beside the first's to be quoted as what the
    best row leaves out. The same words asked as one question quote the first row alone."""
    question = section(CHART, "Configuration")
    words = (("rebal", 0.9), ("recommend", 0.5), ("drain", 0.4), ("log", 0.1))
    two = choose(question, analysis_of(*words, parts=(0, 0, 0, 1)), {}, {}, {})
    assert "`enableRebalanceDraining`" in two.excerpt and "`dryRun`" in two.excerpt
    assert "`enableSpotDraining`" not in two.excerpt
    one = choose(question, analysis_of(*words), {}, {}, {})
    assert "`enableRebalanceDraining`" in one.excerpt and "`dryRun`" not in one.excerpt


OPERATOR_RELEASES = """## Installing the operator

You can install the operator in either of two ways:

- Latest development build

```shell
kubectl apply --server-side -f https://example.com/operator/master/deploy.yaml
```

- Release version

```shell
kubectl apply --server-side -f https://example.com/operator/v1.4.0/deploy.yaml
```

An early version of the operator is no longer supported.

Check that the custom resource is installed with `kubectl get crd`. Its output lists the operator's group with its
age. Nothing else is needed for a first job. The operator reads its settings from a ConfigMap of the same name.
Change the ConfigMap and the operator restarts to read it. Each restart is logged as an event.
"""


def test_the_ordinary_words_of_what_is_asked_choose_between_units_under_the_heading_that_names_the_subject() -> None:
    """"How do I install the operator's release version?": every unit stands under "Installing the operator", so the
    heading's words tell none apart; "release" and "version" do, common as they are in general, and the release's
    command is quoted, not the paragraph closer in meaning that says only "version"."""
    question = section(OPERATOR_RELEASES, "Installing the operator")
    asked = analysis_of(("oper", 0.6), ("instal", 0.3), ("releas", 0.05), ("version", 0.05))
    sims = {"You can install the operator in either of two ways:": 0.3, "- Latest development build": 0.3,
            "- Release version": 0.3, "An early version of the operator is no longer supported.": 0.45}
    quote = choose(question, asked, sims, {}, {})
    assert quote.code is not None and "v1.4.0" in quote.code.text and "Release version" in quote.excerpt
    assert "no longer supported" not in quote.excerpt and "master" not in quote.code.text


def test_each_lead_in_quoted_shows_the_code_it_introduces_in_the_pages_order() -> None:
    """A question of two parts quotes the unit that answers its main part and, before it in the page, one that
    answers the other: both are quoted in the page's order, each lead-in with the code block it introduces."""
    page = OPERATOR_RELEASES.replace("- Latest development build", "- Latest development build, rebuilt nightly")
    asked = analysis_of(("releas", 0.8), ("version", 0.5), ("night", 0.5))
    quote = choose(section(page, "Installing the operator"), asked, {}, {}, {})
    assert quote.excerpt.index("rebuilt nightly") < quote.excerpt.index("Release version")
    assert quote.code is not None and quote.code.text.index("master") < quote.code.text.index("v1.4.0")


LISTING = """## Running an example

To list all the jobs that belong to a JobSet, you can use a command like this:

```shell
kubectl get jobs --selector=jobset.sigs.k8s.io/jobset-name=pytorch
```

The output is similar to

```
NAME                COMPLETIONS   DURATION   AGE
pytorch-workers-0   0/4           6m12s      6m12s
```

To list all the pods that belong to a JobSet, you can use a command like this:

```shell
kubectl get pods --selector=jobset.sigs.k8s.io/jobset-name=pytorch
```

The output is similar to

```
NAME                        READY   STATUS    RESTARTS   AGE
pytorch-workers-0-0-tcngx   1/1     Running   0          13s
```
"""


def test_two_lead_ins_about_as_close_are_each_quoted_with_their_own_command() -> None:
    """"kubectl command to list all the jobs of a jobset?": the lead-in of the jobs' command and the one of the
    pods' command are about as close, and both are quoted; the command under each is shown, never the pods' one
    alone under the jobs' lead-in."""
    question = section(LISTING, "Running an example")
    sims = {"To list all the jobs that belong to a JobSet, you can use a command like this:": 0.62,
            "To list all the pods that belong to a JobSet, you can use a command like this:": 0.64}
    quote = choose(question, analysis_of(("list", 0.2), ("jobset", 0.9)), sims, {}, {})
    assert quote.excerpt.index("all the jobs") < quote.excerpt.index("all the pods")
    assert quote.code is not None
    assert quote.code.text.index("get jobs") < quote.code.text.index("get pods")
    assert "COMPLETIONS" not in quote.code.text  # an output the question does not ask about
    # Shown as the page shows them: each lead-in over its own command, not both lead-ins over both commands.
    assert [(text.split(",")[0], code is not None and code.text.split()[2]) for text, code in quote.parts] == [
        ("To list all the jobs that belong to a JobSet", "jobs"), ("To list all the pods that belong to a JobSet",
                                                                   "pods")]
    # Clearly the closer one alone: its lead-in and its command, not the other's.
    sims["To list all the pods that belong to a JobSet, you can use a command like this:"] = 0.3
    quote = choose(question, analysis_of(("list", 0.2), ("jobset", 0.9)), sims, {}, {})
    assert "all the pods" not in quote.excerpt and quote.code is not None
    assert "get jobs" in quote.code.text and "get pods" not in quote.code.text


MODEL_CONFIG = """## Model configuration

It is required to configure the model you intend to use with a YAML config file. For example, for `llama.cpp`
workloads a configuration file might look like this (where `gpu_layers` is the number of layers to offload to the GPU):

```yaml
name: my-model-name
gpu_layers: 22
```

For diffusers instead, it might look like this instead:

```yaml
name: stablediffusion
backend: diffusers
```

Restart the server after changing a model's file.
"""


def test_a_short_section_of_two_examples_is_quoted_whole_each_lead_in_over_its_own_block() -> None:
    """A short section is quoted whole; with two code blocks, each is shown under the sentence that introduces it
    and what follows the last one after it, as the page reads: never both lead-ins first, then both blocks."""
    quote = choose(section(MODEL_CONFIG, "Model configuration"), analysis_of(("gpu_lay", 0.9),), {}, {}, {})
    assert "llama.cpp" in quote.excerpt and "For diffusers" in quote.excerpt and "Restart the server" in quote.excerpt
    assert quote.code is not None and "gpu_layers" in quote.code.text and "stablediffusion" in quote.code.text
    (first, first_code), (second, second_code), (last, last_code) = quote.parts
    assert first.startswith("It is required") and first.endswith("offload to the GPU):")
    assert first_code is not None and first_code.text == "name: my-model-name\ngpu_layers: 22"
    assert second == "For diffusers instead, it might look like this instead:"
    assert second_code is not None and second_code.text.startswith("name: stablediffusion")
    assert last == "Restart the server after changing a model's file." and last_code is None
    # One block or none: no parts, the excerpt and the snippet say it all.
    single = MODEL_CONFIG.split("For diffusers")[0]
    assert choose(section(single, "Model configuration"), analysis_of(("gpu_lay", 0.9),), {}, {}, {}).parts == ()


def test_a_row_is_quoted_as_the_table_shows_it_a_cell_under_no_header_alone_and_no_empty_cell() -> None:
    """A table whose first column has no header ("| | Default |") shows its cells, not ": scan-interval"; a cell
    left empty shows nothing, not "Default: "."""
    table = ("## Parameters\n\nThe flags of the autoscaler:\n\n| | Description | Default |\n|---|---|---|\n"
             "| scan-interval | How often the cluster is reevaluated | 10 seconds |\n"
             "| expander | The expander to use | |\n")
    quote = choose(section(table, "Parameters"), analysis_of(("scan-interv", 0.9), ("scan", 0.5)), {}, {}, {})
    assert quote.excerpt == ("The flags of the autoscaler: scan-interval · Description: How often the cluster is "
                             "reevaluated · Default: 10 seconds")
    quote = choose(section(table, "Parameters"), analysis_of(("expand", 0.9),), {}, {}, {})
    assert quote.excerpt == "The flags of the autoscaler: expander · Description: The expander to use"


def test_a_paragraph_answering_what_the_best_unit_leaves_out_is_quoted_beside_it() -> None:
    """A question of two parts, each answered by a paragraph of its own: both are quoted, in the page's order."""
    question = section(RUNBOOK, "Restarting a job")
    quote = choose(question, analysis_of(("checkpoint", 0.8), ("event", 0.6), ("hour", 0.5)), {}, {}, {})
    assert quote.excerpt.index("last checkpoint") < quote.excerpt.index("kept for an hour")
    alone = choose(question, analysis_of(("checkpoint", 0.8), ("node", 0.3)), {}, {}, {})
    assert "kept for an hour" not in alone.excerpt


def test_a_short_section_is_quoted_whole_with_its_placeholders() -> None:
    question = section(QUOTA_ENTRY, "GPU quota")
    quote = choose(question, analysis_of(("request", 0.4)), {}, {}, {})
    assert "`train-<team>` namespace" in quote.excerpt
    assert "To get more, open a request in #ml-platform-requests" in quote.excerpt


QUEUE = """## Queuing

When a workflow cannot acquire a lock it will be placed into an ordered queue.

You can set a `priority` on workflows.
The queue is first ordered by priority: a higher priority number is placed before a lower priority number.
The queue is then ordered by `creationTimestamp`: older workflows are placed before newer workflows.

Workflows can only acquire a lock if they are at the front of the queue for that lock.
"""


def test_a_section_of_a_few_short_sentences_is_quoted_whole() -> None:
    # Five sentences in three paragraphs, 400 characters: the first says there is a queue, the next ones how it
    # is ordered. Quoting the paragraph that best matches "queue" alone would leave out the order.
    quote = choose(section(QUEUE, "Queuing"), analysis_of(("queue", 0.5), ("order", 0.3)), {}, {}, {})
    assert quote.excerpt.startswith("When a workflow cannot acquire a lock")
    assert "older workflows are placed before newer workflows" in quote.excerpt
    assert quote.excerpt.endswith("at the front of the queue for that lock.")


QUOTAS = """## Quotas

!!! attention
    The CSI driver uses quotas to enforce the PVC size requested.

Only newer kernels support quotas (kernel version of at least 4.17). If you require quotas to be enforced and the
kernel driver does not support it, you can disable the kernel driver and use the FUSE client. This can be done by
setting `CSI_FORCE_KERNEL_CLIENT: false` in the operator deployment (`operator-config`). However, it is important
to know that when the FUSE client is enabled, there is an issue that during upgrade the application pods will be
disconnected from the mount and will need to be restarted. This applies to every PVC of the file system. Check the
kernel version of the nodes with `uname -r` before relying on quotas.
"""


def test_a_section_no_longer_than_one_unit_is_quoted_whole() -> None:
    # Seven sentences, 680 characters, one of them an admonition: "why is the PVC size not enforced?" is answered by
    # the kernel version after it, which the admonition that best matches "PVC size" alone leaves out.
    quote = choose(section(QUOTAS, "Quotas"), analysis_of(("pvc", 0.6), ("size", 0.3), ("enforce", 0.4)),
                   {"The CSI driver uses quotas to enforce the PVC size requested.": 0.8}, {}, {})
    assert quote.excerpt.startswith("Attention: The CSI driver uses quotas")
    assert "kernel version of at least 4.17" in quote.excerpt and "`CSI_FORCE_KERNEL_CLIENT: false`" in quote.excerpt


SELECTOR = """## Create cluster and nodegroups

To create a cluster with a single nodegroup that uses instance types matched by the instance selector resource
criteria passed to eksctl, run

```console
$ eksctl create cluster --instance-selector-vcpus=2 --instance-selector-memory=4
```

This will create a cluster and a managed nodegroup with the `instanceTypes` field set to the matching types (the
set of instance types returned may change).

For unmanaged nodegroups, the `instancesDistribution.instanceTypes` field will be set:

```console
$ eksctl create cluster --managed=false --instance-selector-vcpus=2 --instance-selector-memory=4
```

The instance selector criteria can also be specified in ClusterConfig, under each nodegroup, with the same names
as the flags without their prefix. An example file can be found in the repository's examples. The dry-run feature
lets you inspect and change the instances matched by the instance selector before proceeding to creating a
nodegroup, and prints the ClusterConfig it would use. Nodegroups created this way can be scaled like any other.
"""


def test_what_a_command_does_is_quoted_with_it() -> None:
    # The best unit is the first command with its lead-in; the paragraph after it says what it creates ("This will
    # create … a managed nodegroup"), which is what "managed or self-managed?" asks.
    question = section(SELECTOR, "Create cluster and nodegroups")
    first = "To create a cluster with a single nodegroup that uses instance types matched by the instance selector"
    sims = {s: 0.0 for u in units_of(question) for s in u.lines}
    sims.update({s: 0.9 for s in sims if s.startswith(first)})
    quote = choose(question, analysis_of(("eksctl", 0.6), ("instance-selector-vcpus", 1.0)), sims, {}, {})
    assert quote.code is not None and "--instance-selector-vcpus=2" in quote.code.text
    assert "This will create a cluster and a managed nodegroup" in quote.excerpt
    assert "For unmanaged nodegroups" not in quote.excerpt


PARAMETERS = """## Common Parameters

These parameters apply to all storage types:

| Parameter | Required | Description |
|---|---|---|
| `subnetId` | Yes | The subnet where the FSx filesystem is created |
| `deploymentType` | No | `SCRATCH_1`, `SCRATCH_2`, `PERSISTENT_1` or `PERSISTENT_2`. Default: `SCRATCH_1` |
"""


def test_the_words_of_the_pages_name_do_not_choose_its_unit() -> None:
    # "What deploymentType does the FSx driver use?": "FSx" names the page (aws-fsx-csi-driver-options.md), so
    # the row that merely says "FSx" is not the answer; the row of `deploymentType` is.
    question = section(PARAMETERS, "Common Parameters")
    analysis = analysis_of(("deploymenttype", 1.0), ("fsx", 1.0), ("driver", 0.3))
    subject = page_words([question], "public/aws-fsx-csi-driver-options")
    assert {"fsx", "driver"} <= subject
    assert "`deploymentType`" in choose(question, analysis, {}, {}, {}, subject).excerpt
    assert "`subnetId`" in choose(question, analysis, {}, {}, {}).excerpt  # read without the page's name


HANDLER = """# AWS Node Termination Handler

## Queue-Processor Mode Configuration

| Parameter | Description | Default |
|---|---|---|
| `replicas` | The number of replicas in the NTH deployment when using queue-processor mode | `1` |
| `queueURL` | Listens for messages on the specified SQS queue URL | None |
| `enableSqsTerminationDraining` | If true, drain nodes when an interruption event arrives on the SQS queue | `false` |
"""


def test_the_initials_of_a_pages_title_name_the_page_not_one_of_its_parts() -> None:
    # "Which value tells NTH the URL of its SQS queue?" on the Node Termination Handler's page: "NTH" is the page's
    # title shortened, so the row that merely says "NTH" is not the answer; the row of the SQS queue is.
    document = parse_markdown(HANDLER, Path("nth.md"), doc_id="nth", source="nth.md")
    question = next(q for q in document.questions if q.path[-1] == "Queue-Processor Mode Configuration")
    analysis = analysis_of(("nth", 0.84), ("url", 0.05), ("sqs", 0.08))
    subject = page_words(document.questions, "nth")
    assert {"nth", "anth"} <= subject and "th" not in page_words(document.questions, "")
    assert "`queueURL`" in choose(question, analysis, {}, {}, {}, subject).excerpt
    assert "`replicas`" in choose(question, analysis, {}, {}, {}).excerpt  # read without the page's subject


INSTALL = """## Installation

You can deploy the operator by running one of the following commands:

- Latest Development Version

```shell
kubectl apply --server-side -f https://example.com/acme-operator/master/acme-operator.yaml
```

- Release Version

```shell
kubectl apply --server-side -f https://example.com/acme-operator/v0.8.2/acme-operator.yaml
```

Check that the custom resource is installed with `kubectl get crd`. Its output lists `acmejobs.example.com`
with its age. Older clusters list it under another group, which the operator migrates on its first start.
Nothing else is needed for a first job. The operator reads its settings from a ConfigMap of the same name.
Change the ConfigMap and the operator restarts to read it. Each restart is logged as an event. Events are
kept for an hour.
"""


def test_a_list_item_over_a_code_block_leads_into_it() -> None:
    # A README's "- Release Version" over its command: the item is the command's lead-in, and the sentence
    # that introduces the list leads into the first command too.
    units = units_of(section(INSTALL, "Installation"))
    codes = [u for u in units if u.kind == "code"]
    assert codes[0].lines == ("You can deploy the operator by running one of the following commands:",
                              "- Latest Development Version")
    assert codes[1].lines == ("- Release Version",) and codes[1].code is not None
    assert "v0.8.2" in codes[1].code.text
    assert not any(u.kind == "list" for u in units)  # a list of one item is only a lead-in
    quote = choose(section(INSTALL, "Installation"), analysis_of(("releas", 0.6), ("version", 0.2)), {}, {}, {})
    assert quote.excerpt == "- Release Version" and quote.code is not None and "v0.8.2" in quote.code.text


def test_a_name_of_two_words_on_its_own_page_does_not_choose_its_unit() -> None:
    # "Acme Operator" asked on the Acme Operator's page names the page: the unit that holds what is asked
    # ("release") is quoted, not the one that repeats the name.
    from bot.reading.terms import QueryWord

    text = "## Upgrades\n\nThe Acme Operator is maintained by the Acme team and ships with Acme.\n\n" + \
        "A release is cut every month; pin its tag in your manifest.\n\n" + "More words here. " * 40 + "\n"
    question = section(text, "Upgrades")
    words = (QueryWord(text="Acme Operator", readings=(), forms={"en": (("\x00acm oper", "acm", "oper"),)},
                       specificity=1.0, named=True, position=0),
             QueryWord(text="release", readings=(), forms={"en": (("releas",),)}, specificity=0.3, named=False,
                       position=2))
    analysis = Analysis(words=words, tokens=("Acme", "Operator", "release"), spans=(), segments=(0, 0, 0),
                        search_text="", definition_of=(), comparison=False)
    subject = page_words([question], "acme-operator-readme")
    assert "A release is cut every month" in choose(question, analysis, {}, {}, {}, subject).excerpt
    assert "maintained by the Acme team" in choose(question, analysis, {}, {}, {}).excerpt


CHECKLIST = """## Pod Pending

Work through these in order:

1. Is the workload admitted? `kubectl -n team-nlp get workloads`. If `ADMITTED` is empty, the team is at quota: wait,
   or request an increase. Pods of a job that is not admitted stay gated until it is.
2. Does one pod ask for more GPUs than a node has? A p4d or p5 node has 8 GPUs and a g5.12xlarge has 4. A pod that
   requests `nvidia.com/gpu: 16` never schedules anywhere. Use more replicas with fewer GPUs each instead.
3. Toleration and selector. The pod needs the `nvidia.com/gpu` toleration and an `acme.io/pool` selector that
   matches a node group that exists. A typo in the pool's name leaves the pod Pending without an event.
4. Is the node group at its maximum? Read the scaling config of the node group with the AWS CLI. If the desired
   size equals the maximum, the reservation is full and another job must finish first.
5. Did Cluster Autoscaler try? Its logs say `InsufficientInstanceCapacity` when the zone has no capacity: page
   nobody, post in `#ml-platform-help`; the platform team can move the job to the Capacity Block.
   - Other messages go to the on-call engineer.

Pods that stay Pending for an hour are reported in the weekly review.
"""


def test_a_long_list_is_quoted_by_the_items_that_answer_in_their_order() -> None:
    # Five steps, over 900 characters: the first ones alone would fill the quote and cut the fifth, which is
    # the one that answers "the autoscaler logs InsufficientInstanceCapacity, should I page someone?".
    question = section(CHECKLIST, "Pod Pending")
    analysis = analysis_of(("insufficientinstancecapacity", 1.0), ("autoscal", 0.6), ("page", 0.1))
    excerpt = choose(question, analysis, {}, {}, {}).excerpt
    lines = excerpt.split("\n")
    assert lines[0] == "Work through these in order:"
    assert "page nobody, post in `#ml-platform-help`" in excerpt
    nested = next(i for i, line in enumerate(lines) if line.strip() == "- Other messages go to the on-call engineer.")
    assert lines[nested - 1].startswith("5. Did Cluster Autoscaler try?")  # with what is nested under it
    assert "…" in lines  # where items are left out
    numbers = [line.split(".")[0] for line in lines if line[:1].isdigit()]
    assert numbers == sorted(numbers) and numbers[-1] == "5"  # the list's order, and its own numbers
    assert len(excerpt) <= 900
    # Asked about the first step, the same list is quoted from its start.
    first = choose(question, analysis_of(("admit", 0.8), ("workload", 0.5)), {}, {}, {}).excerpt
    assert first.split("\n")[1].startswith("1. Is the workload admitted?")


def test_a_list_that_fits_is_quoted_whole() -> None:
    question = section(RUNBOOK, "Restarting a job")
    excerpt = choose(question, analysis_of(("never", 1.0), ("policy", 0.2)), {}, {}, {}).excerpt
    assert excerpt.split("\n") == ["The restart policies are:", "- `OnFailure`: restart the failed pod only",
                                     "- `ExitCode`: restart when the exit code says the failure is retryable",
                                     "- `Never`: leave the pod failed"]


@pytest.fixture
def with_quota_entry(fake_assistant: Assistant, tmp_path: Path) -> Assistant:
    return beside_the_quiz(fake_assistant, tmp_path, {"entries/gpu-quota.md": QUOTA_ENTRY})


def test_an_entry_of_two_sentences_is_answered_whole_with_team_intact(with_quota_entry: Assistant) -> None:
    document = next(d for d in with_quota_entry.knowledge.documents if d.source.endswith("gpu-quota.md"))
    answer = with_quota_entry.answer_question(document.doc_id, document.questions[0].number, "en")
    excerpt = answer.citations[0].excerpt
    assert "train-<team>" in excerpt and "open a request in #ml-platform-requests" in excerpt
    assert answer.citations[0].snippet is None  # an entry without code shows none


@pytest.mark.slow
@pytest.mark.parametrize("question", ["How do I request a GPU quota increase?", "where do I ask for more GPUs?",
                                      "¿Cómo pido más cuota de GPU?", "¿dónde pido más GPUs?"])
def test_the_gpu_quota_entry_answers_how_to_get_more_in_either_language(
        assistant: Assistant, tmp_path: Path, question: str) -> None:
    with_entry = beside_the_quiz(assistant, tmp_path, {"entries/gpu-quota.md": QUOTA_ENTRY})
    answer = with_entry.answer(question)
    assert answer.answered and answer.citations[0].source == "entries/gpu-quota.md", answer.citations
    assert "open a request in #ml-platform-requests" in answer.citations[0].excerpt  # the sentence that says how
    assert "train-<team>" in answer.citations[0].excerpt


def test_answering_from_a_long_page_keeps_none_of_its_sections_texts(fake_assistant: Assistant,
                                                                     tmp_path: Path) -> None:
    """A replica answers about many pages over weeks: what a page's sections say in common is read once per
    page, and neither the sections' texts nor their words stay in the cache kept for the questions' words
    (8,192 texts: at 10,000 sections, tens of MB held for nothing)."""
    from bot.text.tokens import word_terms

    sections = "".join(f"## Pool {n}\n\nThe pool number {n} of cluster zeta{n} serves batch queue q{n} "
                       f"with {n} reserved GPUs for the team tenant{n}.\n\n" for n in range(80))
    assistant = beside_the_quiz(fake_assistant, tmp_path, {"team/pools.md": "# Pools\n\n" + sections})
    word_terms.cache_clear()
    for question in ("How many reserved GPUs does pool 7 of cluster zeta7 serve?",
                     "Which batch queue does the pool of cluster zeta12 serve?"):
        answer = assistant.answer(question, "en")
        assert answer.citations and answer.citations[0].source.endswith("pools.md")
    # The questions' own texts and words only: far fewer than the page's 80 sections.
    assert word_terms.cache_info().currsize < 50


KERNEL_LABELS = """## Kernel

The kernel labels of a node:

| Feature | Value | Description |
|---|---|---|
| `kernel-version.full` | string | Full kernel version as reported by `/proc/sys/kernel/osrelease` |
| `kernel-version.major` | string | First component of the kernel version |
| `kernel-version.minor` | string | Second component of the kernel version |
| `kernel-version.revision` | string | Third component of the kernel version |
"""


def test_the_ordinary_words_of_a_scenarios_telling_choose_between_units(fake_assistant: Assistant) -> None:
    """"…? Our driver needs 5.10, so we select on the major version. Where does the value come from?": the sentence
    that tells the scenario is context, not searched with, but its "major" is what tells the rows apart."""
    asked = ("Do the labels show the kernel version of a node? Our driver needs 5.10, so we select on the major "
             "version. Where does the value come from?")
    analysis = fake_assistant.retriever.analyze(asked, "en")
    assert "major" in {w.text for w in analysis.told} and "major" not in {w.text for w in analysis.words}
    quote = choose(section(KERNEL_LABELS, "Kernel"), analysis, {}, {}, {})
    assert "`kernel-version.major`" in quote.excerpt and "`kernel-version.minor`" not in quote.excerpt


PROCEDURE = """## Draining a node

Timing matters here. Drain the node while the pod still runs on it.

1. Create the job:

   ```sh
   kubectl create -f job.yaml
   ```

2. Find the node it runs on:

   ```sh
   node=$(kubectl get pods -l job-name=trainer -o jsonpath='{.items[0].spec.nodeName}')
   ```

3. Drain the node to evict the pod:

   ```sh
   kubectl drain nodes/$node --ignore-daemonsets --grace-period=0
   ```

4. Check that the job's failure count did not go up:

   ```sh
   kubectl get jobs -l job-name=trainer -o yaml
   ```

5. Uncordon the node:

   ```sh
   kubectl uncordon nodes/$node
   ```
"""


def test_the_step_that_answers_is_quoted_with_its_own_command() -> None:
    """Steps of a procedure each hold their command: the step asked about is quoted with the command it introduces,
    not with the procedure's first one."""
    quote = choose(section(PROCEDURE, "Draining a node"), analysis_of(("drain", 0.6), ("evict", 0.6)), {}, {}, {})
    assert "3. Drain the node to evict the pod:" in quote.excerpt
    assert quote.code is not None and "kubectl create" not in quote.code.text
    assert "kubectl drain nodes/$node --ignore-daemonsets --grace-period=0" in quote.code.text


CHECKS = """## Before a long run

Check the quota first. A run over quota waits in the queue without a word.

- `kubectl describe quota -n train` shows what the namespace still has
- `kubectl get pods -n train` shows the pods still pending
- `kubectl get events -n train` shows why a pod waits

Runs of more than a day need a reservation. Ask for one in the platform channel a week ahead, with the number of
GPUs and the dates. The platform team confirms within two days, and cancels a reservation unused for six hours.

Checkpoints go to the team's bucket every hour. A run that cannot write them stops after three failed attempts,
so check the bucket's permissions before a long run, with a short job that writes one file.
"""


def test_a_short_paragraph_before_a_list_is_said_once_when_both_are_quoted() -> None:
    """A paragraph of two sentences before a list is a unit of its own and the list's lead-in: quoted as both, it
    is said once, not once per line break."""
    quote = choose(section(CHECKS, "Before a long run"), analysis_of(("quota", 0.8), ("wait", 0.6)), {}, {}, {})
    assert quote.excerpt.count("Check the quota first.") == 1, quote.excerpt
    assert "`kubectl describe quota -n train`" in quote.excerpt


GANG_QUEUES = """---
title: Gang queues
---

## Queues for gang apps

A queue that runs gang apps must use the FIFO sorting policy. Set it in the queue's properties:

```yaml
queues:
  - name: gang
    properties:
      application.sort.policy: fifo
```

### Why the FIFO sorting policy

With fair sorting, the queue reserves part of the resources for several gang apps at once: each app holds
placeholders on some nodes, none has enough to start, and the cluster is segmented until the placeholders time out.

## Placeholder timeouts

A placeholder that cannot be placed is released after `placeholderTimeoutInSeconds`, 15 minutes by default.
"""


def test_a_rule_and_its_reason_in_a_subsection_are_quoted_together_under_their_headings(
        fake_assistant: Assistant, tmp_path: Path) -> None:
    """"Why FIFO for gang apps?": the section states the rule and its subsection the reason, about as close; the
    answer quotes both, each under its heading path, and names neither again among the page's other sections.
    Another section of the page that is not of that part (the placeholders' timeout) is never quoted beside."""
    import io

    from rich.console import Console

    from bot.cli.render import render_answer

    assistant = beside_the_quiz(fake_assistant, tmp_path, {"team/gang-queues.md": GANG_QUEUES})
    answer = assistant.answer("why must a queue running gang apps use the FIFO sorting policy rather than fair?",
                              "en")
    assert answer.answered, answer.text
    top = answer.citations[0]
    assert top.source == "team/gang-queues.md" and len(top.beside) == 1
    quoted = [top, *top.beside]
    assert {c.section.rsplit(" › ", 1)[-1] for c in quoted} == {"Queues for gang apps", "Why the FIFO sorting policy"}
    assert "must use the FIFO sorting policy" in top.excerpt + top.beside[0].excerpt
    assert "the cluster is segmented" in top.excerpt + top.beside[0].excerpt
    assert all(c.section not in {q.section for q in quoted} for c in answer.citations[1:])
    assert "Placeholder timeouts" not in {c.section.rsplit(" › ", 1)[-1] for c in quoted}
    assert top.beside[0].excerpt in answer.text  # said in the answer's text too (HTTP, the fallback of a message)
    assert top.to_dict()["beside"] == [top.beside[0].to_dict()]  # in the answer's JSON (HTTP, `ask --json`)
    out = io.StringIO()
    render_answer(Console(file=out, width=300, color_system=None), answer)
    shown = out.getvalue()
    assert shown.index(top.excerpt.split("\n")[0][:40]) < shown.index(top.beside[0].section)
    assert shown.index(top.beside[0].section) < shown.index(top.beside[0].excerpt.split("\n")[0][:40])


@pytest.mark.parametrize(("path", "other", "same"), [
    (("Page", "Queues"), ("Page", "Queues", "Why FIFO"), True),  # a section and its subsection
    (("Page", "Queues", "Why FIFO"), ("Page", "Queues"), True),
    (("Page", "Queues", "Why FIFO"), ("Page", "Queues", "Timeouts"), True),  # under the same heading
    (("Page", "Queues"), ("Page", "Timeouts"), True),  # two sections of the page under its title
    (("Page", "Queues", "Why FIFO"), ("Page", "Timeouts", "Defaults"), False),  # under different headings
    (("Page", "Queues", "Why FIFO"), ("Page", "Timeouts"), False),
])
def test_sections_of_the_same_part_of_a_page(path: tuple[str, ...], other: tuple[str, ...], same: bool) -> None:
    from bot.answering.assistant import same_part

    assert same_part(path, other) is same


SYMPTOM = """## Permission denied when running the wrapper

When running the `trainctl` wrapper on hosts with SELinux enforcing, you might see the following error:

```console
$ sudo trainctl run --gpus=all --rm trainer:latest check
/bin/trainctl: line 34: /bin/runner: Permission denied
```

The audit log shows the denial as well:

```console
SELinux is preventing /usr/bin/bash from entrypoint access on the file /usr/bin/runner.
```

This occurs because the wrapper forwards its arguments to the runner executable, which the policy does not allow.

To address this, call the runner directly with the GPU runtime:

```console
$ sudo runner run --gpus=all --runtime=gpu --rm trainer:latest check
```

Alternatively, generate a local policy module as the audit log suggests:

```console
$ ausearch -c 'trainctl' --raw | audit2allow -M my-trainctl
$ semodule -X 300 -i my-trainctl.pp
```
"""


def test_the_symptom_a_person_pasted_is_quoted_with_what_the_page_says_after_it(fake_assistant: Assistant) -> None:
    """A pasted error the page shows as its symptom: what follows it (the cause, the fix) is quoted with it, not
    more of the symptom; a question that pastes nothing is quoted by its best unit alone."""
    asked = ("```\n$ sudo trainctl run --gpus=all --rm trainer:latest check\n/bin/trainctl: line 34: /bin/runner: "
             "Permission denied\n```\nplain runner works on this box. any fix that keeps SELinux on?")
    # As close as the page's sentences are to the question (the model's closeness; the fake embedder has none).
    sims = {"When running the `trainctl` wrapper on hosts with SELinux enforcing, you might see the following "
            "error:": 0.7,
            "This occurs because the wrapper forwards its arguments to the runner executable, which the policy does "
            "not allow.": 0.6, "To address this, call the runner directly with the GPU runtime:": 0.5}
    quote = choose(section(SYMPTOM, "Permission denied when running the wrapper"),
                   fake_assistant.retriever.analyze(asked, "en"), sims, {}, {})
    assert "you might see the following error:" in quote.excerpt
    assert "This occurs because the wrapper forwards its arguments" in quote.excerpt
    assert "The audit log shows the denial as well" not in quote.excerpt
    plain = choose(section(SYMPTOM, "Permission denied when running the wrapper"),
                   fake_assistant.retriever.analyze("which error does the trainctl wrapper print?", "en"), sims, {},
                   {})
    assert "you might see the following error:" in plain.excerpt and "This occurs" not in plain.excerpt
