// Why this shim exists: passing a descriptor over a Unix socket (SCM_RIGHTS)
// takes the CMSG_* macros, which Swift cannot call.
#ifndef CDESCRIPTORSHIM_H
#define CDESCRIPTORSHIM_H

#include <stddef.h>
#include <sys/types.h>

// Sends `length` bytes as one message on `socket`, carrying a copy of `descriptor`.
// Returns what sendmsg returns (-1 with errno set on failure); never raises SIGPIPE.
ssize_t CDescriptorShim_send(int socket, const void *bytes, size_t length, int descriptor);

#endif
