// Fills ffmpeg.h's table from FFmpeg's libraries, opened on first use.
#define _GNU_SOURCE
#define FFMPEG_NO_RENAMES
#include "ffmpeg.h"
#include "sandbox.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#define STRINGIFY(x) #x
#define SONAME(name, major) "lib" name ".so." STRINGIFY(major)

struct FFmpeg ff;

int ffmpeg_loaded(void) {
    static int state = 0;  // 0: not tried, 1: loaded, -1: unavailable
    if (state) return state > 0;
    state = -1;
    // RTLD_LAZY: the libraries' own calls between them are bound on first use, as a linked program's
    // are; every function the worker calls is looked up below, so none is missing later.
    void *avutil = dlopen(SONAME("avutil", LIBAVUTIL_VERSION_MAJOR), RTLD_LAZY | RTLD_LOCAL);
    void *swresample = dlopen(SONAME("swresample", LIBSWRESAMPLE_VERSION_MAJOR), RTLD_LAZY | RTLD_LOCAL);
    void *avcodec = dlopen(SONAME("avcodec", LIBAVCODEC_VERSION_MAJOR), RTLD_LAZY | RTLD_LOCAL);
    void *avformat = dlopen(SONAME("avformat", LIBAVFORMAT_VERSION_MAJOR), RTLD_LAZY | RTLD_LOCAL);
    if (!avutil || !swresample || !avcodec || !avformat) return 0;
#define LOOKUP(library, name) if (!(ff.name = (__typeof__(name) *)dlsym(library, #name))) return 0;
    FFMPEG_FUNCTIONS(LOOKUP)
    ff.av_log_set_level(AV_LOG_QUIET);
    state = 1;
    return 1;
}

// What phones play (iOS: MPEG-4, QuickTime, 3GPP, MPEG, AVI, MP3, AAC, AIFF, WAV, CAF, AMR, AC-3, Au;
// Android's MediaPlayer adds Matroska/WebM and Ogg), by FFmpeg's demuxer names. An FLV, an ASF or any
// of FFmpeg's other demuxers never reads the bytes.
static const char allowed_formats[] = "mov,mp4,m4a,3gp,3g2,mj2,mpeg,mpegts,mpegvideo,avi,mp3,aac,aiff,wav,caf,amr,amrnb,amrwb,"
                                      "ac3,eac3,au,matroska,webm,ogg";
// Their codecs' decoders (and the cover art an MP3 or M4A carries as a picture), by decoder name.
static const char allowed_decoders[] =
    "h264,hevc,mpeg4,mpeg1video,mpeg2video,h263,mjpeg,png,vp8,vp9,av1,libdav1d,libaom-av1,"
    "aac,aac_fixed,mp3,mp3float,mp2,mp2float,alac,ac3,ac3_fixed,eac3,amrnb,amrwb,flac,vorbis,opus,"
    "pcm_s16le,pcm_s16be,pcm_s24le,pcm_s24be,pcm_s32le,pcm_s32be,pcm_f32le,pcm_f32be,pcm_u8,pcm_s8,pcm_alaw,pcm_mulaw,"
    "adpcm_ima_qt,adpcm_ima_wav,gsm";

static int open_input(AVFormatContext **context) {
    AVDictionary *options = NULL;
    ff.av_dict_set(&options, "format_whitelist", allowed_formats, 0);
    ff.av_dict_set(&options, "codec_whitelist", allowed_decoders, 0);
    int code = ff.avformat_open_input(context, NULL, NULL, &options);
    ff.av_dict_free(&options);
    return code;
}

/// A file in memory, read through FFmpeg's I/O callbacks.
typedef struct MemoryInput {
    const unsigned char *bytes;
    size_t length;
    size_t at;
} MemoryInput;

/// As read(2) on a file of `length` bytes at `bytes`, at `*at`: at most `size` of them copied to `buffer`.
static int read_at(const unsigned char *bytes, size_t length, size_t *at, uint8_t *buffer, int size) {
    if (*at >= length) return AVERROR_EOF;
    size_t count = length - *at;
    if (count > (size_t)size) count = (size_t)size;
    memcpy(buffer, bytes + *at, count);
    *at += count;
    return (int)count;
}

static int memory_read(void *opaque, uint8_t *buffer, int size) {
    MemoryInput *input = opaque;
    return read_at(input->bytes, input->length, &input->at, buffer, size);
}

