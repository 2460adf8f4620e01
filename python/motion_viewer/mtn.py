"""The AIBO workbench: new ``.mtn`` motions from old ones, and their check.

Each edit takes a track of kind ``"mtn"`` and returns a new track (the
source is left as it was), whose ``warnings`` say what the edit dropped,
moved or assumed; a motion the edit cannot make raises
:class:`motion_viewer.EditError`. :func:`save` writes one as a ``.mtn`` file.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Optional, Sequence, Union

from . import _core
from ._core import Track

__all__ = ["check", "concat", "convert", "mirror", "retime", "reverse", "save"]


def mirror(track: Track) -> Track:
    """The motion mirrored left ↔ right (legs, ears, the head's pan and roll)."""
    return _core.mtn_mirror(track)


def reverse(track: Track) -> Track:
    """The motion played backwards."""
    return _core.mtn_reverse(track)


def retime(track: Track, *, speed: Optional[float] = None, frame_ms: Optional[int] = None) -> Track:
    """The motion ``speed`` times as fast, or stored with frames of ``frame_ms``
    ms keeping its duration (give one). Keyframes land on whole frames."""
    return _core.mtn_retime(track, speed=speed, frame_ms=frame_ms)


def concat(tracks: Sequence[Track]) -> Track:
    """The motions one after another, as one motion (same model and joints)."""
    return _core.mtn_concat(list(tracks))


def convert(track: Track, model: str) -> Track:
    """The motion carried to another AIBO model (``"ERS-7"``, ``"ERS-210"``…)."""
    return _core.mtn_convert(track, model)


def check(track: Track) -> Dict[str, Any]:
    """The motion against its robot's joint limits, servo speeds, naming rules
    and standard postures: the report ``viewer mtn check --json`` writes
    (``errors``, ``warnings`` and ``findings``, each with ``severity``,
    ``kind``, ``keyframe``, ``time_s``, ``joint`` and ``message``)."""
    report: Dict[str, Any] = _core.mtn_check(track)
    return report


def save(track: Track, path: Union[str, "os.PathLike[str]"], *, force: bool = False) -> None:
    """Writes the track's motion as a ``.mtn`` file, whole or not at all; never
    over the file it came from unless ``force``."""
    _core.mtn_save(track, os.fspath(path), force=force)
