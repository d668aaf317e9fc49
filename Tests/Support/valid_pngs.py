#!/usr/bin/env python3
"""Writes PngSuite's basic valid files, in kind, into FOLDER: every colour type at every bit
depth PNG allows, straight (basn*) and Adam7-interlaced (basi*), 32x32; palettes with and
without transparency (tbbn3p08), grey and RGB with a tRNS colour (tbgn2c16, tbrn2c08);
and the odd sizes 1x1 to 9x9 and 32x33 to 40x40 both ways (s01n3p01 ...); each named as its
PngSuite namesake, with `sizes.json` mapping each name to [width, height].

    Tests/Support/valid_pngs.py FOLDER
"""
import json
import os
import struct
import sys
import zlib

# Adam7's passes: (x start, y start, x step, y step).
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def sample(x, y, channel, depth):
    """A deterministic gradient, within the depth's range."""
    top = (1 << depth) - 1
    return ((x * 7 + y * 5 + channel * 11) * (top // 31 if top >= 31 else 1)) % (top + 1)


def row_bytes(pixels, depth):
    """Packs samples of `depth` bits (1, 2, 4, 8, 16) into bytes, big-endian, rows padded to a byte."""
    if depth == 16:
        return b"".join(struct.pack(">H", value) for value in pixels)
    if depth == 8:
        return bytes(pixels)
    out, accumulator, bits = bytearray(), 0, 0
    for value in pixels:
        accumulator = (accumulator << depth) | value
        bits += depth
        if bits == 8:
            out.append(accumulator)
            accumulator, bits = 0, 0
    if bits:
        out.append(accumulator << (8 - bits))
    return bytes(out)


def image_data(width, height, colour_type, depth, interlaced):
    channels = CHANNELS[colour_type]

    def pixels_of(xs, y):
        values = []
        for x in xs:
            for channel in range(channels):
                values.append(sample(x, y, channel, depth))
        return values

    raw = bytearray()
    if not interlaced:
        for y in range(height):
            raw += b"\x00" + row_bytes(pixels_of(range(width), y), depth)
        return bytes(raw)
    for x0, y0, dx, dy in ADAM7:
        xs = list(range(x0, width, dx))
        if not xs:
            continue
        for y in range(y0, height, dy):
            raw += b"\x00" + row_bytes(pixels_of(xs, y), depth)
    return bytes(raw)


def png(width, height, colour_type, depth, interlaced=False, trns=None):
    ihdr = struct.pack(">IIBBBBB", width, height, depth, colour_type, 0, 0, 1 if interlaced else 0)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
    if colour_type == 3:
        entries = 1 << depth
        data += chunk(b"PLTE", b"".join(bytes(((i * 37) % 256, (i * 91) % 256, (i * 53) % 256)) for i in range(entries)))
    if trns is not None:
        data += chunk(b"tRNS", trns)
    data += chunk(b"IDAT", zlib.compress(image_data(width, height, colour_type, depth, interlaced), 9))
    return data + chunk(b"IEND", b"")


def main():
    folder = sys.argv[1]
    files, sizes = {}, {}
    depths = {0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]}
    letters = {0: "g", 2: "c", 3: "p", 4: "a", 6: "a"}
    for colour_type, allowed in depths.items():
        for depth in allowed:
            for interlaced in (False, True):
                name = "bas%s%d%s%02d" % ("i" if interlaced else "n", colour_type, letters[colour_type], depth)
                files[name] = png(32, 32, colour_type, depth, interlaced)
                sizes[name] = [32, 32]
    files["tbbn3p08"] = png(32, 32, 3, 8, trns=bytes(range(0, 256, 2)))
    files["tbgn2c16"] = png(32, 32, 2, 16, trns=struct.pack(">HHH", 0, 65535, 0))
    files["tbrn2c08"] = png(32, 32, 2, 8, trns=struct.pack(">HHH", 255, 0, 0))
    for side in list(range(1, 10)) + list(range(32, 41)):
        for interlaced in (False, True):
            name = "s%02d%s3p01" % (side, "i" if interlaced else "n")
            width, height = side, side if side < 32 else side
            files[name] = png(width, height, 3, 1, interlaced)
            sizes[name] = [width, height]
    for name, data in files.items():
        sizes.setdefault(name, [32, 32])
        with open(os.path.join(folder, name + ".png"), "wb") as f:
            f.write(data)
    with open(os.path.join(folder, "sizes.json"), "w") as f:
        json.dump(sizes, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
