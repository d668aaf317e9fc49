// notti-media-decode: the decode worker (SPEC 17). notti-media starts them for
// pictures (the format libraries) and one for video and audio (its own MP4 and
// MP3 readers, then FFmpeg), each on the first download that may need it, and
// keeps them while files arrive (one unused for half a second is stopped, and
// started again by the next file that needs it). libvips and FFmpeg load sixty to a hundred shared
// libraries each, which the main binary's start-up never pays: the worker links
// neither, and opens the one a request needs (libvips.h, ffmpeg.h). Their large C
// code reads hostile bytes here, in a sandboxed child (sandbox.h) of a process
// with its own memory limit, which the tool kills and restarts when it crashes
// or outlives a record's deadline.
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
// the file's descriptor and the one to write the new picture to. A poster request
// (`fix`'s still of a video, for Android) is the line "poster", with the video's
// descriptor and the one to write its first frame to, as JPEG. The worker
// opens no path of its own; it exits when the socket closes. Renders, fixes and
// posters are made in a sandboxed child too, from the file mapped, writing to the
// descriptors that came with the request and to no other (sandbox_run_writing).
#define _GNU_SOURCE
#include "ffmpeg.h"
#include "fix.h"
#include "libvips.h"
#include "picture.h"
#include "poster.h"
#include "transcode.h"
#include "render.h"
#include "reply.h"
#include "sandbox.h"
#include "sanitizer.h"

#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

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

/// A render, fix or poster request: what its sandboxed child makes, from the file mapped.
typedef struct Making {
    enum { RENDER, FIX_PICTURE, FIX_STREAM, POSTER } kind;
    const unsigned char *bytes;
    size_t length;
    const char *mime;
    long drawn_rows;
    char *const *names;
    int renditions;
    int max_side;
    long long target_bytes, cap;
} Making;

/// The child's step: its outputs are its descriptors SANDBOX_FIRST_OUTPUT, … (sandbox.h).
static void make_in_child(void *context, void *answer) {
    const Making *making = context;
    Reply *reply = answer;
    // ORC, libvips's vector code, compiles to memory it maps executable: the filter refuses that.
    if (libvips_ready()) vips_vector_set_enabled(FALSE);
    int first = SANDBOX_FIRST_OUTPUT;
    switch (making->kind) {
    case RENDER: {
        int fds[SANDBOX_MOST_OUTPUTS];
        for (int i = 0; i < making->renditions; i++) fds[i] = first + i;
        render_picture(making->bytes, making->length, making->mime, making->drawn_rows, making->names, fds, making->renditions, reply);
        break;
    }
    case FIX_PICTURE:
        fix_picture(making->bytes, making->length, making->mime, making->max_side, making->target_bytes, making->cap, first, reply);
        break;
    case FIX_STREAM: fix_stream(making->bytes, making->length, making->target_bytes, first, reply); break;
    case POSTER: poster_frame(making->bytes, making->length, first, reply); break;
    }
}

/// Runs `making` in a sandboxed child, its file mapped from `file` and its outputs `outputs`; the answer's
/// members follow those of `reply`. What a child needs opened (libvips's module for the format, FFmpeg's
/// libraries) is opened here first.
static void make(Making *making, int file, const int *outputs, int count, Reply *reply) {
    if (making->kind == FIX_STREAM || making->kind == POSTER) {
        if (!ffmpeg_loaded()) return reply_failed(reply, "FFmpeg's libraries are not installed");
    } else if (!loader_ready(loader_for(making->mime))) {
        char detail[512];
        first_error(detail, sizeof detail);
        return reply_failed(reply, detail[0] ? detail : "libvips cannot read this format here");
    }
    if (!(making->bytes = sandbox_map(file, &making->length))) return reply_failed(reply, "the worker cannot map the file");
    // The tests' planted call names the step ("render:image/png", "fix:video/mp4"): a decode's is the format's.
    static const char *const steps[] = {"render", "fix", "fix", "poster"};
    char name[300];
    snprintf(name, sizeof name, "%s:%s", steps[making->kind], making->mime);
    Reply answer = *reply;
    if (sandbox_run_writing(name, make_in_child, making, &answer, sizeof answer, outputs, count)) {
        *reply = answer;
    } else {
        reply_failed(reply, "the worker's child ended without an answer");
    }
    sandbox_unmap(making->bytes, making->length);
}

