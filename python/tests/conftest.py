"""Shared fixtures of the mabkit pytest suite: the corpus (corpus/, synthetic, every game) and
the mab CLI of the same build. ctest sets PYTHONPATH to the build tree's package, MAB_SOURCE_DIR
and MAB_CLI (python/CMakeLists.txt)."""
import json
import os
import pathlib

import numpy as np
import pytest

import mabkit

ROOT = pathlib.Path(os.environ.get("MAB_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
CORPUS = ROOT / "corpus"


def corpus_files(pattern="*/*.mab"):
    return sorted(p for p in CORPUS.glob(pattern) if p.parent.name != "bad")


def expected(path):
    return json.loads(path.with_suffix(".expected.json").read_text())


def blocks_of(kind):
    """(path, block index) of every decodable block of `kind` ("ani" for 'aNi' and FC4, "legacy")."""
    out = []
    for p in corpus_files():
        f = mabkit.read(p)
        for b in f.blocks:
            if b.decodable and (b.kind == "legacy") == (kind == "legacy"):
                out.append((p, b.index))
    return out


def ident(value):
    if isinstance(value, tuple):
        return f"{value[0].parent.name}/{value[0].name}:{value[1]}"
    return f"{value.parent.name}/{value.name}"


def angle_deg(a, b):
    """Angle between unit quaternions (rows), q and -q the same rotation."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    a = a / np.linalg.norm(a, axis=-1, keepdims=True)
    b = b / np.linalg.norm(b, axis=-1, keepdims=True)
    d = np.clip(np.abs(np.sum(a * b, axis=-1)), 0.0, 1.0)
    return np.degrees(2 * np.arccos(d))


def quat_mul(a, b):
    """a * b for (..., 4) x, y, z, w arrays (b applied first)."""
    ax, ay, az, aw = np.moveaxis(np.asarray(a, dtype=np.float64), -1, 0)
    bx, by, bz, bw = np.moveaxis(np.asarray(b, dtype=np.float64), -1, 0)
    return np.stack([aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw,
                     aw * bw - ax * bx - ay * by - az * bz], axis=-1)


@pytest.fixture
def mab_cli():
    cli = os.environ.get("MAB_CLI")
    if not cli or not os.path.exists(cli):
        pytest.skip("MAB_CLI (the mab binary of this build) not given")
    return cli
