import Glibc
internal import CMagic

/// libmagic's compiled database, mapped once for every handle in the process.
///
/// `magic_load` maps the database for each handle it loads (writable and private:
/// about 4.4 MB of the 8 MB file is read), so a pool of two handles held 8.8 MB
/// of it; the personalised campaign's tool peaked at 40 MB, a fifth of it this
/// file. `magic_load_buffers` reads every handle's rules from one read-only
/// mapping instead (libmagic keeps pointers into the buffers, copies none of
/// them, and checks each as it checks a file it maps itself), so the answers
/// are the same and the second handle costs no second copy.
final class CompiledMagic: @unchecked Sendable {
    // Read only, never unmapped: every handle of the process points into them.
    private let buffers: [UnsafeMutableRawPointer]
    private let sizes: [Int]

    /// The databases `magic_load(cookie, nil)` would load (its search path: `MAGIC`, a
    /// user's `~/.magic`, then Debian's `/etc/magic:/usr/share/misc/magic`), mapped; nil
    /// when one of them is not compiled and holds rules (then each handle loads the path
    /// itself, as before). A source file of comments alone, as Debian's `/etc/magic`
    /// ships, adds no rule and is passed over.
    static let shared: CompiledMagic? = {
        guard let searched = magic_getpath(nil, 0).map({ String(cString: $0) }) else { return nil }
        var buffers: [UnsafeMutableRawPointer] = []
        var sizes: [Int] = []
        for component in searched.split(separator: ":").map(String.init) {
            let compiled = component.hasSuffix(".mgc") ? component : component + ".mgc"
            if let (mapping, size) = map(compiled) {
                buffers.append(mapping)
                sizes.append(size)
            } else if !holdsNoRules(component) {
                for (mapping, size) in zip(buffers, sizes) { munmap(mapping, size) }
                return nil
            }
        }
        return buffers.isEmpty ? nil : CompiledMagic(buffers: buffers, sizes: sizes)
    }()

    private init(buffers: [UnsafeMutableRawPointer], sizes: [Int]) {
        self.buffers = buffers
        self.sizes = sizes
    }

    /// `magic_load_buffers` of the mappings into `cookie`: 0 on success, as `magic_load`.
    func load(into cookie: magic_t) -> Int32 {
        var pointers: [UnsafeMutableRawPointer?] = buffers
        var counts = sizes
        return magic_load_buffers(cookie, &pointers, &counts, buffers.count)
    }

    /// A regular file at `path`, mapped read-only whole; nil when there is none.
    private static func map(_ path: String) -> (UnsafeMutableRawPointer, Int)? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size > 0,
              let mapping = mmap(nil, Int(status.st_size), PROT_READ, MAP_PRIVATE, descriptor, 0), mapping != MAP_FAILED
        else { return nil }
        return (mapping, Int(status.st_size))
    }

    /// Whether `path` is absent, or a file of blank and comment (`#`) lines only.
    private static func holdsNoRules(_ path: String) -> Bool {
        guard let file = fopen(path, "re") else { return errno == ENOENT }
        defer { fclose(file) }
        var status = stat()
        guard fstat(fileno(file), &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size < 1 << 20 else { return false }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) >= 0 {
            var at = line!
            while at.pointee == 0x20 || at.pointee == 0x09 { at += 1 }
            if at.pointee != 0x23, at.pointee != 0x0A, at.pointee != 0x0D, at.pointee != 0 { return false }
        }
        return true
    }
}
