#!/usr/bin/env python3
"""Per-file coverage table and the guard of scripts/coverage (reads `llvm-cov export -summary-only`).

Prints lines, functions and branches for every file under lib/src and cli/, the totals of each,
marks files under the per-file floors (90 % lines, 80 % branches) and whether docs/coverage.md
names them as exceptions, and ends with `coverage: lines NN.N% branches NN.N%` (lib/src totals).

--check   fails (exit 1) if a lib/src total is more than TOLERANCE points below the figures on
          the `Recorded lib/src totals:` line of docs/coverage.md, the one place the guard reads.
--record  rewrites that line with the measured totals.
"""
import argparse
import json
import os
import re
import sys

FLOOR_LINES = 90.0
FLOOR_BRANCHES = 80.0
TOLERANCE = 1.0
RECORD_RE = re.compile(r'^Recorded lib/src totals: lines ([0-9.]+)% branches ([0-9.]+)%\s*$', re.M)
GROUPS = ('lib/src/', 'cli/')


def pct(covered, count):
    return 100.0 * covered / count if count else 100.0


def fmt(covered, count):
    return '%5.1f%% %5d/%-5d' % (pct(covered, count), covered, count) if count else '    -            '


def exceptions(doc_text):
    """Files named (in backquotes) under the `## Per-file exceptions` heading."""
    m = re.search(r'^## Per-file exceptions\s*$(.*?)(?=^## |\Z)', doc_text, re.M | re.S)
    return set(re.findall(r'`((?:lib/src|cli)/[^`]+)`', m.group(1))) if m else set()


# Sources that leave no coverage data of their own: those a Linux build does not compile
# (CMakeLists.txt: Windows files NAME_win32.cpp, the crc-search solver stub for builds without
# NTL), and tinygltf's implementation, compiled from its system header (ignored as /usr/).
def built_here(rel):
    return not rel.endswith('_win32.cpp') and rel not in ('lib/src/checksum/solver_without_ntl.cpp',
                                                          'lib/src/interchange/gltf/tiny_gltf_impl.cpp')


def lib_sources(root):
    base = os.path.join(root, 'lib', 'src')
    out = []
    for d, _, names in os.walk(base):
        for n in names:
            rel = os.path.relpath(os.path.join(d, n), root).replace(os.sep, '/')
            if n.endswith('.cpp') and built_here(rel):
                out.append(rel)
    return sorted(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--json', required=True)
    ap.add_argument('--root', required=True)
    ap.add_argument('--doc', required=True)
    ap.add_argument('--check', action='store_true')
    ap.add_argument('--record', action='store_true')
    a = ap.parse_args()

    root = os.path.realpath(a.root) + '/'
    files = {}
    # A file compiled under two path spellings (some objects from a ccache with CCACHE_BASEDIR,
    # others without) is two entries, each counting only its own objects' code: no summary is
    # the whole file, so the figures cannot be trusted. Said, and the guard fails.
    spellings = {}
    for data in json.load(open(a.json))['data']:
        for f in data['files']:
            name = os.path.realpath(f['filename'])
            if name.startswith(root):
                rel = name[len(root):]
                spellings.setdefault(rel, []).append(f['summary'])
                if rel not in files or f['summary']['lines']['count'] > files[rel]['lines']['count']:
                    files[rel] = f['summary']
    split = sorted(n for n, v in spellings.items() if len(v) > 1)
    for n in split:
        print('coverage: %s is compiled under %d path spellings (%s lines counted apart): the build mixed '
              'objects compiled with and without CCACHE_BASEDIR; the larger is shown. Rebuild the coverage '
              'tree from scratch, or with one CCACHE_BASEDIR, for figures of the whole file'
              % (n, len(spellings[n]), ' + '.join(str(s['lines']['count']) for s in spellings[n])), file=sys.stderr)

    doc_path = os.path.join(a.root, a.doc)
    doc_text = open(doc_path).read() if os.path.exists(doc_path) else ''
    excused = exceptions(doc_text)

    totals = {}
    below = []
    for group in GROUPS:
        names = sorted(n for n in files if n.startswith(group))
        width = max([len(n) for n in names] + [30])
        print('%-*s  %-18s %-18s %-18s' % (width, group, 'lines', 'functions', 'branches'))
        sums = {k: [0, 0] for k in ('lines', 'functions', 'branches')}
        for n in names:
            s = files[n]
            for k in sums:
                sums[k][0] += s[k]['covered']
                sums[k][1] += s[k]['count']
            lp = pct(s['lines']['covered'], s['lines']['count'])
            bp = pct(s['branches']['covered'], s['branches']['count'])
            mark = ''
            if group == 'lib/src/' and (lp < FLOOR_LINES or bp < FLOOR_BRANCHES):
                mark = '  < floor (exception in docs/coverage.md)' if n in excused else '  < floor'
                if n not in excused:
                    below.append(n)
            print('%-*s  %s %s %s%s' % (width, n, fmt(s['lines']['covered'], s['lines']['count']),
                                        fmt(s['functions']['covered'], s['functions']['count']),
                                        fmt(s['branches']['covered'], s['branches']['count']), mark))
        print('%-*s  %s %s %s' % (width, 'TOTAL ' + group, fmt(*sums['lines']), fmt(*sums['functions']),
                                  fmt(*sums['branches'])))
        print()
        totals[group] = {k: pct(*v) for k, v in sums.items()}

    lib = totals['lib/src/']
    status = 0
    # A profile that does not match the tree (paths the filter missed, a stale build) leaves most
    # sources out, and totals over the few left can look perfect: every lib/src source this
    # platform compiles must be measured.
    unmeasured = [n for n in lib_sources(a.root) if n not in files]
    if unmeasured:
        print('coverage: FAIL: %d lib/src source(s) have no coverage data (the profile does not match '
              'the tree): %s' % (len(unmeasured), ' '.join(unmeasured[:10]) + (' ...' if len(unmeasured) > 10 else '')))
        status = 1
    if split and a.check:
        print('coverage: FAIL: %d file(s) measured in parts (path spellings above): the totals are not the '
              "tree's" % len(split))
        status = 1
    if below:
        print('coverage: %d lib/src file(s) under %.0f%% lines or %.0f%% branches and not named in '
              'docs/coverage.md: %s' % (len(below), FLOOR_LINES, FLOOR_BRANCHES, ' '.join(below)))
    m = RECORD_RE.search(doc_text)
    if a.record:
        line = 'Recorded lib/src totals: lines %.1f%% branches %.1f%%' % (lib['lines'], lib['branches'])
        if not m:
            sys.exit('coverage: no "Recorded lib/src totals:" line in %s to rewrite' % a.doc)
        open(doc_path, 'w').write(doc_text[:m.start()] + line + doc_text[m.end():])
        print('coverage: recorded in %s: %s' % (a.doc, line))
    elif a.check:
        if not m:
            sys.exit('coverage: no "Recorded lib/src totals:" line in %s' % a.doc)
        for key, recorded in (('lines', float(m.group(1))), ('branches', float(m.group(2)))):
            if lib[key] < recorded - TOLERANCE:
                print('coverage: FAIL: lib/src %s %.1f%% is more than %.0f point below the %.1f%% '
                      'recorded in %s' % (key, lib[key], TOLERANCE, recorded, a.doc))
                status = 1
        if status == 0:
            print('coverage: guard passed (recorded lines %s%% branches %s%%, tolerance %.0f point)'
                  % (m.group(1), m.group(2), TOLERANCE))
    print('coverage: lines %.1f%% branches %.1f%%' % (lib['lines'], lib['branches']))
    return status


if __name__ == '__main__':
    sys.exit(main())
