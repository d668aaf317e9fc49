#include "h264.h"
#include "bytes.h"
#include "openh264.h"

#include <stdlib.h>
#include <string.h>

/// A NAL unit's first `most` bytes without emulation prevention (00 00 03 → 00 00): what the headers read.
static size_t unescape(const unsigned char *nal, size_t length, unsigned char *out, size_t most) {
    size_t kept = 0, zeros = 0;
    for (size_t i = 0; i < length && kept < most; i++) {
        if (zeros >= 2 && nal[i] == 3) {
            zeros = 0;
            continue;
        }
        zeros = nal[i] == 0 ? zeros + 1 : 0;
        out[kept++] = nal[i];
    }
    return kept;
}

/// The profiles whose parameter sets carry chroma format and bit depth (7.3.2.1.1).
static int high_profile(unsigned profile) {
    static const unsigned char profiles[] = {100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135};
    for (size_t i = 0; i < sizeof profiles; i++) {
        if (profiles[i] == profile) return 1;
    }
    return 0;
}

/// The cropped size of a sequence parameter set (its NAL header byte first).
static int sps_size(const unsigned char *nal, size_t length, int *width, int *height) {
    unsigned char clean[512];
    size_t size = unescape(nal, length, clean, sizeof clean);
    if (size < 4 || (clean[0] & 0x1f) != 7) return 0;
    Bits b = {clean + 1, size - 1, 0, 0};
    unsigned profile = bits(&b, 8);
    bits(&b, 16);  // constraint flags, level
    if (golomb(&b) > 31) return 0;
    unsigned chroma = 1, separate_planes = 0;
    if (high_profile(profile)) {
        if ((chroma = golomb(&b)) > 3) return 0;
        if (chroma == 3) separate_planes = bit(&b);
        if (golomb(&b) > 6 || golomb(&b) > 6) return 0;  // bit depths
        bit(&b);                                          // qpprime_y_zero_transform_bypass
        if (bit(&b)) return 0;                            // scaling matrices: left to FFmpeg
    }
    golomb(&b);  // log2_max_frame_num
    unsigned order = golomb(&b);
    if (order == 0) {
        golomb(&b);
    } else if (order == 1) {
        bit(&b);
        signed_golomb(&b);
        signed_golomb(&b);
        unsigned cycle = golomb(&b);
        if (cycle > 255) return 0;
        for (unsigned i = 0; i < cycle; i++) signed_golomb(&b);
    } else if (order != 2) {
        return 0;
    }
    golomb(&b);  // max_num_ref_frames
    bit(&b);     // gaps_in_frame_num_value_allowed
    unsigned columns = golomb(&b) + 1, rows = golomb(&b) + 1;
    unsigned frames_only = bit(&b);
    if (!frames_only) bit(&b);
    bit(&b);  // direct_8x8_inference
    unsigned left = 0, right = 0, top = 0, bottom = 0;
    if (bit(&b)) {
        left = golomb(&b);
        right = golomb(&b);
        top = golomb(&b);
        bottom = golomb(&b);
    }
    if (b.overrun || columns > 1024 || rows > 1024 || left || top) return 0;
    unsigned array_type = separate_planes ? 0 : chroma;
    unsigned unit_x = array_type == 0 || array_type == 3 ? 1 : 2;
    unsigned unit_y = (array_type == 1 ? 2 : 1) * (2 - frames_only);
    long w = (long)columns * 16 - (long)unit_x * right, h = (long)(2 - frames_only) * rows * 16 - (long)unit_y * bottom;
    if (w <= 0 || h <= 0) return 0;
    *width = (int)w;
    *height = (int)h;
    return 1;
}

