"""The 'aNi' clip (Watch Dogs 1, 2, Legion, Far Cry 4, 5) as NumPy arrays, its edits and its encoder."""
from __future__ import annotations

import collections
import copy
import math
import os
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _legacy, _mabkit

QuatLike = Union[Sequence[float], np.ndarray]
BoneRef = Union[int, str]


def quat_from_axis_angle(axis: Sequence[float], degrees: float) -> np.ndarray:
    """The rotation of ``degrees`` about ``axis`` as an (x, y, z, w) float32 quaternion."""
    a = np.asarray(axis, dtype=np.float64)
    n = float(np.linalg.norm(a))
    if a.shape != (3,) or not n > 0:
        raise ValueError("axis must be three numbers, not all zero")
    h = math.radians(degrees) / 2
    return np.array([*(a / n * math.sin(h)), math.cos(h)], dtype=np.float32)


@dataclass
class Part:
    """One part animation entry (format 12): a prop, attachment or anchor animated with the clip."""
    start: float            # seconds
    end: float              # seconds
    parent_hash: int        # the bone it hangs from (CRC-32)
    attachment_hash: int    # the bone / attachment name (CRC-32)
    type: int               # 1 InPossession, 6 IKPath, 7 Anchor, 8 SubPartInPossession
    nested_block: int       # the file's block holding its nested clip, -1 for none


@dataclass
class EncodeReport:
    """What an encode reused and re-quantised, as ``mab edit`` prints it.

    ``kind`` is "ani" or "legacy"; fields a kind does not have keep their defaults."""
    kind: str = "ani"
    chunks_reused: int = 0
    chunks_requantised: int = 0
    constants_reused: int = 0
    constants_encoded: int = 0
    max_error_deg: float = 0.0                 # largest angle of a re-quantised key to its edit
    bone_error_deg: np.ndarray = field(default_factory=lambda: np.zeros(0))  # per bone
    translation_chunks_reused: int = 0
    translation_chunks_requantised: int = 0
    max_translation_error: float = 0.0         # file units
    translation_scales_widened: int = 0
    translation_depths_raised: int = 0          # bones given a finer depth to meet the bound
    warnings: List[str] = field(default_factory=list)  # what the file may carry that nothing checked
    motion_sections_rewritten: List[str] = field(default_factory=list)
    keys_before: int = 0
    keys_after: int = 0
    keys_added: List[int] = field(default_factory=list)     # key times (or legacy frames) added
    keys_removed: List[int] = field(default_factory=list)
    verified: bool = False                     # the written bytes were read back and compared
    measured_max_error_deg: float = 0.0        # largest angle measured on that read-back
    # Far Cry 2/3 (kind "legacy"): sections and the bank's other clips.
    sections_kept: int = 0
    sections_rewritten: int = 0
    tag_records_edited: int = 0
    events_edited: int = 0
    size_change: int = 0
    moved_clips: int = 0
    tag_offsets_updated: List[Dict[str, int]] = field(default_factory=list)
    tag_offsets_kept: List[Dict[str, int]] = field(default_factory=list)
    tag_tables_undecoded: int = 0
    frames_added: List[Tuple[int, int]] = field(default_factory=list)         # (bone, frame) keys stored anew
    frames_removed: List[Tuple[int, int]] = field(default_factory=list)
    tracks_kept: int = 0       # keyed tracks whose frames the edit left: stored keys and codes kept
    tracks_edited: int = 0     # keyed tracks handed to the sparse key writer
    events_outside: int = 0    # event nodes whose time falls outside the duration (kept)
    duration_rule: str = ""    # when the frame count changed: the clip's duration rule

    def lines(self) -> List[str]:
        """The report as ``mab edit`` words it, one line per item."""
        out = [f"keys              {self.keys_before} -> {self.keys_after}"]
        if self.keys_added:
            out.append(f"keys added        {len(self.keys_added)} at {_short(self.keys_added)}")
        if self.keys_removed:
            out.append(f"keys removed      {len(self.keys_removed)} at {_short(self.keys_removed)}")
        if self.kind == "ani":
            out.append(f"rotation chunks   {self.chunks_reused} reused, {self.chunks_requantised} re-quantised")
            out.append(f"constants         {self.constants_reused} reused, {self.constants_encoded} encoded")
            if self.translation_chunks_reused or self.translation_chunks_requantised:
                out.append(f"translation chunks {self.translation_chunks_reused} reused, "
                           f"{self.translation_chunks_requantised} re-quantised "
                           f"({self.translation_depths_raised} depth(s) raised), max error "
                           f"{self.max_translation_error:.6g} units")
            if self.motion_sections_rewritten:
                out.append("rewritten         " + ", ".join(self.motion_sections_rewritten))
        else:
            out.append(f"legacy sections   {self.sections_kept} kept, {self.sections_rewritten} rewritten")
            out.append(f"keyed tracks      {self.tracks_kept} unchanged (stored keys kept), "
                       f"{self.tracks_edited} edited (sparse key writer)")
            if self.frames_added:
                out.append(f"keys added        {len(self.frames_added)} (bone, frame): {_short(self.frames_added)}")
            if self.size_change:
                out.append(f"clip size         {self.size_change:+d} bytes, {self.moved_clips} clip(s) after it moved")
        out.append(f"max error         {self.max_error_deg:.6f} degrees"
                   + (f" (read back: {self.measured_max_error_deg:.6f})" if self.verified else ""))
        out.extend("warning           " + w for w in self.warnings)
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())


