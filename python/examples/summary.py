"""Prints what each motion file holds, as numpy arrays, without a notebook.

    python python/examples/summary.py data/sony_stand_sit.mtn data/hands.mrtk data/flags.bin

With no arguments it reads the repository's samples.
"""

from __future__ import annotations

import pathlib
import sys
from typing import List

import numpy as np

import motion_viewer as mv

SAMPLES = pathlib.Path(__file__).resolve().parents[2] / "data"


def describe(track: mv.Track) -> List[str]:
    """A few lines about one track, from its arrays."""
    lines = [f"{track.name}: {track.kind}, {track.duration:.3f} s, frame {track.frame_period * 1000:.2f} ms"]
    if track.kind == "mtn":
        angles = np.degrees(track.joint_angles())
        swing = angles.max(axis=0) - angles.min(axis=0)
        widest = int(swing.argmax())
        lines.append(f"  joint angles {angles.shape}; {track.joint_names[widest]} swings {swing[widest]:.1f}°")
        feet = track.rig_points(frame="world")[:, :, 2].min(axis=1)
        lines.append(f"  lowest point {-feet.min() * 1000:.0f} mm below the body centre")
    elif track.kind == "input-animation":
        pinching = track.pinching()
        times = track.sample_times()
        lines.append(f"  hand joints {track.hand_joints().shape}")
        if pinching[:, 1].any():
            lines.append(f"  right hand pinches from {times[pinching[:, 1]].min():.2f} s")
        lines.append("  markers: " + ", ".join(f"{name} at {t:.2f} s" for t, name in track.markers))
    elif track.kind == "memg":
        xyz = track.positions(rate=10)
        travel = np.linalg.norm(xyz - xyz[0], axis=2).max()
        lines.append(f"  positions {xyz.shape}, groups {', '.join(track.group_names)}")
        lines.append(f"  the furthest vertex travels {travel:.3f} units; U of group 0 is {track.U(0).shape}")
    lines.extend(f"  warning: {w}" for w in track.warnings)
    return lines


def main(paths: List[str]) -> int:
    if not paths:
        paths = [str(SAMPLES / n) for n in ("sony_stand_sit.mtn", "hands.mrtk", "flags.bin")]
    for path in paths:
        try:
            track = mv.open(path)
        except mv.MotionViewerError as e:
            print(e, file=sys.stderr)
            return 1
        print("\n".join(describe(track)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
