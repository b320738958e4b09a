# Typed API of mabkit (docs/python.md). docs/python.md explains it with examples that ctest runs.
import os
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

version: str

PathLike = Union[str, "os.PathLike[str]"]
PathOrBytes = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]
QuatLike = Union[Sequence[float], npt.NDArray[Any]]
BoneRef = Union[int, str]  # index, name (matched by CRC-32) or hash text "0xB6C65665"

class MabError(Exception):
    """Every error of the library: bad input, a refused edit, a failed write.

    code: the error code name ("truncated", "out_of_bounds", "bad_value", "invalid_argument",
    "not_decodable", "io_error", "round_trip_mismatch", ...: lib/include/mab/error.hpp);
    code_value: its pinned number; field: the field or array concerned ("m_offsets[6]",
    "rotations[3, 7]"); offset: byte offset in the file, or None; bit: bit offset inside a
    bit stream, or None; detail: the text without the position. str(e) is mab's one line."""
    code: str
    code_value: int
    field: str
    offset: Optional[int]
    bit: Optional[int]
    detail: str
    def __init__(self, message: str, *, code: str = ..., code_value: int = ..., field: str = ...,
                 offset: Optional[int] = ..., bit: Optional[int] = ..., detail: str = ...) -> None: ...

def read(source: PathOrBytes) -> File:
    """Read a .mab from a path or bytes. Raises MabError (code, field, offset, bit)."""
def new_file(variant: str) -> File:
    """A file of "wd1", "wd2", "wdl" or "fc5" with no bones and one key at time 0."""
def hash(name: str) -> int:
    """CRC-32 of a bone name (decision 11), as the files store bone names."""
def quat_from_axis_angle(axis: Sequence[float], degrees: float) -> npt.NDArray[np.float32]:
    """(x, y, z, w) of a turn of `degrees` about `axis`."""

class File:
    variant: str          # "wd1", "wd2", "wdl", "fc2", "fc3", "fc3bd", "fc4", "primal", "fc5"
    game: str             # "Watch Dogs", "Far Cry 5 / New Dawn", ...
    layout: str           # "ani", "fc4", "legacy", "opaque" (body kept as bytes)
    confidence: str       # how far the layout rests on evidence
    magic: int
    checksum: int         # u32 at +4 (algorithm unknown, format 14; kept as is)
    header: Dict[str, Any]  # magic_word, checksum, reserved (bytes)
    size: int
    opaque_reason: str
    evidence: List[str]   # the lines `mab info` reports: game, layout, evidence, per-block motion
    blocks: List[Block]
    defaults: List[Tuple[str, str, str]]  # new_file: (field, value, why)
    def to_bytes(self) -> bytes:
        """The library writer's bytes: the input, byte for byte, for a read file."""
    def write(self, path: PathLike) -> None:
        """Atomic write (temporary file in the same folder, renamed over `path`)."""
    def findings(self) -> List[Dict[str, Any]]:
        """Structural checks: severity, code, offset, field, message, block."""

class Block:
    file: File
    index: int
    kind: str             # "ani" (WD1, WD2, WDL, FC5), "fc4", "legacy" (FC2, FC3, Blood Dragon)
    header: Dict[str, Any]
    bone_hashes: List[int]
    bone_flags: List[int]
    parent: Optional[int]  # legacy chained clip: the clip that holds it
    key_rate: float       # key time units per second (decision 7); 0 for legacy clips
    sections: List[Tuple[int, str, int]]  # (slot, name, size)
    decodable: bool
    reason: str           # why not, if not
    evidence: Dict[str, str]  # translations, constant_translations, root_rotations, root_translations, parts
    def decode(self, names: Optional[Sequence[str]] = None) -> Clip:
        """The block's Clip (family "legacy" for Far Cry 2/3 blocks). Raises MabError."""

class Part:
    start: float
    end: float
    parent_hash: int
    attachment_hash: int
    type: int             # 1 InPossession, 6 IKPath, 7 Anchor, 8 SubPartInPossession
    nested_block: int     # -1: none
    def __init__(self, start: float, end: float, parent_hash: int, attachment_hash: int, type: int,
                 nested_block: int) -> None: ...

