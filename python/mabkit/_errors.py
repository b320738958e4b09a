"""The one exception class of mabkit (kept in its own module so the compiled part can raise it)."""
from __future__ import annotations

from typing import Optional


class MabError(Exception):
    """An error of the mabkit library: bad input, a refused edit, a failed write.

    ``code`` is the library's error code name (``"truncated"``, ``"bad_value"``,
    ``"invalid_argument"``, ... as in ``lib/include/mab/error.hpp``), ``code_value`` its
    pinned number, ``field`` the field or argument concerned (``"m_offsets[6]"``,
    ``"rotations[3, 7]"``), ``offset`` the byte offset in the file when known, ``bit`` the bit
    offset inside a bit stream when there is one, ``detail`` the human text without the
    position. ``str(error)`` is the one-line message ``mab`` prints.
    """

    def __init__(self, message: str, *, code: str = "invalid_argument", code_value: int = 15,
                 field: str = "", offset: Optional[int] = None, bit: Optional[int] = None,
                 detail: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.code_value = code_value
        self.field = field
        self.offset = offset
        self.bit = bit
        self.detail = detail or message

    def __repr__(self) -> str:
        return (f"MabError({str(self)!r}, code={self.code!r}, field={self.field!r}, "
                f"offset={self.offset!r}, bit={self.bit!r})")
