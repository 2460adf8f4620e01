#!/usr/bin/env python3
"""Peak memory of the window opening a MEMG scene and switching layout once.

    python3 benches/window_layout_memory.py VIEWER SCENE.obj MOTION.bin [--no-switch]

Runs VIEWER (a `viewer` binary) on the two files under a private Xvfb, with
`/usr/bin/time -v` around it, waits for the window's status line to show the
track, presses T (layout fit / true scale), steps two frames so that the
stage is rebuilt and drawn in the new layout, quits with Q, and prints the
viewer's peak resident set size. `--no-switch` skips the T, for the cost of
opening alone. Every wait is for a state the window reports (its status
lines); none is a fixed time.

Make the scene issue 35 measures with
    viewer bench --synthetic 1000000x32x100 --write-scene DIR
Needs: Xvfb, xdotool, GNU time (/usr/bin/time), a Vulkan CPU adapter
(lavapipe; WGPU_BACKEND=vulkan).
"""

import os
import re
import subprocess
import sys
import time

STEP_TIMEOUT_S = 600


def start_xvfb():
    xvfb = subprocess.Popen(
        ["Xvfb", "-displayfd", "1", "-screen", "0", "1024x768x24", "-nolisten", "tcp"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    number = xvfb.stdout.readline().decode().strip()
    if not number:
        sys.exit("window_layout_memory: Xvfb printed no display number")
    return xvfb, f":{number}"


def tool(display, *args):
    out = subprocess.run(
        list(args), env={**os.environ, "DISPLAY": display}, capture_output=True, check=True
    )
    return out.stdout.decode()


def wait_line(viewer, what, want):
    """Reads the viewer's stdout until a line satisfies `want`."""
    deadline = time.monotonic() + STEP_TIMEOUT_S
    while time.monotonic() < deadline:
        line = viewer.stdout.readline().decode()
        if not line:
            sys.exit(f"window_layout_memory: the viewer ended while waiting for {what}")
        if want(line.strip()):
            return line.strip()
    sys.exit(f"window_layout_memory: no {what} within {STEP_TIMEOUT_S} s")


def frame_is(n):
    return lambda line: line.startswith(f"frame {n}/") and " tracks 1 " in line


def main():
    args = [a for a in sys.argv[1:] if a != "--no-switch"]
    switch = "--no-switch" not in sys.argv
    if len(args) != 3:
        sys.exit(__doc__)
    viewer_bin, obj, motion = args
    xvfb, display = start_xvfb()
    report = "/tmp/window_layout_memory.time"
    env = {**os.environ, "DISPLAY": display, "MOTION_VIEWER_STATUS": "1"}
    env.pop("WAYLAND_DISPLAY", None)
    env.setdefault("WGPU_BACKEND", "vulkan")
    started = time.monotonic()
    viewer = subprocess.Popen(
        ["/usr/bin/time", "-v", "-o", report, viewer_bin, obj, motion, "--paused"],
        env=env,
        stdout=subprocess.PIPE,
    )
    try:
        wait_line(viewer, "the track loaded", frame_is(0))
        opened = time.monotonic() - started
        window = tool(display, "xdotool", "search", "--sync", "--name", "viewer").split()[0]
        tool(display, "xdotool", "windowfocus", "--sync", window)
        if switch:
            tool(display, "xdotool", "key", "t")
        # Two frames drawn after T: the stage was rebuilt in the new layout.
        for n in (1, 2):
            tool(display, "xdotool", "key", "Right")
            wait_line(viewer, f"frame {n}", frame_is(n))
        tool(display, "xdotool", "key", "q")
        viewer.stdout.read()
        if viewer.wait(timeout=STEP_TIMEOUT_S) != 0:
            sys.exit(f"window_layout_memory: the viewer exited with {viewer.returncode}")
    finally:
        if viewer.poll() is None:
            viewer.kill()
        xvfb.kill()
    text = open(report).read()
    peak_kib = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
    print(
        f"{'open + layout switch' if switch else 'open'}: peak RSS {peak_kib / 1024:.1f} MiB "
        f"({peak_kib / 1024 / 1024:.2f} GiB); window showed the track after {opened:.1f} s"
    )


if __name__ == "__main__":
    main()
