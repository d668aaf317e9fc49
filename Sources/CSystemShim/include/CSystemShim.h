// Why this shim exists: the Linux calls Swift cannot make, as they take macros
// it does not import: passing descriptors over a Unix socket (SCM_RIGHTS, the
// CMSG_* macros) and choosing a thread's cores (cpu_set_t's CPU_* macros).
#ifndef CSYSTEMSHIM_H
#define CSYSTEMSHIM_H

#include <stddef.h>
#include <sys/types.h>

/// The most descriptors one message carries: a file and the renditions drawn from it.
#define CSYSTEMSHIM_MAX 8

// Sends `length` bytes as one message on `socket`, carrying copies of the `count`
// descriptors at `descriptors` (at most CSYSTEMSHIM_MAX). Returns what sendmsg
// returns (-1 with errno set on failure); never raises SIGPIPE.
ssize_t CSystemShim_send(int socket, const void *bytes, size_t length, const int *descriptors, int count);

// The core the calling thread runs on (-1 when unknown).
int CSystemShim_current_core(void);

// Keeps the calling thread off `core` from now on, when the process may run on
// another one. Returns 0 when it did, -1 when it could not or there is no other.
int CSystemShim_leave_core(int core);

#endif
