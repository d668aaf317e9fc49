#!/usr/bin/env python3
"""A real HTTPS server on 127.0.0.1 for notti-media's tests, benchmarks and demo.

It listens on kernel-picked ports and prints one JSON line on stdout:
  {"port": P, "untrustedPort": U, "closedPort": C, "stallPort": S, "httpPort": H,
   "resetPort": R, "closePort": E}
- P serves the routes below with a certificate signed by tls/test-ca.pem
  (names: media.notti.test, localhost, 127.0.0.1, ::1), or with --cert/--key
  and --ciphers (TLS 1.2 suites only) as a test of SPEC 18 configures it;
- U serves the same routes with a self-signed certificate nobody trusts;
- C is a port that was bound and closed: connecting to it is refused;
- S accepts TCP connections and never says a word (a TLS handshake that stalls);
- H serves the same routes over plain http (for App Transport Security cases);
- R accepts TCP connections and resets each at once (RST), mid-handshake;
- E accepts TCP connections, reads the ClientHello and closes (FIN).
It exits when its standard input closes, so it never outlives the process
that started it.

Routes (GET):
  /media/NAME[?type=CT&cd=CD] a file from --media DIR; CT overrides the
                              Content-Type (type=none sends none); CD is sent
                              as Content-Disposition, and cc, etag, lm, age,
                              expires, cookie, vary as Cache-Control, ETag,
                              Last-Modified, Age, Expires, Set-Cookie, Vary
  /file/NAME/ANY...[?type&cd] the same file, under a URL whose last segment is
                              ANY (no extension, another one, or none at all)
  /repeat/N/NAME              that file's bytes N times over (real mp3 frames
                              repeated stay a playable mp3)
  /padded/N/NAME              that file's bytes padded with zeros to exactly N bytes
                              (real media stays what libmagic sniffs it as)
  /bytes/N?mode=M[&type=CT][&rate=BPS][&send=K]
                              N bytes of a real JPEG padded with zeros (ETag
                              "bytes-N", and 304 to If-None-Match of it);
                              M = length (Content-Length), nolength (close
                              delimited), chunked, or lie (Content-Length: 1024
                              plus chunked encoding carrying all N bytes);
                              rate sends them at BPS bytes a second (mode=length),
                              send stops after K bytes and holds the connection
  /endless                    an endless close-delimited stream
  /gzip-bomb                  ~100 KiB of gzip that inflates to 100 MiB
  /trickle                    Content-Length 1000, then one byte a second
  /redirect/N/PATH            N redirects (302), then /PATH
  /redirect-to?url=URL        one 302 to URL (any scheme)
  /relative-redirect/PATH     a 302 with the relative reference /PATH
  /loop                       a 302 to itself
  /status/CODE                that status, with a small HTML body (none for 204/304)
  /empty                      200 with Content-Length 0
  /versioned/KEY              a file whose content and ETag ("KEY-V") change with
                              its version V (logo.png, photo.jpg in turn); 304
                              to If-None-Match of the current ETag
  /bump/KEY                   the next version of /versioned/KEY
  /connections                {"open": N, "max": M}: connections open now, and the
                              most open at once since the server started
  /stats                      request counts per path, as JSON (and
                              "conditional:PATH" for requests that carried
                              If-None-Match or If-Modified-Since)
Hostile routes:
  /endless-headers            a status line, then a header line every 0.2 s, forever
  /huge-header                a 1 MiB header line
  /close-mid-body             Content-Length 100000, 50000 bytes, then the connection closes
  /bad-chunked                chunked encoding with a chunk size that is not hex
Prefixes that combine with any route:
  /u/TAG/ROUTE...             the same route, counted under its own path (so
                              tests sharing the server can count their requests)
  /slow/MS/ROUTE...           the same route after MS milliseconds
"""
import argparse
import gzip
import json
import os
import socket
import ssl
import struct
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
TLS = os.path.join(HERE, "tls")
JPEG_HEADER = open(os.path.join(HERE, "..", "Fixtures", "media", "photo.jpg"), "rb").read()
CONTENT_TYPES = {
    ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png", ".gif": "image/gif",
    ".mp4": "video/mp4", ".mp3": "audio/mpeg", ".webp": "image/webp", ".m4a": "audio/mp4",
    ".svg": "image/svg+xml", ".html": "text/html", ".json": "application/json",
}

media_root = "."
counts = {}
counts_lock = threading.Lock()
versions = {}
connections = {"open": 0, "max": 0}
bomb = None
bomb_lock = threading.Lock()


