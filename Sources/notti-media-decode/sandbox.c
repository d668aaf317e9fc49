// The seccomp allow-list of a decoding child (sandbox.h). Each call is on it for a reason:
//   brk, mmap, munmap, mremap, madvise, mprotect  malloc's heap and arenas, and the decoders'
//                                                 buffers (mmap and mprotect never with PROT_EXEC)
//   write                                         the answer, to its pipe, and a render's or a fix's
//                                                 output, to the descriptors the tool made for it, alone; a library's message to
//                                                 the standard descriptors (dav1d's "Unknown OBU type")
//                                                 fails with EBADF, as they are closed
//   read, lseek, close                            harmless without a way to open anything
//   futex                                         glibc's locks
//   exit, exit_group                              the end
//   rt_sigreturn, rt_sigprocmask, rt_sigaction    abort()'s path, should a library call it; glibc's
//                                                 thread start installs its cancellation handler
//   clone with CLONE_THREAD, set_robust_list, rseq  a thread of its own (libde265 and dav1d decode on
//                                                 threads): a thread, never a process; clone3, whose
//                                                 flags a filter cannot read, fails with ENOSYS,
//                                                 so glibc falls back to clone
//   sched_getaffinity                             dav1d counts the cores it may use (its own mask)
//   prctl PR_SET_NAME                             dav1d names its threads ("dav1d-worker")
//   kill, tgkill, getpid, gettid                  abort() raising SIGABRT on itself (its own pid only)
//   clock_gettime, gettimeofday                   timers some decoders read (usually without a call)
//   getrandom                                     glibc's malloc and hash seeds
//   umask                                         libvips sets it before a temporary file it never gets
//                                                 to make here (no open); it changes nothing else
//   sysinfo, times                                libtiff and ImageMagick read the memory size and the
//                                                 process's times
//   newfstatat, answered ENOENT                   ImageMagick asks whether its "BMP:" names a file: no
//                                                 path exists to a child (nor does it learn which do)
// Everything else kills the child: SCMP_ACT_KILL_PROCESS, so no thread of it goes on.
#define _GNU_SOURCE
#include "sandbox.h"

#include "sanitizer.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int sandbox_enter(int answer, int outputs) {
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
    ALLOW(rt_sigaction);
    ALLOW(set_robust_list);
    ALLOW(rseq);
    ALLOW(sched_getaffinity);
    ALLOW(getpid);
    ALLOW(gettid);
    ALLOW(clock_gettime);
    ALLOW(gettimeofday);
    ALLOW(getrandom);
    ALLOW(umask);
    ALLOW(sysinfo);
    ALLOW(times);
#undef ALLOW
    failed |= seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOENT), SCMP_SYS(newfstatat), 0);
    // Memory, never executable: a decoder's overflow cannot map code of its own.
    failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
    failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
    // Threads, not processes: fork (a clone without CLONE_THREAD) stays forbidden.
    failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD));
    failed |= seccomp_rule_add(filter, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1, SCMP_A0(SCMP_CMP_EQ, PR_SET_NAME));
    // The answer's pipe and the request's outputs, and nothing else, are written to.
    for (int fd = answer; fd <= answer + outputs; fd++) {
        failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(write), 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)fd));
    }
    failed |= seccomp_rule_add(filter, SCMP_ACT_ERRNO(EBADF), SCMP_SYS(write), 1, SCMP_A0(SCMP_CMP_LE, 2));
    // Signals to itself only.
    pid_t self = getpid();
    failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(kill), 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)self));
    failed |= seccomp_rule_add(filter, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)self));
    if (!failed) failed = seccomp_load(filter);
    seccomp_release(filter);
    return failed ? -1 : 0;
}