def _short(values: Sequence[int], n: int = 8) -> str:
    s = ", ".join(str(v) for v in list(values)[:n])
    return s + (f", ... ({len(values)} in all)" if len(values) > n else "")


def _report(d: Dict[str, Any]) -> EncodeReport:
    known = EncodeReport.__dataclass_fields__
    return EncodeReport(**{k: v for k, v in d.items() if k in known})


def _write(path: Union[str, "os.PathLike[str]"], data: bytes) -> None:
    _mabkit.write_bytes_atomic(os.fspath(path), data)


# flags & 0x30 (format 5.3): the rotation kind; any other value is a bone without rotation.
_KIND_OF_BITS = {0x30: "constant", 0x10: "animated"}


class Clip:
    """A clip as NumPy arrays (writable copies: edit them, then ``encode``): an 'aNi' clip, or a
    Far Cry 2/3 clip (``family`` "legacy": every frame a key, bones by skeleton id named
    ``bone_12``, the trajectory as root motion, plus ``tags`` and ``events``; docs/python.md).

    K keys share one timeline (``key_times``, in ``key_rate`` units per second, decision 7); B bones.
    ``rotations`` is (K, B, 4) float32 x, y, z, w: a constant bone repeats its constant, a bone
    without rotations holds identity. Its memory is bone-major, so ``rotations[:, b]`` (one
    bone's track) is contiguous. ``translations`` is (K, B, 3) with NaN for bones that have
    none; ``constant_translations`` (B, 3) likewise; ``root_rotations`` (K, 4) and
    ``root_translations`` (K, 3) are None when the block has no root motion.
    """

    key_rate: float
    duration: float
    key_times: np.ndarray
    bone_hashes: np.ndarray
    bone_flags: np.ndarray
    bone_names: List[Optional[str]]
    kinds: List[str]
    rotations: np.ndarray
    translations: np.ndarray
    constant_translations: np.ndarray
    root_rotations: Optional[np.ndarray]
    root_translations: Optional[np.ndarray]
    parts: List[Part]
    evidence: Dict[str, str]
    family: str                 # "ani", or "legacy" for Far Cry 2/3 clips
    tags: Optional[List[Any]]   # Far Cry 2/3: tag records (Tag), else None
    events: Optional[List[Any]]  # Far Cry 2/3: event nodes (Event), else None
    tag_table_note: str
    events_note: str

    _FIELDS = ("key_rate", "duration", "key_times", "bone_hashes", "bone_flags", "bone_names", "kinds",
               "_renamed_from", "_constants", "rotations", "translations", "constant_translations", "root_rotations",
               "root_translations")

    def __init__(self) -> None:
        raise TypeError("clips come from Block.decode()")

    @classmethod
    def _from_state(cls, state: Dict[str, Any], file: Any, block: int) -> "Clip":
        self = object.__new__(cls)
        self.file = file
        self.block = block
        self.evidence = state.get("evidence", {})
        self.family = state.get("family", "ani")
        self._reduce_deg: Optional[float] = None
        _legacy.legacy_fields(self, state)
        self._set_state(state)
        self._op_duration = self.duration  # the duration as decoded or as the last operation left it
        return self

    def _set_state(self, state: Dict[str, Any]) -> None:
        for name in self._FIELDS:
            setattr(self, name, state[name])
        self.parts = [Part(**p) for p in state["parts"]]
        # What kinds and the kind bits of bone_flags said, to tell which of the two the user changed.
        self._kinds_read = list(self.kinds)
        self._kind_bits_read = [int(f) & 0x30 for f in self.bone_flags]
        self._hashes_read = [int(h) for h in self.bone_hashes]
        self._names_read = list(self.bone_names)

    def _id_of(self, i: int, name: str) -> int:
        """The hash (Far Cry 2/3: the skeleton id) a bone named ``name`` has."""
        if self.family != "legacy":
            return int(_mabkit.hash(name))
        return int(_mabkit.parse_legacy_bone(name, f"bone_names[{i}]"))

    def _renames(self) -> Tuple[np.ndarray, List[Optional[str]], List[Optional[int]]]:
        """Hashes, names and the file's hash of each renamed bone. The file stores hashes (Far Cry
        2/3: skeleton ids), never names: a name set by hand renames its bone (it was written as
        nothing), a hash set by hand renames it keeping its keys' codes (it was re-quantised), and
        a name and hash set to different bones raise."""
        hashes = np.array(self.bone_hashes, dtype=np.int64).reshape(-1)
        names = list(self.bone_names)
        renamed = list(self._renamed_from) if len(self._renamed_from) == len(hashes) else [None] * len(hashes)
        known = len(hashes) == len(names) == len(self._hashes_read) == len(self._names_read)
        for i, n in enumerate(names):
            hash_set = known and int(hashes[i]) != self._hashes_read[i]
            if known and n != self._names_read[i] and n and not hash_set:
                hashes[i] = self._id_of(i, n)
            elif n and self._id_of(i, n) != int(hashes[i]):
                if hash_set and n == self._names_read[i]:
                    names[i] = None  # the hash was set: the file's name no longer is this bone's
                else:
                    from ._errors import MabError
                    raise MabError(f"bone_names[{i}] is {n!r} and bone_hashes[{i}] {int(hashes[i]):#010x}, another "
                                   "bone: set one of the two (the file stores the hash)", code="invalid_argument",
                                   field=f"bone_names[{i}]")
            if known and int(hashes[i]) != self._hashes_read[i] and renamed[i] is None:
                renamed[i] = self._hashes_read[i]
            if renamed[i] == int(hashes[i]):
                renamed[i] = None  # renamed back
        self._check_renamed_unique(hashes, renamed)
        return hashes, names, renamed

    @staticmethod
    def _check_renamed_unique(hashes: np.ndarray, renamed: List[Optional[int]]) -> None:
        counts = collections.Counter(int(h) for h in hashes)
        for i, was in enumerate(renamed):
            if was is not None and counts[int(hashes[i])] > 1:
                other = next(j for j, h in enumerate(hashes) if h == hashes[i] and j != i)
                from ._errors import MabError
                raise MabError(f"bone {i} is renamed to {int(hashes[i]):#010x}, which bone {other} has: a clip "
                               "holds one bone of each hash", code="invalid_argument", field=f"bone_hashes[{i}]")

    def _kinds_for_state(self) -> List[str]:
        """``kinds``, with a kind set through ``bone_flags`` (flags & 0x30, format 5.3) taken: the two
        say one thing, and a change made to the flags alone was overridden by ``kinds``, the edit
        lost with the clip written. Changed both ways differently, or bones resized by hand so
        that nothing tells which one was meant, a disagreement raises."""
        kinds = list(self.kinds)
        bits = [int(f) & 0x30 for f in np.asarray(self.bone_flags).reshape(-1)]
        known = len(kinds) == len(bits) == len(self._kinds_read) == len(self._kind_bits_read)
        for i, (kind, b) in enumerate(zip(kinds, bits)):
            flagged = _KIND_OF_BITS.get(b, "none")
            if kind == flagged:
                continue
            flags_changed = known and b != self._kind_bits_read[i]
            kinds_changed = not known or kind != self._kinds_read[i]
            if flags_changed and not kinds_changed:
                kinds[i] = flagged
            elif flags_changed or not known:
                from ._errors import MabError
                raise MabError(f"bone_flags[{i}] & 0x30 ({b:#04x}) says {flagged!r} and kinds[{i}] says {kind!r}: "
                               "set the two alike (0x30 constant, 0x10 animated, 0 none), or use set_constant, "
                               "remove_bone or add_bone", code="invalid_argument", field=f"bone_flags[{i}]")
        if known:
            self._check_kinds_held(kinds)
        return kinds

    def _check_kinds_held(self, kinds: List[str]) -> None:
        """A kind set to ``constant`` or ``none`` (by ``kinds`` or ``bone_flags``) that the rows do
        not hold: the rows are the clip (a bone whose rows vary is animated), so the kind asked for
        was dropped with the clip written. It raises, saying how to make it land."""
        rows = np.asarray(self.rotations)
        for i, kind in enumerate(kinds):
            if kind == self._kinds_read[i] or kind not in ("constant", "none") or rows.shape[0] == 0:
                continue
            col = rows[:, i]
            held = (col == col[0]).all() if kind == "constant" else (col == np.array([0, 0, 0, 1], col.dtype)).all()
            if not held:
                from ._errors import MabError
                how = (f"set every row alike (clip.rotations[:, {i}] = clip.rotations[0, {i}]) or use set_constant"
                       if kind == "constant" else "set its rows to identity (0, 0, 0, 1)")
                by = "kinds" if self.kinds[i] != self._kinds_read[i] else "bone_flags"
                raise MabError(f"bone {i} is set to {kind!r} but rotations[:, {i}] "
                               f"{'vary' if kind == 'constant' else 'are not identity'}: {how}",
                               code="invalid_argument", field=f"{by}[{i}]")

    def _state(self) -> Dict[str, Any]:
        st = {name: getattr(self, name) for name in self._FIELDS}
        if np.shape(self._constants)[0] != len(self.bone_hashes):
            # Bones were added or removed by hand: the hidden constants (read only for a clip of
            # no keys, whose rows cannot hold them) fall back to identity.
            st["_constants"] = np.tile(np.array([0, 0, 0, 1], dtype=np.float32), (len(self.bone_hashes), 1))
        st["bone_hashes"], st["bone_names"], st["_renamed_from"] = self._renames()
        st["kinds"] = self._kinds_for_state()
        st["parts"] = [asdict(p) for p in self.parts]
        return st

    # --- views -----------------------------------------------------------------------------
    @property
    def times(self) -> np.ndarray:
        """Key times in seconds (float64): key_times / key_rate."""
        return np.asarray(self.key_times, dtype=np.float64) / self.key_rate

    @property
    def key_count(self) -> int:
        return int(len(self.key_times))

    @property
    def bone_count(self) -> int:
        return int(len(self.bone_hashes))

    @property
    def bit_depths(self) -> np.ndarray:
        """Bits per stored value of each bone (flags & 0x0F) + 1 (format 5.3); meaningful for animated bones."""
        return (np.asarray(self.bone_flags, dtype=np.uint8) & 0x0F) + 1

    def find_bone(self, bone: BoneRef) -> int:
        """Index of a bone given by index, name (its CRC-32) or hash text ("0xB6C65665")."""
        if isinstance(bone, (int, np.integer)):
            i = int(bone)
            if not 0 <= i < self.bone_count:
                from ._errors import MabError
                raise MabError(f"no bone {i} (the clip has {self.bone_count})", code="not_found",
                               code_value=18, field="bone")
            return i
        if bone in self.bone_names:
            return self.bone_names.index(bone)
        h = _mabkit.hash(bone)
        for i, x in enumerate(self.bone_hashes):
            if int(x) == h:
                return i
        try:
            n = int(bone, 0)
        except ValueError:
            n = None
        if n is not None:
            for i, x in enumerate(self.bone_hashes):
                if int(x) == n:
                    return i
        from ._errors import MabError
        raise MabError(f"no bone \"{bone}\" (hash 0x{h:08X}) in the clip", code="not_found", code_value=18,
                       field="bone")

    def set_names(self, names: Sequence[str]) -> int:
        """Names the bones whose hash is the CRC-32 of one of ``names``; returns how many."""
        by_hash = {_mabkit.hash(n): n for n in names}
        named = 0
        for i, h in enumerate(self.bone_hashes):
            n = by_hash.get(int(h))
            if n is not None:
                self.bone_names[i] = n
                if i < len(self._names_read) and self._hashes_read[i] == int(h):
                    self._names_read[i] = n  # the bone's own name: a label, not a rename
                named += 1
        return named

    # --- edits (the operations of `mab edit`, docs/edit.md) ---------------------------------
    def _edit(self, op: str, *args: Any) -> Any:
        if self.family != "legacy":
            state, result = _mabkit.edit_ani(self._state(), op, args)
        else:
            state, result, moved = _mabkit.edit_legacy(self._state(), op, args)
            if moved is not None:
                _legacy.move_events(self.events, *moved)
        self._set_state(state)
        self._op_duration = self.duration
        return result

    def insert_key(self, time: int) -> int:
        """Adds a key at ``time`` (key units, ``key_rate`` per second) to the shared timeline and
        returns its index; every bone, translation and root-motion track gets its interpolated
        value there (slerp / linear), so nothing moves until you set the new row. A time that
        is already a key returns that key's index."""
        return int(self._edit("insert_key", int(time)))

    def insert_key_seconds(self, seconds: float) -> int:
        """insert_key at ``seconds`` rounded to the nearest key unit."""
        return self.insert_key(int(round(seconds * self.key_rate)))

    def set_key_times(self, key_times: Union[Sequence[int], np.ndarray]) -> None:
        """A new shared timeline (ascending key units): every array is resized to it and each
        track sampled at the new times (slerp / linear, held past the ends); the duration grows
        to the last key if needed. Then assign the rows you want."""
        self._edit("set_key_times", np.asarray(key_times, dtype=np.int64))

    def remove_key(self, index: int) -> None:
        """Drops key ``index`` from every track (a clip keeps at least one key)."""
        self._edit("remove_key", int(index))

    def speed(self, factor: float) -> List[str]:
        """Play ``factor`` times as fast; keys that land on the time before are dropped (listed)."""
        return self._edit("speed", float(factor))

    def trim(self, start: float, end: float) -> List[str]:
        """Keep ``start``..``end`` seconds (keys interpolated at both ends), shifted to start at 0."""
        return self._edit("trim", float(start), float(end))

    def reverse(self) -> None:
        """Play backwards over the same span."""
        self._edit("reverse")

    def loop_fix(self) -> None:
        """The last key of every animated bone becomes its first, for a seamless loop."""
        self._edit("loop_fix")

    def resample(self, fps: float) -> List[str]:
        """Keys every 1/fps seconds from the first key to the last, every bone sampled there."""
        return self._edit("resample", float(fps))

    def rotate_bone(self, bone: BoneRef, quat: QuatLike) -> None:
        """Pre-multiply every rotation of ``bone`` (constant or keys) by ``quat`` (x, y, z, w)."""
        self._edit("rotate_bone", bone, np.asarray(quat, dtype=np.float64))

    def set_constant(self, bone: BoneRef, quat: QuatLike) -> None:
        """``bone`` holds ``quat`` for the whole clip (one 6-byte quaternion)."""
        self._edit("set_constant", bone, np.asarray(quat, dtype=np.float64))

    def copy_track(self, source: "Clip", bone: BoneRef) -> List[str]:
        """``bone``'s track from another clip, sampled at this clip's key times in seconds;
        added (with the source's flags) when this clip lacks it."""
        if source.family != self.family:
            from ._errors import MabError
            raise MabError("the source is another family of clip: Far Cry 2/3 bones are skeleton ids, 'aNi' "
                           "bones CRC-32 hashes of names", code="invalid_argument", field="source")
        return self._edit("copy_track", source._state(), bone)

    def remove_bone(self, bone: BoneRef) -> None:
        """Drop ``bone`` from the clip."""
        self._edit("remove_bone", bone)

    def add_bone(self, name: str, quat: QuatLike = (0.0, 0.0, 0.0, 1.0)) -> int:
        """A new constant bone, hash = CRC-32 of ``name`` (Far Cry 2/3: the skeleton id
        ``bone_12`` or ``12``); returns its index."""
        self._edit("add_bone", name, np.asarray(quat, dtype=np.float64))
        return self.bone_count - 1

    def set_bits(self, bone: BoneRef, nbits: int) -> None:
        """Re-quantise animated ``bone`` at ``nbits`` (1..16) bits per value."""
        self._edit("set_bits", bone, int(nbits))

    def reduce(self, max_deg: float) -> Dict[str, Any]:
        """Drop shared key times while every animated bone stays within ``max_deg`` degrees of
        the slerp between the kept keys; returns keys_before, keys_after, max_error_deg, ...
        Far Cry 2/3 (as ``mab edit --reduce``): every keyed track is re-keyed within ``max_deg``
        when encoded, whose report gives the stored keys before and after; returns {}."""
        if self.family == "legacy":
            if not float(max_deg) > 0:
                from ._errors import MabError
                raise MabError("the tolerance must be a number of degrees > 0", code="invalid_argument",
                               field="max_deg")
            self._reduce_deg = float(max_deg)
            return {}
        return self._edit("reduce", float(max_deg))

    # --- writing ---------------------------------------------------------------------------
    def encode(self, template: Any = None, block: Optional[int] = None, max_error: float = 0.01,
               path: Union[str, "os.PathLike[str]", None] = None, requantise_all: bool = False,
               verify: bool = True, max_translation_error: Optional[float] = None) -> Tuple[bytes, EncodeReport]:
        """Write the clip into block ``block`` of ``template`` (default: the file and block it
        was decoded from; a File, a path or bytes). Unchanged chunks keep their codes, edited
        ones are re-quantised (a changed bone keeps its bit depth unless that misses
        ``max_error`` degrees; ``requantise_all`` re-picks every animated bone's depth, as
        ``mab edit --requantise``). Translation chunks follow the same rule in file units:
        ``max_translation_error`` (default 0.001 units, raised depths reported; what 16 bits
        miss raises MabError, as ``--max-translation-error`` does). With ``verify`` the bytes are read back and every bone
        compared with the edit before anything is returned or written. Returns the file's
        bytes and the report; with ``path``, also writes them there atomically."""
        from . import File, read
        tmpl = self.file if template is None else template
        if not isinstance(tmpl, File):
            tmpl = read(tmpl)
        blk = self.block if block is None else block
        if self.family == "legacy":
            if requantise_all:
                from ._errors import MabError
                raise MabError("Far Cry 2/3 keys are 6-byte quaternions (format 13): there is no bit depth to "
                               "re-pick; reduce(max_deg) re-keys every track", code="invalid_argument",
                               field="requantise_all")
            data, rep = _legacy.encode_legacy(self, tmpl, blk, max_error, verify)
        else:
            data, rep = _mabkit.encode_ani(tmpl._handle, blk, self._state(), max_error, requantise_all, verify,
                                           max_translation_error)
        if path is not None:
            _write(path, data)
        return data, _report(rep)

    def copy(self) -> "Clip":
        """A deep copy (arrays copied)."""
        other = object.__new__(Clip)
        other.file, other.block, other.evidence = self.file, self.block, dict(self.evidence)
        other.family, other._reduce_deg, other._op_duration = self.family, self._reduce_deg, self._op_duration
        other.tags, other.events = copy.deepcopy(self.tags), copy.deepcopy(self.events)
        other.tag_table_note, other.events_note = self.tag_table_note, self.events_note
        st = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in self._state().items()}
        other._set_state(st)
        return other

    def __repr__(self) -> str:
        what = "frames" if self.family == "legacy" else "keys"
        return (f"<mabkit.Clip {self.key_count} {what} at {self.key_rate:g}/s, {self.bone_count} bones "
                f"({self.kinds.count('animated')} animated, {self.kinds.count('constant')} constant)>")
