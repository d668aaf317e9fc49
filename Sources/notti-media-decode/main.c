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
// Protocol: the decoder's door, declared once in Sources/CDecodeDoor/include/door.h and read by the tool
// too: the worker says its version first, then answers each request (one message on descriptor 3, a
// SOCK_SEQPACKET socket, its files as descriptors) with one JSON object written from checked facts. The
// worker opens no path of its own; it exits when the socket closes. Decodes, renders, fixes and posters are
// made in a sandboxed child, from the file mapped, writing to the descriptors that came with the request and
// to no other (sandbox_run_writing), and answering a DoorFacts record the worker checks before it uses it.
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
static void make_in_child(void *context, DoorFacts *facts) {
    const Making *making = context;
    // ORC, libvips's vector code, compiles to memory it maps executable: the filter refuses that.
    if (libvips_ready()) vips_vector_set_enabled(FALSE);
    int first = SANDBOX_FIRST_OUTPUT;
    switch (making->kind) {
    case RENDER: {
        int fds[SANDBOX_MOST_OUTPUTS];
        for (int i = 0; i < making->renditions; i++) fds[i] = first + i;
        render_picture(making->bytes, making->length, making->mime, making->drawn_rows, making->names, fds, making->renditions, facts);
        break;
    }
    case FIX_PICTURE:
        fix_picture(making->bytes, making->length, making->mime, making->max_side, making->target_bytes, making->cap, first, facts);
        break;
    case FIX_STREAM: fix_stream(making->bytes, making->length, making->target_bytes, first, facts); break;
    case POSTER: poster_frame(making->bytes, making->length, first, facts); break;
    }
}

/// Runs `making` in a sandboxed child, its file mapped from `file` and its outputs `outputs`: `facts` is its
/// answer, checked by the door. What a child needs opened (libvips's module for the format, FFmpeg's
/// libraries) is opened here first.
static void make(Making *making, int file, const int *outputs, int count, DoorFacts *facts) {
    if (making->kind == FIX_STREAM || making->kind == POSTER) {
        if (!ffmpeg_loaded()) return door_failed(facts, "FFmpeg's libraries are not installed");
    } else if (!loader_ready(loader_for(making->mime))) {
        char detail[512];
        first_error(detail, sizeof detail);
        return door_failed(facts, detail[0] ? detail : "libvips cannot read this format here");
    }
    if (!(making->bytes = sandbox_map(file, &making->length))) return door_failed(facts, "the worker cannot map the file");
    // The tests' planted call names the step ("render:image/png", "fix:video/mp4"): a decode's is the format's.
    static const char *const steps[] = {"render", "fix", "fix", "poster"};
    char name[300];
    snprintf(name, sizeof name, "%s:%s", steps[making->kind], making->mime);
    sandbox_run_writing(name, make_in_child, making, facts, outputs, count);
    sandbox_unmap(making->bytes, making->length);
}

static void answer(const Reply *reply) {
    ssize_t sent;
    do {
        sent = send(CHANNEL, reply->text, reply->length, MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
    if (sent < 0) exit(1);
}

/// The door's first message (door.h): the protocol this worker speaks.
static void say_version(void) {
    Reply hello;
    reply_begin(&hello);
    reply_int(&hello, DOOR_VERSION_KEY, DOOR_VERSION);
    reply_end(&hello);
    answer(&hello);
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

    say_version();
    char text[512];
    int fds[MOST_DESCRIPTORS], count = 0;
    int status;
    while ((status = receive(text, sizeof text, fds, &count)) > 0) {
        DoorFacts facts;
        door_begin(&facts);
        const char *mime = text;
        long drawn_rows = -1;
        char *names[MOST_DESCRIPTORS];
        int rendering = strncmp(text, "render\n", 7) == 0, fixing = strncmp(text, "fix\n", 4) == 0;
        int posting = strcmp(text, "poster") == 0 || strcmp(text, "poster\n") == 0;
        int making = rendering || fixing || posting;
        int renditions = rendering ? parse_render(text, &mime, &drawn_rows, names, MOST_DESCRIPTORS - 1) : fixing || posting ? 1 : 0;
        long long max_side = 0, target_bytes = 0, cap = 0;
        char fix_mime[256] = "";
        if (fixing && sscanf(text + 4, "%255[^\n]\n%lld\n%lld\n%lld", fix_mime, &max_side, &target_bytes, &cap) != 4) renditions = -1;
        int picture = !posting && (rendering || strncmp(fixing ? fix_mime : mime, "image/", 6) == 0);
        // A decode of JPEG, PNG, GIF or WebP starts with the format's own library (formats.h): libvips is
        // loaded by decode_picture only for a file that library refuses.
        int lean = picture && !rendering && !fixing && !picture_needs_libvips(mime);
        int vips_ready = picture && !lean && libvips_loaded(&why);
        if (count < 1 || (making && renditions != count - 1)) {
            // The tool's request is not the door's: no verdict of the media.
            door_status(&facts, making ? DOOR_FAILED : DOOR_DECODER_FAILED,
                        count < 1 ? "no file came with the request" : "one descriptor for each rendition is needed");
        } else if (picture && !lean && !vips_ready) {
            door_status(&facts, making ? DOOR_FAILED : DOOR_DECODER_MISSING, why);
        } else if (making) {
            Making work = {
                .kind = posting ? POSTER : fixing && !picture ? FIX_STREAM : fixing ? FIX_PICTURE : RENDER,
                .mime = fixing ? fix_mime : posting ? "video" : mime,
                .drawn_rows = drawn_rows,
                .names = names,
                .renditions = renditions,
                .max_side = (int)(max_side > 65536 ? 65536 : max_side),
                .target_bytes = target_bytes,
                .cap = cap,
            };
            make(&work, fds[0], fds + 1, renditions, &facts);
        } else if (picture) {
            decode_picture(fds[0], mime, &facts);
        } else {
            decode_stream(fds[0], mime, &facts);
        }
        for (int i = 0; i < count; i++) close(fds[i]);
        // A child's facts were checked as they came (sandbox_run); the worker's own are checked too, so that
        // no answer leaves the worker that the door does not allow.
        char problem[256];
        if (!door_facts_check(&facts, problem, sizeof problem) || facts.status == DOOR_NO_ANSWER) {
            door_begin(&facts);
            door_status(&facts, making ? DOOR_FAILED : DOOR_DECODER_FAILED, "the worker's own answer was not the door's");
        }
        Reply reply;
        reply_begin(&reply);
        reply_facts(&reply, &facts);
        reply_end(&reply);
        answer(&reply);
        if (libvips_ready()) vips_error_clear();
    }
    libvips_shutdown();
    return status < 0 ? 1 : 0;
}
