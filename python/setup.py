"""pip route to the mabkit module (docs/python.md, "Install"): the project's CMake builds the
compiled part, setuptools packages it. Offline, with Debian's setuptools and wheel:

    python3 -m pip wheel --no-build-isolation --no-deps -w dist ./python
    python3 -m pip install --no-build-isolation ./python   # in a venv (--system-site-packages)

MABKIT_BUILD_DIR reuses a configured build folder (default: build/pip in the repository);
MABKIT_CMAKE_ARGS adds CMake options (split on spaces); MABKIT_SOURCE_DIR names the repository
when this folder was copied elsewhere."""
import os
import pathlib
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = pathlib.Path(__file__).resolve().parent
ROOT = pathlib.Path(os.environ.get("MABKIT_SOURCE_DIR", HERE.parent)).resolve()
VERSION = re.search(r"project\(mabkit VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text()).group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = pathlib.Path(os.environ.get("MABKIT_BUILD_DIR", ROOT / "build" / "pip")).resolve()
        if not (build / "CMakeCache.txt").exists():
            args = ["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release", "-DMAB_TESTS=OFF",
                    f"-DPython3_EXECUTABLE={sys.executable}"]
            if shutil.which("ninja"):
                args += ["-G", "Ninja"]
            args += os.environ.get("MABKIT_CMAKE_ARGS", "").split()
            subprocess.check_call(args)
        subprocess.check_call(["cmake", "--build", str(build), "--target", "mabkit_python", "-j",
                               str(os.environ.get("MABKIT_JOBS", os.cpu_count() or 1))])
        built = next((build / "python" / "mabkit").glob("_mabkit*.so"))
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


setup(
    name="mabkit",
    version=VERSION,
    description="Read, edit and write Dunia/Disrupt .mab animation files (Far Cry, Watch Dogs)",
    packages=["mabkit"],
    package_dir={"mabkit": "mabkit"},
    package_data={"mabkit": ["*.pyi", "py.typed"]},
    ext_modules=[Extension("mabkit._mabkit", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.9",
    install_requires=["numpy"],
    zip_safe=False,
)
