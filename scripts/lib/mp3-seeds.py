"""Structured seeds for the stream fuzzer (scripts/fuzz): MP3 files shaped where the worker's MP3 reader
(mp3_reader.c) decides, an ID3v2 tag or none, one to three Layer III frames, the first Xing/Info-tagged or not,
and an ID3v1 "TAG" placed before, across and after the frames' end, at page-sized lengths and others: the
shapes around the frame/ID3v1 overlap whose wrapped bound read past the file (issue 58).
Usage: mp3-seeds.py FOLDER"""
import struct
import sys

folder = sys.argv[1]
count = 0
for tag_size in (0, 10, 2656):
    for frames in (1, 2, 3):
        for xing in (False, True):
            for tag_at in (-128, -200, -1000):
                head = b""
                if tag_size:
                    head = b"ID3\x03\x00\x00" + bytes([0, 0, (tag_size - 10) >> 7, (tag_size - 10) & 0x7F]) + bytes(tag_size - 10)
                frame = bytearray(1440)
                frame[0:4] = bytes([0xFF, 0xFB, 0xE8, 0x00])  # MPEG-1 Layer III, 320 kbit/s, 32 kHz
                if xing:
                    frame[36:48] = (b"Xing" if tag_at != -200 else b"Info") + struct.pack(">II", 1, frames)
                data = bytearray(head + bytes(frame) * frames)
                at = len(data) + tag_at
                if at >= 0:
                    data[at:at + 3] = b"TAG"
                count += 1
                with open(f"{folder}/mp3-seed-{count}.mp3", "wb") as out:
                    out.write(bytes(data))
