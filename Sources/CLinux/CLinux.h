// Linux calls that glibc declares only under _GNU_SOURCE, which Swift's Glibc
// module is built without. They are in every glibc since 2.28 (Debian 10).
#ifndef CLINUX_H
#define CLINUX_H

// No #include: a header of glibc's here would hand its types (mode_t, ...) to
// this module, and Swift would then see them as CLinux's, not Glibc's.

// rename(2) with flags: fails with EEXIST instead of replacing, or swaps two names atomically.
int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags);

#define CLINUX_RENAME_NOREPLACE 1U
#define CLINUX_RENAME_EXCHANGE 2U

#endif
