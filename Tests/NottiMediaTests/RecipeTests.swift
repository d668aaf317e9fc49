import Foundation
import Testing
import FoundationXML

/// SPEC 16: every CI recipe in docs/ci/ passes a real validator for its engine,
/// and its notti-media command lines run as written against samples/payloads.
@Suite struct RecipeTests {
    private static let recipes = Paths.packageRoot.appendingPathComponent("docs/ci")

    private static func recipe(_ name: String) throws -> String {
        try String(contentsOf: recipes.appendingPathComponent(name), encoding: .utf8)
    }

    /// The recipe's notti-media command lines, as written (a YAML list item's or run key's text).
    private static func commands(in text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            guard !line.drop(while: { $0 == " " }).hasPrefix("#") else { return nil }
            guard let start = line.range(of: "notti-media check") ?? line.range(of: "notti-media merge") else { return nil }
            var command = String(line[start.lowerBound...])
            if command.hasSuffix("; }") { command = String(command.dropLast(3)) }
            return command
        }
    }

    /// Runs `command` with `sh` in `folder`, `notti-media` on PATH, and `environment`.
    private func run(_ command: String, in folder: URL, environment: [String: String] = [:]) throws -> CLI.Result {
        let path = URL(fileURLWithPath: CLI.binary).deletingLastPathComponent().path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        return try CLI.run(executable: "/bin/sh", ["-c", "cd '\(folder.path)' && \(command)"], environment: ["PATH": path].merging(environment) { $1 })
    }

    /// A working folder holding `payloads/`, a copy of the samples.
    private func workspace() throws -> URL {
        let folder = Paths.temporaryFolder()
        try FileManager.default.copyItem(at: Paths.packageRoot.appendingPathComponent("samples/payloads"), to: folder.appendingPathComponent("payloads"))
        return folder
    }

    @Test(arguments: [("github-actions.yml", "vendor.github-workflows"), ("gitlab-ci.yml", "vendor.gitlab-ci")])
    func theWorkflowPassesItsEnginesSchema(file: String, schema: String) throws {
        let result = try Validators.run(["check-jsonschema", "--builtin-schema", schema, Self.recipes.appendingPathComponent(file).path])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
    }

    @Test func theKubernetesJobIsAnIndexedJob() throws {
        let result = try Validators.run(["python3", "-c", """
            import sys, yaml
            job = yaml.safe_load(open(sys.argv[1]))
            spec = job["spec"]
            container = spec["template"]["spec"]["containers"][0]
            print(job["apiVersion"], job["kind"], spec["completionMode"], spec["completions"], spec["parallelism"],
                  spec["template"]["spec"]["restartPolicy"], container["image"])
            """, Self.recipes.appendingPathComponent("kubernetes-job.yml").path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "batch/v1 Job Indexed 4 4 Never debian:12\n")
    }

    @Test func theGitHubCommandsRunAsWritten() throws {
        let folder = try workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let commands = Self.commands(in: try Self.recipe("github-actions.yml"))
        #expect(commands.count == 3)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("shards"), withIntermediateDirectories: true)
        for shard in 1...3 {
            let check = commands[0].replacingOccurrences(of: "${{ matrix.shard }}", with: "\(shard)")
            let result = try run(check, in: folder)
            #expect(result.status == 0, "\(check): \(result.stderr)")
            try FileManager.default.moveItem(at: folder.appendingPathComponent("shard-\(shard).json"), to: folder.appendingPathComponent("shards/shard-\(shard).json"))
        }
        let sarif = try run(commands[1], in: folder)
        #expect(sarif.status == 0, "\(sarif.stderr)")
        let validated = try Validators.run(["check-jsonschema", "--schemafile", try Validators.sarifSchema(), folder.appendingPathComponent("notti-media.sarif").path])
        #expect(validated.status == 0, "\(validated.stdout)")
        let annotations = try run(commands[2], in: folder)
        #expect(annotations.status == 1, "a sample fails: the job fails, with its annotations")
        #expect(annotations.stdout.contains("::error file=payloads/"))
        #expect(annotations.stdout.contains("checked 11 payloads"))
    }

    @Test func theGitLabCommandsRunAsWritten() throws {
        let folder = try workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let commands = Self.commands(in: try Self.recipe("gitlab-ci.yml"))
        #expect(commands.count == 3)
        for node in 1...3 {
            let result = try run(commands[0], in: folder, environment: ["CI_NODE_INDEX": "\(node)", "CI_NODE_TOTAL": "3"])
            #expect(result.status == 0, "\(result.stderr)")
        }
        #expect(try run(commands[1], in: folder).status == 0)
        let quality = try Data(contentsOf: folder.appendingPathComponent("gl-code-quality-report.json"))
        #expect((try JSONSerialization.jsonObject(with: quality) as? [[String: Any]])?.isEmpty == false)
        let junit = try run(commands[2], in: folder)
        #expect(junit.status == 1, "a sample fails")
        let xml = try XMLDocument(contentsOf: folder.appendingPathComponent("junit.xml"))
        #expect(try xml.nodes(forXPath: "//testcase").count == 11)
    }

    @Test func theKubernetesCommandRunsAsWritten() throws {
        let folder = try workspace()
        defer { try? FileManager.default.removeItem(at: folder) }
        let commands = Self.commands(in: try Self.recipe("kubernetes-job.yml"))
        #expect(commands.count == 1)
        // The pod's volumes, /payloads and /results, are folders of the workspace here.
        let command = commands[0].replacingOccurrences(of: "/payloads", with: "payloads").replacingOccurrences(of: "/results", with: "results")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("results"), withIntermediateDirectories: true)
        for index in 0..<4 {
            let result = try run(command, in: folder, environment: ["JOB_COMPLETION_INDEX": "\(index)"])
            #expect(result.status == 0, "\(result.stderr)")
        }
        let merged = try run("notti-media merge results/shard-*.json --summary-only", in: folder)
        #expect(merged.stdout.hasPrefix("checked 11 payloads"), "\(merged.stdout)\(merged.stderr)")
    }
}
