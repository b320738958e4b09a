#!/usr/bin/env python3
"""Zips the Blender add-on (blender/io_anim_mab) into an installable add-on.

    python3 blender/build_zip.py --out io_anim_mab.zip [--module BUILD/python/mabkit]

With --module, the built `mabkit` package (its .py files and compiled module) goes into the
add-on as io_anim_mab/vendor/mabkit, where the add-on looks first after its preferences
(docs/blender.md). CMake runs this as the target `mabkit_blender_addon`.
"""
import argparse
import os
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = "io_anim_mab"
# Files of the built mabkit package worth carrying: sources, stubs and the compiled module.
MODULE_SUFFIXES = (".py", ".pyi", ".so", ".pyd", "py.typed")


def add_tree(z, src, arcroot, keep):
    for root, dirs, files in os.walk(src):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and d != "vendor")
        for name in sorted(files):
            if not keep(name):
                continue
            path = os.path.join(root, name)
            arc = os.path.join(arcroot, os.path.relpath(path, src))
            info = zipfile.ZipInfo(arc, date_time=(2000, 1, 1, 0, 0, 0))  # reproducible zips
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            with open(path, "rb") as f:
                z.writestr(info, f.read())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="the zip to write")
    ap.add_argument("--module", default="", help="folder of the built mabkit package to bundle")
    args = ap.parse_args()
    if args.module and not any(n.endswith((".so", ".pyd")) for n in os.listdir(args.module)):
        sys.exit("build_zip: %s holds no compiled mabkit module" % args.module)
    tmp = args.out + ".tmp"
    with zipfile.ZipFile(tmp, "w") as z:
        add_tree(z, os.path.join(HERE, PACKAGE), PACKAGE, lambda n: n.endswith(".py"))
        if args.module:
            add_tree(z, args.module, os.path.join(PACKAGE, "vendor", "mabkit"),
                     lambda n: n.endswith(MODULE_SUFFIXES))
    os.replace(tmp, args.out)
    print("wrote %s%s" % (args.out, " with mabkit from " + args.module if args.module else " (no mabkit bundled)"))


if __name__ == "__main__":
    main()
