"""The module outside the build tree: `cmake --install` into a prefix, and pip's wheel (offline,
Debian's setuptools and wheel) installed into a venv. Each imports mabkit from there, in a
fresh interpreter run elsewhere, and reads a file. Needs MAB_BUILD_DIR (set by ctest)."""
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from conftest import CORPUS, ROOT

BUILD = os.environ.get("MAB_BUILD_DIR")
needs_build = pytest.mark.skipif(not BUILD, reason="MAB_BUILD_DIR (the CMake build folder) not given")
CHECK = ("import mabkit, sys; f = mabkit.read(sys.argv[1]); c = f.blocks[0].decode(); "
         "assert c.encode()[0] == open(sys.argv[1], 'rb').read(); print(mabkit.__file__)")


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env.update(extra)
    return env


@needs_build
def test_cmake_install_into_a_prefix(tmp_path):
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", BUILD, "--component", "python", "--prefix", str(prefix)], check=True,
                   capture_output=True)
    site = [p for p in prefix.glob("lib/python3*/*-packages") if (p / "mabkit" / "__init__.py").exists()]
    assert len(site) == 1
    for name in ("__init__.pyi", "py.typed", "_errors.py"):
        assert (site[0] / "mabkit" / name).exists()
    out = subprocess.run([sys.executable, "-c", CHECK, str(CORPUS / "wd2" / "long_k40.mab")], cwd=tmp_path,
                         env=clean_env(PYTHONPATH=str(site[0])), capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().startswith(str(site[0]))


@needs_build
def test_pip_wheel_offline_into_a_venv(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(ROOT / "python", src, ignore=shutil.ignore_patterns("tests", "build", "*.egg-info", "__pycache__"))
    env = clean_env(MABKIT_SOURCE_DIR=str(ROOT), MABKIT_BUILD_DIR=BUILD, MABKIT_JOBS="2")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-index",
                    "-w", str(tmp_path / "dist"), str(src)], check=True, env=env, capture_output=True, cwd=tmp_path)
    wheel = next((tmp_path / "dist").glob("mabkit-*.whl"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, capture_output=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "--no-index", "--no-deps", str(wheel)], check=True,
                   capture_output=True, env=clean_env())
    out = subprocess.run([str(py), "-c", CHECK, str(CORPUS / "fc5" / "two_blocks.mab")], cwd=tmp_path,
                         env=clean_env(), capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert str(venv) in out.stdout
