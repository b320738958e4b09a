#!/usr/bin/env python3
"""`mab survey` end to end (ctest `survey_*`).

  --mode dump:    a small dump from scripts/gen_dump.py; the survey agrees with `mab verify`
                  on every file and its statistics with what the generator put in; the JSON
                  and CSV have a row per file; the HTML report parses as XML.
  --mode hostile: zero-byte and oversized files, a symbolic link loop, a broken link,
                  unreadable files and folders (run as `nobody` when the test runs as root),
                  and SIGINT / SIGTERM in the middle: reported, never a hang or a crash.
"""
import argparse
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(cmd, timeout=300, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)


def gen_dump(out, files, seed):
    p = run([sys.executable, os.path.join(ROOT, "scripts", "gen_dump.py"), out, "--files", str(files), "--seed", str(seed),
             "--jobs", "2"])
    if p.returncode != 0:
        fail("gen_dump failed: " + p.stderr[-2000:])
    with open(os.path.join(out, "manifest.json")) as f:
        return json.load(f)


def hist(summary, name):
    return {k: v["count"] for k, v in summary["histograms"].get(name, {}).items()}


def dump_mode(mab, work):
    dump = os.path.join(work, "dump")
    manifest = gen_dump(dump, 150, 7)
    js, cs, hs = (os.path.join(work, n) for n in ("s.json", "s.csv", "s.html"))
    p = run([mab, "survey", dump, "--json", js, "--csv", cs, "--html", hs, "--json-check", "1", "-j", "2"])
    if p.returncode != 0:
        fail("survey of a clean dump exited %d\n%s%s" % (p.returncode, p.stdout, p.stderr))
    with open(js) as f:
        doc = json.load(f)
    rows = {r["path"]: r for r in doc["files"]}
    if len(rows) != manifest["files"]:
        fail("%d rows for %d files" % (len(rows), manifest["files"]))
    with open(cs) as f:
        if sum(1 for _ in csv.DictReader(f)) != manifest["files"]:
            fail("CSV row count")
    # Every file as `mab verify` sees it.
    v = run([mab, "verify", "--json", dump])
    verify = {r["path"]: r for r in json.loads(v.stdout)["files"]}
    for path, r in rows.items():
        vr = verify.get(path)
        if vr is None:
            fail("verify did not see " + path)
        if (vr["status"] == "pass") != (r["round_trip"] and r["errors"] == 0):
            fail("%s: verify says %s, survey round_trip=%s errors=%d" % (path, vr["status"], r["round_trip"], r["errors"]))
        if r["json_identity"] is not True or not r["sane"]:
            fail("%s: %s" % (path, r))
    s = doc["summary"]
    # Statistics against the generator.
    variants = {k: (b["count"], b["bytes"]) for k, b in s["histograms"]["files and bytes by variant"].items()}
    want = {k: (x["files"], x["bytes"]) for k, x in manifest["variants"].items()}
    if variants != want:
        fail("files/bytes by variant: survey %s, generator %s" % (variants, want))
    ani = ("wd1", "wdl", "wd2", "fc5", "fc4")
    for name, key in (("bone flag bytes", "bone_flags"), ("bit depths of animated bones", "bit_depths"),
                      ("'aNi' flags byte", "ani_flags")):
        got = {k: c for k, c in hist(s, name).items() if k.split()[0] in ani}
        if got != manifest[key]:
            fail("%s: survey %s\ngenerator %s" % (name, got, manifest[key]))
    if s["files"] != manifest["files"] or s["round_trips"] != manifest["files"] or s["json_ok"] != manifest["files"]:
        fail("summary counts: %s" % {k: s[k] for k in ("files", "round_trips", "json_ok")})
    ET.parse(hs)  # the report is well-formed XML (XHTML)
    with open(hs) as f:
        page = f.read()
    if "<svg" not in page or "http" in page.replace("http://www.w3.org/", ""):
        fail("the HTML report has no SVG or refers to the network")
    print("PASS: %d files; survey = verify on every file; variants, bone flags, bit depths and 'aNi' flags match the "
          "generator; HTML parses" % manifest["files"])


