"""Long calls are bounded and Ctrl-C stops them (issue 45, causes 3 and 4).

A simulation of a motion longer than its cap is refused before any step;
SIGINT during a simulation, or during sampling of a big motion, raises
KeyboardInterrupt within 0.5 s of the signal. The signal is sent by a
second thread once the call is known to be under way: with a switch
interval far longer than the call, that thread runs only when the call lets
go of the GIL (as in test_gil.py), so it cannot fire before the call."""

import os
import signal
import sys
import threading
import time

import numpy as np
import pytest

import motion_viewer as mv
from conftest import write_memg


@pytest.fixture
def sit(data):
    return mv.open(data / "sony_stand_sit.mtn")


def seconds_from_sigint_to_keyboard_interrupt(call):
    """Runs `call`, sending SIGINT from another thread once the call has
    let go of the GIL; returns the seconds from the signal to the
    KeyboardInterrupt the call raised."""
    under_way = [False]
    sent = []

    def sender():
        # Sleeping lets go of the GIL; waking needs it back, which only the
        # call gives while `under_way` is set.
        while not under_way[0]:
            time.sleep(0.0005)
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    old = sys.getswitchinterval()
    sys.setswitchinterval(100.0)
    # Python installs its KeyboardInterrupt handler only when SIGINT is not
    # ignored at start, and a shell ignores it for the jobs it puts in the
    # background (as a CI runner may): install it for the test.
    old_handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    thread = threading.Thread(target=sender)
    try:
        thread.start()  # waits until the thread runs, letting go of the GIL
        under_way[0] = True
        with pytest.raises(KeyboardInterrupt):
            call()
        raised = time.monotonic()
    finally:
        sys.setswitchinterval(old)
        thread.join()
        signal.signal(signal.SIGINT, old_handler)
    assert sent, "the call ended without letting go of the GIL"
    return raised - sent[0]


def test_a_motion_days_long_is_refused_before_any_step(sit):
    # Sony's 4.88 s seed at a millionth of its speed: about 56 days.
    long = mv.mtn.retime(sit, speed=1e-6)
    started = time.monotonic()
    with pytest.raises(mv.TooLargeError, match=r"days\).*600 s of motion") as e:
        long.simulate()
    assert "\n" not in str(e.value)
    with pytest.raises(mv.TooLargeError, match="3600 s"):
        long.simulate(max_duration=3600)
    for bad in [0.0, -1.0, float("nan"), 1e9]:
        with pytest.raises(mv.UnsupportedError, match="at most 3600"):
            long.simulate(max_duration=bad)
    assert time.monotonic() - started < 20


def test_sigint_stops_a_simulation_within_half_a_second(sit):
    # The seed slowed to about 120 s: far longer to simulate than the test
    # waits for the signal.
    long = mv.mtn.retime(sit, speed=4.88 / 120)
    assert seconds_from_sigint_to_keyboard_interrupt(long.simulate) < 0.5


def test_sigint_stops_sampling_a_big_motion_within_half_a_second(tmp_path):
    # 20 000 vertices of a 128-vector basis at 1 000 times: billions of
    # multiply-adds, seconds of work.
    path = tmp_path / "big.bin"
    write_memg(path, vertices=20_000, basis=128, timesteps=60)
    track = mv.open(path)
    times = np.linspace(0, track.duration, 1000)
    assert seconds_from_sigint_to_keyboard_interrupt(lambda: track.positions(times)) < 0.5
