import NottiMedia

/// `--format sarif`: one SARIF 2.1.0 log with one run: a rule per code (its
/// plain-language line, its fix as help), a result per finding (level, the
/// payload file as a relative URI, the line and column where known). Results
/// stream as records arrive; the rules are every code the tool has, written first.
struct SARIFFormat: CheckRenderer {
    static let schema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

    func render(_ report: Report) -> String? {
        let results = Finding.all(in: report).map { JSONWriter.string(Self.result($0)) }
        return results.isEmpty ? nil : results.joined(separator: ",\n")
    }

    static func result(_ finding: Finding) -> JSONValue {
        var region: [JSONMember] = []
        if let line = finding.line { region.append(JSONMember("startLine", .int(line))) }
        if let column = finding.column { region.append(JSONMember("startColumn", .int(column))) }
        var location = [JSONMember("artifactLocation", .object([JSONMember("uri", .string(FileURI.reference(finding.file)))]))]
        if !region.isEmpty { location.append(JSONMember("region", .object(region))) }
        var members = [JSONMember("ruleId", .string(finding.code))]
        if let index = DiagnosticCode.known.firstIndex(where: { $0.rawValue == finding.code }) {
            members.append(JSONMember("ruleIndex", .int(index)))
        }
        members += [
            JSONMember("level", .string(finding.severity.rawValue)),
            JSONMember("message", .object([JSONMember("text", .string(finding.message))])),
            JSONMember("locations", .array([.object([JSONMember("physicalLocation", .object(location))])])),
        ]
        return .object(members)
    }

    /// Everything before the first result: the log, its one run, the tool and its rules.
    static var head: String {
        let rules: [JSONValue] = DiagnosticCode.known.map { code in
            .object([
                JSONMember("id", .string(code.rawValue)),
                JSONMember("shortDescription", .object([JSONMember("text", .string(code.plainLanguage))])),
                JSONMember("help", .object([JSONMember("text", .string("To fix it: \(code.fix)."))])),
                JSONMember("defaultConfiguration", .object([JSONMember("level", .string(code.defaultSeverity.rawValue))])),
            ])
        }
        let driver = JSONValue.object([
            JSONMember("name", .string("notti-media")),
            JSONMember("version", .string(NottiMediaVersion.string)),
            JSONMember("informationUri", .string("https://github.com/notti/notti-media")),
            JSONMember("rules", .array(rules)),
        ])
        return "{\"version\":\"2.1.0\",\"$schema\":\"\(schema)\",\"runs\":[{\"tool\":{\"driver\":\(JSONWriter.string(driver))},\"results\":["
    }
}

/// Writes the log around the streamed results.
final class SARIFSink: CheckSink, @unchecked Sendable {
    // Used by the writer thread, then by `finish` once it is joined.
    private var first = true

    func write(_ rendered: String) {
        // The opening is written with the first record (or at the end), so a run that
        // stops before it starts prints nothing half made.
        Console.outPart((first ? SARIFFormat.head + "\n" : ",\n") + rendered)
        first = false
    }

    func finish(_ summary: CheckSummary) {
        // The findings about hosts, once per host, after the records' own.
        for finding in Finding.about(summary) { write(JSONWriter.string(SARIFFormat.result(finding))) }
        Console.out((first ? SARIFFormat.head : "") + "\n" + "]}]}")
    }
}

/// A payload path as a URI reference: relative as given (`./` dropped), or
/// `file://` for an absolute path, every byte but the unreserved ones and `/`
/// percent-encoded (RFC 3986), as SARIF's `artifactLocation.uri` requires.
enum FileURI {
    static func reference(_ path: String) -> String {
        var relative = Substring(path)
        while relative.hasPrefix("./") { relative = relative.dropFirst(2) }
        let encoded = percentEncoded(String(relative))
        return path.hasPrefix("/") ? "file://" + encoded : encoded
    }

    private static func percentEncoded(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                encoded += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return encoded
    }
}
