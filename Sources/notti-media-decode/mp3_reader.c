// mp3_read (lean_stream.h): an MP3 file read frame by frame (ISO/IEC 11172-3, 13818-3),
// answering only for the shape FFmpeg's mp3 demuxer reads plainly: an ID3v2 tag or none,
// then Layer III frames of one kind back to back (a short trailer and an ID3v1 tag after
// them at most), the first carrying a Xing/Info tag that counts the rest, or none at a constant bit
// rate. Its duration is FFmpeg's: the tag's frames times the samples a frame holds, or the
// bytes over the bit rate, in the demuxer's 1/14,112,000 s ticks, then in microseconds.
#include "bytes.h"
#include "lean_stream.h"

#include <stdint.h>
#include <string.h>

typedef struct Frame {
    uint32_t header;
    int lsf, mono, rate, kbps;
    size_t size;
} Frame;

/// The Layer III frame whose header is `header`, or 0 (another layer, a free or bad bit rate, a CRC).
static int layer3_frame(uint32_t header, Frame *frame) {
    static const int kbps[2][15] = {{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320},
                                    {0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160}};
    static const int rates[3] = {44100, 48000, 32000};
    if ((header & 0xffe00000) != 0xffe00000) return 0;
    unsigned version = (header >> 19) & 3, layer = (header >> 17) & 3, unprotected = (header >> 16) & 1;
    unsigned bitrate = (header >> 12) & 15, rate = (header >> 10) & 3, padding = (header >> 9) & 1;
    if (version == 1 || layer != 1 || !unprotected || bitrate == 0 || bitrate == 15 || rate == 3) return 0;
    frame->header = header;
    frame->lsf = version != 3;
    frame->rate = rates[rate] >> (version == 3 ? 0 : version == 2 ? 1 : 2);
    frame->mono = ((header >> 6) & 3) == 3;
    frame->kbps = kbps[frame->lsf][bitrate];
    frame->size = (size_t)((frame->lsf ? 72 : 144) * kbps[frame->lsf][bitrate] * 1000 / frame->rate) + padding;
    return 1;
}

/// An ID3v2 tag's whole size at `bytes` (0 without one; SIZE_MAX when it is broken).
static size_t id3v2_size(const unsigned char *bytes, size_t length) {
    if (length < 10 || memcmp(bytes, "ID3", 3) != 0) return 0;
    if (bytes[3] < 2 || bytes[3] > 4 || bytes[4] == 0xff) return SIZE_MAX;
    size_t size = 0;
    for (int i = 6; i < 10; i++) {
        if (bytes[i] & 0x80) return SIZE_MAX;
        size = size << 7 | bytes[i];
    }
    size += 10 + ((bytes[5] & 0x10) ? 10 : 0);
    return size <= length ? size : SIZE_MAX;
}

/// MP3_MASK of FFmpeg's mp3 demuxer, which it asks two frames in a row to share before it reads on: sync,
/// version, layer, sample rate, channel mode, copyright, original and emphasis.
#define SAME_KIND 0xfffe0ccfu

/// The frames from `at` on: each of the first one's kind (and, `constant`, its bit rate), back to back, the first
/// of the same stream as `tag` (sync, version, layer, sample rate: FFmpeg's SAME_HEADER_MASK), up to `end` or to
/// a short tail no frame starts in (an encoder's trailer, which FFmpeg's parser passes over). Their count, or -1.
static long frames_to_end(const unsigned char *bytes, size_t at, size_t end, const Frame *tag, int constant) {
    long counted = 0;
    uint32_t kind = SAME_KIND | (constant ? 0xf000u : 0), first = 0;
    size_t start = at;
    if (room(at, end) < 4 || (be32(bytes + at) & 0xfffe0c00u) != (tag->header & 0xfffe0c00u)) return -1;
    while (at < end) {
        Frame frame;
        if (room(at, end) < 4 || !layer3_frame(be32(bytes + at), &frame) || (counted && (frame.header & kind) != (first & kind)) ||
            frame.size > room(at, end)) {
            break;
        }
        if (!counted) first = frame.header;
        at += frame.size;
        counted++;
    }
    size_t tail = room(at, end);
    if (tail > 4096 || tail > (end - start) / 16) return -1;
    for (size_t i = at; i + 1 < end; i++) {
        if (bytes[i] == 0xff && (bytes[i + 1] & 0xe0) == 0xe0) return -1;
    }
    return counted;
}

