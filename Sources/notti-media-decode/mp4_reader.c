// mp4_read (lean_stream.h): an MP4 family file read box by box (ISO/IEC 14496-12), answering
// only for the shape FFmpeg's mov demuxer reads plainly: `ftyp` first, one `moov` without
// fragments, one H.264 video track and at most one AAC track (or one AAC track alone), their
// samples in this file's media data, chunk after chunk, and tables that agree with each other.
// Its facts are the ones stream.c takes from FFmpeg: the brand, the sample entry's tag, the
// parameter set's cropped size, the movie header's duration as av_rescale rounds it; and the
// first picture decoded by OpenH264, where FFmpeg decodes the first frame.
#include "bytes.h"
#include "h264.h"
#include "lean_stream.h"

#include <stdint.h>
#include <string.h>

#define FOURCC(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

/// One box: its type and body.
typedef struct Box {
    uint32_t type;
    const unsigned char *body;
    size_t length;
} Box;

/// The box at `*at` in [start, end): 1 and `*at` moved past it, or 0 when none fits whole.
static int next_box(const unsigned char *start, size_t end, size_t *at, Box *box) {
    if (room(*at, end) < 8) return 0;
    const unsigned char *p = start + *at;
    uint64_t size = be32(p);
    size_t header = 8;
    if (size == 1) {
        if (room(*at, end) < 16) return 0;
        size = be64(p + 8);
        header = 16;
    }
    if (size < header || size > room(*at, end)) return 0;  // size 0 (to the end) and overruns: left to FFmpeg
    box->type = be32(p + 4);
    box->body = p + header;
    box->length = (size_t)size - header;
    *at += (size_t)size;
    return 1;
}

/// The tables of one track's samples and what its sample entry says.
typedef struct Track {
    uint32_t handler, format;
    const unsigned char *entry;  // the sample entry's body
    size_t entry_length;
    Box stsz, stco, stsc, stss, stts, ctts;
    int co64, entries;
    uint64_t media_timescale, media_duration;
    /// The edit list's one edit: where in the media playing starts (-1: no edit list).
    int64_t edit_start;
} Track;

static int whole_children(const unsigned char *body, size_t length, int (*each)(Box *, void *), void *context) {
    size_t at = 0;
    Box box;
    while (at < length) {
        if (!next_box(body, length, &at, &box) || !each(&box, context)) return 0;
    }
    return 1;
}

static int stbl_child(Box *box, void *context) {
    Track *track = context;
    switch (box->type) {
    case FOURCC('s', 't', 's', 'd'): {
        if (box->length < 16 || be32(box->body + 4) != 1) return 0;  // one sample entry
        size_t at = 8;
        Box entry;
        if (!next_box(box->body, box->length, &at, &entry) || at != box->length) return 0;
        track->format = entry.type;
        track->entry = entry.body;
        track->entry_length = entry.length;
        track->entries++;
        return 1;
    }
    case FOURCC('s', 't', 's', 'z'): track->stsz = *box; return 1;
    case FOURCC('s', 't', 'c', 'o'): track->stco = *box; return 1;
    case FOURCC('c', 'o', '6', '4'): track->stco = *box; track->co64 = 1; return 1;
    case FOURCC('s', 't', 's', 'c'): track->stsc = *box; return 1;
    case FOURCC('s', 't', 's', 's'): track->stss = *box; return 1;
    case FOURCC('s', 't', 't', 's'): track->stts = *box; return 1;
    case FOURCC('c', 't', 't', 's'): track->ctts = *box; return 1;
    // Dependency and grouping tables: nothing of the facts.
    case FOURCC('s', 'd', 't', 'p'):
    case FOURCC('s', 'g', 'p', 'd'): case FOURCC('s', 'b', 'g', 'p'): case FOURCC('c', 's', 'l', 'g'):
    case FOURCC('s', 't', 'p', 's'):
        return 1;
    default: return 0;  // compact sizes, encryption, sub-samples …: left to FFmpeg
    }
}

/// A `dinf` whose one data reference says the samples are in this file (`url ` with the self-contained flag).
static int samples_here(const Box *dinf) {
    size_t at = 0, inner = 8;
    Box dref, entry;
    if (!next_box(dinf->body, dinf->length, &at, &dref) || at != dinf->length || dref.type != FOURCC('d', 'r', 'e', 'f')) return 0;
    if (dref.length < 8 || be32(dref.body + 4) != 1) return 0;
    if (!next_box(dref.body, dref.length, &inner, &entry) || inner != dref.length) return 0;
    return entry.type == FOURCC('u', 'r', 'l', ' ') && entry.length >= 4 && (be32(entry.body) & 0xffffff) == 1;
}

