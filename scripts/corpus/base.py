"""What every part of the generator shares: the deterministic random source, float rounding
as the expected JSON stores it, and the coverage statistics the driver asserts at the end."""

import hashlib
import random
import struct

SEED_PREFIX = "mabkit-synthetic-corpus-v1"
ROUND = 7          # decimals kept for decoded quaternion components in the JSON

# Statistics collected over the whole run (coverage assertions at the end).
STATS = {"cflags": set(), "nbits": set(), "overflow_keys": 0, "normal_keys": 0,
         "key_counts": set(), "identity_const": 0, "tcflags": set()}


def reset_stats():
    for k in STATS:
        STATS[k] = set() if isinstance(STATS[k], set) else 0


class DetRng:
    """Deterministic generator built only on Mersenne Twister getrandbits() and random(),
    the two parts of `random` whose output Python keeps stable across versions, so the
    corpus does not depend on how randint/choice/gauss are implemented in a given release."""

    def __init__(self, seed):
        self._r = random.Random(seed)

    def getrandbits(self, n):
        return self._r.getrandbits(n) if n > 0 else 0

    def below(self, n):
        assert n > 0
        k = n.bit_length()
        while True:
            r = self.getrandbits(k)
            if r < n:
                return r

    def randrange(self, n):
        return self.below(n)

    def randint(self, a, b):
        return a + self.below(b - a + 1)

    def random(self):
        return self._r.random()

    def uniform(self, a, b):
        return a + (b - a) * self.random()

    def choice(self, seq):
        return seq[self.below(len(seq))]

    def sample(self, population, k):
        pool = list(population)
        for i in range(k):
            j = i + self.below(len(pool) - i)
            pool[i], pool[j] = pool[j], pool[i]
        return pool[:k]


def seeded_rng(*parts):
    key = "/".join((SEED_PREFIX,) + tuple(str(p) for p in parts)).encode()
    return DetRng(int.from_bytes(hashlib.sha256(key).digest()[:8], "little"))


def f32(x):
    """The value a float becomes after a round trip through IEEE single precision."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def rnd(x):
    return round(x, ROUND) + 0.0          # + 0.0 turns -0.0 into 0.0


def qround(q):
    return [rnd(c) for c in q]


def align(n, a=16):
    return (n + a - 1) // a * a


def popcount(x):
    return bin(x).count("1")


def u(fmt, data, off):
    return struct.unpack_from("<" + fmt, data, off)
