// A Mach-O executable's load commands (SPEC 22: the dylibs a service extension links name its push SDK).
// Every read goes through `room`, which asks whether `count` bytes at `at` lie within the bytes given,
// written one way: `at <= length && count <= length - at` (never `at + count`, which can wrap).
#include "app_formats.h"

#include <string.h>

enum {
    FAT_MAGIC = 0xCAFEBABEu, FAT_MAGIC_64 = 0xCAFEBABFu,
    MH_MAGIC = 0xFEEDFACEu, MH_MAGIC_64 = 0xFEEDFACFu, MH_CIGAM = 0xCEFAEDFEu, MH_CIGAM_64 = 0xCFFAEDFEu,
    LC_LOAD_DYLIB = 0xC, LC_LOAD_WEAK_DYLIB = 0x80000018u, LC_REEXPORT_DYLIB = 0x8000001Fu,
    LC_LAZY_LOAD_DYLIB = 0x20, LC_LOAD_UPWARD_DYLIB = 0x80000023u,
    LC_VERSION_MIN_IPHONEOS = 0x25, LC_BUILD_VERSION = 0x32,
};

/// A fat header names at most this many slices (Apple's own tools build a handful; a Java class file, which
/// shares the magic number, puts its version, 45 or more, there).
#define MACHO_MAX_SLICES 32u

static int room(size_t at, size_t count, size_t length) { return at <= length && count <= length - at; }

static uint32_t word(const uint8_t *at, int big) {
    return big ? (uint32_t)at[0] << 24 | (uint32_t)at[1] << 16 | (uint32_t)at[2] << 8 | at[3]
               : (uint32_t)at[3] << 24 | (uint32_t)at[2] << 16 | (uint32_t)at[1] << 8 | at[0];
}

static uint64_t doubleword(const uint8_t *at, int big) {
    return big ? (uint64_t)word(at, 1) << 32 | word(at + 4, 1) : (uint64_t)word(at + 4, 0) << 32 | word(at, 0);
}

static MachOFacts damaged(const char *why) {
    MachOFacts facts = {.status = MACHO_DAMAGED, .detail = why};
    return facts;
}

static MachOFacts need(uint64_t bytes) {
    MachOFacts facts = {.status = MACHO_NEED_MORE, .needed = bytes};
    return facts;
}

/// A fat file: its first slice in the file (the slices are one program built for several processors; each
/// links the same frameworks), so that a reader of a stream reads the least.
static MachOFacts fat(const uint8_t *data, size_t length, int wide) {
    uint32_t count = word(data + 4, 1);
    if (count == 0 || count > MACHO_MAX_SLICES) return damaged("a fat header naming no slice, or too many");
    size_t entry = wide ? 32 : 20, table = 8 + (size_t)count * entry;
    if (!room(0, table, length)) return need(table);
    uint64_t first = 0;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *arch = data + 8 + (size_t)i * entry;
        uint64_t offset = wide ? doubleword(arch + 8, 1) : word(arch + 8, 1);
        uint64_t size = wide ? doubleword(arch + 16, 1) : word(arch + 12, 1);
        if (offset < table || size < 28) return damaged("a fat slice that overlaps the header or is too small");
        if (first == 0 || offset < first) first = offset;
    }
    MachOFacts facts = {.status = MACHO_FAT, .slice_offset = first};
    return facts;
}

static int links_dylib(uint32_t command) {
    return command == LC_LOAD_DYLIB || command == LC_LOAD_WEAK_DYLIB || command == LC_REEXPORT_DYLIB
        || command == LC_LAZY_LOAD_DYLIB || command == LC_LOAD_UPWARD_DYLIB;
}

MachOFacts macho_read(const uint8_t *data, size_t length, MachODylib dylib, void *context) {
    MachOFacts none = {.status = MACHO_NOT_MACHO};
    if (!room(0, 4, length)) return length == 0 ? none : need(4);
    uint32_t magic = word(data, 1);
    if (magic == FAT_MAGIC || magic == FAT_MAGIC_64) {
        if (!room(0, 8, length)) return need(8);
        return fat(data, length, magic == FAT_MAGIC_64);
    }
    magic = word(data, 0);
    int big = magic == MH_CIGAM || magic == MH_CIGAM_64;
    int wide = magic == MH_MAGIC_64 || magic == MH_CIGAM_64;
    if (!big && magic != MH_MAGIC && magic != MH_MAGIC_64) return none;
    size_t header = wide ? 32 : 28;
    if (!room(0, header, length)) return need(header);
    uint32_t commands = word(data + 16, big), command_bytes = word(data + 20, big);
    if (command_bytes > MACHO_MAX_COMMAND_BYTES) return damaged("load commands larger than 4 MiB");
    if (commands > command_bytes / 8) return damaged("more load commands than their bytes can hold");
    if (!room(header, command_bytes, length)) return need((uint64_t)header + command_bytes);
    size_t end = header + command_bytes, at = header;
    MachOFacts facts = {.status = MACHO_READ};
    for (uint32_t i = 0; i < commands; i++) {
        if (!room(at, 8, end)) return damaged("a load command past the load commands' size");
        uint32_t command = word(data + at, big), size = word(data + at + 4, big);
        if (size < 8 || !room(at, size, end)) return damaged("a load command whose size leaves its bounds");
        if (links_dylib(command) && size >= 24) {
            uint32_t name = word(data + at + 8, big);
            if (name < 24 || name >= size) return damaged("a dylib command whose name lies outside it");
            const char *text = (const char *)data + at + name;
            const char *stop = memchr(text, 0, size - name);
            size_t bytes = stop ? (size_t)(stop - text) : size - name;
            if (bytes > 0 && facts.dylibs < MACHO_MAX_DYLIBS) {
                facts.dylibs++;
                if (dylib) dylib(text, bytes, context);
            }
        } else if (facts.minimum_os == 0 && command == LC_BUILD_VERSION && size >= 16) {
            facts.minimum_os = word(data + at + 12, big);
        } else if (facts.minimum_os == 0 && command == LC_VERSION_MIN_IPHONEOS && size >= 12) {
            facts.minimum_os = word(data + at + 8, big);
        }
        at += size;
    }
    return facts;
}
