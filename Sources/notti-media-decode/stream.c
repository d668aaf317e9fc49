// Video and audio (SPEC 17): the container's brand, each stream's codec and sample-entry
// tag, size and duration; every packet read (a file cut short has fewer than its index
// lists) and the first frame of each stream decoded. A clean MP4 of H.264 and AAC, or a
// clean MP3, is read by the worker's own readers (lean_stream.h), which answer as FFmpeg
// would; any other file by libavformat and libavcodec (one thread, for the same verdict
// every run), whose libraries the worker loads on the first file the readers leave to them.
// The file is mapped by the worker and read from memory in a child behind the sandbox's
// filter (sandbox_run), first by the readers, then, if they leave it, by FFmpeg: neither
// opens anything.
#include "ffmpeg.h"
#include "lean_stream.h"
#include "openh264.h"
#include "door.h"
#include "reply.h"
#include "sandbox.h"

#include <stdio.h>
#include <string.h>

static const char *first_line(int code, char *buffer, size_t size) {
    av_strerror(code, buffer, size);
    return buffer;
}

/// The sample entry's four characters (`hvc1`), or NULL when the container has none.
static const char *tag_text(uint32_t tag, char text[5]) {
    if (!tag) return NULL;
    for (int i = 0; i < 4; i++) {
        char c = (char)((tag >> (8 * i)) & 0xff);
        text[i] = (c >= 0x20 && c < 0x7f) ? c : '?';
    }
    text[4] = 0;
    return text;
}

/// Whether one frame of stream `index` decodes (`ffmpeg_first_frame`'s answer).
static int first_frame_decodes(AVFormatContext *context, int index) {
    AVFrame *frame = av_frame_alloc();
    int decoded = frame ? ffmpeg_first_frame(context, index, frame) : 0;
    av_frame_free(&frame);
    return decoded;
}

/// The mapped file a child reads.
typedef struct StreamBytes {
    const unsigned char *bytes;
    size_t length;
} StreamBytes;

static void read_stream(void *work, DoorFacts *answer) {
    const StreamBytes *file = work;
    stream_read(file->bytes, file->length, answer);
}

/// Whether the worker's own readers read streams first: always, but in a build for tests (`NOTTI_DECODE_TEST_HOOKS`)
/// that NOTTI_MEDIA_DECODE_FFMPEG_ONLY asks for FFmpeg alone, so that a test compares their facts with FFmpeg's.
static int readers_first(void) { return sandbox_test_hook("NOTTI_MEDIA_DECODE_FFMPEG_ONLY") == NULL; }

static void read_lean(void *work, DoorFacts *answer) {
    const StreamBytes *file = work;
    lean_stream_read(file->bytes, file->length, answer);
}

void decode_stream(int descriptor, const char *mime, DoorFacts *facts) {
    StreamBytes file;
    if (!(file.bytes = sandbox_map(descriptor, &file.length))) return door_status(facts, DOOR_DECODER_FAILED, "the worker cannot map the file");
    // The readers' child answers nothing (DOOR_NO_ANSWER) for a file they leave to FFmpeg; a child that fails
    // is the answer.
    int answered = 0;
    if (readers_first()) {
        openh264_loaded();
        answered = !sandbox_run(mime, read_lean, &file, facts) || facts->status != DOOR_NO_ANSWER;
    }
    if (!answered) {
        door_begin(facts);
        // Loaded here, before the child's filter (it may not open a library).
        if (!ffmpeg_loaded()) {
            door_status(facts, DOOR_DECODER_MISSING, "FFmpeg's libraries are not installed");
        } else if (sandbox_run(mime, read_stream, &file, facts) && facts->status == DOOR_NO_ANSWER) {
            door_status(facts, DOOR_DECODER_FAILED, "the stream decoder's child gave no verdict");
        }
    }
    sandbox_unmap(file.bytes, file.length);
}

