#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs every fuzz target for a bounded time from its committed corpus, as CI does.
#   tests/fuzz/run.sh BUILD_DIR [SECONDS_EACH]
# New inputs go to a scratch corpus, not the repository. A crash fails the script and leaves
# the input as BUILD_DIR/fuzz-findings/<target>/crash-*: add it to tests/fuzz/corpus/<target>/
# with the fix, and tst_fuzz_corpus keeps it as a regression test.
set -euo pipefail
build=${1:?usage: run.sh BUILD_DIR [SECONDS_EACH]}
seconds=${2:-30}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
status=0
for corpus in "$here"/corpus/*/; do
    name=$(basename "$corpus")
    bin="$build/tests/fuzz/fuzz_$name"
    [ -x "$bin" ] || { echo "fuzz: $bin is missing (build the fuzz preset)" >&2; exit 2; }
    work="$build/fuzz-work/$name" findings="$build/fuzz-findings/$name"
    mkdir -p "$work" "$findings"
    log="$build/fuzz-findings/$name.log"
    if "$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=25 -print_final_stats=1 \
        -artifact_prefix="$findings/" "$work" "$corpus" >"$log" 2>&1; then
        echo "fuzz: $name: $(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}') runs in ${seconds} s, no finding"
    else
        echo "fuzz: $name: FINDING (see $log and $findings/)" >&2
        grep -E 'ERROR|runtime error|SUMMARY|terminate|what\(\)' "$log" | head -20 >&2 || true
        status=1
    fi
done
exit $status
