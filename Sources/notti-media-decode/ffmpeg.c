// Fills ffmpeg.h's table from FFmpeg's libraries, opened on first use.
#define _GNU_SOURCE
#define FFMPEG_NO_RENAMES
#include "ffmpeg.h"

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

int ffmpeg_open_input(AVFormatContext **context, const char *path) {
    AVDictionary *options = NULL;
    ff.av_dict_set(&options, "format_whitelist", allowed_formats, 0);
    ff.av_dict_set(&options, "codec_whitelist", allowed_decoders, 0);
    int code = ff.avformat_open_input(context, path, NULL, &options);
    ff.av_dict_free(&options);
    return code;
}

/// A file in memory, read through FFmpeg's I/O callbacks.
typedef struct MemoryInput {
    const unsigned char *bytes;
    size_t length;
    size_t at;
} MemoryInput;

static int memory_read(void *opaque, uint8_t *buffer, int size) {
    MemoryInput *input = opaque;
    if (input->at >= input->length) return AVERROR_EOF;
    size_t count = input->length - input->at;
    if (count > (size_t)size) count = (size_t)size;
    memcpy(buffer, input->bytes + input->at, count);
    input->at += count;
    return (int)count;
}

/// As lseek on the file: any position from 0 on, past the end too (a read there is the end).
static int64_t memory_seek(void *opaque, int64_t offset, int whence) {
    MemoryInput *input = opaque;
    if (whence & AVSEEK_SIZE) return (int64_t)input->length;
    whence &= ~AVSEEK_FORCE;
    int64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? (int64_t)input->at : whence == SEEK_END ? (int64_t)input->length : -1;
    if (base < 0 || offset > INT64_MAX - base || base + offset < 0) return AVERROR(EINVAL);
    input->at = (size_t)(base + offset);
    return base + offset;
}

int ffmpeg_open_memory(AVFormatContext **context, const unsigned char *bytes, size_t length) {
    // The same buffer size as FFmpeg's file protocol reads with.
    enum { buffer_size = 32768 };
    MemoryInput *input = ff.av_malloc(sizeof *input);
    unsigned char *buffer = ff.av_malloc(buffer_size);
    AVIOContext *io = input && buffer ? ff.avio_alloc_context(buffer, buffer_size, 0, input, memory_read, NULL, memory_seek) : NULL;
    *context = io ? ff.avformat_alloc_context() : NULL;
    if (!*context) {
        if (io) {
            ff.av_freep(&io->buffer);
            ff.avio_context_free(&io);
        } else {
            ff.av_freep(&buffer);
        }
        ff.av_freep(&input);
        return AVERROR(ENOMEM);
    }
    *input = (MemoryInput){bytes, length, 0};
    (*context)->pb = io;
    int code = ffmpeg_open_input(context, NULL);
    if (code < 0) {
        // avformat_open_input freed the context on failure, never a caller's I/O.
        ff.av_freep(&io->buffer);
        ff.avio_context_free(&io);
        ff.av_freep(&input);
    }
    return code;
}

void ffmpeg_close_memory(AVFormatContext **context) {
    if (!*context) return;
    AVIOContext *io = (*context)->pb;
    ff.avformat_close_input(context);
    if (!io) return;
    void *input = io->opaque;
    ff.av_freep(&io->buffer);
    ff.avio_context_free(&io);
    ff.av_freep(&input);
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

const char *ffmpeg_open_streams(AVFormatContext **context, const char *path) {
    if (ffmpeg_open_input(context, path) < 0) return "FFmpeg cannot open it (or it is not a container phones play)";
    if (ff.avformat_find_stream_info(*context, NULL) < 0) {
        ff.avformat_close_input(context);
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
