import Foundation
import Testing
@testable import NottiMedia

/// The fuzz target's invariants, replayed on its seeds, its past findings,
/// the samples and inputs built to be hostile.
@Suite struct PayloadInvariantTests {
    static let corpus: [String] = ["Fuzz/seeds", "Fuzz/regressions", "samples/payloads"].flatMap { folder in
        let url = Paths.packageRoot.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter { $0 != "README.md" }.sorted().map { url.appendingPathComponent($0).path }
    }

    @Test func theCorpusIsThere() {
        #expect(Self.corpus.count >= 15)
    }

    @Test(arguments: corpus)
    func corpusInputsKeepTheInvariants(path: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(PayloadInvariants.violation(in: bytes) == nil)
    }

    @Test(arguments: [
        [UInt8](repeating: 0x5B, count: 100_000),
        Array("{\"aps\":".utf8) + [UInt8](repeating: 0x7B, count: 10_000),
        Array("{\"a\":\"\\ud800\\udc00\\u0000\",\"b\":1e999999,\"c\":-0}".utf8),
        [0xEF, 0xBB, 0xBF] + Array("{\"x\":[1,2,3]}".utf8),
        Array("{\"notti_image_url\":\"https://\u{202E}evil.example/x.png\"}".utf8),
        [0x7B, 0x22, 0xC3, 0x28, 0x22, 0x3A, 0x31, 0x7D],
        // Grows the most when serialized: a raw DEL is written as \u007f.
        Array("{\"d\":\"".utf8) + [UInt8](repeating: 0x7F, count: 64) + Array("\u{2028}\"}".utf8),
    ])
    func hostileInputsKeepTheInvariants(bytes: [UInt8]) {
        #expect(PayloadInvariants.violation(in: bytes) == nil)
    }
}