int h264_parameters(const unsigned char *avcc, size_t length, int *length_size, H264Parameters *parameters) {
    memset(parameters, 0, sizeof *parameters);
    if (length < 7 || avcc[0] != 1) return 0;
    *length_size = (avcc[4] & 3) + 1;
    if (*length_size == 3) return 0;
    size_t at = 5;
    unsigned sets = avcc[at++] & 0x1f;
    if (sets == 0) return 0;
    for (unsigned i = 0; i < sets; i++) {
        if (at + 2 > length) return 0;
        size_t size = be16(avcc + at);
        at += 2;
        if (size == 0 || at + size > length) return 0;
        if (i == 0) {
            if (!sps_size(avcc + at, size, &parameters->width, &parameters->height)) return 0;
            parameters->sps = avcc + at;
            parameters->sps_length = size;
        }
        at += size;
    }
    if (at + 1 > length) return 0;
    unsigned pictures = avcc[at++];
    if (pictures == 0) return 0;
    for (unsigned i = 0; i < pictures; i++) {
        if (at + 2 > length) return 0;
        size_t size = be16(avcc + at);
        at += 2;
        if (size < 2 || at + size > length) return 0;
        unsigned char clean[16];
        size_t kept = unescape(avcc + at, size, clean, sizeof clean);
        Bits b = {clean + 1, kept - 1, 0, 0};
        unsigned id = golomb(&b);
        if ((clean[0] & 0x1f) != 8 || b.overrun || id > 255) return 0;
        parameters->pps_ids[id / 8] |= (unsigned char)(1u << (id % 8));
        if (i == 0) {
            parameters->pps = avcc + at;
            parameters->pps_length = size;
        }
        at += size;
    }
    return 1;
}

/// The NAL unit after the `length_size`-byte length at `*at` in a sample: 1 with `*nal`, `*size` and `*at` past it,
/// 0 at the sample's end or where a length runs past it.
static int next_nal(const unsigned char *sample, size_t length, int length_size, size_t *at, const unsigned char **nal,
                    size_t *size) {
    if (room(*at, length) < (size_t)length_size) return 0;
    size_t value = 0;
    for (int i = 0; i < length_size; i++) value = value << 8 | sample[*at + i];
    *at += (size_t)length_size;
    if (value > room(*at, length)) return 0;
    *nal = sample + *at;
    *size = value;
    *at += value;
    return 1;
}

int h264_sample_starts_picture(const unsigned char *sample, size_t length, int length_size, const H264Parameters *parameters) {
    int started = 0;
    for (size_t at = 0; at < length;) {
        const unsigned char *nal;
        size_t size;
        if (!next_nal(sample, length, length_size, &at, &nal, &size) || size == 0) return 0;
        unsigned type = nal[0] & 0x1f;
        // The forbidden bit; and kinds a plain decoder does not take (0, 13 and up: extensions, SVC, MVC).
        if ((nal[0] & 0x80) || type == 0 || type > 12) return 0;
        if ((type == 1 || type == 5) && !started) {
            if (type != 5) return 0;  // a first picture that is not an IDR: left to FFmpeg
            unsigned char clean[32];
            size_t kept = unescape(nal, size, clean, sizeof clean);
            Bits b = {clean + 1, kept - 1, 0, 0};
            unsigned first_macroblock = golomb(&b), slice_type = golomb(&b), pps = golomb(&b);
            if (b.overrun || first_macroblock != 0 || slice_type > 9 || pps > 255) return 0;
            if (!(parameters->pps_ids[pps / 8] & (1u << (pps % 8)))) return 0;
            started = 1;
        }
    }
    return started;
}

int h264_first_picture_decodes(const unsigned char *sample, size_t length, int length_size, const H264Parameters *parameters) {
    // Annex B: each NAL unit after a start code, the parameter sets first (the sample's own NAL units are whole:
    // h264_sample_starts_picture checked them).
    static const unsigned char start[4] = {0, 0, 0, 1};
    // A length prefix of one byte becomes a start code of four: at most twice the sample.
    size_t most = 4 + parameters->sps_length + 4 + parameters->pps_length + 2 * length;
    unsigned char *stream = malloc(most);
    if (!stream) return 0;
    size_t used = 0;
    memcpy(stream + used, start, 4), used += 4;
    memcpy(stream + used, parameters->sps, parameters->sps_length), used += parameters->sps_length;
    memcpy(stream + used, start, 4), used += 4;
    memcpy(stream + used, parameters->pps, parameters->pps_length), used += parameters->pps_length;
    const unsigned char *nal;
    size_t size;
    for (size_t at = 0; next_nal(sample, length, length_size, &at, &nal, &size) && used + 4 + size <= most;) {
        memcpy(stream + used, start, 4), used += 4;
        memcpy(stream + used, nal, size), used += size;
    }
    int decodes = openh264_decodes(stream, used);
    free(stream);
    return decodes;
}
