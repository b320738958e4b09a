"""Process timings shared by scripts/bench/cli, gltf and json (import with PYTHONPATH=scripts/bench).

Each job is a command run as a child process; every job runs once per round, in turn, for
`rounds` rounds, so that the machine's drift between runs a minute apart (large on a shared
VM) weighs on all of them alike. For each job: wall time, CPU time (user + system of the
child) and minor page faults; the report gives the median and fastest wall time, the median
CPU time and faults, and the median against the job labelled `mab verify` of the same tag.
"""
import mmap
import os
import statistics
import subprocess
import sys
import time


class Job:
    def __init__(self, label, cmd, tag="now", note=None, ok=None):
        self.label, self.cmd, self.tag = label, cmd, tag
        self.note = note  # a callable giving a line printed under the job's row, or None
        self.ok = ok or (lambda status: status == 0)
        self.walls, self.cpus, self.faults = [], [], []


def clear_output(cmd):
    """Removes the file a command writes with -o, untimed: mab refuses to replace a file that
    holds the document's original clip without --in-place (docs/cli.md, "Outputs"), which the
    same import's output of the round before is; each run writes a new file, as a user's does."""
    for i, a in enumerate(cmd[:-1]):
        if a == "-o" and os.path.isfile(cmd[i + 1]):
            os.remove(cmd[i + 1])


def run_once(cmd):
    """(wall ms, CPU ms, minor faults, exit code) of one run, output discarded."""
    clear_output(cmd)
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = 1000 * (time.perf_counter() - t)
    return wall, 1000 * (ru.ru_utime + ru.ru_stime), ru.ru_minflt, os.waitstatus_to_exitcode(status)


def prepare(cmds, ok=lambda cmd, status: status == 0):
    """Runs each command once, untimed (inputs, warm caches); exits on a failure."""
    for cmd in cmds:
        clear_output(cmd)
        if not ok(cmd, subprocess.call(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)):
            sys.exit("%s failed" % " ".join(cmd))


def time_rounds(jobs, rounds):
    for _ in range(rounds):
        for job in jobs:
            wall, cpu, faults, status = run_once(job.cmd)
            if not job.ok(status):
                sys.exit("%s failed (exit %d)" % (" ".join(job.cmd), status))
            job.walls.append(wall)
            job.cpus.append(cpu)
            job.faults.append(faults)


def fresh_memory_us():
    """What a first touch of fresh memory costs here (it dominates short processes on some VMs)."""
    size = 64 << 20
    m = mmap.mmap(-1, size)
    t = time.perf_counter()
    for off in range(0, size, 4096):
        m[off] = 1
    us = 1e6 * (time.perf_counter() - t) / (size // 4096)
    m.close()
    return us


def report(jobs, title, label_width=42, tag_width=7):
    print(title)
    row = "%%-%ds %%-%ds %%9s %%9s %%9s %%8s %%10s" % (label_width, tag_width)
    print(row % ("command", "binary", "wall med", "wall min", "CPU med", "faults", "vs verify"))
    verify = {j.tag: statistics.median(j.walls) for j in jobs if j.label.startswith("mab verify")}
    line = "%%-%ds %%-%ds %%9.1f %%9.1f %%9.1f %%8d %%9.1fx" % (label_width, tag_width)
    for j in jobs:
        med = statistics.median(j.walls)
        print(line % (j.label, j.tag, med, min(j.walls), statistics.median(j.cpus), statistics.median(j.faults),
                      med / verify[j.tag]))
        if j.note:
            print("  " + j.note())
