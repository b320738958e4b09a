"""The typed API (python/mabkit/__init__.pyi) is the module's: every function, class, method and
attribute the stub declares exists on the real objects, and the package exports what it lists."""
import ast

import pytest

import mabkit
from conftest import CORPUS, ROOT

STUB = ast.parse((ROOT / "python" / "mabkit" / "__init__.pyi").read_text())


def declared():
    out = {}
    for node in STUB.body:
        if isinstance(node, ast.FunctionDef):
            out[node.name] = None
        elif isinstance(node, ast.ClassDef):
            names = set()
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and not item.name.startswith("__"):
                    names.add(item.name)
                elif isinstance(item, ast.AnnAssign):
                    names.add(item.target.id)
            out[node.name] = names
        elif isinstance(node, ast.AnnAssign):
            out[node.target.id] = None
    return out


def samples():
    f = mabkit.read(CORPUS / "fc2" / "retail_bank.mab")
    lc = f.blocks[0].decode()
    w = mabkit.read(CORPUS / "wd1" / "parts_no_nested.mab")
    clip = w.blocks[0].decode()
    _, report = clip.encode()
    assert lc.family == "legacy"
    return {"File": w, "Block": w.blocks[0], "Clip": clip, "EncodeReport": report,
            "Part": clip.parts[0], "Tag": lc.tags[0],
            "Event": lc.events[0], "MabError": mabkit.MabError("x", code="bad_value", field="f")}


def test_every_declared_name_exists():
    objs = samples()
    for name, members in declared().items():
        if name in ("PathLike", "PathOrBytes", "QuatLike", "BoneRef"):
            continue
        assert hasattr(mabkit, name), name
        if members:
            for m in members:
                assert hasattr(objs[name], m), f"{name}.{m}"


def test_all_lists_real_names():
    for name in mabkit.__all__:
        assert hasattr(mabkit, name), name
    assert {"read", "File", "Block", "Clip", "EncodeReport", "MabError", "hash", "Tag", "Event"} <= set(mabkit.__all__)


def test_clips_cannot_be_made_without_a_file():
    with pytest.raises(TypeError):
        mabkit.Clip()
    with pytest.raises(TypeError), pytest.warns(DeprecationWarning):
        mabkit.LegacyClip()
