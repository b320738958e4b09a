#!/usr/bin/env python3
"""A synthetic "game dump" for `mab survey`: many clips with a game-like mix of sizes and
variants, written by the corpus generator's builders (scripts/corpus/) (field by field from the format reference,
independently of the library), plus a manifest of what was put in.

    scripts/gen_dump.py OUT_DIR [--files 12500] [--seed 1] [--jobs 2]

Not committed: 12,500 clips are about 200 MB. Mix (by file): WD1 40 %, WDL 18 %, WD2 10 %,
FC5 15 % (1 to 3 blocks), FC4 3 %, FC2 8 %, FC3 4 %, Blood Dragon 1 %, Primal 1 %. Most clips
have 20 to 200 bones (a fifth are small prop clips of 1 to 19) and 1 to 600 keys,
log-uniform; one in 500 is a cinematic of 150 to 250 bones and 1,500 to 3,000 keys. Files are
spread over folders of 250 by variant, as extracted archives tend to be.

OUT_DIR/manifest.json holds, per variant, files and bytes, and over all 'aNi' blocks the
counts the survey measures: bone flag bytes, bit depths of animated bones, 'aNi' flags bytes
and blocks. tests/survey/ checks the survey against it on a small dump.
"""
import argparse
import json
import math
import multiprocessing
import os
import sys

from corpus.ani_writer import Clip, build_fc4, build_fc5, build_wd, make_bones, outer_header, random_kinds, wd_unit
from corpus.base import seeded_rng
from corpus.legacy_writer import build_legacy

MIX = [("wd1", 40), ("wdl", 18), ("wd2", 10), ("fc5", 15), ("fc4", 3), ("fc2", 8), ("fc3", 4), ("fc3bd", 1),
       ("primal", 1)]


def pick(rng, weighted):
    total = sum(w for _, w in weighted)
    r = rng.randrange(total)
    for v, w in weighted:
        if r < w:
            return v
        r -= w
    return weighted[-1][0]


def shape(rng):
    if rng.randrange(500) == 0:
        return rng.randint(150, 250), rng.randint(1500, 3000)
    bones = rng.randint(1, 19) if rng.randrange(5) == 0 else rng.randint(20, 200)
    keys = max(1, int(round(math.exp(rng.uniform(0, math.log(600))))))
    return bones, keys


def kinds(rng, n):
    # Real clips keep many bones constant or without rotation (props, fingers at rest).
    return random_kinds(rng, n, 0.35, 0.45)


def one_clip(args):
    seed, index = args
    rng = seeded_rng("dump", seed, index)
    variant = pick(rng, MIX)
    info = {"variant": variant, "blocks": []}

    def ani_clip(unit, rate, n, k, need_section=False):
        ks = kinds(rng, n)
        if need_section and not any(x in ("a", "c") for x in ks):
            ks[0] = "a"  # an FC5 block followed by another must end in a section (ani_writer.build_fc5)
        bones = make_bones(rng, ks)
        clip = Clip(rng, bones, k, unit, rate, "sparse" if rng.randrange(4) == 0 else "linear")
        info["blocks"].append({"flags": [b["flags"] for b in bones],
                               "nbits": [b["nbits"] for b in bones if b["kind"] == "a"]})
        return clip

    if variant in ("wd1", "wdl", "wd2"):
        n, k = shape(rng)
        unit, rate = wd_unit(variant)
        clip = ani_clip(unit, rate, n, k)
        flags = 7 if rng.randrange(10) == 0 else 3
        info["blocks"][-1]["ani_flags"] = flags
        data, _, _ = build_wd(variant, rng, clip, ani_flags=flags,
                                 count_high=0x8000 if variant == "wd1" and rng.randrange(16) == 0 else 0)
    elif variant == "fc5":
        blocks = []
        count = 1 + (rng.randrange(3) if rng.randrange(4) == 0 else 0)
        for b in range(count):
            n, k = shape(rng) if b == 0 else (1, rng.randint(1, 60))
            clip = ani_clip(1, 30.0, n, k, need_section=b + 1 < count)
            flags = 3 if b == 0 else 0x0F
            info["blocks"][-1]["ani_flags"] = flags
            blocks.append({"clip": clip, "ani_flags": flags})
        data, _, _, _ = build_fc5(rng, blocks)
    elif variant == "fc4":
        # u16 section offsets (format 4.4): a Far Cry 4 file stays under 64 KiB.
        n, k = shape(rng)
        clip = ani_clip(1, 30.0, min(n, 60), min(k, 150))
        info["blocks"][-1]["ani_flags"] = 3
        data, _, _, _ = build_fc4(rng, clip)
    elif variant in ("fc2", "fc3"):
        specs = []
        for _ in range(1 + (rng.randrange(2) if rng.randrange(3) == 0 else 0)):
            specs.append({"slots": sorted(rng.sample([0, 1, 2, 3, 4, 5], rng.randint(1, 4))),
                          "last": rng.randint(0, 60), "bits": (rng.randint(0, 30), rng.randint(0, 8), rng.randint(0, 4),
                                                               rng.randint(0, 2))})
        data, _, _ = build_legacy(variant, rng, specs, rng.randint(1, 3))
    else:
        hdr, _, _ = outer_header(rng, variant)
        data = bytearray(hdr + bytes(rng.getrandbits(8) for _ in range(rng.randint(16, 4096))))
    info["size"] = len(data)
    folder = "%s/%03d" % (variant, index // 250)
    return index, folder, bytes(data), info


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--files", type=int, default=12500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    manifest = {"synthetic": True, "files": 0, "bytes": 0, "variants": {}, "bone_flags": {}, "bit_depths": {},
                "ani_flags": {}, "ani_blocks": 0}
    work = [(args.seed, i) for i in range(args.files)]
    with multiprocessing.Pool(args.jobs) as pool:
        for done, (index, folder, data, info) in enumerate(pool.imap_unordered(one_clip, work, chunksize=16), 1):
            d = os.path.join(args.out, folder)
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, "clip_%05d.mab" % index), "wb") as f:
                f.write(data)
            v = manifest["variants"].setdefault(info["variant"], {"files": 0, "bytes": 0})
            v["files"] += 1
            v["bytes"] += info["size"]
            manifest["files"] += 1
            manifest["bytes"] += info["size"]
            for b in info["blocks"]:
                manifest["ani_blocks"] += 1
                key = "%s 0x%02X" % (info["variant"], b["ani_flags"])
                manifest["ani_flags"][key] = manifest["ani_flags"].get(key, 0) + 1
                for fl in b["flags"]:
                    key = "%s 0x%02X" % (info["variant"], fl)
                    manifest["bone_flags"][key] = manifest["bone_flags"].get(key, 0) + 1
                for n in b["nbits"]:
                    key = "%s %02d" % (info["variant"], n)
                    manifest["bit_depths"][key] = manifest["bit_depths"].get(key, 0) + 1
            if done % 500 == 0 and sys.stderr.isatty():
                sys.stderr.write("\r  %d/%d clips" % (done, args.files))
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
    print("gen_dump: %d files, %.1f MB in %s" % (manifest["files"], manifest["bytes"] / 1e6, args.out))


if __name__ == "__main__":
    main()