static int minf_child(Box *box, void *context) {
    switch (box->type) {
    case FOURCC('s', 't', 'b', 'l'): return whole_children(box->body, box->length, stbl_child, context);
    case FOURCC('d', 'i', 'n', 'f'): return samples_here(box);
    case FOURCC('v', 'm', 'h', 'd'): case FOURCC('s', 'm', 'h', 'd'): case FOURCC('h', 'd', 'l', 'r'):
        return 1;
    default: return 0;
    }
}

/// A movie or media header's (`mvhd`, `mdhd`: the same layout) timescale and duration, in its version 0 or 1.
static int timing(const Box *box, uint64_t *timescale, uint64_t *duration) {
    if (box->length >= 20 && box->body[0] == 0) {
        *timescale = be32(box->body + 12);
        *duration = be32(box->body + 16);
    } else if (box->length >= 32 && box->body[0] == 1) {
        *timescale = be32(box->body + 20);
        *duration = be64(box->body + 24);
    } else {
        return 0;
    }
    return 1;
}

static int mdia_child(Box *box, void *context) {
    Track *track = context;
    switch (box->type) {
    case FOURCC('h', 'd', 'l', 'r'):
        if (box->length < 12) return 0;
        track->handler = be32(box->body + 8);
        return 1;
    case FOURCC('m', 'i', 'n', 'f'): return whole_children(box->body, box->length, minf_child, context);
    case FOURCC('m', 'd', 'h', 'd'):
        return timing(box, &track->media_timescale, &track->media_duration) && track->media_timescale > 0;
    case FOURCC('e', 'l', 'n', 'g'): return 1;
    default: return 0;
    }
}

/// An edit list of one edit at normal speed (an encoder's priming or reordering delay); its start in the media.
static int plain_edit(Box *box, Track *track) {
    size_t at = 0;
    Box elst;
    if (!next_box(box->body, box->length, &at, &elst) || at != box->length || elst.type != FOURCC('e', 'l', 's', 't')) return 0;
    if (elst.length < 8 || be32(elst.body + 4) != 1) return 0;
    int version = elst.body[0];
    size_t entry = version == 1 ? 20 : 12;
    if (version > 1 || elst.length < 8 + entry) return 0;
    const unsigned char *e = elst.body + 8;
    int64_t start = version == 1 ? (int64_t)be64(e + 8) : (int32_t)be32(e + 4);
    if (start < 0 || be32(e + entry - 4) != 0x00010000) return 0;
    track->edit_start = start;
    return 1;
}

static int trak_child(Box *box, void *context) {
    switch (box->type) {
    case FOURCC('m', 'd', 'i', 'a'): return whole_children(box->body, box->length, mdia_child, context);
    case FOURCC('e', 'd', 't', 's'): return plain_edit(box, context);
    case FOURCC('t', 'k', 'h', 'd'): return 1;
    default: return 0;  // track references, a track's own metadata …
    }
}

/// What a `udta` may hold for FFmpeg to read it as plain tags: no cover art (a picture stream of its own),
/// no free-form or keyed tag (a tag named major_brand would replace the brand).
static int tags_plain(const unsigned char *body, size_t length) {
    static const char *refused[] = {"covr", "----", "keys"};
    for (size_t i = 0; i + 4 <= length; i++) {
        for (size_t k = 0; k < sizeof refused / sizeof *refused; k++) {
            if (memcmp(body + i, refused[k], 4) == 0) return 0;
        }
    }
    return 1;
}

typedef struct Movie {
    uint64_t timescale, duration;
    Track tracks[2];
    int track_count;
    /// The media data boxes' bodies, where every sample must lie.
    struct { size_t start, end; } data[4];
    int data_count;
} Movie;

static int moov_child(Box *box, void *context) {
    Movie *movie = context;
    switch (box->type) {
    case FOURCC('m', 'v', 'h', 'd'): return timing(box, &movie->timescale, &movie->duration);
    case FOURCC('t', 'r', 'a', 'k'):
        if (movie->track_count == 2) return 0;
        movie->tracks[movie->track_count].edit_start = -1;
        return whole_children(box->body, box->length, trak_child, &movie->tracks[movie->track_count++]);
    case FOURCC('u', 'd', 't', 'a'): return tags_plain(box->body, box->length);
    case FOURCC('i', 'o', 'd', 's'): case FOURCC('f', 'r', 'e', 'e'): case FOURCC('s', 'k', 'i', 'p'): return 1;
    default: return 0;  // mvex (a fragmented file), meta, …
    }
}

