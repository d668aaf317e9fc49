// Big-endian numbers and an H.264 bit reader over bytes already bounds-checked by the caller
// (lean_stream.h's readers), and Exp-Golomb codes, for the parameter sets.
#ifndef NOTTI_DECODE_BYTES_H
#define NOTTI_DECODE_BYTES_H

#include <stddef.h>
#include <stdint.h>

static inline uint32_t be16(const unsigned char *p) { return (uint32_t)p[0] << 8 | p[1]; }
static inline uint32_t be24(const unsigned char *p) { return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2]; }
static inline uint32_t be32(const unsigned char *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static inline uint64_t be64(const unsigned char *p) { return (uint64_t)be32(p) << 32 | be32(p + 4); }

/// The bytes left from `at` to `end`: 0 when `at` is past it. Every reader asks its bounds this way, never
/// `end - at` (which wraps to a huge room once `at` runs past `end`: an MP3 whose first frame overlaps its
/// ID3v1 tag read 4 bytes beyond the file).
static inline size_t room(size_t at, size_t end) { return at < end ? end - at : 0; }

/// Bits read most significant first; reading past the end sets `overrun` (and reads zeros).
typedef struct Bits {
    const unsigned char *bytes;
    size_t length, at;  // `at` in bits
    int overrun;
} Bits;

static inline unsigned bit(Bits *b) {
    if (b->at >= b->length * 8) {
        b->overrun = 1;
        return 0;
    }
    unsigned value = (b->bytes[b->at / 8] >> (7 - b->at % 8)) & 1;
    b->at++;
    return value;
}

static inline uint32_t bits(Bits *b, int count) {
    uint32_t value = 0;
    while (count-- > 0) value = value << 1 | bit(b);
    return value;
}

/// ue(v); more than 31 leading zeros is a broken code (overrun).
static inline uint32_t golomb(Bits *b) {
    int zeros = 0;
    while (!bit(b)) {
        if (b->overrun || ++zeros > 31) {
            b->overrun = 1;
            return 0;
        }
    }
    return zeros ? (uint32_t)((1ULL << zeros) - 1 + bits(b, zeros)) : 0;
}

static inline int32_t signed_golomb(Bits *b) {
    uint32_t code = golomb(b);
    return code & 1 ? (int32_t)((code + 1) / 2) : -(int32_t)(code / 2);
}

#endif
