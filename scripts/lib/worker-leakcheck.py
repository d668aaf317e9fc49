#!/usr/bin/env python3
"""Drives the decode worker under valgrind's leak checker, as the tool drives it (a
SOCK_SEQPACKET socket on descriptor 3, each request's files passed as descriptors),
through every kind of request several times: decodes of each picture and stream format (libvips's
loaders for BMP, TIFF and damaged files among them),
the preview's renditions of an opaque and a transparent picture, `fix` of a picture, a video
and a sound, and a video's still for Android. Exits 1 on any definitely lost byte (valgrind's log is printed).

    scripts/lib/worker-leakcheck.py WORKER FOLDER

FOLDER is scratch space for the renditions and the log; the worker must be built with
DWARF 4 debug info (Debian 12's valgrind cannot read DWARF 5).
"""
import os
import socket
import subprocess
import sys
import zlib
import struct

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DECODE = os.path.join(ROOT, "Tests", "Fixtures", "decode")
MEDIA = os.path.join(ROOT, "Tests", "Fixtures", "media")


def transparent_png(path):
    """A 64x64 RGBA PNG: the renditions flatten its alpha on white (where 80 bytes a picture leaked)."""
    rows = b"".join(b"\x00" + b"".join(bytes([x * 4, y * 4, 128, (x + y) * 2]) for x in range(64)) for y in range(64))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 64, 64, 8, 6, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def run(worker, kind, requests, folder):
    """Runs one worker of `kind` under valgrind through `requests`; returns (exit status, log path)."""
    log = os.path.join(folder, "valgrind-%s.log" % kind)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    channel = theirs.fileno()
    # Inheritable (socketpair's are not), in case it already is descriptor 3 and dup2 is a no-op;
    # pass_fds keeps descriptor 3, which the close of the rest comes after.
    os.set_inheritable(channel, True)

    def on_descriptor_3():
        os.dup2(channel, 3)

    process = subprocess.Popen(
        ["valgrind", "--leak-check=full", "--errors-for-leak-kinds=definite", "--error-exitcode=99", "--log-file=" + log,
         worker, "--kind", kind], preexec_fn=on_descriptor_3, pass_fds=(3,),
        # Valgrind cannot run seccomp (system call 317): unfiltered (a test build's hook), the decoding children
        # get as far as the format libraries and FFmpeg, whose memory errors are what this checks.
        env=dict(os.environ, NOTTI_MEDIA_DECODE_UNFILTERED="1"))
    theirs.close()
    # The door's first message (door.h): the version it speaks.
    hello = ours.recv(16384).decode()
    if not hello.startswith('{"door":'):
        print("worker-leakcheck: the worker's first message is not the door's: %r" % hello, file=sys.stderr)
    for number, (text, source, outputs) in enumerate(requests):
        descriptors = [os.open(source, os.O_RDONLY)]
        descriptors += [os.open(os.path.join(folder, "out-%s-%d-%d" % (kind, number, i)), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                        for i in range(outputs)]
        socket.send_fds(ours, [text.encode()], descriptors)
        answer = ours.recv(16384).decode()
        for descriptor in descriptors:
            os.close(descriptor)
        if ('"status":"failed"' in answer and "change size" not in answer) or any('"status":"%s"' % failed in answer for failed in ("decoder_failed", "decoder_missing", "sandbox_unavailable")):
            print("worker-leakcheck: %r on %s: %s" % (text.split("\n")[0], os.path.basename(source), answer), file=sys.stderr)
    ours.close()
    return process.wait(), log


def main():
    worker, folder = sys.argv[1], sys.argv[2]
    transparent = os.path.join(folder, "transparent.png")
    transparent_png(transparent)
    pictures = [("image/jpeg", os.path.join(DECODE, "photo.jpg")), ("image/png", os.path.join(DECODE, "photo.png")),
                ("image/png", transparent), ("image/gif", os.path.join(DECODE, "animated.gif")),
                ("image/webp", os.path.join(MEDIA, "badge.webp")), ("image/heic", os.path.join(DECODE, "photo.heic")),
                ("image/avif", os.path.join(DECODE, "photo.avif")), ("image/avif", os.path.join(DECODE, "animated.avif")),
                ("image/jpeg", os.path.join(DECODE, "truncated.jpg")),
                ("image/jpeg", os.path.join(DECODE, "rotated-6.jpg")),
                # libvips's loaders, in the judging child: BMP (ImageMagick), TIFF, a cut and a damaged PNG, a corrupt JPEG.
                ("image/bmp", os.path.join(DECODE, "photo.bmp")), ("image/tiff", os.path.join(DECODE, "photo.tiff")),
                ("image/png", os.path.join(DECODE, "truncated.png")), ("image/png", os.path.join(DECODE, "crc-error.png")),
                ("image/jpeg", os.path.join(DECODE, "corrupt.jpg"))]
    picture_requests = []
    for _ in range(3):
        picture_requests += [(mime, path, 0) for mime, path in pictures]
        picture_requests += [("render\nimage/png\n-\nios-thumbnail ios-expanded android android-as-stored", transparent, 4),
                             ("render\nimage/jpeg\n-\nios-thumbnail android-as-stored", os.path.join(DECODE, "rotated-6.jpg"), 2),
                             ("fix\nimage/png\n2048\n300000\n1048576", transparent, 1),
                             ("fix\nimage/gif\n2048\n300000\n1048576", os.path.join(DECODE, "animated.gif"), 1)]
    streams = [("video/mp4", os.path.join(DECODE, name)) for name in ("avc1.mp4", "hev1.mp4", "truncated.mp4", "hev1-long-tag.mp4")]
    streams += [("audio/mpeg", os.path.join(DECODE, "tone.mp3")), ("audio/mp4", os.path.join(DECODE, "voice.m4a"))]
    stream_requests = []
    for _ in range(2):
        stream_requests += [(mime, path, 0) for mime, path in streams]
        stream_requests += [("fix\nvideo/mp4\n2048\n300000\n52428800", os.path.join(DECODE, "hev1.mp4"), 1),
                            ("fix\naudio/mpeg\n2048\n5000000\n5000000", os.path.join(DECODE, "cover.mp3"), 1),
                            ("poster", os.path.join(DECODE, "avc1.mp4"), 1),
                            # Refused ("frames change size"): its re-encode read past the smaller frames.
                            ("fix\nvideo/mp4\n2048\n300000\n52428800", os.path.join(DECODE, "vp9-shrinking.mp4"), 1)]
    failed = False
    for kind, requests in (("pictures", picture_requests), ("streams", stream_requests)):
        status, log = run(worker, kind, requests, folder)
        with open(log) as f:
            text = f.read()
        # The worker's own summary is the log's last (it outlives the children it forks to decode each picture,
        # sandbox.h); a child's definite leaks are the worker's other threads' memory, unreachable after fork, but
        # a child's invalid reads and writes are the decoders' own: they count.
        lost = [line for line in text.splitlines() if "definitely lost:" in line]
        invalid = [line for line in text.splitlines() if "Invalid read" in line or "Invalid write" in line
                   or "uninitialised value" in line]
        print("worker-leakcheck, %s worker, %d requests: %s; %d invalid accesses in it and its decoding children"
              % (kind, len(requests), lost[-1].split("==", 2)[-1].strip() if lost else "no leak summary", len(invalid)))
        if status != 0 or invalid:
            failed = True
            print(text, file=sys.stderr)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
