"""Read, sample and export MEMG, AIBO ``.mtn`` and MRTK motion files as numpy arrays.

The decoders, samplers and exporters are the Rust library motion-viewer's
(the ``viewer`` command's); the GIL is released while they run::

    import motion_viewer as mv

    sit = mv.open("data/sony_stand_sit.mtn")
    angles = sit.joint_angles()          # every 16 ms frame × 20 joints, radians
    flags = mv.open("data/flags.bin")    # finds flags.obj beside it
    xyz = flags.positions([0.0, 0.5])    # 2 × vertices × 3, float32
    flags.export("flags.glb")

``motion_viewer.memg.fit`` makes a MEMG motion from any mesh animation
given as a numpy array; ``motion_viewer.mtn`` edits AIBO motions.
"""

from ._core import Track, export, open, open_all, open_bytes, open_bytes_all
from ._errors import (
    DecodeError,
    EditError,
    EntryError,
    FileError,
    MismatchError,
    MotionViewerError,
    NonFiniteError,
    OutOfMemoryError,
    TooLargeError,
    UnknownFormatError,
    UnsupportedError,
)
from . import memg, mtn

__all__ = [
    "DecodeError",
    "EditError",
    "EntryError",
    "FileError",
    "MismatchError",
    "MotionViewerError",
    "NonFiniteError",
    "OutOfMemoryError",
    "TooLargeError",
    "Track",
    "UnknownFormatError",
    "UnsupportedError",
    "export",
    "memg",
    "mtn",
    "open",
    "open_all",
    "open_bytes",
    "open_bytes_all",
]
