import Foundation
import Testing
@testable import NottiMedia

/// docs/reference.md's tables are the code's own lists: the options and codes tables are
/// what `notti-media --generate options|codes` makes, and the exit statuses are every one used.
@Suite struct ReadmeTests {
    static let reference = (try? String(contentsOf: Paths.packageRoot.appendingPathComponent("docs/reference.md"), encoding: .utf8)) ?? ""

    /// The first cell of every row of the table under `heading`.
    static func firstCells(under heading: String) -> [String] {
        guard let start = reference.range(of: "\n\(heading)\n") else { return [] }
        var cells: [String] = []
        var inTable = false
        for line in reference[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("|") {
                inTable = true
                let cell = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().first ?? ""
                let text = cell.trimmingCharacters(in: .whitespaces)
                if !text.isEmpty && !text.hasPrefix("---") { cells.append(text) }
            } else if inTable || line.hasPrefix("#") {
                break
            }
        }
        return Array(cells.dropFirst())  // the header row
    }

    /// The generated block after `<!-- generated: notti-media --generate KIND ... -->`, as the file holds it.
    static func generatedBlock(_ kind: String) throws -> String {
        let marker = "<!-- generated: notti-media --generate \(kind) (ReadmeTests checks it) -->\n"
        let start = try #require(reference.range(of: marker)).upperBound
        let end = reference[start...].range(of: "\n\n")?.lowerBound ?? reference.endIndex
        return String(reference[start..<end]) + "\n"
    }

    @Test(arguments: ["options", "codes"])
    func theTableIsTheGeneratedOne(kind: String) throws {
        let generated = try CLI.run(["--generate", kind]).stdout
        #expect(try Self.generatedBlock(kind) == generated, "regenerate it: notti-media --generate \(kind)")
    }

    @Test func theCodesTableIsEveryCode() throws {
        let rows = try Self.generatedBlock("codes").split(separator: "\n").dropFirst(2)
        let codes = rows.compactMap { $0.split(separator: "`").dropFirst().first.map(String.init) }
        #expect(codes == DiagnosticCode.reasons.map(\.rawValue) + DiagnosticCode.known.filter { !$0.isReason }.map(\.rawValue))
    }

    @Test func theExitStatusTableIsEveryStatusTheToolUses() {
        let statuses = Self.firstCells(under: "### Exit status").flatMap { $0.split(separator: "/").map { $0.trimmingCharacters(in: .whitespaces) } }
        #expect(Set(statuses) == ["0", "1", "2", "129", "130", "141", "143"])
    }

    @Test func theOptionsTableIsEveryOptionThatHelpLists() throws {
        let documented = Set(Self.firstCells(under: "### Options").map {
            String($0.trimmingCharacters(in: CharacterSet(charactersIn: "`")).split(separator: " ").first ?? "")
                .trimmingCharacters(in: CharacterSet(charactersIn: "`,"))
        })
        var listed: Set<String> = []
        for command in ["process", "check", "sniff", "merge", "fix", "serve", "app"] {
            let help = try CLI.run([command, "--help"]).stdout
            for line in help.split(separator: "\n") where line.hasPrefix("  --") {
                listed.insert(String(line.dropFirst(2).split(separator: " ").first ?? ""))
            }
        }
        #expect(!listed.isEmpty)
        #expect(listed.isSubset(of: documented), "\(listed.subtracting(documented))")
    }

