#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/ for a short, bounded time, when a
# nightly toolchain is installed (cargo-fuzz needs one); without it, says so
# and succeeds. Installs cargo-fuzz if it is missing.
#
#   .ci/fuzz.sh [--build-only | --run-only] [SECONDS_PER_TARGET]  (default 20)
#
# --build-only builds the targets and stops; --run-only runs them, built
# before (`.ci/run` builds them beside the other builds, runs them last).
#
# The whole script, the nightly build of the fuzz crate included (none with
# --run-only), keeps to FUZZ_TOTAL_SECONDS (default 290): after the build,
# each target gets the smaller of SECONDS_PER_TARGET and an equal share of
# the time left (at least 5 s). Each target starts from its seeds: the real files in
# tests/data and data/, fuzz/seeds/ (see its README) and every input that
# once failed (tests/data/fuzz/TARGET/). A crash, a timeout (2 s per input)
# or running out of memory (2 GiB) fails the script; libFuzzer leaves the
# input in fuzz/artifacts/TARGET/. Keep it as a regression test:
# tests/data/fuzz/TARGET/NAME, replayed by
# crates/motion-viewer/tests/formats/fuzz_regressions.rs.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
mode=all
case "${1:-}" in
--build-only | --run-only) mode=${1#--}; shift ;;
esac
per_target="${1:-20}"
total="${FUZZ_TOTAL_SECONDS:-290}"
targets=(mtn oda memg obj_memg mrtk probe pipeline)

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  echo "fuzz: no nightly toolchain; skipping the fuzz targets"
  exit 0
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz: installing cargo-fuzz"
  cargo install cargo-fuzz --locked
fi

# The seed corpus of each target, rebuilt from the repository every run
# (fuzz/corpus is not committed; what a run adds to it is kept between runs).
seed() {
  local target=$1
  shift
  mkdir -p "fuzz/corpus/$target"
  local f
  for f in "$@"; do
    [ -f "$f" ] && cp -f "$f" "fuzz/corpus/$target/"
  done
  return 0
}
shopt -s nullglob globstar
mtn_files=(tests/data/mtn/**/*.mtn data/*.mtn)
seed mtn "${mtn_files[@]}"
for t in oda memg obj_memg mrtk pipeline; do
  seed "$t" fuzz/seeds/"$t"/*
done
seed probe "${mtn_files[@]}" fuzz/seeds/{oda,memg,mrtk}/* data/flags.mtl
for t in "${targets[@]}"; do
  seed "$t" tests/data/fuzz/"$t"/*
done

cd fuzz
if [ "$mode" != run-only ]; then
  cargo +nightly fuzz build -O 2>&1 | tail -n 3
  echo "fuzz: built in $(($(date +%s) - started)) s"
  [ "$mode" != build-only ] || exit 0
fi
built=$(date +%s)

left=$((total - (built - started)))
share=$((left / ${#targets[@]}))
seconds=$((share < per_target ? share : per_target))
seconds=$((seconds < 5 ? 5 : seconds))
status=0
for t in "${targets[@]}"; do
  log="$(mktemp)"
  if cargo +nightly fuzz run -O "$t" -- -max_total_time="$seconds" -timeout=2 \
    -rss_limit_mb=2048 -print_final_stats=1 >"$log" 2>&1; then
    runs=$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
    echo "fuzz: $t: ${runs:-?} executions in ${seconds} s, nothing found"
  else
    echo "fuzz: $t: FAILED; the input is in fuzz/artifacts/$t/" >&2
    grep -E "panicked at|assertion|ERROR: libFuzzer|SUMMARY|Test unit written" "$log" |
      cut -c1-300 | head -n 20 >&2
    status=1
  fi
  rm -f "$log"
done
echo "fuzz: done in $(($(date +%s) - started)) s"
exit "$status"
