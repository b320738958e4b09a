"""Far Cry 2 / Far Cry 3 'AnD' clips (format 13, docs/legacy.md): tracks by skeleton bone id."""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from . import _mabkit
from ._clip import EncodeReport, _report, _write


class Track(NamedTuple):
    """A sparse rotation track: stored keys at ``frames`` (ascending), (N, 4) x, y, z, w."""
    frames: np.ndarray
    keys: np.ndarray


@dataclass
class Tag:
    """One record of the tag table (slot 6, JB-DOC): a participant of the scene."""
    kind: int
    id: int
    start: float                 # seconds
    end: float
    names: List[str]             # what is animated, the bone it hangs from, unused, reference
    clip_offset: int             # not editable: it follows the clip it reaches
    clip_block: int              # the block it reaches, -1 for none (decoded, not stored)
    byte_1: int = 0
    bytes_4: bytes = b"\0" * 8
    pointer_slot: int = 0
    _name_hashes: List[int] = field(default_factory=list, repr=False)
    _name_bytes: List[bytes] = field(default_factory=list, repr=False)

    def _state(self) -> Dict[str, Any]:
        hashes, raw = [], []
        for k, text in enumerate(self.names):
            stored = self._name_bytes[k]
            if text == stored.split(b"\0", 1)[0].decode("latin-1"):
                hashes.append(self._name_hashes[k])
                raw.append(stored)
                continue
            b = text.encode("ascii")
            if len(b) > 31:
                from ._errors import MabError
                raise MabError(f"tag name {text!r} is longer than 31 bytes", code="bad_value", code_value=10,
                               field=f"tags.names[{k}]")
            hashes.append(_mabkit.hash(text) if text else 0)  # JB-DOC: "" gives 0
            raw.append(b.ljust(32, b"\0"))
        return {"kind": self.kind, "byte_1": self.byte_1, "id": self.id, "bytes_4": self.bytes_4,
                "clip_offset": self.clip_offset, "start": self.start, "end": self.end,
                "name_hashes": hashes, "name_bytes": raw, "pointer_slot": self.pointer_slot}


@dataclass
class Event:
    """One node of the event chain (slot 7): time, type and payload are editable (same length)."""
    time: float
    type: int
    payload: bytes
    offset: int = 0
    size: int = 0
    next: int = 0


def _tag(d: Dict[str, Any]) -> Tag:
    names = [b.split(b"\0", 1)[0].decode("latin-1") for b in d["name_bytes"]]
    return Tag(kind=d["kind"], id=d["id"], start=d["start"], end=d["end"], names=names,
               clip_offset=d["clip_offset"], clip_block=d["clip_block"], byte_1=d["byte_1"],
               bytes_4=d["bytes_4"], pointer_slot=d["pointer_slot"],
               _name_hashes=list(d["name_hashes"]), _name_bytes=list(d["name_bytes"]))


