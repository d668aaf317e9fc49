// libFuzzer target for the build readers no Debian library provides (Sources/CAppFormats, SPEC 22): hostile
// bytes where an extension's executable is expected, read as `notti-media app` reads them (MachOLinks.swift):
// the file's first bytes, then, as the reader asks, a fat file's slice or more of the load commands, each
// time only the bytes the input has. Built by scripts/fuzz with AddressSanitizer.
#include "app_formats.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/// Where the names' sum goes, so that reading them is not optimised away.
static volatile size_t sink;

static void seen(const char *name, size_t length, void *context) {
    // Touch every byte reported, so that a name past its command is an ASan finding here.
    size_t *sum = context;
    for (size_t i = 0; i < length; i++) *sum += (unsigned char)name[i];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    size_t sum = 0, offset = 0, count = size < 16384 ? size : 16384;
    for (int pass = 0; pass < 4; pass++) {
        MachOFacts facts = macho_read(data + offset, count, seen, &sum);
        if (facts.status == MACHO_FAT && pass == 0 && facts.slice_offset < size) {
            offset = (size_t)facts.slice_offset;
            count = size - offset < 16384 ? size - offset : 16384;
        } else if (facts.status == MACHO_NEED_MORE && facts.needed > count && facts.needed <= size - offset) {
            count = (size_t)facts.needed;
        } else {
            break;
        }
    }
    sink = sum;
    return 0;
}