class EncodeReport:
    kind: str             # "ani" or "legacy"
    chunks_reused: int
    chunks_requantised: int
    constants_reused: int
    constants_encoded: int
    max_error_deg: float  # largest angle of a re-quantised key (legacy: of any frame) to the edit
    bone_error_deg: npt.NDArray[np.float64]  # per bone ("ani")
    translation_chunks_reused: int
    translation_chunks_requantised: int
    max_translation_error: float
    translation_scales_widened: int
    translation_depths_raised: int
    warnings: List[str]
    motion_sections_rewritten: List[str]
    keys_before: int
    keys_after: int
    keys_added: List[int]      # "ani": key times added
    keys_removed: List[int]
    verified: bool             # the bytes were read back and compared with the edit
    measured_max_error_deg: float
    sections_kept: int         # legacy
    sections_rewritten: int
    tag_records_edited: int
    events_edited: int
    size_change: int
    moved_clips: int
    tag_offsets_updated: List[Dict[str, int]]
    tag_offsets_kept: List[Dict[str, int]]
    tag_tables_undecoded: int
    frames_added: List[Tuple[int, int]]         # legacy (bone, frame) keys stored anew
    frames_removed: List[Tuple[int, int]]
    tracks_kept: int           # legacy: keyed tracks the edit left (stored keys and codes kept)
    tracks_edited: int         # legacy: keyed tracks given to the sparse key writer
    events_outside: int        # legacy: event nodes outside the duration (kept)
    duration_rule: str         # legacy: the duration rule, when the frame count changed
    def lines(self) -> List[str]: ...

class Clip:
    """A clip: K keys on one shared timeline, B bones, NumPy arrays to edit in place ('aNi', or
    Far Cry 2/3 with family "legacy": every frame a key, bones by skeleton id)."""
    file: File
    block: int
    key_rate: float                        # units per second (decision 7): WD1 120, others frames
    duration: float                        # seconds, as the header stores it
    key_times: npt.NDArray[np.uint32]      # (K,) stored units
    bone_hashes: npt.NDArray[np.uint32]    # (B,)
    bone_flags: npt.NDArray[np.uint8]      # (B,) format 5.3
    bone_names: List[Optional[str]]
    kinds: List[str]                       # "none" | "constant" | "animated"
    rotations: npt.NDArray[np.float32]     # (K, B, 4) x y z w; bone-major memory
    translations: npt.NDArray[np.float32]  # (K, B, 3), NaN where a bone has none
    constant_translations: npt.NDArray[np.float32]  # (B, 3), NaN where none
    root_rotations: Optional[npt.NDArray[np.float32]]     # (K, 4)
    root_translations: Optional[npt.NDArray[np.float32]]  # (K, 3)
    parts: List[Part]
    evidence: Dict[str, str]
    family: str                            # "ani" | "legacy" (Far Cry 2/3)
    tags: Optional[List[Tag]]              # legacy: tag records, else None
    tag_table_note: str
    events: Optional[List[Event]]          # legacy: event nodes, else None
    events_note: str
    @property
    def times(self) -> npt.NDArray[np.float64]: ...      # seconds
    @property
    def key_count(self) -> int: ...
    @property
    def bone_count(self) -> int: ...
    @property
    def bit_depths(self) -> npt.NDArray[np.uint8]: ...
    def find_bone(self, bone: BoneRef) -> int: ...
    def set_names(self, names: Sequence[str]) -> int: ...
    def copy(self) -> Clip: ...
    # Timeline
    def insert_key(self, time: int) -> int: ...
    def insert_key_seconds(self, seconds: float) -> int: ...
    def set_key_times(self, key_times: Union[Sequence[int], npt.NDArray[Any]]) -> None: ...
    def remove_key(self, index: int) -> None: ...
    # The operations of `mab edit` (docs/edit.md)
    def speed(self, factor: float) -> List[str]: ...
    def trim(self, start: float, end: float) -> List[str]: ...
    def reverse(self) -> None: ...
    def loop_fix(self) -> None: ...
    def resample(self, fps: float) -> List[str]: ...
    def rotate_bone(self, bone: BoneRef, quat: QuatLike) -> None: ...
    def set_constant(self, bone: BoneRef, quat: QuatLike) -> None: ...
    def copy_track(self, source: Clip, bone: BoneRef) -> List[str]: ...
    def remove_bone(self, bone: BoneRef) -> None: ...
    def add_bone(self, name: str, quat: QuatLike = ...) -> int: ...
    def set_bits(self, bone: BoneRef, nbits: int) -> None: ...
    def reduce(self, max_deg: float) -> Dict[str, Any]: ...
    def encode(self, template: Union[File, PathOrBytes, None] = None, block: Optional[int] = None,
               max_error: float = 0.01, path: Optional[PathLike] = None, requantise_all: bool = False,
               verify: bool = True, max_translation_error: Optional[float] = None) -> Tuple[bytes, EncodeReport]: ...

class Tag:
    kind: int
    id: int
    start: float
    end: float
    names: List[str]      # animated thing, the bone it hangs from, unused, reference
    clip_offset: int      # not editable
    clip_block: int
    byte_1: int
    bytes_4: bytes
    pointer_slot: int

class Event:
    time: float
    type: int
    payload: bytes        # editable, same length
    offset: int
    size: int
    next: int

LegacyClip = Clip  # deprecated alias (a DeprecationWarning): Far Cry 2/3 clips decode into Clip
