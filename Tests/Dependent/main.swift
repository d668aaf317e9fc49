// A package that uses NottiMedia as a library, as docs/library.md shows it:
// one payload through the Notti extension's path, its report read back.
// scripts/library-test builds it against a clone of this repository by URL and
// version tag, then runs it on a payload the test server answers.
import Glibc
import NottiMedia

let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    print("usage: dependent PAYLOAD-JSON OUT-DIR CA-FILE")
    exit(2)
}
do {
    let payload = try Payload(json: Array(arguments[1].utf8))
    let options = FetchOptions(extraCAFile: arguments[3])
    let serviceExtension = try ServiceExtension(options: options, selection: .fixed(.notti), outputDirectory: arguments[2])
    guard let report = serviceExtension.handle(payload, source: "payload.json") else { exit(130) }
    print("outcome: \(report.outcome.rawValue), passed: \(report.passed)")
    for attachment in report.attachments {
        print("attachment: \(attachment.fileExtension) \(attachment.size) bytes \(attachment.sha256)")
    }
    for diagnostic in report.diagnostics {
        print("\(diagnostic.severity.rawValue): \(diagnostic.code): \(diagnostic.message)")
    }
    print(JSONWriter.string(report.json).utf8.count > 0 ? "report: json" : "report: empty")
} catch let error as PayloadError {
    print("invalid payload: \(error.message)")
    exit(2)
} catch let error as ServiceExtensionError {
    print("cannot start: \(error.message)")
    exit(2)
}
