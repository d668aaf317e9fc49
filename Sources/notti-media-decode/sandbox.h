// The decoders' sandbox (SPEC 17): a file's bytes are decoded (by the format
// libraries, libvips's loaders for what they leave, or FFmpeg's for a stream) in a child of the worker, forked for the
// file, which installs a seccomp filter (libseccomp) before it reads a byte: it
// may allocate memory, start threads, read the mapped file, write its answer to
// its pipe (and a render's or a fix's output to the descriptors the tool made for
// it) and end; any other system call (open or openat of a path, socket,
// connect, execve, ptrace, fork or a clone that starts a process, a mapping made
// executable …) kills it. The worker then ends by the same signal,
// which the tool treats as any worker that stops: "the decoder stopped", one
// record, and a new worker for the next file.
#ifndef NOTTI_DECODE_SANDBOX_H
#define NOTTI_DECODE_SANDBOX_H

#include "door.h"

#include <stddef.h>

/// Runs `work(context, answer)` in a child forked for it, behind the filter (`sandbox_enter`), and hands back
/// the facts it answered, once they pass `door_facts_check` (door.h): the child reads hostile bytes, so nothing
/// of its answer is used before every field is checked. What `work` reads must be in memory before the call
/// (a file mapped, not opened). Returns 1 when a whole, valid answer came. Otherwise 0, with `answer` saying
/// why: DOOR_DECODER_FAILED when no child could start (no pipe, a failed fork), when it ended without a whole
/// answer, or when it answered more than one record or one the door refuses; DOOR_SANDBOX_UNAVAILABLE when the
/// filter could not be installed in it. A child killed by a signal (the filter's SIGSYS, a crash, the memory
/// limit's SIGSEGV) ends the worker by the same signal: the tool says "the decoder stopped" for this file
/// alone, as for any worker that stops. `name` is the file's format or MIME type, for the tests' planted call
/// (`sandbox_try_forbidden_call`).
int sandbox_run(const char *name, void (*work)(void *context, DoorFacts *answer), void *context, DoorFacts *answer);

/// The most descriptors `sandbox_run_writing` hands a child, and the number the first has in it.
enum { SANDBOX_MOST_OUTPUTS = 8, SANDBOX_FIRST_OUTPUT = 4 };

/// `sandbox_run`, for work that writes files (the preview's renditions, `fix`'s picture, still or video): the
/// `count` descriptors in `outputs`, which the tool made for this request, are the child's descriptors
/// SANDBOX_FIRST_OUTPUT, SANDBOX_FIRST_OUTPUT + 1, …, and the filter lets it write to them and nothing else
/// beside its answer.
int sandbox_run_writing(const char *name, void (*work)(void *context, DoorFacts *answer), void *context, DoorFacts *answer,
                        const int *outputs, int count);

/// Writes `length` bytes to `fd` whole (a child's output: one of the descriptors above). 0 when they were.
int sandbox_write_all(int fd, const void *bytes, size_t length);

/// The file in `descriptor` mapped for a child to read (what `sandbox_run`'s work reads is mapped before the
/// fork: the child opens, stats and maps nothing). Sets `*length`; an empty file is "" and 0. NULL when it
/// cannot be read. Unmap with `sandbox_unmap`.
const unsigned char *sandbox_map(int descriptor, size_t *length);
void sandbox_unmap(const unsigned char *bytes, size_t length);

/// Installs the filter in the calling process (the forked child): `answer` and the `outputs` descriptors after
/// it are the ones it may write to. Returns 0 when it is on; -1 when libseccomp refused (the child then decodes nothing).
int sandbox_enter(int answer, int outputs);

/// The value of the environment's `name` in a build for tests (`NOTTI_DECODE_TEST_HOOKS`, debug builds), the
/// tests' hooks; NULL in a release build, whatever the environment says.
const char *sandbox_test_hook(const char *name);

/// In a build for tests only (`NOTTI_DECODE_TEST_HOOKS`, debug builds), the faults a child's machine or a
/// compromised decoder can give, named by the environment: NOTTI_MEDIA_DECODE_FORK_FAILS (no child can start, as
/// with a full process table), NOTTI_MEDIA_DECODE_NO_FILTER (the filter cannot be installed), and
/// NOTTI_MEDIA_DECODE_BAD_ANSWER=long|unterminated|enum (the child answers more than one record, a detail with
/// no terminator, a status out of range), and NOTTI_MEDIA_DECODE_DELAY_MS=N (a decode that takes N ms more).
/// A release build ignores them.

/// In a build for tests only (`NOTTI_DECODE_TEST_HOOKS`, debug builds): the call named by the environment's
/// NOTTI_MEDIA_DECODE_TRY (`open`, `openat`, `socket`, `connect`, `execve`, `ptrace`, `fork`; `CALL:png` for one
/// picture format's files, `CALL:video/mp4` for one stream type's; `CALL:render:image/png`, `CALL:fix:video/mp4`,
/// `CALL:poster:video` for a render, a fix or a poster), attempted after the filter is on, as a
/// compromised decoder would. A release build ignores it.
void sandbox_try_forbidden_call(const char *format);

#endif
