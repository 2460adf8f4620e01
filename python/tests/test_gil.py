"""The GIL is released while decoding and sampling: another Python thread
keeps running. Checked by progress, not timing: with a switch interval far
longer than the call, a thread could run during it only if the call lets
go of the GIL (the thread sleeps between counts, so it never holds the
GIL for long itself)."""

import sys
import threading
import time

import numpy as np
import pytest

import motion_viewer as mv
from conftest import write_memg


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    path = tmp_path_factory.mktemp("big") / "big.bin"
    write_memg(path, vertices=100_000, basis=16, timesteps=60)
    return path


def progress_during(call):
    """How many times a second thread counted while `call` ran."""
    count = [0]
    stop = threading.Event()

    def counter():
        # Sleeping lets go of the GIL; waking needs it back to count.
        while not stop.is_set():
            count[0] += 1
            time.sleep(0.0005)

    old = sys.getswitchinterval()
    sys.setswitchinterval(100.0)
    try:
        worker = threading.Thread(target=counter)
        worker.start()  # waits until the thread runs, releasing the GIL
        before = count[0]
        call()
        after = count[0]
    finally:
        stop.set()
        sys.setswitchinterval(old)
    worker.join()
    return after - before


def test_decoding_lets_another_thread_run(big):
    raw = big.read_bytes()
    obj = big.with_suffix(".obj").read_bytes()
    assert progress_during(lambda: mv.open_bytes_all([("big.obj", obj), ("big.bin", raw)])) > 0


def test_sampling_lets_another_thread_run(big):
    track = mv.open(big)
    assert progress_during(lambda: track.positions(np.linspace(0, track.duration, 200))) > 0


def test_a_call_holding_the_gil_shows_no_progress():
    # The check can fail: numpy's own Python-level work holds the GIL.
    assert progress_during(lambda: sum(range(3_000_000))) == 0
