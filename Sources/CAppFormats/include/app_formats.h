// The build formats no Debian library reads (SPEC 22), each read by one small file here, bounded
// against hostile input (every offset checked against the bytes given, never past them; counts
// capped), and fuzzed by scripts/fuzz (Fuzz/AppFormatsFuzzer.c):
//   macho.c   a Mach-O executable's load commands (fat or thin): the dylibs it links.
#ifndef NOTTI_APP_FORMATS_H
#define NOTTI_APP_FORMATS_H

#include <stddef.h>
#include <stdint.h>

/// What macho_read made of the bytes it was given.
typedef enum {
    /// The load commands were read: `dylib` was called for each dylib linked.
    MACHO_READ = 0,
    /// A fat (universal) file: read again from `slice_offset`, the first slice in the file.
    MACHO_FAT = 1,
    /// The load commands go on past the bytes given: read again with `needed` bytes.
    MACHO_NEED_MORE = 2,
    /// Not a Mach-O file (no Mach-O or fat magic number).
    MACHO_NOT_MACHO = 3,
    /// A Mach-O file whose header or load commands contradict themselves (`detail` says how).
    MACHO_DAMAGED = 4,
} MachOStatus;

/// The most load commands' bytes read (a real executable's are tens of kilobytes).
#define MACHO_MAX_COMMAND_BYTES (4u << 20)
/// The most dylibs reported; the rest are not (no executable links this many).
#define MACHO_MAX_DYLIBS 4096u

typedef struct {
    MachOStatus status;
    /// MACHO_NEED_MORE: how many bytes from the start of the bytes given the reader needs.
    uint64_t needed;
    /// MACHO_FAT: where the first slice starts in the file.
    uint64_t slice_offset;
    /// MACHO_READ: the dylibs reported.
    uint32_t dylibs;
    /// MACHO_READ: the minimum OS from LC_BUILD_VERSION or LC_VERSION_MIN_*, as xxxx.yy.zz packed in nibbles
    /// (0x000F0200 is 15.2), or 0 when the file names none.
    uint32_t minimum_os;
    /// MACHO_DAMAGED: why, a static text.
    const char *detail;
} MachOFacts;

/// Called for each dylib a load command links (LC_LOAD_DYLIB, weak, re-exported, lazy, upward), with the
/// name's bytes up to its terminator (never past the command).
typedef void (*MachODylib)(const char *name, size_t length, void *context);

/// Reads a Mach-O file's header and load commands from `data[0..<length]`, the file's first bytes (or a fat
/// file's slice's, after MACHO_FAT). Never reads outside them.
MachOFacts macho_read(const uint8_t *data, size_t length, MachODylib dylib, void *context);

#endif
