"""The generator of the synthetic corpus (scripts/gen_corpus.py runs it). Standard library only.

    base.py           deterministic rng, float rounding, coverage statistics
    spec.py           the format as the format reference gives it: magics, layouts, 6-byte quaternion,
                      bitstream formulas, section extents, slot tables
    bits.py           LSB-first bit writer, and the reader the oracle uses
    ani_writer.py     rotation bitstreams, clips, and the WD1/WDL/WD2/FC5/FC4 containers
    legacy_writer.py  Far Cry 2/3 clips and retail banks
    motion_writer.py  translations, root motion and part entries (docs/motion.md)
    reader.py         the oracle: re-reads every good file from its bytes
    motion_reader.py  the oracle's reading of the motion hypotheses (docs/motion.md)
    good.py           the good files
    bad.py            the bad files, one table row each
    driver.py         generate, --check, corpus/README.md (from readme_head.md)
"""
