"""A Python session nothing can kill (issue 34): each case runs in a child
interpreter under an address-space limit (RLIMIT_AS) and a timeout, and
must end by itself, exit 0, and say what it caught. Before the fixes a big
request raised PanicException (a BaseException that `except Exception`
lets through), a named pipe hung `open` with the GIL held, and a MEMG
motion truncated on disk killed the interpreter with SIGBUS (or, cut
partway, its views read zeros)."""

import json
import os
import resource
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from conftest import DATA, read_memg_f64, reference_positions, write_memg

GIB = 1 << 30

# The child interpreter with numpy and motion_viewer imported stays under
# 1 GiB of address space with one BLAS thread; each case allows what its
# own arrays need beside that.
ENV = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")


def run_child(script, limit, timeout=60, **values):
    """Runs `script` (with `values` as JSON in `ARGS`) in a child Python
    under `limit` bytes of address space; returns what it printed last, as
    JSON. Fails on a timeout, a signal or a non-zero exit."""
    source = "import json, sys\nARGS = json.loads(sys.argv[1])\n" + textwrap.dedent(script)

    def limited():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    try:
        done = subprocess.run(
            [sys.executable, "-c", source, json.dumps(values)],
            preexec_fn=limited,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=ENV,
        )
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"the child ran past {timeout} s (hung): {e.stderr}")
    assert done.returncode >= 0, f"the child was killed by signal {-done.returncode}: {done.stderr}"
    assert done.returncode == 0, f"the child failed ({done.returncode}): {done.stderr}"
    return json.loads(done.stdout.strip().splitlines()[-1])


# What every case's child does with an error: `except Exception` must catch it.
CAUGHT = """
import motion_viewer as mv
def caught(call):
    try:
        call()
    except Exception as e:
        return [type(e).__name__, isinstance(e, mv.MotionViewerError), str(e)]
    return None
"""


def test_a_big_request_raises_too_large_or_memory_error():
    out = run_child(
        CAUGHT
        + """
import numpy as np
sit = mv.open(ARGS["sit"])
flags = mv.open(ARGS["flags"])
print(json.dumps({
    "rate": caught(lambda: sit.joint_angles(rate=1e7)),
    "grid": caught(lambda: sit.joint_angles(rate=1e12)),
    "times": caught(lambda: flags.positions(np.zeros(10**8))),
    "hands": caught(lambda: sit.rig_points(np.zeros(10**8))),
    # Under the cap, over the address space: numpy's MemoryError.
    "memory": caught(lambda: flags.positions(np.zeros(90_000))),
    # And a session that goes on: a small call still works.
    "after": sit.joint_angles([0.0, 1.0]).shape,
}))
""",
        limit=2 * GIB,
        sit=str(DATA / "sony_stand_sit.mtn"),
        flags=str(DATA / "flags.bin"),
    )
    for case in ("rate", "grid", "times", "hands"):
        name, ours, message = out[case]
        assert (name, ours) == ("TooLargeError", True), (case, message)
        assert "pass fewer times" in message or "pass times" in message, message
    assert out["rate"][2].startswith("joint_angles: 48800001 samples × 160 bytes"), out["rate"][2]
    assert out["memory"][0] == "MemoryError", out["memory"]
    assert out["after"] == [2, 20]


def test_too_large_error_is_the_package_s_and_an_exception():
    import motion_viewer as mv

    assert issubclass(mv.TooLargeError, mv.MotionViewerError)
    assert issubclass(mv.MotionViewerError, Exception)


def test_open_refuses_a_named_pipe_at_once(tmp_path):
    fifo = tmp_path / "motion.mtn"
    os.mkfifo(fifo)
    out = run_child(
        CAUGHT
        + """
print(json.dumps({
    "open": caught(lambda: mv.open(ARGS["fifo"])),
    "entry": caught(lambda: mv.open(ARGS["fifo"], entry="sit")),
    "all": caught(lambda: mv.open_all([ARGS["fifo"]])),
}))
""",
        limit=GIB + GIB // 2,
        timeout=30,
        fifo=str(fifo),
    )
    for case, (name, ours, message) in out.items():
        assert (name, ours) == ("FileError", True), (case, message)
        assert message.endswith("a named pipe, not a regular file; not read"), message


