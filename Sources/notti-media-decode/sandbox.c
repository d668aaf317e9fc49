// The seccomp allow-list of a decoding child (sandbox.h). Each call is on it for a reason:
//   brk, mmap, munmap, mremap, madvise, mprotect  malloc's heap and arenas, and the decoders'
//                                                 buffers (mmap and mprotect never with PROT_EXEC)
//   write                                         the answer, to its pipe alone
//   read, lseek, close                            harmless without a way to open anything
//   futex                                         glibc's locks
//   exit, exit_group                              the end
//   rt_sigreturn, rt_sigprocmask                  abort()'s path, should a library call it
//   kill, tgkill, getpid, gettid                  abort() raising SIGABRT on itself (its own pid only)
//   clock_gettime, gettimeofday                   timers some decoders read (usually without a call)
//   getrandom                                     glibc's malloc and hash seeds
// Everything else kills the child: SCMP_ACT_KILL_PROCESS, so no thread of it goes on.
#define _GNU_SOURCE
#include "sandbox.h"

#include <fcntl.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

int sandbox_enter(int answer) {
    scmp_filter_ctx filter = seccomp_init(SCMP_ACT_KILL_PROCESS);
    if (!filter) return -1;
    int failed = 0;
#define ALLOW(name) failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(name), 0)
    ALLOW(brk);
    ALLOW(munmap);
    ALLOW(mremap);
    ALLOW(madvise);
    ALLOW(read);
    ALLOW(lseek);
    ALLOW(close);
    ALLOW(futex);
    ALLOW(exit);
    ALLOW(exit_group);
    ALLOW(rt_sigreturn);
    ALLOW(rt_sigprocmask);
    ALLOW(getpid);
    ALLOW(gettid);
    ALLOW(clock_gettime);
    ALLOW(gettimeofday);
    ALLOW(getrandom);
#undef ALLOW
    // Memory, never executable: a decoder's overflow cannot map code of its own.
    failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
    failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
    // The answer's pipe, and nothing else, is written to.
    failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(write), 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)answer));
    // Signals to itself only.
    pid_t self = getpid();
    failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(kill), 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)self));
    failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)self));
    if (!failed) failed = seccomp_load(filter);
    seccomp_release(filter);
    return failed ? -1 : 0;
}

void sandbox_try_forbidden_call(const char *format) {
#ifdef NOTTI_DECODE_TEST_HOOKS
    // `CALL`, or `CALL:FORMAT` for that format's files alone.
    const char *named = getenv("NOTTI_MEDIA_DECODE_TRY");
    if (!named) return;
    char call[32];
    snprintf(call, sizeof call, "%s", named);
    char *colon = strchr(call, ':');
    if (colon) {
        *colon = 0;
        if (strcmp(colon + 1, format) != 0) return;
    }
    if (!strcmp(call, "open")) syscall(SYS_open, "/etc/hostname", O_RDONLY);
    if (!strcmp(call, "openat")) openat(AT_FDCWD, "/etc/hostname", O_RDONLY);
    if (!strcmp(call, "socket")) socket(AF_INET, SOCK_STREAM, 0);
    if (!strcmp(call, "connect")) syscall(SYS_connect, 0, NULL, 0);
    if (!strcmp(call, "execve")) {
        char *const argv[] = {"true", NULL};
        execve("/bin/true", argv, NULL);
    }
    if (!strcmp(call, "ptrace")) ptrace(PTRACE_TRACEME, 0, NULL, NULL);
    if (!strcmp(call, "fork")) fork();
#else
    (void)format;
#endif
}