/// As lseek: a position from 0 on, past the end too.
static int64_t seek_in(size_t *at, size_t length, int64_t offset, int whence) {
    if (whence & AVSEEK_SIZE) return (int64_t)length;
    whence &= ~AVSEEK_FORCE;
    int64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? (int64_t)*at : whence == SEEK_END ? (int64_t)length : -1;
    if (base < 0 || offset > INT64_MAX - base || base + offset < 0) return AVERROR(EINVAL);
    *at = (size_t)(base + offset);
    return base + offset;
}

static int64_t memory_seek(void *opaque, int64_t offset, int whence) {
    MemoryInput *input = opaque;
    return seek_in(&input->at, input->length, offset, whence);
}

// The same buffer size as FFmpeg's file protocol reads with.
enum { io_buffer_size = 32768 };

/// An I/O context over `opaque` with FFmpeg's own buffer; NULL (and nothing kept) when memory ran out.
static AVIOContext *io_context(void *opaque, int writing, int (*read)(void *, uint8_t *, int),
                               int (*write)(void *, uint8_t *, int), int64_t (*seek)(void *, int64_t, int)) {
    unsigned char *buffer = ff.av_malloc(io_buffer_size);
    AVIOContext *io = buffer ? ff.avio_alloc_context(buffer, io_buffer_size, writing, opaque, read, write, seek) : NULL;
    if (!io) ff.av_freep(&buffer);
    return io;
}

static void free_io(AVIOContext **io) {
    if (!*io) return;
    ff.av_freep(&(*io)->buffer);
    ff.avio_context_free(io);
}

int ffmpeg_open_memory(AVFormatContext **context, const unsigned char *bytes, size_t length) {
    MemoryInput *input = ff.av_malloc(sizeof *input);
    AVIOContext *io = input ? io_context(input, 0, memory_read, NULL, memory_seek) : NULL;
    *context = io ? ff.avformat_alloc_context() : NULL;
    if (!*context) {
        free_io(&io);
        ff.av_freep(&input);
        return AVERROR(ENOMEM);
    }
    *input = (MemoryInput){bytes, length, 0};
    (*context)->pb = io;
    int code = open_input(context);
    if (code < 0) {
        // avformat_open_input freed the context on failure, never a caller's I/O.
        free_io(&io);
        ff.av_freep(&input);
    }
    return code;
}

void ffmpeg_close_memory(AVFormatContext **context) {
    if (!*context) return;
    AVIOContext *io = (*context)->pb;
    ff.avformat_close_input(context);
    void *input = io ? io->opaque : NULL;
    free_io(&io);
    ff.av_freep(&input);
}

/// A file written in memory: its bytes, grown as written; `at` is the writer's position.
typedef struct MemoryOutput {
    unsigned char *bytes;
    size_t length, capacity, at;
} MemoryOutput;

/// A reader of a MemoryOutput (the faststart pass's): it reads the file as it is at each call, as a
/// second descriptor on one file would, since the writer may grow (and move) the bytes meanwhile.
typedef struct MemoryReader {
    MemoryOutput *file;
    size_t at;
} MemoryReader;

static int output_write(void *opaque, uint8_t *buffer, int size) {
    MemoryOutput *file = opaque;
    if (size <= 0) return 0;
    size_t end = file->at + (size_t)size;
    if (end > file->capacity) {
        size_t capacity = file->capacity ? file->capacity : 1 << 20;
        while (capacity < end) capacity *= 2;
        unsigned char *grown = ff.av_realloc(file->bytes, capacity);
        if (!grown) return AVERROR(ENOMEM);
        file->bytes = grown;
        file->capacity = capacity;
    }
    // A write past the end leaves zeros between, as a file's hole reads.
    if (file->at > file->length) memset(file->bytes + file->length, 0, file->at - file->length);
    memcpy(file->bytes + file->at, buffer, (size_t)size);
    file->at = end;
    if (end > file->length) file->length = end;
    return size;
}

static int64_t output_seek(void *opaque, int64_t offset, int whence) {
    MemoryOutput *file = opaque;
    return seek_in(&file->at, file->length, offset, whence);
}

static int reader_read(void *opaque, uint8_t *buffer, int size) {
    MemoryReader *reader = opaque;
    return read_at(reader->file->bytes, reader->file->length, &reader->at, buffer, size);
}

static int64_t reader_seek(void *opaque, int64_t offset, int whence) {
    MemoryReader *reader = opaque;
    return seek_in(&reader->at, reader->file->length, offset, whence);
}

