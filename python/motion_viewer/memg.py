"""MEMG motions made from mesh animations: :func:`fit` turns the positions of
a scene's vertices at every frame (a numpy array, e.g. a point cache read
with numpy, or a simulation's output) into a MEMG motion — per ``.obj``
group a rigid frame per frame and a reduced basis ``p + U·q`` — within an
error bound; :func:`save` writes a MEMG track's motion file.

The fit is the ``viewer memg fit`` command's (the library's
``fit::fit_checked``): the motion is encoded, decoded again and deformed by
the library's deformer at every frame, and the errors reported are those
measured against the input at every vertex.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Literal, Optional, Tuple, Union, overload

import numpy as np
import numpy.typing as npt

from . import _core
from ._core import Track

__all__ = ["fit", "save"]

_Path = Union[str, "os.PathLike[str]"]


@overload
def fit(
    scene: _Path,
    positions: npt.ArrayLike,
    *,
    rank: Optional[int] = None,
    max_error: Union[float, str, None] = None,
    rms_error: Union[float, str, None] = None,
    frames: str = "local",
    fps: int = 30,
    parts: Union[int, str, None] = None,
    out_scene: Optional[_Path] = None,
    report: Literal[False] = False,
) -> Track: ...


@overload
def fit(
    scene: _Path,
    positions: npt.ArrayLike,
    *,
    rank: Optional[int] = None,
    max_error: Union[float, str, None] = None,
    rms_error: Union[float, str, None] = None,
    frames: str = "local",
    fps: int = 30,
    parts: Union[int, str, None] = None,
    out_scene: Optional[_Path] = None,
    report: Literal[True],
) -> Tuple[Track, Dict[str, Any]]: ...


def fit(
    scene: _Path,
    positions: npt.ArrayLike,
    *,
    rank: Optional[int] = None,
    max_error: Union[float, str, None] = None,
    rms_error: Union[float, str, None] = None,
    frames: str = "local",
    fps: int = 30,
    parts: Union[int, str, None] = None,
    out_scene: Optional[_Path] = None,
    report: bool = False,
) -> Union[Track, Tuple[Track, Dict[str, Any]]]:
    """A MEMG track fitted to ``positions`` (frames × vertices × 3, any float
    type) of the scene ``.obj`` at ``scene``, whose ``g`` groups become the
    motion's groups (a vertex on a seam between groups is in both).

    ``rank`` fixes the basis size of every group; otherwise ``max_error``
    bounds the largest distance between any input vertex and the fitted one
    at any frame: a number in scene units, or a string such as ``"0.1%"``
    for a percentage of the diagonal of the box holding every vertex at
    every frame (the default). Each group gets the smallest rank that meets
    it. ``rms_error`` (as ``max_error``, given instead of it) bounds each
    group's root-mean-square error over its vertices and frames instead: an
    average budget, under which single vertices may stray further.
    ``frames``: ``"local"`` (a rigid frame per group and frame),
    ``"world"`` (none) or ``"auto"`` (per group, whichever of its own
    frames, none, or frames shared with other groups makes the smaller
    file; under ``max_error``, also one affine frame shared by the
    groups in frames, where that makes it smaller still). ``fps`` is the
    frame rate written.

    ``parts`` splits the mesh into that many near-rigid parts, or with
    ``"auto"`` tries 1, 2, 4… parts and keeps the split that makes the
    smallest file, and fits a group per part instead of the scene's own
    groups (``viewer memg fit --parts``); the scene with the parts as its
    groups is written to ``out_scene`` (every vertex, texture coordinate,
    normal and material line as it was), which the track then has as its
    scene, and the report's ``parts`` says what was tried.

    Returns the track (its ``path`` is the scene's — ``out_scene`` with
    parts — with ``.bin``: the motion is not written until :func:`save`), and with ``report=True`` also the report
    ``viewer memg fit --json`` prints: per group the rank, the largest, RMS
    and Karni–Gotsman errors, and the sizes and times.
    """
    array = np.ascontiguousarray(positions, dtype=np.float32)
    if array.ndim != 3:
        raise ValueError(f"positions: expected frames × vertices × 3, found shape {array.shape}")
    units, of_diagonal = _distance("max_error", max_error)
    rms_units, rms_of_diagonal = _distance("rms_error", rms_error)
    track, fitted = _core.memg_fit(
        os.fspath(scene),
        array,
        rank=rank,
        max_error=units,
        max_error_of_diagonal=of_diagonal,
        rms_error=rms_units,
        rms_error_of_diagonal=rms_of_diagonal,
        frames=frames,
        fps=fps,
        parts=parts,
        out_scene=None if out_scene is None else os.fspath(out_scene),
    )
    return (track, fitted) if report else track


def _distance(name: str, value: Union[float, str, None]) -> Tuple[Optional[float], Optional[float]]:
    """``value`` as (scene units, fraction of the diagonal): a number, or a
    string such as ``"0.1%"``."""
    if isinstance(value, str):
        text = value.strip()
        if not text.endswith("%"):
            raise ValueError(f"{name}: a number, or a percentage such as '0.1%', found {value!r}")
        return None, float(text[:-1]) / 100.0
    if value is not None:
        return float(value), None
    return None, None


def save(track: Track, path: _Path, *, force: bool = False) -> None:
    """Writes the MEMG track's motion as a file (little-endian), whole or not
    at all; never over its ``.obj`` or motion file unless ``force``."""
    _core.memg_save(track, os.fspath(path), force=force)
