import Glibc

/// `serve --listen ADDR:PORT`: an IPv4 address, or an IPv6 one in brackets (`[::1]:8480`), and a port.
struct ServeAddress: Equatable, CustomStringConvertible {
    var host: String
    var port: UInt16

    init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    init?(_ text: String) {
        let host: Substring
        let port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
            guard !host.contains(":") else { return nil }
        }
        guard !port.isEmpty, port.allSatisfy(\.isASCII), port.allSatisfy(\.isNumber), let number = UInt16(port) else { return nil }
        var buffer = in6_addr()
        let family = host.contains(":") ? AF_INET6 : AF_INET
        guard inet_pton(family, String(host), &buffer) == 1 else { return nil }
        self.init(host: String(host), port: number)
    }

    /// 127.0.0.0/8 or ::1: only this machine can connect.
    var isLoopback: Bool {
        if host.contains(":") {
            var address = in6_addr()
            var loopback = in6_addr()
            _ = inet_pton(AF_INET6, host, &address)
            _ = inet_pton(AF_INET6, "::1", &loopback)
            return withUnsafeBytes(of: &address) { a in withUnsafeBytes(of: &loopback) { b in a.elementsEqual(b) } }
        }
        return host.hasPrefix("127.")
    }

    var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
