#!/usr/bin/env python3
"""Zips the Blender add-on (blender/io_anim_mab) with the `mab` executable it drives.

    python3 blender/build_zip.py --out io_anim_mab-linux-x64.zip --mab BUILD/mab --platform linux-x64

One zip per platform (linux-x64: the Linux `mab`; windows-x64: `mab.exe`), each with its `mab` in
io_anim_mab/bin/. The zip installs both ways (docs/blender.md, "Install"): as a Blender 4.2+
extension (io_anim_mab/blender_manifest.toml, written here with the platform) and as a legacy
add-on in Blender 3.4-4.1 (bl_info in io_anim_mab/__init__.py). CMake runs this as the target
`mabkit_blender_addon`; scripts/package for dist/.
"""
import argparse
import os
import re
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PACKAGE = "io_anim_mab"
PLATFORMS = {"linux-x64": "mab", "windows-x64": "mab.exe"}
# The project states no license of its own yet; Blender extensions must carry a GPL-compatible one.
LICENSE = "SPDX:GPL-3.0-or-later"

MANIFEST = """schema_version = "1.0.0"

id = "io_anim_mab"
version = "{version}"
name = "Dunia/Disrupt animation (.mab)"
tagline = "Import and export Far Cry and Watch Dogs .mab animation clips"
maintainer = "mabkit"
type = "add-on"
tags = ["Animation", "Import-Export"]
blender_version_min = "4.2.0"
license = ["{license}"]
platforms = ["{platform}"]

[permissions]
files = "Read and write .mab files, run the bundled mab program on them"
"""


def project_version():
    """The version of CMakeLists.txt's project() (mab --version prints the same)."""
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        m = re.search(r"project\(mabkit VERSION (\d+\.\d+\.\d+)", f.read())
    if not m:
        sys.exit("build_zip: no project(mabkit VERSION x.y.z) in CMakeLists.txt")
    return m.group(1)


def bl_info_version():
    with open(os.path.join(HERE, PACKAGE, "__init__.py")) as f:
        m = re.search(r'"version": \((\d+), (\d+), (\d+)\)', f.read())
    return ".".join(m.groups()) if m else "none"


def entry(arc, mode):
    info = zipfile.ZipInfo(arc, date_time=(2000, 1, 1, 0, 0, 0))  # reproducible zips
    info.external_attr = mode << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="the zip to write")
    ap.add_argument("--mab", required=True, help="the mab executable to bundle (mab.exe for windows-x64)")
    ap.add_argument("--platform", required=True, choices=sorted(PLATFORMS))
    ap.add_argument("--version", default="", help="default: CMakeLists.txt's project version")
    args = ap.parse_args()
    if not os.path.isfile(args.mab):
        sys.exit("build_zip: no mab executable at %s (%s needs %s)" % (args.mab, args.platform,
                                                                      PLATFORMS[args.platform]))
    with open(args.mab, "rb") as f:
        exe = f.read()
    is_pe, is_elf = exe[:2] == b"MZ", exe[:4] == b"\x7fELF"
    if not (is_pe or is_elf) or is_pe != args.platform.startswith("windows"):
        sys.exit("build_zip: %s is not a %s executable" % (args.mab, args.platform))
    version = args.version or project_version()
    if bl_info_version() != version:
        sys.exit("build_zip: bl_info version %s in %s/__init__.py is not the project's %s" % (
            bl_info_version(), PACKAGE, version))
    tmp = args.out + ".tmp"
    with zipfile.ZipFile(tmp, "w") as z:
        src = os.path.join(HERE, PACKAGE)
        for name in sorted(os.listdir(src)):
            if name.endswith(".py"):
                with open(os.path.join(src, name), "rb") as f:
                    z.writestr(entry("%s/%s" % (PACKAGE, name), 0o644), f.read())
        z.writestr(entry(PACKAGE + "/blender_manifest.toml", 0o644),
                   MANIFEST.format(version=version, license=LICENSE, platform=args.platform))
        z.writestr(entry("%s/bin/%s" % (PACKAGE, PLATFORMS[args.platform]), 0o755), exe)
    os.replace(tmp, args.out)
    print("wrote %s (%s, version %s, with %s)" % (args.out, args.platform, version, args.mab))


if __name__ == "__main__":
    main()
