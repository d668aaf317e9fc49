/// A network a phone may be on at send time: throughput and round-trip time.
/// The named ones are Lighthouse's throttling presets. Both numbers are kept
/// as exact decimals, so estimates are exact arithmetic, not floating point.
public struct NetworkProfile: Sendable, Equatable {
    public var name: String
    package let kbitsPerSecond: ExactDecimal
    package let rttMilliseconds: ExactDecimal

    public static let presets = [
        NetworkProfile(name: "3g", kbitsPerSecond: ExactDecimal("700")!, rttMilliseconds: ExactDecimal("300")!),
        NetworkProfile(name: "slow-4g", kbitsPerSecond: ExactDecimal("1638.4")!, rttMilliseconds: ExactDecimal("150")!),
        NetworkProfile(name: "4g", kbitsPerSecond: ExactDecimal("10240")!, rttMilliseconds: ExactDecimal("40")!),
    ]

    init(name: String, kbitsPerSecond: ExactDecimal, rttMilliseconds: ExactDecimal) {
        self.name = name
        self.kbitsPerSecond = kbitsPerSecond
        self.rttMilliseconds = rttMilliseconds
    }

    /// `3g`, `slow-4g`, `4g`, or `KBITS/RTTMS` (`1000/200`, decimals allowed); nil for anything else.
    public init?(parsing text: String) {
        if let preset = Self.presets.first(where: { $0.name == text }) {
            self = preset
            return
        }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let kbits = ExactDecimal(String(parts[0])), let rtt = ExactDecimal(String(parts[1])),
              // Bounds that keep the exact arithmetic inside 64 bits.
              kbits.numerator > 0, kbits.numerator <= 1_000_000_000, rtt.numerator <= 100_000_000
        else { return nil }
        self.init(name: text, kbitsPerSecond: kbits, rttMilliseconds: rtt)
    }

    /// The least time a download can take here, in whole milliseconds rounded up:
    /// `ceil((redirects + 1) × 4 × rtt + bytes × 8 / kbit/s)`, four round trips a
    /// hop (DNS, TCP, TLS 1.3, request) and the bytes at full throughput (a
    /// kbit/s is a bit per millisecond). A lower bound: over a deadline, the
    /// media certainly misses on this network.
    package func leastMilliseconds(bytes: Int, redirects: Int) -> Int {
        let rtt = rttMilliseconds, rate = kbitsPerSecond
        // (hops × 4 × rttN / rttS) + (bits × rateS / rateN), over one denominator.
        let denominator = rtt.scale * rate.numerator
        let numerator = (redirects + 1) * 4 * rtt.numerator * rate.numerator + bytes * 8 * rate.scale * rtt.scale
        return (numerator + denominator - 1) / denominator
    }

    /// The networks a campaign summary reports on: the presets, and the user's own if it is not one.
    package static func summarized(adding network: NetworkProfile?) -> [NetworkProfile] {
        guard let network, !presets.contains(network) else { return presets }
        return presets + [network]
    }

    /// `700 kbit/s, 300 ms`.
    package var description: String { "\(kbitsPerSecond.text) kbit/s, \(rttMilliseconds.text) ms round trip" }
}

/// A non-negative decimal as written (`1638.4` is 16384 / 10), at most three decimals.
package struct ExactDecimal: Sendable, Equatable {
    package let numerator: Int
    package let scale: Int
    package let text: String

    package init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let whole = parts.first, !whole.isEmpty,
              whole.allSatisfy({ $0.isASCII && $0.isNumber }), whole.count <= 12
        else { return nil }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard parts.count == 1 || (!fraction.isEmpty && fraction.count <= 3 && fraction.allSatisfy({ $0.isASCII && $0.isNumber })) else {
            return nil
        }
        var scale = 1
        for _ in fraction { scale *= 10 }
        guard let value = Int(whole + fraction) else { return nil }
        self.numerator = value
        self.scale = scale
        self.text = text
    }
}

extension MediaFacts {
    /// The least download time on `network`, once the size is known.
    package func estimate(on network: NetworkProfile) -> Int? {
        bytes.map { network.leastMilliseconds(bytes: $0, redirects: redirects ?? 0) }
    }
}
