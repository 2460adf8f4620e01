#!/bin/sh
# The curves panel's cost in the window (issue 24): a 10^5-frame AIBO
# motion, played under a private Xvfb on the adapter wgpu picks (llvmpipe
# here), once with the curves panel closed and once open on its 20 joints
# (`--curves 'PRM:*'`), SECONDS each; prints the viewer's own smoothed
# frame time and split (`MOTION_VIEWER_STATUS=1`) for both.
#
#   benches/curves_frame_time.sh [DIR] [SECONDS]
#
# DIR receives the generated table and motion (long.csv, long.mtn; default a
# fresh temporary folder); the viewer is target/debug/viewer (`cargo build`).
# The page's figures: `node tests/js/web_test.js URL curves-bench DIR OUT`
# (see BENCHMARKS.md).
set -eu
cd "$(dirname "$0")/.."
dir=${1:-$(mktemp -d)}
seconds=${2:-20}
viewer=${VIEWER:-target/debug/viewer}
mkdir -p "$dir"

# 25 001 keyframes 64 ms apart at 16 ms a frame: 100 001 frames (1 600 s).
# Body still; each ERS-210 joint a slow sine of its own period over the
# range Sony's sony_stand_sit.mtn gives it (within its limits, so that
# `check` finds nothing to shade but the length), at most ±15°.
"$viewer" export data/sony_stand_sit.mtn --out "$dir/sit.csv" --force >/dev/null
awk -F, 'NR == 1 { header = $0; n = NF; next }
    {
        for (j = 5; j <= n; j++) {
            if (NR == 2 || $j < lo[j]) lo[j] = $j
            if (NR == 2 || $j > hi[j]) hi[j] = $j
        }
    }
    END {
        print header
        for (k = 0; k <= 25000; k++) {
            t = k * 0.064
            line = sprintf("%.3f,0,0,0", t)
            for (j = 5; j <= n; j++) {
                a = (hi[j] - lo[j]) / 2
                if (a > 15) a = 15
                line = line sprintf(",%.4f", (hi[j] + lo[j]) / 2 + a * sin(t * 6.2832 / (3 + j)))
            }
            print line
        }
    }' "$dir/sit.csv" > "$dir/long.csv"
"$viewer" mtn from-csv "$dir/long.csv" --model ERS-210 --name 'a_any#long_bench' \
    --every-row --force --out "$dir/long.mtn"
"$viewer" info "$dir/long.mtn" | head -1

run() {
    label=$1
    shift
    Xvfb :87 -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
    xvfb=$!
    sleep 1
    DISPLAY=:87 MOTION_VIEWER_STATUS=1 WGPU_BACKEND=${WGPU_BACKEND:-vulkan} \
        "$viewer" "$dir/long.mtn" --size 1280x720 "$@" > "$dir/$label.log" 2>&1 &
    pid=$!
    sleep "$seconds"
    DISPLAY=:87 xdotool search --name viewer windowfocus --sync key q >/dev/null 2>&1 || kill "$pid"
    wait "$pid" || true
    kill "$xvfb"
    wait "$xvfb" 2>/dev/null || true
    echo "$label: $(grep -E '^(frame_time_ms|frame_split_ms)' "$dir/$label.log" | tr '\n' ' ')"
}
run closed
run open --curves 'PRM:*'