def hostile_mode(mab, work):
    tree = os.path.join(work, "tree")
    gen_dump(tree, 40, 11)
    odd = os.path.join(tree, "odd")
    os.makedirs(odd)
    open(os.path.join(odd, "empty.mab"), "wb").close()
    with open(os.path.join(odd, "huge.mab"), "wb") as f:
        f.truncate(300 << 20)  # sparse: above the 256 MiB limit
    os.symlink("..", os.path.join(odd, "loop"))
    os.symlink("nowhere.mab", os.path.join(odd, "broken.mab"))
    locked_dir = os.path.join(odd, "locked")
    os.makedirs(locked_dir)
    shutil.copy(os.path.join(ROOT, "corpus", "wd1", "long_k100.mab"), os.path.join(locked_dir, "inside.mab"))
    locked_file = os.path.join(odd, "locked.mab")
    shutil.copy(os.path.join(ROOT, "corpus", "wd1", "long_k100.mab"), locked_file)
    os.chmod(locked_dir, 0)
    os.chmod(locked_file, 0)
    cmd = [mab, "survey", tree, "--json", os.path.join(work, "h.json"), "--html", os.path.join(work, "h.html")]
    as_nobody = os.geteuid() == 0 and shutil.which("setpriv")
    if as_nobody:
        for d, _, fs in os.walk(work):
            os.chmod(d, 0o777 if d != locked_dir else 0)
        os.chmod(work, 0o777)
        cmd = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] + cmd
    p = run(cmd, timeout=120)
    os.chmod(locked_dir, 0o755)
    if p.returncode != 1:
        fail("hostile tree: exit %d (1 expected: some files do not round-trip)\n%s%s" % (p.returncode, p.stdout, p.stderr))
    with open(os.path.join(work, "h.json")) as f:
        doc = json.load(f)
    rows = {os.path.basename(r["path"]): r for r in doc["files"]}
    problems = " | ".join(doc["summary"]["walk_problems"])
    checks = [("empty.mab" in rows and rows["empty.mab"]["error_code"] == "truncated", "zero-byte file"),
              ("huge.mab" in rows and rows["huge.mab"]["error_code"] == "limit_exceeded", "huge file"),
              ("symbolic link loop" in problems, "symlink loop"),
              ("broken symbolic link" in problems, "broken link")]
    if as_nobody:
        checks += [("locked.mab" in rows and rows["locked.mab"]["error_code"] == "io_error", "unreadable file"),
                   ("locked: cannot be listed" in problems, "unreadable folder")]
    for ok, what in checks:
        if not ok:
            fail("%s not reported\nrows: %s\nproblems: %s" % (what, sorted(rows), problems))
    ET.parse(os.path.join(work, "h.html"))
    # Interrupted in the middle: the partial report, in a valid JSON file, and exit 1.
    big = os.path.join(work, "big")
    gen_dump(big, 600, 13)
    for sig in (signal.SIGINT, signal.SIGTERM):
        out = os.path.join(work, "int.json")
        proc = subprocess.Popen([mab, "survey", big, "-j", "1", "--json-check", "1", "--json", out],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # In the middle means once rows reach the report's temporary file, .int.json.tmpNNNNNN
        # next to it (docs/cli.md; a fixed delay sent the signal before the handler was installed
        # when a loaded machine started the process slowly).
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if any(f.startswith(".int.json.tmp") and os.path.getsize(os.path.join(work, f)) > 0
                   for f in os.listdir(work)):
                break
            time.sleep(0.02)
        proc.send_signal(sig)
        try:
            stdout, _ = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            fail("the survey hung after %s" % sig.name)
        if proc.returncode != 1 or "INTERRUPTED" not in stdout:
            fail("after %s: exit %d\n%s" % (sig.name, proc.returncode, stdout))
        with open(out) as f:
            doc = json.load(f)
        if not doc["summary"]["interrupted"] or not (0 < len(doc["files"]) < 600):
            fail("after %s: %d rows, interrupted=%s" % (sig.name, len(doc["files"]), doc["summary"]["interrupted"]))
    print("PASS: zero-byte, huge, looped, broken%s entries reported; SIGINT and SIGTERM give partial reports" %
          (", unreadable" if as_nobody else ""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mab", required=True)
    ap.add_argument("--mode", choices=["dump", "hostile"], required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    if os.path.exists(a.work):
        for d, _, _ in os.walk(a.work):
            os.chmod(d, 0o755)
        shutil.rmtree(a.work)
    os.makedirs(a.work)
    (dump_mode if a.mode == "dump" else hostile_mode)(a.mab, a.work)


if __name__ == "__main__":
    main()
