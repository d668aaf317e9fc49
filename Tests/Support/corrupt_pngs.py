#!/usr/bin/env python3
"""Writes PngSuite's 14 corrupt files, in kind, into FOLDER: each is a valid grey PNG broken
the way its PngSuite namesake is (http://www.schaik.com/pngsuite/, "corrupted files"):

    xs1n0g01 xs2n0g01 xs4n0g01 xs7n0g01  signature byte 1, 2, 4, 7 wrong
    xcrn0g04 xlfn0g04                    a CR byte added / LF bytes removed (ASCII transfer)
    xhdn0g08                             IHDR CRC wrong
    xc1n0g08 xc9n2c08                    colour type 1, 9
    xd0n2c08 xd3n2c08 xd9n2c08           bit depth 0, 3, 99
    xdtn0g01                             no IDAT chunk
    xcsn0g01                             IDAT CRC wrong

    Tests/Support/corrupt_pngs.py FOLDER
"""
import os
import struct
import sys
import zlib

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def chunk(kind, data, crc=None):
    value = zlib.crc32(kind + data) & 0xFFFFFFFF if crc is None else crc
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", value)


def png(colour_type=0, depth=8, signature=SIGNATURE, ihdr_crc=None, idat=True, idat_crc=None, width=32, height=32):
    channels = {0: 1, 2: 3}.get(colour_type, 1)
    rows = b"".join(b"\x00" + bytes((x * 8 + y) & 0xFF for x in range(width * channels)) for y in range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, depth, colour_type, 0, 0, 0)
    data = chunk(b"IHDR", ihdr, ihdr_crc)
    if idat:
        data += chunk(b"IDAT", zlib.compress(rows), idat_crc)
    return signature + data + chunk(b"IEND", b"")


def main():
    folder = sys.argv[1]
    good = png()

    def flip(signature, index):
        broken = bytearray(signature)
        broken[index] ^= 0x20
        return bytes(broken)

    files = {
        "xs1n0g01.png": flip(SIGNATURE, 0) + good[8:],
        "xs2n0g01.png": flip(SIGNATURE, 1) + good[8:],
        "xs4n0g01.png": flip(SIGNATURE, 3) + good[8:],
        "xs7n0g01.png": flip(SIGNATURE, 6) + good[8:],
        # Sent as text: every LF got a CR before it (the signature's own LF too); or lost its LFs.
        "xcrn0g04.png": good.replace(b"\n", b"\r\n"),
        "xlfn0g04.png": good.replace(b"\n", b""),
        "xhdn0g08.png": png(ihdr_crc=0x12345678),
        "xc1n0g08.png": png(colour_type=1),
        "xc9n2c08.png": png(colour_type=9),
        "xd0n2c08.png": png(colour_type=2, depth=0),
        "xd3n2c08.png": png(colour_type=2, depth=3),
        "xd9n2c08.png": png(colour_type=2, depth=99),
        "xdtn0g01.png": png(idat=False),
        "xcsn0g01.png": png(idat_crc=0x12345678),
    }
    for name, data in files.items():
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
    with open(os.path.join(folder, "basn0g08.png"), "wb") as f:
        f.write(good)


if __name__ == "__main__":
    main()
