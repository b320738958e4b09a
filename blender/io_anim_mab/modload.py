"""Finding the compiled `mabkit` module (docs/blender.md, "How the add-on finds mabkit").

In this order: the folder set in the add-on's preferences; the copy bundled in the add-on's
`vendor/` folder (the zip built by `cmake --build BUILD --target mabkit_blender_addon` carries the
package built with the Python that built it); any `mabkit` Python already imports (an installed
package, PYTHONPATH). A compiled module loads only into the Python version and platform it was
built for: Debian's Blender runs Debian's Python, so the bundled build fits it.
"""
import importlib
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VENDOR = os.path.join(HERE, "vendor")

_cache = {"module": None, "error": None, "key": None}


class ModuleMissing(Exception):
    pass


def _candidates(pref_dir):
    if pref_dir:
        yield "preferences", pref_dir
    if os.path.isdir(os.path.join(VENDOR, "mabkit")):
        yield "bundled", VENDOR
    yield "installed", None


def _try(folder):
    if folder is not None and folder not in sys.path:
        sys.path.insert(0, folder)
    for name in [n for n in sys.modules if n == "mabkit" or n.startswith("mabkit.")]:
        del sys.modules[name]
    return importlib.import_module("mabkit")


def get(pref_dir=""):
    """The mabkit module, or ModuleMissing saying what was tried and why each failed."""
    key = pref_dir or ""
    if _cache["module"] is not None and _cache["key"] == key:
        return _cache["module"]
    tried = []
    for where, folder in _candidates(pref_dir):
        try:
            mod = _try(folder)
        except Exception as e:  # ImportError, or an ABI mismatch raised from the .so
            tried.append("%s%s: %s" % (where, " (%s)" % folder if folder else "", e))
            if folder is not None and folder in sys.path:
                sys.path.remove(folder)
            continue
        _cache.update(module=mod, key=key, where=where)
        return mod
    raise ModuleMissing(
        "the mabkit Python module does not load into this Blender (Python %d.%d): %s. Build it with "
        "this Blender's Python (docs/blender.md) and set its folder in Edit > Preferences > Add-ons > "
        "Dunia/Disrupt animation" % (sys.version_info[0], sys.version_info[1], "; ".join(tried)))


def where():
    return _cache.get("where", "")
