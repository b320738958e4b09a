"""Without Blender: blender/build_zip.py's zips (layout, manifest, the bundled mab) and
clipdata.py's fast reading and writing of `mab export`'s JSON against Python's json on every
corpus clip (ctest blender_addon_packaging; MAB_CLI names the mab to export with).

    MAB_CLI=build/dev/mab python3 -m pytest -q tests/blender_addon/test_packaging.py
"""
import glob
import importlib.util
import json
import os
import stat
import subprocess
import sys
import tomllib
import zipfile

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD_ZIP = os.path.join(ROOT, "blender", "build_zip.py")


def build(tmp_path, exe, platform):
    out = tmp_path / ("addon-%s.zip" % platform)
    p = subprocess.run([sys.executable, BUILD_ZIP, "--out", str(out), "--mab", str(exe), "--platform", platform],
                       capture_output=True, text=True)
    return p, out


def fake_pe(tmp_path):
    exe = tmp_path / "mab.exe"
    exe.write_bytes(b"MZ" + b"\0" * 62)
    return exe


@pytest.mark.parametrize("platform", ["linux-x64", "windows-x64"])
def test_zip_layout_and_manifest(tmp_path, platform):
    exe = sys.executable if platform == "linux-x64" else fake_pe(tmp_path)  # any ELF stands in for mab
    p, out = build(tmp_path, exe, platform)
    assert p.returncode == 0, p.stderr
    z = zipfile.ZipFile(out)
    names = z.namelist()
    assert all(n.startswith("io_anim_mab/") for n in names), names  # one folder: add-on and extension
    assert "io_anim_mab/__init__.py" in names
    name = "mab" if platform == "linux-x64" else "mab.exe"
    info = z.getinfo("io_anim_mab/bin/" + name)
    assert stat.S_IMODE(info.external_attr >> 16) == 0o755
    assert z.read("io_anim_mab/bin/" + name) == open(exe, "rb").read()
    m = tomllib.loads(z.read("io_anim_mab/blender_manifest.toml").decode())
    for key in ("schema_version", "id", "version", "name", "tagline", "maintainer", "type", "license",
                "blender_version_min"):
        assert key in m, key
    assert m["id"] == "io_anim_mab" and m["type"] == "add-on"
    assert m["platforms"] == [platform]
    assert set(m["permissions"]) == {"files"}
    assert not m["tagline"].endswith(".") and len(m["tagline"]) <= 64
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        assert 'VERSION %s ' % m["version"] in f.read()
    assert "modload.py" not in " ".join(names) and "vendor" not in " ".join(names)


def test_zip_refuses_a_missing_or_wrong_executable(tmp_path):
    p, out = build(tmp_path, tmp_path / "nothing", "linux-x64")
    assert p.returncode != 0 and "no mab executable" in p.stderr and not out.exists()
    p, out = build(tmp_path, fake_pe(tmp_path), "linux-x64")
    assert p.returncode != 0 and "is not a linux-x64 executable" in p.stderr and not out.exists()
    p, out = build(tmp_path, sys.executable, "windows-x64")
    assert p.returncode != 0 and "is not a windows-x64 executable" in p.stderr


def load_addon_module(name):
    """One of the add-on's modules that need no Blender, loaded from its file alone."""
    spec = importlib.util.spec_from_file_location(name + "_alone", os.path.join(ROOT, "blender", "io_anim_mab",
                                                                               name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def load_clipdata():
    return load_addon_module("clipdata")


MAB = os.environ.get("MAB_CLI", os.path.join(ROOT, "build", "dev", "mab"))
CLIPS = sorted(glob.glob(os.path.join(ROOT, "corpus", "*", "*.mab")))


@pytest.mark.skipif(not os.path.isfile(MAB), reason="no mab (set MAB_CLI)")
def test_fast_json_reading_and_writing_equal_pythons_json():
    """load_doc (NumPy for the key arrays) reads what json reads; an unedited clip writes mab's own
    text back; an edited bone's document parses to json's document with that bone changed."""
    cd = load_clipdata()
    seen = 0
    for path in CLIPS:
        p = subprocess.run([MAB, "export", path, "-o", "-"], capture_output=True)
        if p.returncode != 0:
            continue
        raw = p.stdout
        ref = json.loads(raw)
        if "clip" not in ref:
            continue
        doc, keys = cd.load_doc(raw)
        fast, slow = cd.from_doc(doc, raw, keys).clip, cd.from_doc(json.loads(raw)).clip
        assert np.array_equal(fast.rotations.view(np.uint32), slow.rotations.view(np.uint32)), path
        out = fast.to_bytes()
        assert out == raw or json.loads(out) == ref, path
        animated = [i for i, k in enumerate(fast.kinds) if k == "animated"]
        if animated:
            doc, keys = cd.load_doc(raw)
            edited = cd.from_doc(doc, raw, keys).clip
            b = animated[0]
            edited.rotations[0, b] = [0.0, 0.0, 0.0, 1.0]
            got = json.loads(edited.to_bytes())
            want = json.loads(raw)
            want["clip"]["bones"][b]["keys"][0] = [0.0, 0.0, 0.0, 1.0]
            gb, wb = got["clip"].pop("bones"), want["clip"].pop("bones")
            assert got["clip"] == want["clip"], path
            for i, (x, y) in enumerate(zip(gb, wb)):  # the edited bone's floats written at float64 length
                if i == b:
                    assert np.array_equal(np.float32(x.pop("keys")), np.float32(y.pop("keys"))), path
                assert x == y, (path, i)
            assert got["container"] == want["container"], path
        seen += 1
    assert seen >= 40, "only %d corpus clips exported a clip" % seen


@pytest.mark.skipif(not os.path.isfile(MAB), reason="no mab (set MAB_CLI)")
def test_addon_bone_hash_is_mab_hash():
    """The add-on's one bone-name hash (matching.crc32, which matches Blender bones to clip bones) is
    the library's (bone_hash.hpp) as `mab hash` prints it: the UTF-8 bytes of ASCII and non-ASCII
    names, and the bytes of a names file line that is not UTF-8 as they were (what `mab export
    --names` hashes)."""
    matching = load_addon_module("matching")
    names = ["Root", "L Thigh", "Bip01 Head", "Épaule gauche", "肩", "Ärm",
             b"Bip01 \xe9paule".decode("utf-8", "surrogateescape")]
    raw = [n.encode("utf-8", "surrogateescape") for n in names]
    p = subprocess.run([MAB, "hash", *raw], capture_output=True, check=True)
    lines = p.stdout.split(b"\n")[:len(names)]
    assert len(lines) == len(names), p.stdout
    for name, data, line in zip(names, raw, lines):
        printed, _, shown = line.partition(b"  ")
        assert shown == data
        assert matching.crc32(name) == int(printed, 16), name
    # What a names file holds reaches the same hash through parse_names.
    parsed = matching.parse_names(b"\xef\xbb\xbf" + b"\r\n".join(raw) + b"\r\n")
    assert [matching.crc32(n) for n in parsed] == [matching.crc32(n) for n in names]
