// The decoders' sandbox (SPEC 17): a picture's bytes are decoded by the format
// libraries in a child of the worker, forked for the file, which installs a
// seccomp filter (libseccomp) before it reads a byte: it may allocate memory,
// read the mapped file, write its answer to its pipe and end; any other system
// call (open or openat of a path, socket, connect, execve, ptrace, fork or clone,
// a mapping made executable …) kills it. The worker then ends by the same signal,
// which the tool treats as any worker that stops: "the decoder stopped", one
// record, and a new worker for the next file.
#ifndef NOTTI_DECODE_SANDBOX_H
#define NOTTI_DECODE_SANDBOX_H

/// Installs the filter in the calling process (the forked child): `answer` is the one descriptor it may
/// write to. Returns 0 when it is on; -1 when libseccomp refused (the child then decodes nothing).
int sandbox_enter(int answer);

/// In a build for tests only (`NOTTI_DECODE_TEST_HOOKS`, debug builds): the call named by the environment's
/// NOTTI_MEDIA_DECODE_TRY (`open`, `openat`, `socket`, `connect`, `execve`, `ptrace`, `fork`; `CALL:png` for one
/// format's files), attempted after the filter is on, as a compromised decoder would. A release build ignores it.
void sandbox_try_forbidden_call(const char *format);

#endif
