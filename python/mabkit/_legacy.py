"""Far Cry 2 / Far Cry 3 'AnD' clips (format 13, docs/legacy.md): what the one Clip carries besides
its arrays for them (tag records, event nodes) and its route to encode_legacy_clip."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from . import _mabkit


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
    _clip_block_read: int = field(default=-1, repr=False)

    def _state(self, index: int = 0) -> Dict[str, Any]:
        from ._errors import MabError
        if self.clip_block != self._clip_block_read:
            # Decoded from clip_offset, which follows its clip (docs/legacy.md): as JSON refuses it.
            raise MabError(f"informational: the block clip_offset reaches ({self._clip_block_read}), not editable",
                           code="invalid_argument", field=f"tags[{index}].clip_block")
        hashes, raw = [], []
        for k, text in enumerate(self.names):
            stored = self._name_bytes[k]
            if text == stored.split(b"\0", 1)[0].decode("latin-1"):
                hashes.append(self._name_hashes[k])
                raw.append(stored)
                continue
            try:
                b = text.encode("ascii")
            except UnicodeEncodeError:
                b = b""
            if len(b) > 31 or len(b) != len(text):
                raise MabError(f"tag name {text!r} is not ASCII text of at most 31 bytes (a name slot holds 32 "
                               "NUL-padded bytes, JB-DOC)", code="bad_value", code_value=10,
                               field=f"tags[{index}].names[{k}]")
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
               _name_hashes=list(d["name_hashes"]), _name_bytes=list(d["name_bytes"]),
               _clip_block_read=d["clip_block"])


def legacy_fields(clip: Any, st: Dict[str, Any]) -> None:
    """A Far Cry 2/3 Clip's tag records and event nodes (None when it has none or they did not
    decode: ``tag_table_note`` / ``events_note`` say why)."""
    clip.tags = None if st.get("tags") is None else [_tag(t) for t in st["tags"]]
    clip.tag_table_note = st.get("tag_table_note", "")
    clip.events = None if st.get("events") is None else [Event(**e) for e in st["events"]]
    clip.events_note = st.get("events_note", "")


def move_events(events: Optional[List[Event]], scale: float, offset: float) -> None:
    """Event times follow a timing edit as ``mab edit`` moves them: new = old * scale + offset,
    rounded to the file's f32."""
    for e in events or []:
        e.time = float(np.float32(e.time * scale + offset))


def encode_legacy(clip: Any, tmpl: Any, blk: int, max_error: float, verify: bool) -> Tuple[bytes, Dict[str, Any]]:
    tags = None if clip.tags is None else [t._state(i) for i, t in enumerate(clip.tags)]
    events = None if clip.events is None else [asdict(e) for e in clip.events]
    # A duration set by hand since the last operation is checked against the one the frames give.
    given = np.float32(clip.duration).tobytes() != np.float32(clip._op_duration).tobytes()
    return _mabkit.encode_legacy(tmpl._handle, blk, clip._state(), tags, events, max_error, clip._reduce_deg, verify,
                                 given)
