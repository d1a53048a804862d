#!/bin/sh
# Runs both fuzz targets for SECONDS each (default 60) from the seeds, with the
# dictionary of the project's keys; exits non-zero on the first crash, leak,
# timeout or sanitizer report, leaving the input in $FUZZ_OUT (default
# _build-fuzz/artifacts). Builds the targets first (tests/fuzz/build.sh).
#   tests/fuzz/run.sh 60
set -eu
cd "$(dirname "$0")/../.."
seconds=${1:-60}
out=${FUZZ_OUT:-_build-fuzz/artifacts}

tests/fuzz/build.sh >/dev/null
mkdir -p "$out"
status=0
for target in project config; do
  corpus=$(mktemp -d)
  data=$(mktemp -d)
  cp tests/fuzz/seeds-$target/* "$corpus"/
  if [ "$target" = project ]; then
    cp tests/data/fuzz/project-*.json "$corpus"/
  fi
  # One input over 10 s is a hang; 2 GiB, runaway memory. Any report aborts.
  if ! XDG_DATA_HOME=$data UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1 \
       ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 \
       "_build-fuzz/tests/fuzz/fuzz-$target" -max_total_time="$seconds" -timeout=10 \
       -rss_limit_mb=2048 -print_final_stats=1 -dict=tests/fuzz/headroom.dict \
       -artifact_prefix="$out/$target-" "$corpus" >"$out/fuzz-$target.log" 2>&1; then
    echo "fuzz-$target: FAILED; the input is in $out, the log in $out/fuzz-$target.log" >&2
    tail -n 40 "$out/fuzz-$target.log" >&2
    status=1
  else
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/fuzz-$target.log")
    echo "fuzz-$target: $runs runs in $seconds s, no crash"
  fi
  rm -rf "$corpus" "$data"
done
exit $status
