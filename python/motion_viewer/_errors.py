"""The exceptions motion_viewer raises.

Every one is a :class:`MotionViewerError`, whose ``str()`` is the same
one-line message the ``viewer`` command prints (file, field, byte offset,
expected against found) and whose ``.path`` names the file it is about.
Each also derives from the built-in exception a caller would catch for it
(``ValueError`` for bad content, ``OSError`` for the file system).
"""

from __future__ import annotations

from typing import Any, Optional


class MotionViewerError(Exception):
    """Base of every motion_viewer error; ``str(e)`` is the one-line message."""

    path: Optional[str]

    def __init__(self, message: str, path: Optional[str] = None, **details: Any) -> None:
        super().__init__(message)
        self.path = path
        for key, value in details.items():
            setattr(self, key, value)


class DecodeError(MotionViewerError, ValueError):
    """The bytes do not follow the format: the field read, its byte offset,
    what a well-formed file has there and what this one has."""

    field: str
    offset: int
    expected: str
    found: str


class UnknownFormatError(MotionViewerError, ValueError):
    """The content matches none of the known formats (``.head``: its first bytes in hex)."""

    head: str


class EntryError(MotionViewerError, LookupError):
    """An ODA archive's entry cannot be had as asked (none of that name, not a motion…)."""


class MismatchError(MotionViewerError, ValueError):
    """Files that decode but do not go together (a MEMG motion without its ``.obj``…)."""


class UnsupportedError(MotionViewerError, ValueError):
    """An output these tracks cannot make, or a request that makes no sense."""


class TooLargeError(MotionViewerError, ValueError):
    """The work asked for is over one of the documented caps; refused before it starts."""


class OutOfMemoryError(MotionViewerError, MemoryError):
    """The work needs more memory than this process can get now (its address-space
    or data limit, the machine's available memory); refused before it starts."""


class NonFiniteError(MotionViewerError, ValueError):
    """A NaN or infinite number where an output needs a finite one."""


class EditError(MotionViewerError, ValueError):
    """A ``motion_viewer.mtn`` edit that cannot make a motion (unknown model, joint…)."""


class FileError(MotionViewerError, OSError):
    """Reading or writing a file failed (``.errno`` as the system gave it), or the
    path is a folder, pipe or device, or an output would replace an input."""
