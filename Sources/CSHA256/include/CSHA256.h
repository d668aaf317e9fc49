// Why this target exists: attachment files are named by the SHA-256 of their
// bytes, hashed while they stream from libcurl. Foundation on Linux has no
// public digest API and no outside Swift package can be used, so this is a
// small portable C implementation of FIPS 180-4 SHA-256 (fast even in debug
// builds, which keeps libcurl's write callback cheap).
#ifndef CSHA256_H
#define CSHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t state[8];
    uint64_t length;      // bytes hashed so far
    uint8_t buffer[64];   // pending partial block
    size_t buffered;
} CSHA256_Context;

void CSHA256_init(CSHA256_Context *context);
void CSHA256_update(CSHA256_Context *context, const void *data, size_t count);
void CSHA256_final(CSHA256_Context *context, uint8_t digest[32]);

#endif