/// A table of (count, value) runs (`stts`, `ctts`) whole in its box, counting `samples` samples (`ctts`: at most),
/// every value one FFmpeg takes as it is (under 2^31). `*sum`: the sum of count × value (`stts`: the track's duration).
static int runs_count(const Box *table, uint32_t samples, int exact, uint64_t *sum) {
    if (table->length < 8) return 0;
    uint32_t entries = be32(table->body + 4);
    if ((table->length - 8) / 8 < entries) return 0;
    uint64_t total = 0;
    *sum = 0;
    for (uint32_t i = 0; i < entries; i++) {
        uint32_t count = be32(table->body + 8 + 8 * (uint64_t)i), value = be32(table->body + 12 + 8 * (uint64_t)i);
        if (value >= 0x80000000u) return 0;
        total += count;
        *sum += (uint64_t)count * value;
    }
    return exact ? total == samples : total <= samples;
}

/// Whether `size` bytes at `at` lie in one of the movie's media data boxes.
static int in_media_data(const Movie *movie, uint64_t at, uint64_t size) {
    for (int i = 0; i < movie->data_count; i++) {
        if (at >= movie->data[i].start && at <= movie->data[i].end && size <= movie->data[i].end - at) return 1;
    }
    return 0;
}

/// Every sample of `track` lies in the movie's media data, chunk after chunk; `first`, `first_size`: its first sample.
static int samples_inside(const Movie *movie, const Track *track, const unsigned char *bytes, const unsigned char **first,
                          size_t *first_size) {
    const Box *sizes = &track->stsz, *offsets = &track->stco, *runs = &track->stsc;
    if (sizes->length < 12 || offsets->length < 8 || runs->length < 8) return 0;
    uint32_t fixed = be32(sizes->body + 4), count = be32(sizes->body + 8);
    if (count == 0 || (fixed == 0 && (sizes->length - 12) / 4 < count)) return 0;
    uint32_t chunks = be32(offsets->body + 4), run_count = be32(runs->body + 4);
    size_t width = track->co64 ? 8 : 4;
    if (chunks == 0 || (offsets->length - 8) / width < chunks) return 0;
    if (run_count == 0 || (runs->length - 8) / 12 < run_count) return 0;
    // The samples' durations add up to the track's (an encoder writes both from the same samples).
    uint64_t duration, unused;
    if (!track->stts.length || !runs_count(&track->stts, count, 1, &duration) || duration != track->media_duration) return 0;
    if (track->ctts.length && !runs_count(&track->ctts, count, 0, &unused)) return 0;
    // And no picture is shown later than the track lasts (FFmpeg's index of such a file is of its own making).
    for (uint32_t i = 0; track->ctts.length && i < be32(track->ctts.body + 4); i++) {
        if (be32(track->ctts.body + 12 + 8 * (uint64_t)i) > track->media_duration) return 0;
    }
    uint32_t sample = 0, run = 0;
    uint64_t previous_end = 0;
    for (uint32_t chunk = 1; chunk <= chunks; chunk++) {
        while (run + 1 < run_count && be32(runs->body + 8 + 12 * (run + 1)) <= chunk) run++;
        const unsigned char *entry = runs->body + 8 + 12 * run;
        if (run == 0 && be32(entry) != 1) return 0;
        uint32_t per_chunk = be32(entry + 4);
        if (per_chunk == 0 || be32(entry + 8) != 1) return 0;
        uint64_t at = track->co64 ? be64(offsets->body + 8 + 8 * (chunk - 1)) : be32(offsets->body + 8 + 4 * (chunk - 1));
        if (at < previous_end) return 0;  // a chunk over the one before it
        for (uint32_t k = 0; k < per_chunk; k++, sample++) {
            if (sample == count) return 0;  // the table lists more samples than the sizes do
            uint64_t size = fixed ? fixed : be32(sizes->body + 12 + 4 * (uint64_t)sample);
            if (size == 0 || !in_media_data(movie, at, size)) return 0;
            if (sample == 0) {
                *first = bytes + at;
                *first_size = (size_t)size;
            }
            at += size;
        }
        previous_end = at;
    }
    if (sample != count) return 0;
    // The sync samples (no table: every one is), the first first, in order, each a sample of the track.
    if (track->stss.length) {
        const Box *sync = &track->stss;
        if (sync->length < 12) return 0;
        uint32_t entries = be32(sync->body + 4);
        if (entries == 0 || (sync->length - 8) / 4 < entries || be32(sync->body + 8) != 1) return 0;
        for (uint32_t i = 1; i < entries; i++) {
            uint32_t this = be32(sync->body + 8 + 4 * (uint64_t)i);
            if (this <= be32(sync->body + 4 + 4 * (uint64_t)i) || this > count) return 0;
        }
    }
    return 1;
}

