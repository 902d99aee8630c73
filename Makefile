# The two set-up commands: `make run` and `make test` (both create .venv and are safe to run again).
.PHONY: run test lint bench eval eval-docs eval-dev-docs calibrate calibrate-by-author index image lock

run:
	scripts/bootstrap.sh
	.venv/bin/eksbot serve

test:
	scripts/bootstrap.sh dev
	.venv/bin/ruff check bot tests bench scripts
	.venv/bin/mypy
	.venv/bin/pytest -q -n auto --maxprocesses 4

lint:
	.venv/bin/ruff check bot tests bench scripts
	.venv/bin/mypy

index:
	.venv/bin/eksbot index build

eval:
	.venv/bin/eksbot eval tests/eval/holdout.jsonl
	.venv/bin/eksbot eval tests/eval/styles-holdout.jsonl
	for f in tests/eval/holdout-authors-*.jsonl; do .venv/bin/eksbot eval $$f || exit 1; done
	.venv/bin/eksbot eval tests/eval/queries.jsonl
	[ ! -f ../shared/eval/dev-queries.jsonl ] || .venv/bin/eksbot eval ../shared/eval/dev-queries.jsonl
	[ ! -f ../shared/eval/dev-near-negatives.jsonl ] || .venv/bin/eksbot eval ../shared/eval/dev-near-negatives.jsonl
	.venv/bin/eksbot eval tests/eval/followups.jsonl

# Answers from documents (tests/docs): the quiz and every test page in a scratch knowledge directory, indexed
# there, measured per source and language. questions.jsonl and questions-more.jsonl are the pages the decision
# is fitted and tuned on, fit-b/ pages of long sections what is quoted of them is tuned on, holdout-c/ those
# it is fitted on since it was measured once, and fit-c/, fit-d/ and fit-e/ more pages it is fitted on; holdout/,
# holdout-b/, holdout-d/ … holdout-j/, pages never fitted or tuned on, are reported apart.
DOC_PAGES = public runbook holdout holdout-b holdout-c holdout-d holdout-e holdout-f holdout-g holdout-h holdout-i holdout-j fit-b \
	fit-c fit-d fit-e
DOC_QUESTIONS = questions.jsonl questions-more.jsonl fit-b/questions.jsonl holdout/questions.jsonl \
	holdout-b/questions.jsonl holdout-c/questions.jsonl holdout-d/questions.jsonl holdout-e/questions.jsonl \
	holdout-f/questions.jsonl holdout-g/questions.jsonl holdout-h/questions.jsonl holdout-i/questions.jsonl \
	holdout-j/questions.jsonl \
	fit-c/questions.jsonl fit-d/questions.jsonl fit-e/questions.jsonl
DOCS_EKSBOT = .venv/bin/eksbot --knowledge-dir .eval-docs/knowledge --index-dir .eval-docs/index

eval-docs:
	rm -rf .eval-docs && mkdir -p .eval-docs/knowledge && cp knowledge/*.md .eval-docs/knowledge/
	.venv/bin/eksbot --knowledge-dir .eval-docs/knowledge knowledge import $(addprefix tests/docs/,$(DOC_PAGES))
	$(DOCS_EKSBOT) index build
	for questions in $(addprefix tests/docs/,$(DOC_QUESTIONS)); do $(DOCS_EKSBOT) eval $$questions || exit 1; done
	[ ! -d ../shared/eval/dev-docs ] || $(MAKE) eval-dev-docs

# The development pages beside the checkout (looked at, never fitted on): the quiz with them, their questions.
eval-dev-docs:
	rm -rf .eval-dev-docs && mkdir -p .eval-dev-docs/knowledge && cp knowledge/*.md .eval-dev-docs/knowledge/
	.venv/bin/eksbot --knowledge-dir .eval-dev-docs/knowledge knowledge import ../shared/eval/dev-docs
	.venv/bin/eksbot --knowledge-dir .eval-dev-docs/knowledge --index-dir .eval-dev-docs/index index build
	.venv/bin/eksbot --knowledge-dir .eval-dev-docs/knowledge --index-dir .eval-dev-docs/index eval ../shared/eval/dev-docs/questions.jsonl

# The answerability model: the quiz's labelled lines over the quiz, and the docs' (tests/docs: the pages fitted on,
# holdout-c/, fit-c/, fit-d/ and fit-e/, never a held-out folder) over the quiz with those pages beside it.
# `make calibrate-by-author` leaves out one author's file or one page at a time: the figures of a writer, or a
# page, never seen.
FIT_LINES = tests/eval/fit.jsonl tests/eval/fit-styles.jsonl tests/eval/fit-authors-*.jsonl \
	tests/docs/questions.jsonl tests/docs/questions-more.jsonl tests/docs/holdout-c/questions.jsonl \
	tests/docs/fit-c/questions.jsonl tests/docs/fit-d/questions.jsonl tests/docs/fit-e/questions.jsonl \
	--docs tests/docs/public --docs tests/docs/runbook --docs tests/docs/holdout-c --docs tests/docs/fit-c \
	--docs tests/docs/fit-d --docs tests/docs/fit-e

calibrate:
	.venv/bin/eksbot calibrate $(FIT_LINES)

calibrate-by-author:
	.venv/bin/eksbot calibrate $(FIT_LINES) --by-file

bench:
	.venv/bin/python bench/answer_latency.py
	.venv/bin/python bench/backends.py
	.venv/bin/python bench/knowledge_scale.py

image:
	scripts/build-image.sh

lock:
	scripts/lock.sh
