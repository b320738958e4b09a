"""The LSB-first bit order of format 9.2, written one way (an integer accumulator) and read
another, as the format reference describes a reader (3 bytes from p >> 3): the reader is the oracle's."""

from .spec import const_value, varying_values

class BitWriter:
    """LSB-first: bit 0 of a value goes to the lowest unused bit of the current byte."""

    def __init__(self):
        self.acc = 0
        self.pos = 0

    def put(self, value, n):
        assert 0 <= value < (1 << n), (value, n)
        self.acc |= value << self.pos
        self.pos += n

    def to_bytes(self):                               # decision 6: zero bits up to the byte
        return self.acc.to_bytes((self.pos + 7) // 8, "little")


class BitReader:
    """Reads as format 9.2 says: 3 bytes from p>>3, shift by p&7, mask."""

    def __init__(self, data):
        self.data = bytes(data)
        self.pos = 0

    def get(self, n):
        out = 0
        done = 0
        while done < n:                                # pieces of at most 16 bits
            take = min(16, n - done)
            i = self.pos >> 3
            chunk = self.data[i:i + 3] + b"\0\0\0"
            word = chunk[0] | (chunk[1] << 8) | (chunk[2] << 16)
            out |= ((word >> (self.pos & 7)) & ((1 << take) - 1)) << done
            self.pos += take
            done += take
        return out


def read_components(br, cf, F, n):
    """The three components of one bone block of a rotation or translation chunk (format 9.2,
    10.1): where bit j of cf is set a 16-bit constant, else a 16-bit header and F raw values of
    n bits. Returns three lists of F values."""
    comps = []
    for j in range(3):
        if (cf >> j) & 1:
            comps.append([const_value(br.get(16))] * F)
        else:
            h = br.get(16)
            comps.append(varying_values(h, [br.get(n) for _ in range(F)], n))
    return comps