def gzip_bomb():
    global bomb
    with bomb_lock:
        if bomb is None:
            bomb = gzip.compress(b"\0" * (100 * 1024 * 1024), compresslevel=9)
        return bomb


def padded_jpeg(n):
    if n <= len(JPEG_HEADER):
        return JPEG_HEADER[:n]
    return JPEG_HEADER + b"\0" * (n - len(JPEG_HEADER))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "notti-test"
    sys_version = ""

    def log_message(self, *args):
        pass

    def setup(self):
        super().setup()
        # Headers and body go out in separate writes; without this, Nagle's
        # algorithm and delayed ACKs add 40 ms to every response.
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def handle(self):
        with counts_lock:
            connections["open"] += 1
            connections["max"] = max(connections["max"], connections["open"])
        try:
            super().handle()
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, TimeoutError, OSError):
            pass
        finally:
            with counts_lock:
                connections["open"] -= 1

    def route_connections(self, parts, query):
        with counts_lock:
            body = json.dumps(connections, sort_keys=True).encode()
        self.simple(200, body, "application/json")

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        with counts_lock:
            counts[url.path] = counts.get(url.path, 0) + 1
        parts = [p for p in url.path.split("/") if p]
        while len(parts) >= 2 and parts[0] in ("u", "slow"):
            if parts[0] == "slow":
                time.sleep(int(parts[1]) / 1000)
            parts = parts[2:]
        route = parts[0] if parts else ""
        handler = getattr(self, "route_" + route.replace("-", "_"), None)
        if handler is None:
            return self.simple(404, b"<h1>Not Found</h1>", "text/html")
        handler(parts[1:], query)

    # Helpers

    def simple(self, status, body, content_type=None, headers=()):
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        for name, value in headers:
            self.send_header(name, value)
        if status not in (204, 304):
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if status not in (204, 304):
            self.wfile.write(body)

    def redirect(self, location):
        self.simple(302, b"redirecting", "text/plain", [("Location", location)])

    def write_chunked(self, body, chunk=65536):
        for i in range(0, len(body), chunk):
            piece = body[i:i + chunk]
            self.wfile.write(b"%x\r\n" % len(piece) + piece + b"\r\n")
        self.wfile.write(b"0\r\n\r\n")

    # Routes

    def route_media(self, parts, query):
        self.serve_file("/".join(parts), query)

    def route_bot_wall(self, parts, query):
        # /bot-wall/NAME: NAME's bytes, but 403 to an Android phone's own User-Agent (a CDN's bot rule).
        if "Dalvik/" in (self.headers.get("User-Agent") or ""):
            return self.simple(403, b"<h1>Forbidden</h1>", "text/html")
        self.serve_file("/".join(parts), query)

    def route_file(self, parts, query):
        # /file/NAME/ANY...: NAME's bytes under a URL whose file name is ANY (or none).
        self.serve_file(parts[0] if parts else "", query)

    def serve_file(self, name, query):
        path = os.path.realpath(os.path.join(media_root, name))
        if not path.startswith(os.path.realpath(media_root) + os.sep) or not os.path.isfile(path):
            return self.simple(404, b"<h1>Not Found</h1>", "text/html")
        body = open(path, "rb").read()
        content_type = query.get("type", CONTENT_TYPES.get(os.path.splitext(name)[1].lower(), "application/octet-stream"))
        named = {"cd": "Content-Disposition", "cc": "Cache-Control", "etag": "ETag", "lm": "Last-Modified",
                 "age": "Age", "expires": "Expires", "cookie": "Set-Cookie", "vary": "Vary"}
        headers = [(header, query[key]) for key, header in named.items() if key in query]
        # Conditional requests, as a CDN answers them; counted per path for the tests.
        condition = self.headers.get("If-None-Match"), self.headers.get("If-Modified-Since")
        if any(condition):
            with counts_lock:
                key = "conditional:" + urllib.parse.urlsplit(self.path).path
                counts[key] = counts.get(key, 0) + 1
            if (condition[0] and condition[0] == query.get("etag")) or (not condition[0] and condition[1] and condition[1] == query.get("lm")):
                return self.simple(304, b"", None, headers)
        self.simple(200, body, None if content_type == "none" else content_type, headers)

    def route_repeat(self, parts, query):
        path = os.path.realpath(os.path.join(media_root, parts[1]))
        if not path.startswith(os.path.realpath(media_root) + os.sep) or not os.path.isfile(path):
            return self.simple(404, b"<h1>Not Found</h1>", "text/html")
        body = open(path, "rb").read() * int(parts[0])
        self.simple(200, body, CONTENT_TYPES.get(os.path.splitext(path)[1].lower(), "application/octet-stream"))

    def route_padded(self, parts, query):
        path = os.path.realpath(os.path.join(media_root, parts[1]))
        if not path.startswith(os.path.realpath(media_root) + os.sep) or not os.path.isfile(path):
            return self.simple(404, b"<h1>Not Found</h1>", "text/html")
        body = open(path, "rb").read()
        body += b"\0" * (int(parts[0]) - len(body))
        self.simple(200, body, CONTENT_TYPES.get(os.path.splitext(path)[1].lower(), "application/octet-stream"))

    def route_bytes(self, parts, query):
        n = int(parts[0])
        mode = query.get("mode", "length")
        # The same N bytes every time: one ETag, and a 304 to a request that has it.
        etag = '"bytes-%d"' % n
        if self.headers.get("If-None-Match"):
            with counts_lock:
                key = "conditional:" + urllib.parse.urlsplit(self.path).path
                counts[key] = counts.get(key, 0) + 1
        if self.headers.get("If-None-Match") == etag:
            return self.simple(304, b"", None, [("ETag", etag)])
        body = padded_jpeg(n)
        self.send_response(200)
        self.send_header("Content-Type", query.get("type", "image/jpeg"))
        self.send_header("ETag", etag)
        if mode == "length":
            self.send_header("Content-Length", str(n))
            self.end_headers()
            rate = int(query.get("rate", "0"))
            send = int(query.get("send", str(n)))
            if rate:
                step = max(1, rate // 10)
                for i in range(0, send, step):
                    self.wfile.write(body[i:min(i + step, send)])
                    self.wfile.flush()
                    time.sleep(0.1)
            else:
                self.wfile.write(body[:send])
            if send < n:
                time.sleep(60)
        elif mode == "nolength":
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            self.wfile.write(body)
        elif mode in ("chunked", "lie"):
            if mode == "lie":
                self.send_header("Content-Length", "1024")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.write_chunked(body)
        else:
            raise ValueError(mode)

    def route_endless(self, parts, query):
        self.send_response(200)
        self.send_header("Content-Type", "image/jpeg")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        self.wfile.write(JPEG_HEADER)
        block = b"\0" * 65536
        while True:
            self.wfile.write(block)

    def route_gzip_bomb(self, parts, query):
        self.simple(200, gzip_bomb(), "image/jpeg", [("Content-Encoding", "gzip")])

    def route_trickle(self, parts, query):
        self.send_response(200)
        self.send_header("Content-Type", "image/jpeg")
        self.send_header("Content-Length", "1000")
        self.end_headers()
        for i in range(1000):
            self.wfile.write(JPEG_HEADER[i:i + 1] if i < len(JPEG_HEADER) else b"\0")
            time.sleep(1)

    def route_redirect(self, parts, query):
        n = int(parts[0])
        rest = "/".join(parts[1:])
        suffix = ("?" + urllib.parse.urlsplit(self.path).query) if "?" in self.path else ""
        self.redirect(("/redirect/%d/%s" % (n - 1, rest) if n > 1 else "/" + rest) + suffix)

    def route_redirect_to(self, parts, query):
        self.redirect(query["url"])

    def route_relative_redirect(self, parts, query):
        self.redirect("/" + "/".join(parts))

    def route_loop(self, parts, query):
        self.redirect("/loop")

    def route_endless_headers(self, parts, query):
        self.wfile.write(b"HTTP/1.1 200 OK\r\n")
        for i in range(100000):
            self.wfile.write(b"X-Wait-%d: still coming\r\n" % i)
            time.sleep(0.2)

    def route_huge_header(self, parts, query):
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nX-Huge: " + b"a" * (1 << 20)
                         + b"\r\nContent-Length: 4\r\n\r\nPNG!")

    def route_close_mid_body(self, parts, query):
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Length: 100000\r\n\r\n"
                         + padded_jpeg(50000))
        self.close_connection = True
        self.request.shutdown(socket.SHUT_RDWR)

    def route_bad_chunked(self, parts, query):
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nTransfer-Encoding: chunked\r\n\r\n"
                         + b"10\r\n" + JPEG_HEADER[:16] + b"\r\nzz-not-hex\r\n" + b"x" * 64 + b"\r\n0\r\n\r\n")
        self.close_connection = True

    def route_status(self, parts, query):
        code = int(parts[0])
        self.simple(code, b"<h1>status %d</h1>" % code, "text/html")

    def route_empty(self, parts, query):
        self.simple(200, b"", "image/png")

    def route_versioned(self, parts, query):
        key = parts[0]
        with counts_lock:
            version = versions.get(key, 0)
            if self.headers.get("If-None-Match") or self.headers.get("If-Modified-Since"):
                counts["conditional:" + urllib.parse.urlsplit(self.path).path] = counts.get("conditional:" + urllib.parse.urlsplit(self.path).path, 0) + 1
        etag = '"%s-%d"' % (key, version)
        if self.headers.get("If-None-Match") == etag:
            return self.simple(304, b"", None, [("ETag", etag)])
        name = ["logo.png", "photo.jpg"][version % 2]
        body = open(os.path.join(media_root, name), "rb").read()
        self.simple(200, body, CONTENT_TYPES[os.path.splitext(name)[1]], [("ETag", etag)])

    def route_bump(self, parts, query):
        with counts_lock:
            versions[parts[0]] = versions.get(parts[0], 0) + 1
        self.simple(200, b"bumped", "text/plain")

    def route_stats(self, parts, query):
        with counts_lock:
            body = json.dumps(counts, sort_keys=True).encode()
        self.simple(200, body, "application/json")


class TLSServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256

    def __init__(self, cert, key, ciphers=None):
        super().__init__(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        if ciphers:
            # Only these TLS 1.2 suites, in this order of preference (the server's, as Python sets it).
            context.maximum_version = ssl.TLSVersion.TLSv1_2
            context.set_ciphers(ciphers)
        context.load_cert_chain(cert, key)
        # The handshake runs lazily in the request's own thread, so one stalled
        # client cannot hold up the accept loop.
        self.socket = context.wrap_socket(self.socket, server_side=True, do_handshake_on_connect=False)


class PlainServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), Handler)


def stalling_listener():
    """Accepts connections and holds them open without a word."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(256)
    held = []

    def accept_forever():
        while True:
            connection, _ = listener.accept()
            held.append(connection)

    threading.Thread(target=accept_forever, daemon=True).start()
    return listener.getsockname()[1]


def dropping_listener(reset):
    """Accepts connections and drops each at once, before any TLS: with a reset
    (RST, SO_LINGER 0) or with an orderly close (FIN)."""
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(256)

    def accept_forever():
        while True:
            connection, _ = listener.accept()
            if reset:
                connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            else:
                # Wait for the ClientHello, so the client is mid-handshake when the connection ends.
                connection.settimeout(2)
                try:
                    connection.recv(4096)
                except OSError:
                    pass
            connection.close()

    threading.Thread(target=accept_forever, daemon=True).start()
    return listener.getsockname()[1]


def closed_port():
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return port


def main():
    global media_root
    parser = argparse.ArgumentParser(description="notti-media's loopback HTTPS test server")
    parser.add_argument("--media", default=os.path.join(HERE, "..", "Fixtures", "media"))
    parser.add_argument("--cert", default=os.path.join(TLS, "server.pem"),
                        help="the main port's certificate chain (PEM, leaf first)")
    parser.add_argument("--key", default=os.path.join(TLS, "server.key"))
    parser.add_argument("--ciphers", help="serve TLS 1.2 only, with these OpenSSL suites (server's preference)")
    args = parser.parse_args()
    media_root = os.path.abspath(args.media)
    trusted = TLSServer(args.cert, args.key, args.ciphers)
    untrusted = TLSServer(os.path.join(TLS, "untrusted.pem"), os.path.join(TLS, "untrusted.key"))
    plain = PlainServer()
    for server in (trusted, untrusted, plain):
        threading.Thread(target=server.serve_forever, daemon=True).start()
    print(json.dumps({
        "port": trusted.server_address[1],
        "untrustedPort": untrusted.server_address[1],
        "closedPort": closed_port(),
        "stallPort": stalling_listener(),
        "httpPort": plain.server_address[1],
        "resetPort": dropping_listener(reset=True),
        "closePort": dropping_listener(reset=False),
    }), flush=True)
    # Live exactly as long as whoever started us keeps our stdin open.
    try:
        while sys.stdin.buffer.read(4096):
            pass
    except KeyboardInterrupt:
        pass
    os._exit(0)


if __name__ == "__main__":
    main()
