import Foundation
import Glibc

/// The loopback HTTPS server (`Tests/Support/https_server.py`), started once for
/// the whole test run on kernel-picked ports. It exits when this process does:
/// it lives only while its standard input, held here, stays open.
final class TestServer: Sendable {
    static let shared = TestServer()

    let port: Int
    /// Serves the same routes with a self-signed certificate nobody trusts.
    let untrustedPort: Int
    /// Bound once and closed: connecting is refused.
    let closedPort: Int
    /// Accepts TCP and never answers: a TLS handshake that stalls.
    let stallPort: Int
    /// Serves the same routes over plain http.
    let httpPort: Int
    /// Accepts TCP and resets the connection at once (mid-handshake).
    let resetPort: Int
    /// Accepts TCP, reads the ClientHello and closes the connection.
    let closePort: Int
    private let child: ChildProcess
    /// The server lives while this stays open.
    private let stdinWriteEnd: Int32

    /// A server of its own (the shared one serves every test at once), for a test
    /// that counts what reaches it or configures its TLS; it stops when the instance goes.
    /// - Parameters:
    ///   - certificate: the main port's chain and key (PEM files), in place of `tls/server.pem`.
    ///   - ciphers: TLS 1.2 only, with these OpenSSL suites, the server's preference first.
    ///   - media: the folder `/media/NAME` serves, in place of `Tests/Fixtures/media`.
    init(certificate: (chain: String, key: String)? = nil, ciphers: String? = nil, media: String? = nil) {
        let arguments = [Paths.serverScript]
            + (certificate.map { ["--cert", $0.chain, "--key", $0.key] } ?? [])
            + (ciphers.map { ["--ciphers", $0] } ?? [])
            + (media.map { ["--media", $0] } ?? [])
        let child: ChildProcess
        let stdinEnds: PipeEnds
        let stdoutEnds: PipeEnds
        do {
            stdinEnds = try PipeEnds()
            stdoutEnds = try PipeEnds()
            child = try ChildProcess.spawn(
                "/usr/bin/env", ["python3"] + arguments, environment: ProcessInfo.processInfo.environment,
                stdin: .inherited(stdinEnds.read), stdout: .inherited(stdoutEnds.write), stderr: .inherited(2))
        } catch {
            fatalError("cannot start the test server: \(error)")
        }
        close(stdinEnds.read)
        close(stdoutEnds.write)
        defer { close(stdoutEnds.read) }
        var line = Data()
        var byte: UInt8 = 0
        while read(stdoutEnds.read, &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
        guard let ports = try? JSONSerialization.jsonObject(with: line) as? [String: Int],
              let port = ports["port"], let untrusted = ports["untrustedPort"], let closed = ports["closedPort"],
              let stall = ports["stallPort"], let http = ports["httpPort"], let reset = ports["resetPort"],
              let closing = ports["closePort"]
        else { fatalError("the test server did not report its ports: \(String(decoding: line, as: UTF8.self))") }
        self.port = port
        self.untrustedPort = untrusted
        self.closedPort = closed
        self.stallPort = stall
        self.httpPort = http
        self.resetPort = reset
        self.closePort = closing
        self.child = child
        self.stdinWriteEnd = stdinEnds.write
    }

    /// Its standard input closes: the server exits, and is reaped.
    deinit {
        close(stdinWriteEnd)
        _ = child.wait(seconds: 30)
    }

    /// `https://127.0.0.1:PORT/path`.
    func url(_ path: String) -> String { "https://127.0.0.1:\(port)\(path)" }

    /// `http://127.0.0.1:HTTP-PORT/path`: the same routes over plain http.
    func httpURL(_ path: String) -> String { "http://127.0.0.1:\(httpPort)\(path)" }

    /// How many requests each path has had.
    func requestCounts() throws -> [String: Int] {
        let result = try CLI.curl(url("/stats"))
        return try JSONSerialization.jsonObject(with: Data(result.utf8)) as? [String: Int] ?? [:]
    }
}
