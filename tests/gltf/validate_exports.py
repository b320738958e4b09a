#!/usr/bin/env python3
"""Every glTF `mab export` writes passes the Khronos glTF validator with zero errors.

Exports each corpus clip whose rotations decode (every WD1, WD2, WDL, FC4, FC5, FC2 and FC3
file and the Blood Dragon files in the FC3 layout, with translations and root motion) as
.gltf and .glb, plus a few with --names and --skeleton, then runs scripts/gltf_validate.js
(npm gltf-validator, installed by scripts/setup) over all of them.
usage: validate_exports.py --mab PATH --work DIR
"""
import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DECODABLE = {"wd1", "wd2", "wdl", "fc4", "fc5", "fc2", "fc3", "fc3bd"}
# Blood Dragon files that the guessed FC3 layout does not fit, or whose clip does not decode:
# export refuses them with the reason (JSON keeps them).
REFUSED = {("fc3bd", f): "kept opaque" for f in ("opaque_0.mab", "opaque_7.mab", "opaque_64.mab", "opaque_700.mab")}
REFUSED[("fc3bd", "legacy_undecodable.mab")] = "no clip of this file decodes"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mab", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    if not shutil.which("node"):
        print("FAIL: node not found: run scripts/setup")
        return 1
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    outputs = []
    corpus = os.path.join(ROOT, "corpus")
    names = os.path.join(args.work, "names.txt")
    with open(names, "w") as f:
        f.write("Root\nPelvis\n")
    skeleton = os.path.join(ROOT, "corpus", "external", "RiggedFigure.gltf")
    for variant in sorted(os.listdir(corpus)):
        d = os.path.join(corpus, variant)
        if variant not in DECODABLE or not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if not f.endswith(".mab"):
                continue
            src = os.path.join(d, f)
            stem = "%s_%s" % (variant, f[:-4])
            runs = [(".gltf", []), (".glb", [])]
            if "many_bones" in f or "three_blocks" in f:
                runs += [(".names.glb", ["--names", names]), (".skeleton.gltf", ["--skeleton", skeleton])]
            for ext, extra in runs:
                out = os.path.join(args.work, stem + ext)
                p = subprocess.run([args.mab, "export", src, "-o", out] + extra, capture_output=True, text=True)
                refusal = REFUSED.get((variant, f))
                if refusal:
                    if p.returncode == 0 or refusal not in p.stderr or os.path.exists(out):
                        print("FAIL: mab export %s should refuse (%s), got exit %d: %s" % (
                            src, refusal, p.returncode, p.stderr.strip()))
                        return 1
                    continue
                if p.returncode != 0:
                    print("FAIL: mab export %s -o %s %s: %s" % (src, out, " ".join(extra), p.stderr.strip()))
                    return 1
                outputs.append(out)
    if len(outputs) < 40:
        print("FAIL: only %d exports; the corpus should give more" % len(outputs))
        return 1
    p = subprocess.run(["node", os.path.join(ROOT, "scripts", "gltf_validate.js")] + outputs,
                       capture_output=True, text=True)
    print(p.stdout[-6000:] + p.stderr[-2000:])
    if p.returncode != 0:
        print("FAIL: the validator reports errors (or is missing: run scripts/setup)")
        return 1
    print("PASS: %d exports, 0 validator errors" % len(outputs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