class LegacyClip:
    """A Far Cry 2/3 clip: frames 0..last_frame at frame_rate, tracks keyed by skeleton bone id.

    ``rotation_tracks[bone]`` is a Track of sparse keys (the engine stores a key at each group
    start, frames 0, 8, 16 ..., and where needed between; slerp in between). Translation
    tracks are dense, one (x, y, z) per frame. ``trajectory_*`` are the root motion (None when
    the clip has none). ``tags`` and ``events`` are None when the clip has none or they did not
    decode (``tag_table_note`` / ``events_note`` say why)."""

    def __init__(self) -> None:
        raise TypeError("clips come from Block.decode()")

    @classmethod
    def _decode(cls, block: Any) -> "LegacyClip":
        self = object.__new__(cls)
        self.file = block.file
        self.block = block.index
        self._set_state(_mabkit.decode_legacy(block.file._handle, block.index))
        return self

    def _set_state(self, st: Dict[str, Any]) -> None:
        self.duration: float = st["duration"]
        self.last_frame: int = st["last_frame"]
        self.frame_rate: float = st["frame_rate"]
        self.trajectory_translations: Optional[np.ndarray] = st["trajectory_translations"]
        self.trajectory_rotations: Optional[np.ndarray] = st["trajectory_rotations"]
        self.constant_rotations: Dict[int, np.ndarray] = dict(st["constant_rotations"])
        self.rotation_tracks: Dict[int, Track] = {b: Track(f, k) for b, (f, k) in st["rotation_tracks"].items()}
        self.constant_translations: Dict[int, np.ndarray] = dict(st["constant_translations"])
        self.translation_tracks: Dict[int, np.ndarray] = dict(st["translation_tracks"])
        self.present: List[bool] = list(st["present"])
        self.tags: Optional[List[Tag]] = None if st["tags"] is None else [_tag(t) for t in st["tags"]]
        self.tag_table_note: str = st["tag_table_note"]
        self.events: Optional[List[Event]] = None if st["events"] is None else [Event(**e) for e in st["events"]]
        self.events_note: str = st["events_note"]

    def _state(self) -> Dict[str, Any]:
        return {
            "duration": self.duration, "last_frame": self.last_frame,
            "trajectory_translations": self.trajectory_translations,
            "trajectory_rotations": self.trajectory_rotations,
            "constant_rotations": self.constant_rotations,
            "rotation_tracks": {b: (t[0], t[1]) for b, t in self.rotation_tracks.items()},
            "constant_translations": self.constant_translations,
            "translation_tracks": self.translation_tracks,
            "tags": None if self.tags is None else [t._state() for t in self.tags],
            "events": None if self.events is None else [asdict(e) for e in self.events],
        }

    @property
    def frame_count(self) -> int:
        return self.last_frame + 1

    @property
    def bones(self) -> List[int]:
        """Every bone id with a rotation or translation, ascending."""
        ids = set(self.constant_rotations) | set(self.rotation_tracks)
        ids |= set(self.constant_translations) | set(self.translation_tracks)
        return sorted(ids)

    # --- edits -----------------------------------------------------------------------------
    def rotation_at(self, bone: int, frames: Union[int, Sequence[int], np.ndarray, None] = None) -> np.ndarray:
        """Bone ``bone``'s rotation at ``frames`` (default every frame), (N, 4): its constant,
        or its stored keys with slerp between them (docs/legacy.md). A bone without a rotation
        gives identity; a bone in both masks (possible in a file, the engine's rule is not
        public) gives its keyed track."""
        at = np.arange(self.frame_count) if frames is None else np.atleast_1d(np.asarray(frames, dtype=np.int64))
        t = self.rotation_tracks.get(bone)
        if t is not None:
            return _mabkit.legacy_sample(t.frames, t.keys, at)
        held = self.constant_rotations.get(bone, np.array([0, 0, 0, 1], dtype=np.float32))
        return np.tile(np.asarray(held, dtype=np.float32), (len(at), 1))

    def set_key(self, bone: int, frame: int, quat: Sequence[float]) -> None:
        """Adds or replaces the key of ``bone`` at ``frame`` (0..last_frame): the sparse track
        gains that key. A constant bone becomes keyed (its constant held at frames 0 and
        last_frame, then this key); a bone without a rotation gets a track."""
        from ._errors import MabError
        if not 0 <= frame <= self.last_frame:
            raise MabError(f"frame {frame} is outside 0..lastFrame {self.last_frame} (trim changes the length)",
                           code="bad_value", code_value=10, field="frame")
        q = np.asarray(quat, dtype=np.float32).reshape(4)
        if bone not in self.rotation_tracks:
            held = self.constant_rotations.pop(bone, np.array([0, 0, 0, 1], dtype=np.float32))
            ends = sorted({0, self.last_frame})
            self.rotation_tracks[bone] = Track(np.array(ends, dtype=np.uint32),
                                               np.tile(np.asarray(held, dtype=np.float32), (len(ends), 1)))
        frames, keys = self.rotation_tracks[bone]
        i = int(np.searchsorted(frames, frame))
        if i < len(frames) and frames[i] == frame:
            keys = keys.copy()
            keys[i] = q
        else:
            frames = np.insert(frames, i, frame).astype(np.uint32)
            keys = np.insert(keys, i, q, axis=0).astype(np.float32)
        self.rotation_tracks[bone] = Track(frames, keys)

    def remove_key(self, bone: int, frame: int) -> None:
        """Drops the stored key of ``bone`` at ``frame`` (the track keeps at least one)."""
        from ._errors import MabError
        frames, keys = self.rotation_tracks[bone]
        hit = np.nonzero(frames == frame)[0]
        if len(hit) == 0:
            raise MabError(f"bone {bone} has no key at frame {frame}", code="not_found", code_value=18, field="frame")
        if len(frames) == 1:
            raise MabError("a track keeps at least one key", code="invalid_argument", field="frame")
        self.rotation_tracks[bone] = Track(np.delete(frames, hit[0]), np.delete(keys, hit[0], axis=0))

    def trim(self, first: int, last: int) -> Dict[str, Any]:
        """Keeps frames first..last, shifted to start at 0 (the library's trim_legacy_clip):
        keyed tracks get keys at both new ends; event times move. Returns its report."""
        st, rep = _mabkit.trim_legacy(self.file._handle, self.block, self._state(), first, last)
        self._set_state(st)
        return rep

    # --- writing ---------------------------------------------------------------------------
    def encode(self, template: Any = None, block: Optional[int] = None, max_error: float = 0.01,
               path: Union[str, "os.PathLike[str]", None] = None, verify: bool = True) -> Tuple[bytes, EncodeReport]:
        """Write the clip into block ``block`` of ``template`` (default: where it was decoded
        from). Unchanged sections keep their bytes; an edited rotation track is written with
        sparse keys so every frame stays within ``max_error`` degrees of the edit (slerp between
        stored keys); the bank's other clips keep their bytes (tag offsets follow moved clips).
        ``report.frames_added`` lists the (bone, frame) keys the file gained;
        ``frames_interpolated`` the keys given that lie within ``max_error`` of the slerp
        between stored ones, so they are not stored (their pose is). Returns (bytes, report);
        with ``path``, also writes them there atomically."""
        from . import File, read
        tmpl = self.file if template is None else template
        if not isinstance(tmpl, File):
            tmpl = read(tmpl)
        blk = self.block if block is None else block
        data, rep = _mabkit.encode_legacy(tmpl._handle, blk, self._state(), max_error, verify)
        if path is not None:
            _write(path, data)
        return data, _report(rep)

    def __repr__(self) -> str:
        keys = sum(len(t.frames) for t in self.rotation_tracks.values())
        return (f"<mabkit.LegacyClip {self.frame_count} frames at {self.frame_rate:g} fps, "
                f"{len(self.rotation_tracks)} keyed rotation track(s) ({keys} keys), "
                f"{len(self.constant_rotations)} constant rotation(s), {len(self.translation_tracks)} translation track(s)>")
