"""mabkit.read, File and Block: every corpus file, its header fields, byte-identical writes,
and errors carrying the library's code, field and byte offset."""
import json
import os

import numpy as np
import pytest

import mabkit
from conftest import CORPUS, corpus_files, expected, ident

ALL = corpus_files()


def test_every_game_is_in_the_corpus():
    games = {p.parent.name for p in ALL}
    assert {"fc2", "fc3", "fc3bd", "fc4", "primal", "fc5", "wd1", "wd2", "wdl"} <= games


@pytest.mark.parametrize("path", ALL, ids=ident)
def test_read_fields_and_unedited_write_is_byte_identical(path, tmp_path):
    raw = path.read_bytes()
    exp = expected(path)
    for f in (mabkit.read(path), mabkit.read(str(path)), mabkit.read(raw), mabkit.read(bytearray(raw)),
              mabkit.read(memoryview(raw))):
        assert f.variant == exp["variant"]
        assert f.magic == exp["magic"]
        assert f.layout == exp["layout"]
        assert f.checksum == exp["header"]["checksum"]
        assert f.header["checksum"] == exp["header"]["checksum"]
        assert f.header["reserved"].hex() == exp["header"]["bytes_8_16"]
        assert f.size == len(raw)
        assert f.to_bytes() == raw
        assert f.evidence and f.evidence[0].startswith("game ")
    out = tmp_path / "out.mab"
    f.write(out)
    assert out.read_bytes() == raw
    assert [x for x in os.listdir(tmp_path) if x != "out.mab"] == []  # no temporary left behind


@pytest.mark.parametrize("path", [p for p in ALL if expected(p)["layout"] in ("ani", "fc4")], ids=ident)
def test_block_tables_match_the_generator(path):
    f = mabkit.read(path)
    exp = expected(path)
    assert len(f.blocks) == len(exp["blocks"])
    for b, e in zip(f.blocks, exp["blocks"]):
        assert b.kind == ("fc4" if exp["layout"] == "fc4" else "ani")
        assert b.bone_hashes == [x["hash"] for x in e["bones"]]
        assert b.bone_flags == [x["flags"] for x in e["bones"]]
        assert b.key_rate == e["key_time_rate"]
        assert b.header["duration"] == pytest.approx(e["duration"], abs=0)
        assert b.decodable, b.reason
        assert set(b.evidence) == {"translations", "constant_translations", "root_rotations",
                                   "root_translations", "parts"}


def test_opaque_and_undecodable_blocks_say_why():
    f = mabkit.read(CORPUS / "primal" / "opaque_33.mab")
    assert f.layout == "opaque" and f.blocks == [] and f.opaque_reason
    f = mabkit.read(CORPUS / "fc3bd" / "legacy_undecodable.mab")
    b = f.blocks[0]
    assert not b.decodable and "sections[3]" in b.reason
    with pytest.raises(mabkit.MabError) as e:
        b.decode()
    assert e.value.code == "not_decodable" and e.value.field == "sections[3]" and e.value.offset == 0x11C


def test_hash_is_crc32_of_the_name():
    assert mabkit.hash("") == 0
    assert mabkit.hash("Root") == 3066451557  # corpus/wd1/mixed_k16_nonascending.expected.json
    import zlib
    for name in ("Bip01 Head", "pelvis", "Ärm"):
        assert mabkit.hash(name) == zlib.crc32(name.encode("utf-8"))


def test_hash_is_mab_hash(mab_cli):
    """The module's hash is the library's one bone-name hash (bone_hash.hpp), as `mab hash` prints it:
    the name's UTF-8 bytes, ASCII or not."""
    import subprocess
    names = ["Root", "L Thigh", "Épaule gauche", "肩", "Ärm"]
    p = subprocess.run([mab_cli, "hash", *names], capture_output=True, check=True)
    lines = p.stdout.decode("utf-8").splitlines()
    assert len(lines) == len(names)
    for name, line in zip(names, lines):
        printed, _, shown = line.partition("  ")
        assert shown == name
        assert mabkit.hash(name) == int(printed, 16), name


BAD = sorted((CORPUS / "bad").glob("*.bad"))


@pytest.mark.parametrize("path", BAD, ids=ident)
def test_bad_files_raise_with_code_field_and_offset(path):
    exp = json.loads(path.with_suffix(".expected.json").read_text())
    if exp["stage"] != "parse":
        f = mabkit.read(path)  # reads; the structural check finds the defect
        found = [x for x in f.findings() if x["severity"] == "error"]
        assert any(x["code"] == exp["error"] and x["field"] == exp["field"] and x["offset"] == exp["offset"]
                   for x in found), found
        return
    with pytest.raises(mabkit.MabError) as e:
        mabkit.read(path)
    err = e.value
    assert err.code == exp["error"]
    assert err.field == exp["field"]
    assert err.offset == exp["offset"]
    assert isinstance(err.code_value, int) and err.code_value > 0
    assert exp["error"] in str(err)


def test_missing_file_is_an_io_error(tmp_path):
    with pytest.raises(mabkit.MabError) as e:
        mabkit.read(tmp_path / "nothing.mab")
    assert e.value.code == "io_error"


def test_write_into_a_missing_folder_fails_and_leaves_nothing(tmp_path):
    f = mabkit.read(ALL[0])
    with pytest.raises(mabkit.MabError) as e:
        f.write(tmp_path / "no" / "such" / "dir.mab")
    assert e.value.code == "io_error"
    assert list(tmp_path.iterdir()) == []


def test_bit_offset_travels_with_the_error():
    # A chunk padded with a one bit: decode fails inside the bit stream (decision 6).
    path = CORPUS / "wd1" / "one_bone_k8.mab"
    raw = bytearray(path.read_bytes())
    f = mabkit.read(bytes(raw))
    b = f.blocks[0]
    rot = [s for s in b.sections if s[1] == "JointRotations"]
    assert rot
    errors = []
    # Flip each bit of the last bytes of the file until the decode reports a bit offset.
    for i in range(len(raw) - 1, len(raw) - 16, -1):
        for bit in range(8):
            data = bytearray(raw)
            data[i] ^= 1 << bit
            try:
                mabkit.read(bytes(data)).blocks[0].decode()
            except mabkit.MabError as e:
                errors.append(e)
    with_bit = [e for e in errors if e.bit is not None]
    assert with_bit, [repr(e) for e in errors]
    assert all(isinstance(e.offset, int) for e in with_bit)