void stream_read(const unsigned char *bytes, size_t length, DoorFacts *facts) {
    AVFormatContext *context = NULL;
    char error[256];
    int code = ffmpeg_open_memory(&context, bytes, length);
    if (code < 0) {
        char detail[512];
        snprintf(detail, sizeof detail, "it is no container phones play (MP4, QuickTime, 3GPP, MPEG, AVI, MP3, AAC, AIFF, WAV, CAF, "
                 "AMR, AC-3, Au, Matroska, WebM, Ogg), or one too damaged to open (%s)", first_line(code, error, sizeof error));
        door_status(facts, DOOR_UNDECODABLE, NULL);
        door_detail(facts, detail);
        return;
    }
    if ((code = avformat_find_stream_info(context, NULL)) < 0) {
        door_status(facts, DOOR_UNDECODABLE, NULL);
        door_detail(facts, first_line(code, error, sizeof error));
        ffmpeg_close_memory(&context);
        return;
    }
    int video = ffmpeg_stream_of(context, AVMEDIA_TYPE_VIDEO), audio = ffmpeg_stream_of(context, AVMEDIA_TYPE_AUDIO);
    if (video < 0 && audio < 0) {
        door_status(facts, DOOR_UNDECODABLE, NULL);
        door_detail(facts, "no video or audio stream");
        ffmpeg_close_memory(&context);
        return;
    }
    double duration = context->duration > 0 ? (double)context->duration / AV_TIME_BASE : 0;
    if (video >= 0) {
        const AVCodecParameters *parameters = context->streams[video]->codecpar;
        const AVDictionaryEntry *brand = av_dict_get(context->metadata, "major_brand", NULL, 0);
        char tag[5];
        door_kind(facts, DOOR_VIDEO);
        door_text(facts, DOOR_CONTAINER, brand ? brand->value : context->iformat->name);
        door_text(facts, DOOR_VIDEO_CODEC, avcodec_get_name(parameters->codec_id));
        door_text(facts, DOOR_VIDEO_TAG, tag_text(parameters->codec_tag, tag));
        door_number(facts, DOOR_WIDTH, parameters->width);
        door_number(facts, DOOR_HEIGHT, parameters->height);
        door_seconds(facts, duration);
        door_text(facts, DOOR_AUDIO_CODEC, audio >= 0 ? avcodec_get_name(context->streams[audio]->codecpar->codec_id) : NULL);
    } else {
        door_kind(facts, DOOR_AUDIO);
        door_text(facts, DOOR_AUDIO_CODEC, avcodec_get_name(context->streams[audio]->codecpar->codec_id));
        door_seconds(facts, duration);
    }
    // Every packet: a file cut short has fewer than its index lists, or a read error before the end.
    long read = 0, listed = 0;
    int main_stream = video >= 0 ? video : audio;
    listed = avformat_index_get_entries_count(context->streams[main_stream]);
    AVPacket *packet = av_packet_alloc();
    int ended = 0;
    while (packet && (code = av_read_frame(context, packet)) >= 0) {
        if (packet->stream_index == main_stream) read++;
        av_packet_unref(packet);
    }
    ended = code == AVERROR_EOF;
    av_packet_free(&packet);
    int complete = ended && (listed == 0 || read >= listed);
    int decodes = first_frame_decodes(context, main_stream);
    if (decodes == 0) {
        door_status(facts, DOOR_UNDECODABLE, NULL);
        door_detail(facts, "not one frame of it decodes");
        ffmpeg_close_memory(&context);
        return;
    }
    door_flag(facts, DOOR_COMPLETE, complete);
    if (!complete && listed > 0) door_number(facts, DOOR_DRAWN_PERCENT, read >= listed ? 100 : (long long)(100.0 * read / listed));
    door_status(facts, DOOR_DECODED, NULL);
    if (decodes < 0) door_detail(facts, "no decoder here for its codec: not decoded");
    ffmpeg_close_memory(&context);
}
