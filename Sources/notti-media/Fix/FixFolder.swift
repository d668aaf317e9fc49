import Glibc
import NottiMedia

/// `fix --into DIR` (SPEC 19, with section 9's rules): the folder holds exactly
/// the renditions its `fixes.jsonl` names. A rendition is written to a partial
/// file of this run's, verified, then renamed to `<sha256>.<ext>`; an earlier
/// run's renditions that this manifest does not name go at the end. Anything
/// the tool did not put there refuses the folder: it is never cleaned.
/// Renditions are made on several threads at once (`RenditionWorkers`): what
/// they change here (the partial files' count, the names given) is under a lock.
final class FixFolder: @unchecked Sendable {
    static let manifestName = "fixes.jsonl"

    let path: String
    /// What an earlier `fix` left: its renditions and manifest.
    private let earlier: Set<String>
    /// The renditions this run named, and how many partial files it made (for their names).
    private let made = Guarded((named: Set<String>(), partials: 0))
    /// The folder did not exist before this run (a failed run removes it again, when empty).
    private let madeHere: Bool

    /// Makes the folder when missing and reads what it holds.
    /// - Throws: `UsageError` when it is not a folder or holds something the tool did not put there;
    ///   `LocalError` when it cannot be made or listed.
    init(path: String) throws {
        let folder = FilePaths.standardized(path)
        var info = stat()
        madeHere = stat(folder, &info) != 0
        if let error = FilePaths.makeFolders(folder, mode: 0o777) {
            throw LocalError("--into: cannot create \(folder): \(error.message)")
        }
        do throws(ContentHashName.FolderRefusal) {
            earlier = try ContentHashName.names(inFolder: folder) { name in
                name == Self.manifestName || ContentHashName.isHashDotExtension(name) || Self.isPartialName(name)
            }
        } catch {
            switch error {
            case .notAFolder:
                throw UsageError("--into: \(folder) is not a folder")
            case .unlistable(let why):
                throw LocalError("--into: cannot list \(folder): \(why.message)")
            case .holds(let name):
                throw UsageError("--into: \(folder) holds \(name), which fix did not put there; the folder must hold only "
                    + "renditions and \(Self.manifestName): move it away, or name another folder")
            }
        }
        self.path = folder
    }

    /// `.fix-<pid>-<n>.partial`: a rendition a killed run was writing (removed at the end).
    static func isPartialName(_ name: String) -> Bool {
        guard name.hasPrefix(".fix-"), name.hasSuffix(".partial") else { return false }
        let middle = name.dropFirst(5).dropLast(8).split(separator: "-", omittingEmptySubsequences: false)
        return middle.count == 2 && middle.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
    }

    /// Refuses, before anything is made, a DIR that is an operand or inside one: a later run over the
    /// payloads would read its `fixes.jsonl` as payloads (and DIR would hold the originals).
    static func checkOutside(_ path: String, operands: [String]) throws(UsageError) {
        if let operand = FileTarget.overlappingOperand(path, operands) {
            throw UsageError("--into: \(path) is inside the payloads in \(operand); name a folder outside them")
        }
    }

    /// A new partial file of this run's in the folder, for a rendition to be written to, with the
    /// user's usual mode (0666 less the umask), as the renditions will keep.
    func makePartial() -> Result<(path: String, descriptor: Int32), Errno> {
        let number = made.withLock { made in
            made.partials += 1
            return made.partials
        }
        let partial = "\(path)/.fix-\(getpid())-\(number).partial"
        return OwnedPaths.run.createFile(partial, mode: 0o666).map { (partial, $0) }
    }

    /// Names a verified partial file by its content: `<sha256>.<ext>`.
    /// - Returns: the rendition's name.
    func name(partial: String, sha256: String, fileExtension: String) throws(Errno) -> String {
        let name = "\(sha256).\(fileExtension)"
        // The same name holds the same bytes: an earlier run's copy is replaced by an equal one.
        guard rename(partial, "\(path)/\(name)") == 0 else { throw Errno(errno) }
        OwnedPaths.run.release(partial)
        made.withLock { _ = $0.named.insert(name) }
        return name
    }

    /// Writes the manifest (`lines`, JSON text each) and removes what an earlier run left that it does not name.
    func finish(manifest lines: [String]) throws(LocalError) {
        let partial: (path: String, descriptor: Int32)
        switch makePartial() {
        case .success(let made): partial = made
        case .failure(let error):
            abandon()
            throw LocalError("--into: cannot write \(path)/\(Self.manifestName): \(error.message); the folder is left as it was")
        }
        let text = Array(lines.map { $0 + "\n" }.joined().utf8)
        let failure = text.withUnsafeBytes { writeAll(partial.descriptor, $0) }
        let closed = close(partial.descriptor) == 0
        guard failure == nil, closed, rename(partial.path, "\(path)/\(Self.manifestName)") == 0 else {
            let why = Errno(failure ?? errno).message
            OwnedPaths.run.remove(partial.path)
            abandon()
            throw LocalError("--into: cannot write \(path)/\(Self.manifestName): \(why); the folder is left as it was")
        }
        OwnedPaths.run.release(partial.path)
        let named = made.withLock { $0.named }
        for name in earlier.subtracting(named).subtracting([Self.manifestName]) { unlink("\(path)/\(name)") }
    }

    /// A run that cannot write its manifest leaves the folder as it was: the renditions it added go
    /// (one an earlier run named holds the same bytes, and stays), and a folder it made goes when empty.
    func abandon() {
        let named = made.withLock { made in
            defer { made.named = [] }
            return made.named
        }
        for name in named.subtracting(earlier) { unlink("\(path)/\(name)") }
        if madeHere { rmdir(path) }
    }
}
