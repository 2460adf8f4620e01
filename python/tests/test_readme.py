"""python/README.md's example runs and prints what it says it prints."""

import re
import subprocess
import sys

from conftest import DATA, ROOT


def test_the_readme_example(tmp_path):
    readme = (ROOT / "python" / "README.md").read_text()
    section = readme[readme.index("## Ten lines") :]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert len(code.strip().splitlines()) <= 12
    (tmp_path / "data").symlink_to(DATA)
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    lines = out.stdout.splitlines()
    # The seed motion: 305 frames of 16 ms; frames 0..=305 × 20 joints.
    assert lines[0] == "sony_stand_sit mtn 4.88"
    assert lines[1] == "(306, 20)"
    assert (tmp_path / "flags.glb").read_bytes()[:4] == b"glTF"


def test_the_example_script():
    script = ROOT / "python" / "examples" / "summary.py"
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True).stdout
    assert "sony_stand_sit: mtn, 4.880 s, frame 16.00 ms" in out
    assert "joint angles (306, 20)" in out
    # data/README.md: the right hand pinches from 2.6 s; examples/make_input_animation.rs
    # puts the markers "wave" at 1.3 s and "pinch" at 2.6 s.
    assert "right hand pinches from 2.60 s" in out
    assert "markers: wave at 1.30 s, pinch at 2.60 s" in out
    assert "flags: memg, 7.967 s" in out
    bad = subprocess.run([sys.executable, str(script), str(DATA / "README.md")], capture_output=True, text=True)
    assert bad.returncode == 1 and "unrecognised content" in bad.stderr
