// Transparent huge pages for the commands that touch memory in proportion to the clip.
//
// On a machine where the first touch of a fresh 4 KiB page is slow (12-18 us on the
// development VM, scripts/bench/cli prints it), page faults were most of the time of `mab
// import` (7,200 faults of a 7 MB document: 9.6x `mab verify`) and a third of `mab edit`'s.
// glibc's malloc asks for huge pages when its tunable glibc.malloc.hugetlb=1 is set, which
// took `import` from 103.9 to 52.5 ms there (7,198 -> 2,126 faults; docs/performance.md);
// where the kernel has THP off, nothing changes but a second start.
#pragma once

namespace mab::cli {

// For convert, diff, edit and import naming a file of 256 KiB or more (any size with
// MAB_HUGE_PAGES=1, never with MAB_HUGE_PAGES=0), and only when GLIBC_TUNABLES is unset:
// re-executes this program with GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (same pid, arguments
// and standard streams). Returns when it does not apply or the re-exec fails. Sanitizer
// builds re-execute too (their allocator ignores the tunable) so that tests cover the path.
void use_huge_pages(int argc, char** argv);

}  // namespace mab::cli