@pytest.fixture
def motion(tmp_path):
    """A 1.3 MB MEMG motion and its .obj: every array well past the first page."""
    path = tmp_path / "cloud.bin"
    write_memg(path, vertices=10_000, basis=5, timesteps=6)
    return path


def test_a_motion_changed_on_disk_reads_as_it_was_opened_or_says_so(motion, tmp_path):
    raw = motion.read_bytes()
    ref = read_memg_f64(raw)
    out = run_child(
        CAUGHT
        + """
import os
seen = {}
viewed = mv.open(ARGS["motion"])
seen["U_before"] = float(viewed.U().sum())
untouched = mv.open(ARGS["motion"])
# Cut short on disk: past the new end a mapped read raised SIGBUS.
os.truncate(ARGS["motion"], 4096)
# A track whose arrays were viewed holds the file as it was opened.
seen["U_cut"] = float(viewed.U().sum())
seen["Q_cut"] = float(viewed.Q().sum())
seen["mean_cut"] = float(viewed.mean().sum())
seen["positions"] = viewed.positions([0.0, 0.1]).tolist()
seen["export"] = caught(lambda: viewed.export(ARGS["glb"]))
# One that had read nothing yet says the file changed, and goes on.
seen["untouched"] = [
    caught(lambda: untouched.positions([0.0])),
    caught(lambda: untouched.U()),
    caught(lambda: untouched.export(ARGS["glb2"])),
    caught(lambda: untouched.info()),
]
seen["still"] = untouched.duration > 0
# Rewritten in place, as long as it was, with zeros: the views stay.
with open(ARGS["motion"], "r+b") as f:
    f.truncate(0)
    f.write(b"\\0" * ARGS["size"])
seen["U_zeroed"] = float(viewed.U().sum())
print(json.dumps(seen))
""",
        limit=2 * GIB,
        motion=str(motion),
        glb=str(tmp_path / "cloud.glb"),
        glb2=str(tmp_path / "cloud2.glb"),
        size=len(raw),
    )
    g = ref["groups"][0]
    u_sum = float(g["u"].sum())
    assert out["U_before"] == pytest.approx(u_sum)
    for key in ("U_cut", "U_zeroed"):
        assert out[key] == pytest.approx(u_sum), key
    assert out["Q_cut"] == pytest.approx(float(g["q"].sum()))
    assert out["mean_cut"] == pytest.approx(float(g["mean"].sum()))
    rest = np.loadtxt(motion.with_suffix(".obj"), comments=("g", "f"), usecols=(1, 2, 3))
    for i, t in enumerate([0.0, 0.1]):
        want = reference_positions(ref, rest, t * 30)
        assert np.allclose(out["positions"][i], want, atol=1e-4), t
    assert out["export"] is None, out["export"]
    assert (tmp_path / "cloud.glb").stat().st_size > 0
    for name, ours, message in out["untouched"]:
        assert (name, ours) == ("FileError", True), message
        assert "changed on disk" in message, message
    assert not (tmp_path / "cloud2.glb").exists()
    assert out["still"]


def test_an_export_larger_than_the_memory_allowed_is_written(tmp_path):
    """The USD writer streams: the hands sample sampled 20 000 times (a
    215 MB stage, which the writer once built in memory first) is written
    whole in a child allowed less address space than the stage's size."""
    out = run_child(
        CAUGHT
        + """
import os
track = mv.open(ARGS["rec"])
fps = 20000 / track.duration
written = track.export(ARGS["usda"], fps=fps)
print(json.dumps({"written": written, "bytes": os.path.getsize(ARGS["usda"])}))
""",
        # numpy and the package take about 100 MiB; building the stage in
        # memory first took 700 MiB.
        limit=384 << 20,
        timeout=120,
        rec=str(DATA / "hands.mrtk"),
        usda=str(tmp_path / "hands.usda"),
    )
    assert out["written"] == [str(tmp_path / "hands.usda")]
    assert out["bytes"] > 200_000_000, out
