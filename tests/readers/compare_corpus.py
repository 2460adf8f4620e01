"""The whole corpus in both engines, for the figures of docs/physics.md and
BENCHMARKS.md (the test `readers::mjcf` asserts the same rules on a sample):

    cargo run --release -p motion-viewer --features physics --example simulate_speed -- \\
        --mjcf /tmp/corpus data/sony_stand_sit.mtn tests/data/oda/*.ODA tests/data/mtn/*/*
    .venv-readers/bin/python tests/readers/compare_corpus.py /tmp/corpus

Reads DIR/ours.jsonl (the viewer's verdicts), plays every DIR/m*.xml in
MuJoCo with mujoco_drive.py (two processes), and prints: verdict agreement,
falls by model and kind in each engine, fall times more than 0.3 s apart,
bodies more than 2 cm apart over the first second, and every disagreement.
"""

import json
import pathlib
import sys
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import mujoco_drive  # noqa: E402


def main(folder):
    folder = pathlib.Path(folder)
    ours = [json.loads(line) for line in (folder / "ours.jsonl").read_text().splitlines()]
    with ProcessPoolExecutor(2) as pool:
        theirs = dict(zip([o["file"] for o in ours], pool.map(mujoco_drive.run, [o["file"] for o in ours], chunksize=8)))
    agree = 0
    table = defaultdict(lambda: [0, 0, 0])
    kinds = defaultdict(lambda: [0, 0, 0])
    lines, late, apart = [], [], []
    for o in ours:
        v, mj = o["verdict"], theirs[o["file"]]
        agree += v["falls"] == mj["falls"]
        for t, key in ((table, v["model"]), (kinds, (v["model"], o["kind"]))):
            t[key][0] += 1
            t[key][1] += v["falls"]
            t[key][2] += mj["falls"]
        if v["falls"] != mj["falls"]:
            lines.append(
                f"{o['label']}: {'falls' if v['falls'] else 'stands'} here "
                f"({v['fall_cause']}, peak tilt {v['peak_tilt_deg']:.1f}°), "
                f"{'falls' if mj['falls'] else 'stands'} in MuJoCo "
                f"({mj['fall_cause']}, peak tilt {mj['peak_tilt_deg']:.1f}°)"
            )
        elif v["first_posture_stands"] != mj["first_posture_stands"]:
            lines.append(f"{o['label']}: the first posture stands in one engine only")
        elif v["fall_time_s"] is not None and abs(v["fall_time_s"] - mj["fall_time_s"]) > 0.3:
            late.append(f"{o['label']}: {v['fall_time_s']:.3f} s here, {mj['fall_time_s']:.3f} s in MuJoCo")
        at = {round(r[0], 6): r[1:] for r in mj["trajectory"]}
        gap = 0.0
        for r in o["trajectory"]:
            m = at.get(round(r[0], 6))
            if m is not None:
                gap = max(gap, sum((a - b) ** 2 for a, b in zip(r[1:], m)) ** 0.5)
        if gap > 0.02:
            apart.append(f"{o['label']}: {gap * 1000:.1f} mm")
    print(f"verdicts agree on {agree} of {len(ours)} motions ({100 * agree / len(ours):.1f} %)")
    print("| model | motions | fall (viewer) | fall (MuJoCo) |")
    for k, (n, a, b) in sorted(table.items()):
        print(f"| {k} | {n} | {a} | {b} |")
    print("| model | kind | motions | fall (viewer) | fall (MuJoCo) |")
    for (model, kind), (n, a, b) in sorted(kinds.items()):
        print(f"| {model} | {kind} | {n} | {a} | {b} |")
    print(f"fall times more than 0.3 s apart: {len(late)}")
    for line in late:
        print("  " + line)
    print(f"bodies more than 2 cm apart in the first second: {len(apart)}")
    for line in apart:
        print("  " + line)
    print(f"disagreements: {len(lines)}")
    for line in lines:
        print("  " + line)


if __name__ == "__main__":
    main(sys.argv[1])