/// The H.264 picture size of a visual sample entry (`avc1`), checked against its first sample; 0 when unplain.
static int avc_entry(const Track *track, const unsigned char *first, size_t first_size, int *width, int *height) {
    if (track->entry_length < 78) return 0;
    int declared_width = (int)be16(track->entry + 24), declared_height = (int)be16(track->entry + 26);
    size_t at = 78;
    Box box;
    int length_size = 0, found = 0;
    H264Parameters parameters;
    while (at < track->entry_length) {
        if (!next_box(track->entry, track->entry_length, &at, &box)) return 0;
        if (box.type == FOURCC('a', 'v', 'c', 'C')) {
            if (found++ || !h264_parameters(box.body, box.length, &length_size, &parameters)) return 0;
        }
    }
    if (!found || parameters.width != declared_width || parameters.height != declared_height) return 0;
    if (!h264_sample_starts_picture(first, first_size, length_size, &parameters)) return 0;
    if (!h264_first_picture_decodes(first, first_size, length_size, &parameters)) return 0;
    *width = parameters.width;
    *height = parameters.height;
    return 1;
}

/// An MPEG-4 descriptor's tag and body (ISO/IEC 14496-1 8.3.3: the size in up to four 7-bit bytes).
static int descriptor(const unsigned char *p, size_t length, unsigned *tag, const unsigned char **body, size_t *size) {
    if (length < 2) return 0;
    *tag = p[0];
    size_t at = 1, value = 0;
    for (int i = 0; i < 4; i++) {
        if (at >= length) return 0;
        unsigned char byte = p[at++];
        value = value << 7 | (byte & 0x7f);
        if (!(byte & 0x80)) break;
        if (i == 3) return 0;
    }
    if (value > length - at) return 0;
    *body = p + at;
    *size = value;
    return 1;
}

/// Whether an `esds` box's body describes AAC a decoder opens: MPEG-4 or MPEG-2 AAC, an object type of the AAC
/// family, a listed sample rate and a channel layout.
static int esds_is_aac(const unsigned char *esds, size_t length) {
    if (length < 4) return 0;
    unsigned tag;
    const unsigned char *body;
    size_t size;
    if (!descriptor(esds + 4, length - 4, &tag, &body, &size) || tag != 3 || size < 3) return 0;
    size_t at = 3;
    unsigned flags = body[2];
    if (flags & 0x80) at += 2;
    if (flags & 0x40) {
        if (at >= size) return 0;
        at += 1 + body[at];
    }
    if (flags & 0x20) at += 2;
    if (at >= size || !descriptor(body + at, size - at, &tag, &body, &size) || tag != 4 || size < 13) return 0;
    unsigned object = body[0];
    if (object != 0x40 && object != 0x66 && object != 0x67 && object != 0x68) return 0;
    if (!descriptor(body + 13, size - 13, &tag, &body, &size) || tag != 5 || size < 2) return 0;
    Bits b = {body, size, 0, 0};
    unsigned type = bits(&b, 5), rate = bits(&b, 4), channels = bits(&b, 4);
    int family = type == 1 || type == 2 || type == 3 || type == 4 || type == 5 || type == 29;
    return !b.overrun && family && rate < 12 && channels >= 1 && channels <= 7;
}

/// An `mp4a` sample entry of AAC (its `esds` directly, or in QuickTime's `wave`).
static int aac_entry(const Track *track) {
    if (track->entry_length < 28) return 0;
    unsigned version = be16(track->entry + 8);
    size_t at = version == 0 ? 28 : version == 1 ? 44 : version == 2 ? 64 : 0;
    if (!at || at > track->entry_length) return 0;
    Box box;
    int aac = 0;
    while (at < track->entry_length) {
        if (!next_box(track->entry, track->entry_length, &at, &box)) return 0;
        if (box.type == FOURCC('e', 's', 'd', 's')) {
            aac = esds_is_aac(box.body, box.length);
        } else if (box.type == FOURCC('w', 'a', 'v', 'e')) {
            size_t inner = 0;
            Box child;
            while (inner < box.length && next_box(box.body, box.length, &inner, &child)) {
                if (child.type == FOURCC('e', 's', 'd', 's')) aac = esds_is_aac(child.body, child.length);
            }
        }
    }
    return aac;
}