    /// The README says everything the test command installs: what each script asks apt-get and pip for.
    @Test func theReadmeNamesWhatTheTestCommandInstalls() throws {
        let readme = try String(contentsOf: Paths.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        var installed: Set<String> = []
        for script in ["setup", "package", "package-test"] {
            let text = try String(contentsOf: Paths.packageRoot.appendingPathComponent("scripts/\(script)"), encoding: .utf8)
            // Package names as the scripts list them: `for package in a b c`, `tool:package`, `for shell in zsh fish`,
            // `missing+=(name)`, and the PyPI validators' `name==version`.
            for match in text.matches(of: /(?:for (?:package|shell) in|validators=\() ([^;)\n]+)/) {
                for word in match.1.split(separator: " ") { installed.insert(String(word.split(separator: "=").first ?? word)) }
            }
            for line in text.split(separator: "\n") where line.hasPrefix("for tool in") {
                for match in line.matches(of: /[a-z-]+:([a-z0-9.-]+)/) { installed.insert(String(match.1)) }
            }
            for match in text.matches(of: /missing\+=\(([a-z0-9-]+)\)/) { installed.insert(String(match.1)) }
        }
        // dpkg is on every Debian machine; pip is only a means to the validators.
        installed = installed.filter { !$0.hasPrefix("$") && !$0.isEmpty && !["dpkg", "python3-pip"].contains($0) }
        #expect(installed.count > 10, "\(installed.sorted())")
        for name in installed.sorted() {
            #expect(readme.contains("`\(name)`"), "the README does not say scripts/test installs \(name)")
        }
    }

    /// The README is what a new user reads first: the two commands open it, and the reference is a link away.
    @Test func theReadmeOpensWithTheTwoCommandsAndLinksTheReference() throws {
        let readme = try String(contentsOf: Paths.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let firstBlock = try #require(readme.components(separatedBy: "```sh\n").dropFirst().first?.components(separatedBy: "```").first)
        #expect(firstBlock.hasPrefix("scripts/demo ") && firstBlock.contains("\nscripts/test "))
        #expect(readme.utf8.count < 12_000, "reference tables belong in docs/")
        for page in ["reference", "sdks", "platforms", "campaigns", "output", "ci", "security", "design", "performance"] {
            #expect(readme.contains("(docs/\(page).md)"), "\(page)")
            #expect(FileManager.default.fileExists(atPath: Paths.packageRoot.appendingPathComponent("docs/\(page).md").path))
        }
    }
}

/// The README's and `--help`'s words about the command line come from the option table.
@Suite struct CommandLineTextTests {
    @Test func theReferenceSynopsisIsTheGeneratedOne() throws {
        let readme = try String(contentsOf: Paths.packageRoot.appendingPathComponent("docs/reference.md"), encoding: .utf8)
        let generated = try CLI.run(["--generate", "synopsis"]).stdout
        let marker = "<!-- generated: notti-media --generate synopsis (ReadmeTests checks it) -->\n```sh\n"
        let start = try #require(readme.range(of: marker)).upperBound
        let end = try #require(readme[start...].range(of: "```")).lowerBound
        #expect(String(readme[start..<end]) == generated, "regenerate it: notti-media --generate synopsis")
    }

    @Test(arguments: [[], ["process"], ["check"], ["sniff"], ["merge"], ["fix"]])
    func everyHelpLineFitsEightyColumns(command: [String]) throws {
        let help = try CLI.run(command + ["--help"]).stdout
        let wide = help.split(separator: "\n").filter { $0.count > 80 }
        #expect(wide.isEmpty, "\(wide)")
    }
}

/// The man page and the completions are made from the option table: every option of every command is in each.
@Suite struct GeneratedFilesTests {
    @Test(arguments: ["man", "bash", "zsh", "fish"])
    func everyOptionIsThere(kind: String) throws {
        let generated = try CLI.run(["--generate", kind])
        #expect(generated.status == 0)
        for command in ["process", "check", "sniff", "merge", "fix", "serve", "app"] {
            let help = try CLI.run([command, "--help"]).stdout
            for line in help.split(separator: "\n") where line.hasPrefix("  --") && !line.hasPrefix("  --help") {
                let name = String(line.dropFirst(4).split(separator: " ").first ?? "")
                let spelled = kind == "man" ? #"\-\-"# + name.replacingOccurrences(of: "-", with: #"\-"#) : (kind == "fish" ? "-l \(name)" : "--\(name)")
                #expect(generated.stdout.contains(spelled), "\(kind) lacks --\(name) (\(command))")
            }
        }
    }

    /// The completions parse in their shells (`zsh -n`, `bash -n`, `fish --no-execute`), where the shell is installed
    /// (scripts/test installs zsh and fish): a third apostrophe among the commands' summaries ("the app's own build")
    /// left zsh's list unterminated, which only the package's test had caught.
    @Test(arguments: [("bash", ["bash", "-n"]), ("zsh", ["zsh", "-n"]), ("fish", ["fish", "--no-execute"])])
    func theCompletionsParse(kind: String, shell: [String]) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/\(shell[0])") else { return }
        let folder = Paths.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("completion").path
        try CLI.run(["--generate", kind]).stdout.write(toFile: file, atomically: true, encoding: .utf8)
        let parsed = try CLI.run(executable: "/usr/bin/\(shell[0])", Array(shell.dropFirst()) + [file])
        #expect(parsed.status == 0, "\(kind): \(parsed.stderr)")
    }

    @Test func anUnknownKindIsAUsageError() throws {
        let result = try CLI.run(["--generate", "html"])
        #expect(result.status == 2)
        #expect(result.stderr == "notti-media: --generate expects one of synopsis, man, bash, zsh, fish, options, codes\n")
    }
}
