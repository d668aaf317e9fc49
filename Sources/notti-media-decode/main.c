// notti-media-decode: the decode worker (SPEC 17). notti-media starts it on the
// first download that needs decoding and keeps it for the run: libvips and
// libavformat load about a hundred shared libraries, which the main binary's
// start-up never pays, and their large C code reads hostile bytes here, in a
// process of its own with its own memory limit, which the tool kills and
// restarts when it crashes or outlives a record's deadline.
//
// Protocol, on descriptor 3 (a SOCK_SEQPACKET socket): each request is one
// message, the sniffed MIME type as text, carrying the file's descriptor
// (SCM_RIGHTS); each answer is one message, a JSON object (reply.h). The worker
// exits when the socket closes.
#define _GNU_SOURCE
#include "reply.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vips/vips.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif

enum { CHANNEL = 3 };

/// Reads one request: the MIME type into `mime`, the descriptor into *fd (-1 when none came).
/// Returns 0 when the tool closed the socket, -1 on an error, 1 for a request.
static int receive(char *mime, size_t size, int *fd) {
    char control[CMSG_SPACE(sizeof(int))];
    struct iovec part = {.iov_base = mime, .iov_len = size - 1};
    struct msghdr message = {.msg_iov = &part, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    ssize_t length;
    do {
        length = recvmsg(CHANNEL, &message, MSG_CMSG_CLOEXEC);
    } while (length < 0 && errno == EINTR);
    if (length <= 0) return (int)length;
    mime[length] = 0;
    *fd = -1;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_RIGHTS) memcpy(fd, CMSG_DATA(header), sizeof(int));
    }
    return 1;
}

static void answer(const Reply *reply) {
    ssize_t sent;
    do {
        sent = send(CHANNEL, reply->text, reply->length, MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
    if (sent < 0) exit(1);
}

int warnings = 0;

/// libvips's module folder (`<libdir>/vips-modules-X.Y`), found from where libvips itself was loaded.
static char module_folder[4096];

static void locate_modules(void) {
    Dl_info library;
    if (!dladdr((void *)vips_init, &library) || !library.dli_fname) return;
    const char *slash = strrchr(library.dli_fname, '/');
    if (!slash) return;
    snprintf(module_folder, sizeof module_folder, "%.*s/vips-modules-%d.%d", (int)(slash - library.dli_fname),
             library.dli_fname, VIPS_MAJOR_VERSION, VIPS_MINOR_VERSION);
}

int load_module(const char *name) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.so", module_folder, name);
    // GModule runs the module's g_module_check_init, which registers its loaders; it stays open.
    return module_folder[0] && g_module_open(path, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL) != NULL;
}

/// libvips reports a decoder's warnings (libjpeg's "Corrupt JPEG data", say) through GLib's log:
/// counted, so a file that gave none is not decoded a second time to judge them; never printed.
static void count_warning(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain, (void)message, (void)data;
    if (level & G_LOG_LEVEL_WARNING) warnings++;
}

int main(int argc, char **argv) {
    // Only the channel (and the standard descriptors) from the tool.
    close_range(CHANNEL + 1, ~0U, 0);
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
#ifndef UNDER_SANITIZER
    // `--memory-mib N`: the most address space the decoders may take (a sanitizer reserves terabytes of it).
    if (argc == 3 && strcmp(argv[1], "--memory-mib") == 0) {
        rlim_t bytes = (rlim_t)strtoull(argv[2], NULL, 10) << 20;
        struct rlimit memory = {bytes, bytes};
        if (bytes) setrlimit(RLIMIT_AS, &memory);
    }
#else
    (void)argc;
#endif
    // libvips loads every module it finds at start (PDF, OpenSlide, JPEG XL: loaders no phone has, and
    // 7 MB of libraries): none here; HEIF's and ImageMagick's are opened when a file needs them.
    locate_modules();
    setenv("VIPSHOME", "/nonexistent/notti-media-decode", 1);
    if (VIPS_INIT(argv[0])) return 2;
    // One thread: libvips's pool gives different verdicts from run to run on some damaged files.
    vips_concurrency_set(1);
    // No operation cache: every file is new, and cached images would hold memory.
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO, count_warning, NULL);

    char mime[256];
    int fd = -1;
    int status;
    while ((status = receive(mime, sizeof mime, &fd)) > 0) {
        Reply reply;
        reply_begin(&reply);
        if (fd < 0) {
            reply_string(&reply, "status", "not_decoded");
            reply_string(&reply, "detail", "no file came with the request");
            reply_end(&reply);
        } else {
            char path[64];
            snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
            if (strncmp(mime, "image/", 6) == 0) {
                decode_picture(path, mime, &reply);
            } else {
                decode_stream(path, mime, &reply);
            }
            reply_end(&reply);
            close(fd);
        }
        answer(&reply);
        vips_error_clear();
    }
    vips_shutdown();
    return status < 0 ? 1 : 0;
}
