#define _GNU_SOURCE
#include "CSystemShim.h"

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/socket.h>

ssize_t CSystemShim_send(int socket, const void *bytes, size_t length, const int *descriptors, int count) {
    if (count < 1 || count > CSYSTEMSHIM_MAX) {
        errno = EINVAL;
        return -1;
    }
    char control[CMSG_SPACE(sizeof(int) * CSYSTEMSHIM_MAX)];
    memset(control, 0, sizeof control);
    struct iovec part = {.iov_base = (void *)bytes, .iov_len = length};
    struct msghdr message = {
        .msg_iov = &part, .msg_iovlen = 1, .msg_control = control, .msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)count)};
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)count);
    memcpy(CMSG_DATA(header), descriptors, sizeof(int) * (size_t)count);
    ssize_t sent;
    do {
        sent = sendmsg(socket, &message, MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
    return sent;
}

int CSystemShim_current_core(void) { return sched_getcpu(); }

int CSystemShim_leave_core(int core) {
    cpu_set_t cores;
    if (core < 0 || core >= CPU_SETSIZE || sched_getaffinity(0, sizeof cores, &cores) != 0) return -1;
    CPU_CLR(core, &cores);
    if (CPU_COUNT(&cores) == 0) return -1;
    return sched_setaffinity(0, sizeof cores, &cores);
}