/// Always, but in a build for tests run under valgrind (scripts/lib/worker-leakcheck.py sets
/// NOTTI_MEDIA_DECODE_UNFILTERED): valgrind cannot run seccomp (system call 317), so a filtered child
/// would end before it decodes, and the leak check would never reach the format libraries or FFmpeg.
static int filter_wanted(void) { return sandbox_test_hook("NOTTI_MEDIA_DECODE_UNFILTERED") == NULL; }

const char *sandbox_test_hook(const char *name) {
#ifdef NOTTI_DECODE_TEST_HOOKS
    return getenv(name);
#else
    (void)name;
    return NULL;
#endif
}

int sandbox_write_all(int fd, const void *bytes, size_t length) {
    const char *at = bytes;
    while (length > 0) {
        ssize_t written = write(fd, at, length);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return -1;
        at += written;
        length -= (size_t)written;
    }
    return 0;
}

const unsigned char *sandbox_map(int descriptor, size_t *length) {
    struct stat info;
    *length = 0;
    if (fstat(descriptor, &info) != 0 || info.st_size < 0) return NULL;
    if (info.st_size == 0) return (const unsigned char *)"";
    void *bytes = mmap(NULL, (size_t)info.st_size, PROT_READ, MAP_PRIVATE, descriptor, 0);
    if (bytes == MAP_FAILED) return NULL;
    *length = (size_t)info.st_size;
    return bytes;
}

void sandbox_unmap(const unsigned char *bytes, size_t length) {
    if (bytes && length > 0) munmap((void *)bytes, length);
}

int sandbox_run(const char *name, void (*work)(void *context, DoorFacts *answer), void *context, DoorFacts *answer) {
    return sandbox_run_writing(name, work, context, answer, NULL, 0);
}

/// In the child: its answer's pipe as descriptor 3 and the outputs as SANDBOX_FIRST_OUTPUT, …, every other
/// descriptor closed. Each is first copied above any number it goes to, so none is closed by another's move.
static int renumber(int answer, const int *outputs, int count) {
    int moved[1 + SANDBOX_MOST_OUTPUTS];
    for (int i = 0; i <= count; i++) {
        if ((moved[i] = fcntl(i == 0 ? answer : outputs[i - 1], F_DUPFD, 64)) < 0) return -1;
    }
    for (int i = 0; i <= count; i++) {
        if (dup2(moved[i], 3 + i) < 0) return -1;
    }
    close_range(0, 2, 0);
    close_range(4 + (unsigned)count, ~0U, 0);
    return 0;
}

/// A child's exit status when the filter could not be installed (it decoded nothing).
enum { NO_FILTER_EXIT = 121 };

/// The tests' compromised child (NOTTI_MEDIA_DECODE_BAD_ANSWER): its answer made one the door must refuse.
/// Returns how many bytes past the record it writes.
static size_t spoil_answer(DoorFacts *answer) {
    const char *bad = sandbox_test_hook("NOTTI_MEDIA_DECODE_BAD_ANSWER");
    if (!bad) return 0;
    if (!strcmp(bad, "unterminated")) memset(answer->detail, 'x', sizeof answer->detail);
    if (!strcmp(bad, "enum")) answer->status = 77;
    return !strcmp(bad, "long") ? 4096 : 0;
}