int mp4_read(const unsigned char *bytes, size_t length, DoorFacts *facts) {
    size_t at = 0;
    Box box;
    if (!next_box(bytes, length, &at, &box) || box.type != FOURCC('f', 't', 'y', 'p') || box.length < 8) return 0;
    char brand[5];
    for (int i = 0; i < 4; i++) {
        if (box.body[i] < 0x20 || box.body[i] > 0x7e) return 0;
        brand[i] = (char)box.body[i];
    }
    brand[4] = 0;
    Movie movie;
    memset(&movie, 0, sizeof movie);
    int movies = 0;
    while (at < length) {
        if (!next_box(bytes, length, &at, &box)) return 0;
        switch (box.type) {
        case FOURCC('m', 'o', 'o', 'v'):
            if (movies++ || !whole_children(box.body, box.length, moov_child, &movie)) return 0;
            break;
        case FOURCC('m', 'd', 'a', 't'):
            if (movie.data_count == 4) return 0;
            movie.data[movie.data_count].start = (size_t)(box.body - bytes);
            movie.data[movie.data_count++].end = (size_t)(box.body - bytes) + box.length;
            break;
        case FOURCC('f', 'r', 'e', 'e'): case FOURCC('s', 'k', 'i', 'p'):
        case FOURCC('w', 'i', 'd', 'e'):
            break;
        default: return 0;  // fragments, an index of them, top-level metadata …
        }
    }
    if (!movies || movie.timescale == 0 || movie.duration == 0 || movie.duration > (1ULL << 40)) return 0;
    const Track *video = NULL, *audio = NULL;
    for (int i = 0; i < movie.track_count; i++) {
        const Track *track = &movie.tracks[i];
        // An edit that starts past the media leaves FFmpeg an index of its own making.
        if (track->entries != 1 || !track->media_timescale) return 0;
        if (track->edit_start >= 0 && (uint64_t)track->edit_start >= track->media_duration) return 0;
        if (track->handler == FOURCC('v', 'i', 'd', 'e') && !video && track->format == FOURCC('a', 'v', 'c', '1')) {
            video = track;
        } else if (track->handler == FOURCC('s', 'o', 'u', 'n') && !audio && track->format == FOURCC('m', 'p', '4', 'a')) {
            audio = track;
        } else {
            return 0;
        }
    }
    if (!video && !audio) return 0;
    const unsigned char *first = NULL, *audio_first = NULL;
    size_t first_size = 0, audio_first_size = 0;
    int width = 0, height = 0;
    if (video && (!samples_inside(&movie, video, bytes, &first, &first_size) || !avc_entry(video, first, first_size, &width, &height))) {
        return 0;
    }
    if (audio && (!samples_inside(&movie, audio, bytes, &audio_first, &audio_first_size) || !aac_entry(audio))) return 0;
    // FFmpeg's movie duration: av_rescale(duration, AV_TIME_BASE, timescale), rounded to nearest.
    unsigned __int128 scaled = (unsigned __int128)movie.duration * 1000000u + movie.timescale / 2;
    double seconds = (double)(uint64_t)(scaled / movie.timescale) / 1000000.0;
    if (video) {
        door_kind(facts, DOOR_VIDEO);
        door_text(facts, DOOR_CONTAINER, brand);
        door_text(facts, DOOR_VIDEO_CODEC, "h264");
        door_text(facts, DOOR_VIDEO_TAG, "avc1");
        door_number(facts, DOOR_WIDTH, width);
        door_number(facts, DOOR_HEIGHT, height);
        door_seconds(facts, seconds);
        door_text(facts, DOOR_AUDIO_CODEC, audio ? "aac" : NULL);
    } else {
        door_kind(facts, DOOR_AUDIO);
        door_text(facts, DOOR_AUDIO_CODEC, "aac");
        door_seconds(facts, seconds);
    }
    door_flag(facts, DOOR_COMPLETE, 1);
    door_status(facts, DOOR_DECODED, NULL);
    return 1;
}