static void answer(const Reply *reply) {
    ssize_t sent;
    do {
        sent = send(CHANNEL, reply->text, reply->length, MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
    if (sent < 0) exit(1);
}

int main(int argc, char **argv) {
    // Only the channel (and the standard descriptors) from the tool.
    close_range(CHANNEL + 1, ~0U, 0);
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    // A picture's buffers (megabytes) are mapped and unmapped whole: glibc would otherwise raise its
    // threshold after the first such free and keep later ones in the heap, held between files.
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
    // One arena for every thread (libde265's and dav1d's, in a decoding child): glibc shrinks a thread's own
    // arena by first reading /proc/sys/vm/overcommit_memory, an open the sandbox's filter kills; the main
    // arena shrinks with brk.
    mallopt(M_ARENA_MAX, 1);
    // glibc reads the time zone (opens /etc/localtime) on the first time conversion, gmtime_r's too: FFmpeg
    // makes one for an MP4's creation time, which in a decoding child the filter killed (every camera's video
    // "stopped" the decoder). Read once here, it is every child's already.
    tzset();
    // `--memory-mib N`: the most address space the decoders may take (a sanitizer reserves terabytes of
    // it). `--kind pictures|streams` names what the tool started the worker for, for a reader of `ps`: every
    // worker answers every request, and loads a decoder's libraries only on the first request that needs them.
    for (int i = 1; i + 1 < argc; i += 2) {
#ifndef UNDER_SANITIZER
        if (strcmp(argv[i], "--memory-mib") == 0) {
            rlim_t bytes = (rlim_t)strtoull(argv[i + 1], NULL, 10) << 20;
            struct rlimit memory = {bytes, bytes};
            if (bytes) setrlimit(RLIMIT_AS, &memory);
        }
#endif
    }
    // Pictures: the format libraries are linked (loaded with the worker); libvips waits for a render, a fix,
    // a format without a library of its own, or a file the library refuses. Streams: FFmpeg waits for a file
    // the worker's own readers leave to it (lean_stream.h), or a fix or a poster.
    const char *why = NULL;

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
        int posting = strcmp(text, "poster") == 0 || strcmp(text, "poster\n") == 0;
        int renditions = rendering ? parse_render(text, &mime, &drawn_rows, names, MOST_DESCRIPTORS - 1) : fixing || posting ? 1 : 0;
        long long max_side = 0, target_bytes = 0, cap = 0;
        char fix_mime[256] = "";
        if (fixing && sscanf(text + 4, "%255[^\n]\n%lld\n%lld\n%lld", fix_mime, &max_side, &target_bytes, &cap) != 4) renditions = -1;
        int picture = !posting && (rendering || strncmp(fixing ? fix_mime : mime, "image/", 6) == 0);
        // A decode of JPEG, PNG, GIF or WebP starts with the format's own library (formats.h): libvips is
        // loaded by decode_picture only for a file that library refuses.
        int lean = picture && !rendering && !fixing && !picture_needs_libvips(mime);
        int vips_ready = picture && !lean && libvips_loaded(&why);
        if (count < 1 || ((rendering || fixing || posting) && renditions != count - 1)) {
            reply_string(&reply, "status", rendering || fixing || posting ? "failed" : "not_decoded");
            reply_string(&reply, "detail", count < 1 ? "no file came with the request" : "one descriptor for each rendition is needed");
        } else if (picture && !lean && !vips_ready) {
            reply_string(&reply, "status", rendering || fixing ? "failed" : "not_decoded");
            reply_string(&reply, "detail", why);
        } else if (posting || fixing || rendering) {
            Making making = {
                .kind = posting ? POSTER : fixing && !picture ? FIX_STREAM : fixing ? FIX_PICTURE : RENDER,
                .mime = fixing ? fix_mime : posting ? "video" : mime,
                .drawn_rows = drawn_rows,
                .names = names,
                .renditions = renditions,
                .max_side = (int)(max_side > 65536 ? 65536 : max_side),
                .target_bytes = target_bytes,
                .cap = cap,
            };
            make(&making, fds[0], fds + 1, renditions, &reply);
        } else {
            if (picture) {
                decode_picture(fds[0], mime, &reply);
            } else {
                decode_stream(fds[0], mime, &reply);
            }
        }
        reply_end(&reply);
        for (int i = 0; i < count; i++) close(fds[i]);
        answer(&reply);
        if (libvips_ready()) vips_error_clear();
    }
    libvips_shutdown();
    return status < 0 ? 1 : 0;
}