/// The tests' slow decoder (NOTTI_MEDIA_DECODE_DELAY_MS): the child waits that long before it answers, on the
/// clock alone (a sleep is a call the filter refuses), so that a test can end the run while a decode is under way.
static void linger(void) {
    const char *delay = sandbox_test_hook("NOTTI_MEDIA_DECODE_DELAY_MS");
    if (!delay) return;
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    long long wanted = strtoll(delay, NULL, 10) * 1000000LL;
    do {
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while ((now.tv_sec - start.tv_sec) * 1000000000LL + (now.tv_nsec - start.tv_nsec) < wanted);
}

/// `answer` made the failure `status`, in `words`.
static int refused(DoorFacts *answer, DoorStatus status, const char *words) {
    door_begin(answer);
    door_status(answer, status, words);
    return 0;
}

int sandbox_run_writing(const char *name, void (*work)(void *context, DoorFacts *answer), void *context, DoorFacts *answer,
                        const int *outputs, int count) {
    if (count < 0 || count > SANDBOX_MOST_OUTPUTS) return refused(answer, DOOR_DECODER_FAILED, "too many outputs for one child");
    int pipe_ends[2];
    if (pipe2(pipe_ends, O_CLOEXEC) != 0) {
        char words[DOOR_DETAIL_BYTES];
        snprintf(words, sizeof words, "the decoder's child could not start: no pipe (%s)", strerror(errno));
        return refused(answer, DOOR_DECODER_FAILED, words);
    }
    pid_t parent = getpid();
    pid_t child = sandbox_test_hook("NOTTI_MEDIA_DECODE_FORK_FAILS") ? (errno = EAGAIN, -1) : fork();
    if (child == 0) {
        // Gone with the worker (the tool kills a worker past a record's deadline); nothing of the tool's in reach.
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(1);
        // A write the worker no longer reads (an answer longer than one record) fails, and the child ends; it is
        // not a signal, which the worker would take for a decoder's crash.
        signal(SIGPIPE, SIG_IGN);
        if (renumber(pipe_ends[1], outputs, count) != 0) _exit(1);
        int out = 3;
        // The tests' machine where the filter cannot be installed (sandbox.h), sanitizer builds included.
        if (sandbox_test_hook("NOTTI_MEDIA_DECODE_NO_FILTER")) _exit(NO_FILTER_EXIT);
#ifndef UNDER_SANITIZER
        if (filter_wanted() && sandbox_enter(out, count) != 0) _exit(NO_FILTER_EXIT);
#endif
        sandbox_try_forbidden_call(name);
        door_begin(answer);
        work(context, answer);
        linger();
        size_t past = spoil_answer(answer);
        int failed = sandbox_write_all(out, answer, sizeof *answer) != 0;
        for (size_t i = 0; i < past && !failed; i++) failed = sandbox_write_all(out, "!", 1) != 0;
        _exit(failed ? 1 : 0);
    }
    int fork_error = errno;
    close(pipe_ends[1]);
    // One byte more than a record is read: a child that answers more is refused, not cut to size.
    size_t got = 0;
    char extra;
    while (child > 0 && got <= sizeof *answer) {
        char *into = got < sizeof *answer ? (char *)answer + got : &extra;
        ssize_t part = read(pipe_ends[0], into, got < sizeof *answer ? sizeof *answer - got : 1);
        if (part < 0 && errno == EINTR) continue;
        if (part <= 0) break;
        got += (size_t)part;
    }
    close(pipe_ends[0]);
    char words[DOOR_DETAIL_BYTES];
    if (child < 0) {
        snprintf(words, sizeof words, "the decoder's child could not start: fork failed (%s)", strerror(fork_error));
        return refused(answer, DOOR_DECODER_FAILED, words);
    }
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
    if (WIFSIGNALED(status)) {
        signal(WTERMSIG(status), SIG_DFL);
        raise(WTERMSIG(status));
        _exit(128 + WTERMSIG(status));
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == NO_FILTER_EXIT) {
        return refused(answer, DOOR_SANDBOX_UNAVAILABLE,
                       "the decoders' system-call filter cannot be installed on this machine (seccomp refused it)");
    }
    if (got > sizeof *answer) return refused(answer, DOOR_DECODER_FAILED, "the decoder's child answered more than one facts record");
    if (got < sizeof *answer || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        return refused(answer, DOOR_DECODER_FAILED, "the decoder's child ended without an answer");
    }
    char why[256];
    if (!door_facts_check(answer, why, sizeof why)) {
        snprintf(words, sizeof words, "the decoder's child answered what the door does not allow: %s", why);
        return refused(answer, DOOR_DECODER_FAILED, words);
    }
    return 1;
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
