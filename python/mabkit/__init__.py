"""mabkit: read, edit and write Dunia/Disrupt ``.mab`` animation files from Python.

A thin layer over the C++ library (``lib/include/mab``): ``read`` a file, ``decode`` a block
into NumPy arrays, edit them, ``encode`` the clip against the file it came from. Unedited data
keeps its bytes; edited keys are re-quantised with a measured error; an edit that cannot be
written raises ``MabError`` instead of being dropped. See docs/python.md; the typed API is in
``__init__.pyi``.
"""
from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from ._errors import MabError
from . import _mabkit
from ._clip import Clip, EncodeReport, Part, quat_from_axis_angle
from ._legacy import Event, Tag

__all__ = ["read", "new_file", "hash", "version", "File", "Block", "Clip", "Part", "EncodeReport",
           "Tag", "Event", "MabError", "quat_from_axis_angle"]


def __getattr__(name: str) -> Any:
    # Far Cry 2/3 clips decode into Clip (issue 33; docs/python.md, CHANGELOG.md): LegacyClip is
    # kept one release as a deprecated alias, so isinstance checks and imports still work.
    if name == "LegacyClip":
        import warnings
        warnings.warn("mabkit.LegacyClip is deprecated: Far Cry 2/3 clips decode into mabkit.Clip "
                      "(docs/python.md)", DeprecationWarning, stacklevel=2)
        return Clip
    raise AttributeError(f"module 'mabkit' has no attribute {name!r}")

version: str = _mabkit.version

PathOrBytes = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]


def hash(name: str) -> int:  # noqa: A001 - the library's name for it
    """CRC-32 of a bone name, as the files store it (decision 11: zlib crc32, case-sensitive)."""
    return _mabkit.hash(name)


def read(source: PathOrBytes) -> "File":
    """Read a ``.mab`` from a path or from bytes. Raises MabError (code, field, offset)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return File(_mabkit.FileHandle.from_buffer(source))
    return File(_mabkit.FileHandle.from_path(os.fspath(source)))


def new_file(variant: str) -> "File":
    """A file of ``variant`` ("wd1", "wd2", "wdl", "fc5") with no bones and one key at time 0:
    the start of a clip built from scratch. Fields no source gives get documented defaults,
    listed in ``File.defaults`` as (field, value, why)."""
    handle, defaults = _mabkit.FileHandle.new_file(variant)
    f = File(handle)
    f.defaults = list(defaults)
    return f


class File:
    """A read ``.mab``: game, header fields, blocks. Immutable: edits go through a Clip."""

    def __init__(self, handle: Any) -> None:
        self._handle = handle
        info = handle.info()
        self.variant: str = info["variant"]
        self.game: str = info["game"]
        self.layout: str = info["layout"]
        self.confidence: str = info["confidence"]
        self.magic: int = info["magic"]
        self.checksum: int = info["checksum"]
        self.header: Dict[str, Any] = info["header"]
        self.size: int = info["size"]
        self.opaque_reason: str = info["opaque_reason"]
        self.blocks: List[Block] = [Block(self, b) for b in handle.blocks()]
        self.evidence: List[str] = list(info["evidence"])
        self.defaults: List[Tuple[str, str, str]] = []
        for b in self.blocks:
            self.evidence.extend(f"block {b.index} {line}" for line in b._evidence_lines())

    def to_bytes(self) -> bytes:
        """The file written by the library's writer: the input bytes when nothing was edited."""
        return self._handle.to_bytes()

    def write(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Write the file atomically (a temporary file renamed over ``path``)."""
        self._handle.write(os.fspath(path))

    def findings(self) -> List[Dict[str, Any]]:
        """Structural checks (``mab verify``): dicts of severity, code, offset, field, message, block."""
        return self._handle.findings()

    def __repr__(self) -> str:
        return f"<mabkit.File {self.variant} ({self.game}), {len(self.blocks)} block(s), {self.size} bytes>"


class Block:
    """One clip of a file: ``kind`` is "ani", "fc4" or "legacy" (Far Cry 2/3 'AnD' clips)."""

    def __init__(self, file: File, info: Dict[str, Any]) -> None:
        self.file = file
        self.index: int = info["index"]
        self.kind: str = info["kind"]
        self.header: Dict[str, Any] = info["header"]
        self.bone_hashes: List[int] = info["bone_hashes"]
        self.bone_flags: List[int] = info["bone_flags"]
        self.parent: Optional[int] = info["parent"] if info["parent"] >= 0 else None
        self.key_rate: float = info["key_rate"]
        self.sections: List[Tuple[int, str, int]] = info["sections"]
        self.decodable: bool = info["decodable"]
        self.reason: str = info["reason"]
        self.evidence: Dict[str, str] = info["evidence"]

    def _evidence_lines(self) -> List[str]:
        if not self.decodable:
            return [f"not decoded: {self.reason}"]
        return [f"{k.replace('_', ' ')}: {v}" for k, v in self.evidence.items()]

    def decode(self, names: Optional[Sequence[str]] = None) -> Clip:
        """The block's clip as NumPy arrays (Far Cry 2/3 clips too: ``family`` "legacy", bones
        named ``bone_12`` by skeleton id); ``names`` (any list of bone names) names the 'aNi'
        bones whose CRC-32 matches. Raises MabError when the block does not decode."""
        if self.kind == "legacy":
            return Clip._from_state(_mabkit.decode_legacy(self.file._handle, self.index), self.file, self.index)
        clip = Clip._from_state(_mabkit.decode_ani(self.file._handle, self.index), self.file, self.index)
        if names:
            clip.set_names(names)
        return clip

    def __repr__(self) -> str:
        state = "decodable" if self.decodable else "not decodable"
        bones = "" if self.kind == "legacy" else f", {len(self.bone_hashes)} bone(s)"
        return f"<mabkit.Block {self.index} {self.kind}{bones}, {state}>"
