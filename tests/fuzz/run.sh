#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs every fuzz target for a bounded time from its committed corpus, as CI does.
#   tests/fuzz/run.sh BUILD_DIR [SECONDS_EACH] [AT_ONCE]
# Each target runs SECONDS_EACH on a core of its own; AT_ONCE of them run side by side
# (default: the machine's cores), so the whole takes about targets / AT_ONCE * SECONDS_EACH.
# New inputs go to a scratch corpus, not the repository. A crash fails the script and leaves
# the input as BUILD_DIR/fuzz-findings/<target>/crash-*: add it to tests/fuzz/corpus/<target>/
# with the fix, and tst_fuzz_corpus keeps it as a regression test.
set -euo pipefail
build=${1:?usage: run.sh BUILD_DIR [SECONDS_EACH] [AT_ONCE]}
seconds=${2:-30}
at_once=${3:-$(nproc)}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# One target: its verdict line on stdout (or a finding on stderr), its status as the exit code.
fuzz_one() {
    local name=$1 corpus=$2
    local bin="$build/tests/fuzz/fuzz_$name"
    local work="$build/fuzz-work/$name" findings="$build/fuzz-findings/$name"
    local log="$build/fuzz-findings/$name.log"
    mkdir -p "$work" "$findings"
    if "$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=25 -print_final_stats=1 \
        -artifact_prefix="$findings/" "$work" "$corpus" >"$log" 2>&1; then
        echo "fuzz: $name: $(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}') runs in ${seconds} s, no finding"
    else
        echo "fuzz: $name: FINDING (see $log and $findings/)" >&2
        grep -E 'ERROR|runtime error|SUMMARY|terminate|what\(\)' "$log" | head -20 >&2 || true
        return 1
    fi
}

names=()
for corpus in "$here"/corpus/*/; do
    name=$(basename "$corpus")
    [ -x "$build/tests/fuzz/fuzz_$name" ] || {
        echo "fuzz: $build/tests/fuzz/fuzz_$name is missing (build the dev-asan preset)" >&2
        exit 2
    }
    names+=("$name")
done

status=0
pids=()
for i in "${!names[@]}"; do
    fuzz_one "${names[$i]}" "$here/corpus/${names[$i]}/" &
    pids+=($!)
    # A batch of AT_ONCE, waited for whole before the next starts.
    if (((i + 1) % at_once == 0 || i + 1 == ${#names[@]})); then
        for pid in "${pids[@]}"; do wait "$pid" || status=1; done
        pids=()
    fi
done
exit $status
