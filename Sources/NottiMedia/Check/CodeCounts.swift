/// Payloads per diagnostic code, for the summary: typed codes counted by case,
/// and codes another version wrote (read back by `merge`) by their text.
package struct CodeCounts: Sendable {
    private var known: [DiagnosticCode: Int] = [:]
    private var unrecognised: [String: Int] = [:]

    package init() {}

    /// One more payload with `diagnostic`'s code.
    mutating func add(_ diagnostic: Diagnostic) {
        if diagnostic.code == .unrecognised { unrecognised[diagnostic.codeText, default: 0] += 1 } else { known[diagnostic.code, default: 0] += 1 }
    }

    /// `payloads` more with the code written `text` (a shard's summary).
    mutating func add(codeText text: String, payloads: Int) {
        if let code = DiagnosticCode(rawValue: text), code != .unrecognised { known[code, default: 0] += payloads } else {
            unrecognised[text, default: 0] += payloads
        }
    }

    package subscript(code: DiagnosticCode) -> Int? { known[code] }

    package var isEmpty: Bool { known.isEmpty && unrecognised.isEmpty }

    /// Codes by count, most first, then by name.
    package var byCount: [(code: String, payloads: Int)] {
        (known.map { ($0.key.rawValue, $0.value) } + unrecognised.map { ($0.key, $0.value) }).sorted {
            $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0
        }.map { (code: $0.0, payloads: $0.1) }
    }
}
