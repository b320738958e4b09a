#!/usr/bin/env python3
"""Generate the SYNTHETIC .mab test corpus for mabkit.

Every file is assembled field by field from docs/format/README.md (the
"format reference") and the project decisions (docs/format/decisions.md); no real game data is involved and
nothing here calls or imports the C++ code.  The generator is deterministic: each file
has its own fixed seed, derived from its variant and name.

    python3 scripts/gen_corpus.py            # (re)write <repo>/corpus
    python3 scripts/gen_corpus.py --out DIR  # write somewhere else
    python3 scripts/gen_corpus.py --check    # regenerate into a temp dir and compare

Layout of the output:
    corpus/README.md                             (generated; table of every file)
    corpus/<variant>/<name>.mab                  good files
    corpus/<variant>/<name>.expected.json        what a correct reader reports
    corpus/bad/<name>.bad, <name>.expected.json  malformed files and the expected error

Before writing, every good file is re-read from its bytes by an independent reader
(scripts/corpus/reader.py: section decoder, bit reader, 6-byte quaternion decoder) and
compared with its expected JSON, so a packing mistake in the encoder fails the run.
The generator itself is the package scripts/corpus/ (its __init__.py lists the parts):
add a good file in good.py, a bad one as a row of the table in bad.py.
"""

import sys

from corpus.driver import main

if __name__ == "__main__":
    sys.exit(main())
