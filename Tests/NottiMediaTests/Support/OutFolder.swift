import Foundation
import Testing

/// SPEC 5: after a run, `--out` holds exactly the files its records name.
/// The one assertion every test that passes `--out` makes about the folder.
enum OutFolder {
    /// The file names the records' attachments point at (`content.attachments[].url`).
    static func namedFiles(_ records: [[String: Any]]) -> Set<String> {
        var names: Set<String> = []
        for record in records {
            // A `process` content object, or a report (whose content holds the attachments).
            let content = record["content"] as? [String: Any] ?? record
            // iOS attachments, and an Android record's picture.
            let picture = (content["picture"] as? [String: Any]).map { [$0] } ?? []
            for attachment in (content["attachments"] as? [[String: Any]] ?? []) + picture {
                if let url = attachment["url"] as? String { names.insert(URL(string: url)?.lastPathComponent ?? url) }
            }
        }
        return names
    }

    /// The reports of a `check --format json` run (every line but the summary).
    static func records(ofJSONLines output: String) -> [[String: Any]] {
        output.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["summary"] == nil else { return nil }
            return object
        }
    }

    /// The `summary` object of a `check --format json` run (its last line).
    static func summary(ofJSONLines output: String) -> [String: Any]? {
        output.split(separator: "\n").last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }?["summary"]
            as? [String: Any]
    }

    /// Expects `folder` to hold exactly what was there `before` plus the files `records` name.
    static func expectHoldsExactly(
        _ folder: URL, namedBy records: [[String: Any]], before: Set<String> = [], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let present = Set(Paths.contents(of: folder))
        #expect(present == before.union(namedFiles(records)), "--out holds exactly what the records name", sourceLocation: sourceLocation)
    }
}
