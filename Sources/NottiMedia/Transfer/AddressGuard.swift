import Glibc

/// `--deny-private-networks`: which addresses a back end that fetches URLs
/// from untrusted users must not connect to. Checked on the address libcurl is
/// about to connect to, for every connection (every redirect hop included), so
/// neither a DNS answer nor a redirect can lead past it.
package enum AddressGuard {
    /// Why `address` (IPv4 or IPv6 text) is refused, e.g. "loopback"; nil when it is public.
    package static func refusal(for address: String) -> String? {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { refusal(ipv4: Array($0)) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, address, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { refusal(ipv6: Array($0)) }
        }
        return "not an IP address"
    }

    /// Why four network-order bytes are refused; nil when public.
    static func refusal(ipv4 a: [UInt8]) -> String? {
        switch (a[0], a[1]) {
        case (0, _): return "unspecified"
        case (10, _), (172, 16...31), (192, 168): return "private"
        case (127, _): return "loopback"
        case (169, 254): return "link-local"
        case (100, 64...127): return "CGNAT"
        case (224...239, _): return "multicast"
        case (240...255, _): return a == [255, 255, 255, 255] ? "broadcast" : "reserved"
        default: return nil
        }
    }

    /// Why sixteen network-order bytes are refused; nil when public.
    static func refusal(ipv6 a: [UInt8]) -> String? {
        let zeros = { (range: Range<Int>) in a[range].allSatisfy { $0 == 0 } }
        if zeros(0..<16) { return "unspecified" }
        if zeros(0..<15) && a[15] == 1 { return "loopback" }
        // Addresses that carry an IPv4 address are judged by it:
        // IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16.
        if zeros(0..<10) && a[10] == 0xFF && a[11] == 0xFF { return refusal(ipv4: Array(a[12..<16])) }
        if zeros(0..<12) { return refusal(ipv4: Array(a[12..<16])) }
        if a[0] == 0x00 && a[1] == 0x64 && a[2] == 0xFF && a[3] == 0x9B && zeros(4..<12) { return refusal(ipv4: Array(a[12..<16])) }
        if a[0] == 0x20 && a[1] == 0x02 { return refusal(ipv4: Array(a[2..<6])) }
        if a[0] & 0xFE == 0xFC { return "private" }
        if a[0] == 0xFE && a[1] & 0xC0 == 0x80 { return "link-local" }
        if a[0] == 0xFE && a[1] & 0xC0 == 0xC0 { return "site-local" }
        if a[0] == 0xFF { return "multicast" }
        return nil
    }

    /// The address a `sockaddr` holds, as text, and why it is refused (nil: allowed).
    static func judge(_ address: UnsafeRawPointer) -> (text: String, refusal: String?)? {
        let family = Int32(address.load(as: sa_family_t.self))
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch family {
        case AF_INET:
            var v4 = address.load(as: sockaddr_in.self).sin_addr
            inet_ntop(AF_INET, &v4, &text, socklen_t(text.count))
            return (decodeCString(text), withUnsafeBytes(of: &v4) { refusal(ipv4: Array($0)) })
        case AF_INET6:
            var v6 = address.load(as: sockaddr_in6.self).sin6_addr
            inet_ntop(AF_INET6, &v6, &text, socklen_t(text.count))
            return (decodeCString(text), withUnsafeBytes(of: &v6) { refusal(ipv6: Array($0)) })
        default:
            return nil
        }
    }

    private static func decodeCString(_ characters: [CChar]) -> String {
        String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