/// The Xing/Info tag's frame count in the frame at `base` (0 without a tag FFmpeg reads; -1 when the file is
/// left to FFmpeg).
static long tagged_frames(const unsigned char *bytes, size_t length, size_t base, const Frame *frame) {
    static const size_t side[2][2] = {{32, 17}, {17, 9}};
    size_t tag = base + 4 + side[frame->lsf][frame->mono];
    // A VBRI tag would be read after it.
    if (base + 4 + 32 + 4 <= length && memcmp(bytes + base + 4 + 32, "VBRI", 4) == 0) return -1;
    if (tag + 8 > base + frame->size) return 0;
    if (memcmp(bytes + tag, "Xing", 4) != 0 && memcmp(bytes + tag, "Info", 4) != 0) return 0;
    uint32_t flags = be32(bytes + tag + 4);
    if (!(flags & 1) || tag + 12 > base + frame->size) return -1;
    uint32_t frames = be32(bytes + tag + 8);
    if (frames == 0) return -1;
    if (flags & 2) {
        // The tag's byte count beside the file's: FFmpeg distrusts the tag when they differ by a 16th.
        if (tag + 16 > base + frame->size) return -1;
        uint64_t declared = be32(bytes + tag + 12), actual = length - (base + 4);
        uint64_t least = declared < actual ? declared : actual, delta = (declared < actual ? actual : declared) - least;
        if (delta > least >> 4) return -1;
    }
    return frames;
}

int mp3_read(const unsigned char *bytes, size_t length, DoorFacts *facts) {
    size_t base = id3v2_size(bytes, length);
    if (base == SIZE_MAX || room(base, length) < 4) return 0;
    Frame first;
    if (!layer3_frame(be32(bytes + base), &first) || first.size > room(base, length)) return 0;
    long tagged = tagged_frames(bytes, length, base, &first);
    if (tagged < 0) return 0;
    size_t end = length;
    if (room(base, end) >= 128 && memcmp(bytes + end - 128, "TAG", 3) == 0) end -= 128;
    // Tagged: the frames after the tag's, as many as it says. Untagged: FFmpeg estimates the duration from the
    // bit rate, the same in every frame here (a constant bit rate), so the estimate is the file's.
    long counted = frames_to_end(bytes, tagged ? base + first.size : base, end, &first, !tagged);
    if (counted < 5 || (tagged && counted != tagged)) return 0;
    uint64_t ticks;  // the stream's duration in FFmpeg's 1/14,112,000 s (every MP3 sample rate divides it)
    if (tagged) {
        ticks = (uint64_t)tagged * (first.lsf ? 576 : 1152) * (14112000 / (uint64_t)first.rate);
    } else {
        // av_rescale(bytes after the ID3v2 tag, 8 × 14,112,000, bit rate), rounded to nearest.
        uint64_t rate = (uint64_t)first.kbps * 1000;
        ticks = (uint64_t)(((unsigned __int128)(length - base) * 8 * 14112000 + rate / 2) / rate);
    }
    // Then av_rescale_q to microseconds, rounded to nearest.
    uint64_t microseconds = (uint64_t)(((unsigned __int128)ticks * 125 + 882) / 1764);
    door_kind(facts, DOOR_AUDIO);
    door_text(facts, DOOR_AUDIO_CODEC, "mp3");
    door_seconds(facts, (double)microseconds / 1000000.0);
    door_flag(facts, DOOR_COMPLETE, 1);
    door_status(facts, DOOR_DECODED, NULL);
    return 1;
}

int lean_stream_read(const unsigned char *bytes, size_t length, DoorFacts *facts) {
    if (length >= 8 && memcmp(bytes + 4, "ftyp", 4) == 0) return mp4_read(bytes, length, facts);
    if (length >= 4 && (memcmp(bytes, "ID3", 3) == 0 || (bytes[0] == 0xff && (bytes[1] & 0xe0) == 0xe0))) {
        return mp3_read(bytes, length, facts);
    }
    return 0;
}
