// notti-media-decode: the decode worker (SPEC 17). notti-media starts it on the
// first download that needs decoding and keeps it for the run: libvips and
// libavformat load about a hundred shared libraries, which the main binary's
// start-up never pays, and their large C code reads hostile bytes here, in a
// process of its own with its own memory limit, which the tool kills and
// restarts when it crashes or outlives a record's deadline.
//
// Protocol, on descriptor 3 (a SOCK_SEQPACKET socket): each request is one
// message carrying descriptors (SCM_RIGHTS), each answer one message, a JSON
// object (reply.h). A decode request is the sniffed MIME type as text, with the
// file's descriptor. A render request (the preview's pictures) is the lines
// "render", the MIME type, the rows a cut file draws ("-": all) and the
// renditions' names separated by spaces, with the file's descriptor and then
// one descriptor per rendition to write it to. A fix request (`fix`) is the
// lines "fix", the MIME type, the longest side, the most bytes of a still picture and
// the strictest record's cap (an animation's most bytes), with
// the file's descriptor and the one to write the new picture to. The worker
// opens no path of its own; it exits when the socket closes.
#define _GNU_SOURCE
#include "fix.h"
#include "transcode.h"
#include "render.h"
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

enum { MOST_DESCRIPTORS = 8 };

/// Reads one request: its text into `text`, its descriptors into `fds` (at most
/// MOST_DESCRIPTORS), their number into *count. Returns 0 when the tool closed the
/// socket, -1 on an error, 1 for a request.
static int receive(char *text, size_t size, int *fds, int *count) {
    char control[CMSG_SPACE(sizeof(int) * MOST_DESCRIPTORS)];
    struct iovec part = {.iov_base = text, .iov_len = size - 1};
    struct msghdr message = {.msg_iov = &part, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    ssize_t length;
    do {
        length = recvmsg(CHANNEL, &message, MSG_CMSG_CLOEXEC);
    } while (length < 0 && errno == EINTR);
    if (length <= 0) return (int)length;
    text[length] = 0;
    *count = 0;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        size_t carried = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < carried; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(header) + i * sizeof(int), sizeof(int));
            if (*count < MOST_DESCRIPTORS) {
                fds[(*count)++] = fd;
            } else {
                close(fd);
            }
        }
    }
    return 1;
}

/// A render request's text, split in place: the MIME type, the drawn rows, the renditions' names.
/// Returns the number of names, or -1 when the text is not a render request.
static int parse_render(char *text, const char **mime, long *drawn_rows, char **names, int most) {
    if (strncmp(text, "render\n", 7) != 0) return -1;
    char *saved = NULL;
    char *type = strtok_r(text + 7, "\n", &saved), *rows = strtok_r(NULL, "\n", &saved);
    char *list = strtok_r(NULL, "\n", &saved);
    if (!type || !rows || !list) return -1;
    *mime = type;
    *drawn_rows = strcmp(rows, "-") == 0 ? -1 : strtol(rows, NULL, 10);
    int count = 0;
    for (char *name = strtok_r(list, " ", &saved); name && count < most; name = strtok_r(NULL, " ", &saved)) names[count++] = name;
    return count;
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

    char text[512];
    int fds[MOST_DESCRIPTORS], count = 0;
    int status;
    while ((status = receive(text, sizeof text, fds, &count)) > 0) {
        Reply reply;
        reply_begin(&reply);
        const char *mime = text;
        long drawn_rows = -1;
        char *names[MOST_DESCRIPTORS];
        int rendering = strncmp(text, "render\n", 7) == 0, fixing = strncmp(text, "fix\n", 4) == 0;
        int renditions = rendering ? parse_render(text, &mime, &drawn_rows, names, MOST_DESCRIPTORS - 1) : fixing ? 1 : 0;
        long long max_side = 0, target_bytes = 0, cap = 0;
        char fix_mime[256] = "";
        if (fixing && sscanf(text + 4, "%255[^\n]\n%lld\n%lld\n%lld", fix_mime, &max_side, &target_bytes, &cap) != 4) renditions = -1;
        if (count < 1 || ((rendering || fixing) && renditions != count - 1)) {
            reply_string(&reply, "status", rendering || fixing ? "failed" : "not_decoded");
            reply_string(&reply, "detail", count < 1 ? "no file came with the request" : "one descriptor for each rendition is needed");
        } else {
            char path[64];
            snprintf(path, sizeof path, "/proc/self/fd/%d", fds[0]);
            if (fixing && strncmp(fix_mime, "image/", 6) != 0) {
                fix_stream(path, target_bytes, fds[1], &reply);
            } else if (fixing) {
                fix_picture(path, fix_mime, (int)(max_side > 65536 ? 65536 : max_side), target_bytes, cap, fds[1], &reply);
            } else if (rendering) {
                render_picture(path, mime, drawn_rows, names, fds + 1, renditions, &reply);
            } else if (strncmp(mime, "image/", 6) == 0) {
                decode_picture(path, mime, &reply);
            } else {
                decode_stream(path, mime, &reply);
            }
        }
        reply_end(&reply);
        for (int i = 0; i < count; i++) close(fds[i]);
        answer(&reply);
        vips_error_clear();
    }
    vips_shutdown();
    return status < 0 ? 1 : 0;
}
