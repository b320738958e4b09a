#!/usr/bin/env python3
"""Runs zip_checks.py in headless Blender on an add-on zip (ctest blender_addon_behaviours on the
build's zip; scripts/package --check on dist/'s Linux zip):

    run_zip_checks.py --zip io_anim_mab-linux-x64.zip --work DIR [--corpus corpus]

Blender gets an empty user-scripts folder (BLENDER_USER_SCRIPTS) and no PYTHONPATH, so the
add-on can only run the mab in its zip. Exit 0 when every check passed.
"""
import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--zip", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--corpus", default=os.path.join(ROOT, "corpus"))
    args = ap.parse_args()
    blender = os.environ.get("MAB_BLENDER") or shutil.which("blender")
    if not blender:
        sys.exit("blender not found: run scripts/setup, which installs Debian's blender and python3-numpy")
    if not os.path.isfile(args.zip):
        sys.exit("no add-on zip at %s" % args.zip)
    shutil.rmtree(args.work, ignore_errors=True)
    user = os.path.join(args.work, "user_scripts")
    os.makedirs(user)
    env = dict(os.environ, PATH="/usr/bin:/bin:" + os.environ.get("PATH", ""), BLENDER_USER_SCRIPTS=user,
               BLENDER_USER_CONFIG=os.path.join(args.work, "user_config"))
    env.pop("PYTHONPATH", None)
    p = subprocess.run([blender, "-b", "--factory-startup", "--python-exit-code", "1", "--python",
                        os.path.join(HERE, "zip_checks.py"), "--", os.path.abspath(args.zip),
                        os.path.abspath(args.corpus), os.path.join(args.work, "files")],
                       capture_output=True, text=True, timeout=1200, env=env)
    out = p.stdout + p.stderr
    lines = [l for l in out.splitlines() if l.startswith(("PASS", "FAIL", "      ", "all checks", "Traceback"))
             or "check(s) failed" in l]
    print("\n".join(lines))
    if p.returncode != 0:
        print(out[-6000:])
        sys.exit("zip checks failed in Blender (exit %d)" % p.returncode)


if __name__ == "__main__":
    main()
