#!/usr/bin/env bash
# Do two commits answer every evaluation file the same? `scripts/same-answers.sh REV [REV2]` runs
# `eksbot eval FILE --json` on tests/eval/*.jsonl and ../shared/eval/*.jsonl with the code of REV and of REV2
# (default: the working tree), each over the knowledge/ of its own tree and an index built for it, and
# compares the lines. Exit 0 when every file gives the same lines. Uses .venv (make test installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
python="$root/.venv/bin/python"
work=$(mktemp -d)
trap 'git worktree remove --force "$work/a" >/dev/null 2>&1 || true; git worktree remove --force "$work/b" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

tree_of() {  # REV -> a checkout of it (the working tree for "")
    if [ -z "$2" ]; then echo "$root"; else git worktree add -q --detach "$work/$1" "$2" && echo "$work/$1"; fi
}

evaluate() {  # TREE OUT
    mkdir -p "$2"
    for file in "$root"/tests/eval/*.jsonl "$root"/../shared/eval/*.jsonl; do
        [ -f "$file" ] || continue
        (cd "$1" && PYTHONPATH="$1" "$python" -c 'import sys; from bot.cli.main import main; sys.exit(main(sys.argv[1:]))' \
            --knowledge-dir "$1/knowledge" --index-dir "$2/index" eval "$file" --json > "$2/$(basename "$file")" 2>/dev/null)
    done
}

a=$(tree_of a "$1")
b=$(tree_of b "${2:-}")
evaluate "$a" "$work/out-a"
evaluate "$b" "$work/out-b"
status=0
for out in "$work"/out-a/*.jsonl; do
    name=$(basename "$out")
    if cmp -s "$out" "$work/out-b/$name"; then
        echo "same      $name ($(wc -l < "$out") lines)"
    else
        echo "DIFFERENT $name"; status=1
    fi
done
exit $status