/// The muxer's second opening of its output: a reader of the bytes written so far (nothing else opens).
static int open_again(AVFormatContext *out, AVIOContext **io, const char *url, int flags, AVDictionary **options) {
    (void)url;
    (void)options;
    if ((flags & AVIO_FLAG_WRITE) || !out->pb) return AVERROR(EPERM);
    MemoryReader *reader = ff.av_malloc(sizeof *reader);
    if (!reader) return AVERROR(ENOMEM);
    *reader = (MemoryReader){out->pb->opaque, 0};
    if (!(*io = io_context(reader, 0, reader_read, NULL, reader_seek))) {
        ff.av_freep(&reader);
        return AVERROR(ENOMEM);
    }
    return 0;
}

static int close_again(AVFormatContext *out, AVIOContext *io) {
    (void)out;
    if (!io) return 0;
    void *reader = io->opaque;
    free_io(&io);
    ff.av_freep(&reader);
    return 0;
}

int ffmpeg_output_in_memory(AVFormatContext *out) {
    MemoryOutput *file = ff.av_malloc(sizeof *file);
    if (!file) return AVERROR(ENOMEM);
    *file = (MemoryOutput){NULL, 0, 0, 0};
    if (!(out->pb = io_context(file, 1, NULL, output_write, output_seek))) {
        ff.av_freep(&file);
        return AVERROR(ENOMEM);
    }
    out->io_open = open_again;
    out->io_close2 = close_again;
    return 0;
}

int ffmpeg_end_output(AVFormatContext *out, int fd) {
    if (!out || !out->pb) return -1;
    ff.avio_flush(out->pb);
    MemoryOutput *file = out->pb->opaque;
    int failed = out->pb->error < 0 || (fd >= 0 && sandbox_write_all(fd, file->bytes, file->length) != 0);
    free_io(&out->pb);
    ff.av_freep(&file->bytes);
    ff.av_freep(&file);
    return failed ? -1 : 0;
}

int ffmpeg_decoder_allowed(const AVCodec *codec) {
    if (!codec || !codec->name) return 0;
    size_t length = strlen(codec->name);
    for (const char *at = allowed_decoders; *at;) {
        const char *end = strchr(at, ',');
        size_t size = end ? (size_t)(end - at) : strlen(at);
        if (size == length && strncmp(at, codec->name, size) == 0) return 1;
        if (!end) break;
        at = end + 1;
    }
    return 0;
}

const char *ffmpeg_open_streams(AVFormatContext **context, const unsigned char *bytes, size_t length) {
    if (ffmpeg_open_memory(context, bytes, length) < 0) return "FFmpeg cannot open it (or it is not a container phones play)";
    if (ff.avformat_find_stream_info(*context, NULL) < 0) {
        ffmpeg_close_memory(context);
        return "FFmpeg cannot read its streams";
    }
    return NULL;
}

int ffmpeg_stream_of(const AVFormatContext *context, enum AVMediaType type) {
    for (unsigned i = 0; i < context->nb_streams; i++) {
        if (context->streams[i]->disposition & AV_DISPOSITION_ATTACHED_PIC) continue;
        if (context->streams[i]->codecpar->codec_type == type) return (int)i;
    }
    return -1;
}

int ffmpeg_first_frame(AVFormatContext *context, int index, AVFrame *frame) {
    const AVCodecParameters *parameters = context->streams[index]->codecpar;
    const AVCodec *codec = ff.avcodec_find_decoder(parameters->codec_id);
    if (!codec || !ffmpeg_decoder_allowed(codec)) return -1;
    AVCodecContext *decoder = ff.avcodec_alloc_context3(codec);
    if (!decoder) return 0;
    int decoded = 0;
    decoder->thread_count = 1;
    AVPacket *packet = ff.av_packet_alloc();
    if (packet && ff.avcodec_parameters_to_context(decoder, parameters) >= 0 && ff.avcodec_open2(decoder, codec, NULL) >= 0) {
        ff.av_seek_frame(context, -1, 0, AVSEEK_FLAG_BACKWARD);
        for (int packets = 0; !decoded && packets < 400 && ff.av_read_frame(context, packet) >= 0; packets++) {
            if (packet->stream_index == index && ff.avcodec_send_packet(decoder, packet) >= 0) {
                decoded = ff.avcodec_receive_frame(decoder, frame) >= 0;
            }
            ff.av_packet_unref(packet);
        }
        if (!decoded && ff.avcodec_send_packet(decoder, NULL) >= 0) decoded = ff.avcodec_receive_frame(decoder, frame) >= 0;
    }
    ff.av_packet_free(&packet);
    ff.avcodec_free_context(&decoder);
    return decoded;
}
