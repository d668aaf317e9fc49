// Why this shim exists: passing descriptors over a Unix socket (SCM_RIGHTS)
// takes the CMSG_* macros, which Swift cannot call.
#ifndef CDESCRIPTORSHIM_H
#define CDESCRIPTORSHIM_H

#include <stddef.h>
#include <sys/types.h>

/// The most descriptors one message carries: a file and the renditions drawn from it.
#define CDESCRIPTORSHIM_MAX 8

// Sends `length` bytes as one message on `socket`, carrying copies of the `count`
// descriptors at `descriptors` (at most CDESCRIPTORSHIM_MAX). Returns what sendmsg
// returns (-1 with errno set on failure); never raises SIGPIPE.
ssize_t CDescriptorShim_send(int socket, const void *bytes, size_t length, const int *descriptors, int count);

#endif
