#!/usr/bin/env python3
"""Writes synthetic .mab-like files (WDL header layout, random body) for crc-search
benchmarks and demos. The +0x04 field is random; plant a checksum with
`mab crc-apply --in-place --algo SPEC FILES...`.

usage: crc_gen.py OUTDIR SIZE [SIZE...] [--seed N]
Each SIZE makes one file; repeat a size to get an equal-length pair.
"""
import argparse
import os
import random
import struct


def make(rng, size, shared):
    body = bytearray(rng.getrandbits(8) for _ in range(size)) if size < 4096 else bytearray(rng.randbytes(size))
    head = struct.pack("<II", 0x46B4, rng.getrandbits(32)) + shared
    head += b"aNi\x03" + struct.pack("<I", size - 16)
    body[: len(head)] = head
    return bytes(body)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("sizes", nargs="+", type=int)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    # Bytes 0x08..0x1F (unknown header words, skeleton CRC and path id) are shared by
    # clips of one skeleton, so they are the same in every generated file.
    shared = rng.randbytes(24)
    os.makedirs(a.outdir, exist_ok=True)
    for i, size in enumerate(a.sizes):
        if size < 0x40:
            raise SystemExit("size must be at least 64 bytes")
        with open(os.path.join(a.outdir, "f%02d.mab" % i), "wb") as f:
            f.write(make(rng, size, shared))


if __name__ == "__main__":
    main()
