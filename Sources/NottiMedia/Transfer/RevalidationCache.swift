import Glibc
internal import CSQLite

/// `--cache FILE`: media verdicts by URL, with the validators their server sent
/// (ETag, Last-Modified), in an SQLite database that runs and processes share.
/// A later run asks the server again, always, with `If-None-Match` /
/// `If-Modified-Since`; on 304 it reuses the stored verdict and file instead of
/// downloading. WAL mode and a busy timeout let parallel shards on one machine
/// share one file. A file that is corrupt, not this tool's, or from a newer
/// version is refused (`CacheError`) and never changed.
package final class RevalidationCache: @unchecked Sendable {
    /// The layout this version writes and reads; a newer one is left alone.
    static let schemaVersion = 1
    private static let tool = "notti-media"

    private let database: OpaquePointer
    /// One connection serves every fetch worker, one statement at a time.
    private let lock = Lock()
    package let path: String

    /// A cache file that cannot be used: the run goes on without it.
    package struct CacheError: Error, Sendable {
        package var message: String
        /// Another process held the file (SQLite's busy or locked): worth trying again.
        var busy = false
    }

    /// Opens `path`, creating it (and its tables) when it does not exist.
    /// - Throws: `CacheError` saying why the file cannot be used.
    package init(path: String) throws(CacheError) {
        self.path = path
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX
        guard sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK, let handle else {
            let why = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw CacheError(message: "cannot open \(path): \(why)")
        }
        database = handle
        sqlite3_busy_timeout(handle, 10_000)
        // Two processes creating one new cache at once: turning on WAL needs the
        // file to itself, and SQLite answers "locked" without waiting; try again.
        var attempts = 0
        while true {
            do {
                try prepareSchema()
                break
            } catch where error.busy && attempts < 200 {
                _ = try? execute("ROLLBACK")
                attempts += 1
                usleep(50_000)
            } catch {
                sqlite3_close(handle)
                throw error
            }
        }
    }

    deinit {
        sqlite3_close(database)
    }

    /// Reads what the file is before anything is written to it: an empty
    /// database becomes a cache; anything else must already be one of ours.
    private func prepareSchema() throws(CacheError) {
        let tables: [String]
        do {
            tables = try query("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap { $0.first ?? nil }
        } catch {
            throw CacheError(message: "\(path) is not a notti-media cache (\(error.message))", busy: error.busy)
        }
        if tables.isEmpty {
            try execute("PRAGMA journal_mode = WAL")
            try execute("BEGIN IMMEDIATE")
            // Another process may have made the tables meanwhile: IF NOT EXISTS, OR IGNORE.
            try execute("CREATE TABLE IF NOT EXISTS notti_media_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            try execute("""
                CREATE TABLE IF NOT EXISTS media (url TEXT NOT NULL, policy TEXT NOT NULL, etag TEXT, last_modified TEXT, \
                record TEXT NOT NULL, PRIMARY KEY (url, policy))
                """)
            try execute("INSERT OR IGNORE INTO notti_media_meta VALUES ('tool', '\(Self.tool)'), ('schema', '\(Self.schemaVersion)')")
            try execute(Self.contentTable)
            try execute("COMMIT")
            return
        }
        guard tables.contains("notti_media_meta"), tables.contains("media") else {
            throw CacheError(message: "\(path) is an SQLite database this tool did not create")
        }
        let meta = (try? query("SELECT key, value FROM notti_media_meta")) ?? []
        let values = Dictionary(meta.compactMap { row in row.count == 2 ? row[0].flatMap { key in row[1].map { (key, $0) } } : nil }) { $1 }
        guard values["tool"] == Self.tool else {
            throw CacheError(message: "\(path) is an SQLite database this tool did not create")
        }
        guard let schema = values["schema"].flatMap(Int.init), schema <= Self.schemaVersion else {
            throw CacheError(message: "\(path) was written by a newer notti-media (schema \(values["schema"] ?? "?"))")
        }
        try execute("PRAGMA journal_mode = WAL")
        // A cache made before failing verdicts were kept has no content table yet.
        try execute(Self.contentTable)
    }

    /// The bytes of downloads whose verdict failed, so nothing in --out names them:
    /// kept here, by content hash, so a 304 finds them (SPEC 14: failing verdicts are kept too).
    private static let contentTable = "CREATE TABLE IF NOT EXISTS content (sha256 TEXT PRIMARY KEY, bytes BLOB NOT NULL)"

    /// A stored download of `url` under the policy named `policy`, with its validators.
    struct Entry {
        var etag: String?
        var lastModified: String?
        var record: JSONValue
    }

    func lookup(url: String, policy: String) -> Entry? {
        lock.withLock {
            guard let rows = try? query("SELECT etag, last_modified, record FROM media WHERE url = ? AND policy = ?", [url, policy]),
                  let row = rows.first, let text = row[2], let record = try? JSONParser.parse(Array(text.utf8))
            else { return nil }
            return Entry(etag: row[0], lastModified: row[1], record: record)
        }
    }

    /// A null record (a verdict that must not be kept) is not stored.
    func store(url: String, policy: String, etag: String?, lastModified: String?, record: JSONValue) {
        if case .null = record { return }
        lock.withLock {
            _ = try? execute(
                "INSERT OR REPLACE INTO media (url, policy, etag, last_modified, record) VALUES (?, ?, ?, ?, ?)",
                [url, policy, etag, lastModified, JSONWriter.string(record)])
        }
    }

    /// Keeps the bytes of the file at `path` under `sha256`, once.
    func storeContent(sha256: String, fromFileAt path: String) {
        guard let bytes = try? FilePaths.bytes(ofFileAt: path) else { return }
        lock.withLock {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(database, "INSERT OR IGNORE INTO content (sha256, bytes) VALUES (?, ?)", -1, &statement, nil) == SQLITE_OK,
                  let statement else { return }
            defer { sqlite3_finalize(statement) }
            let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
            sqlite3_bind_text(statement, 1, sha256, -1, transient)
            _ = bytes.withUnsafeBytes { sqlite3_bind_blob64(statement, 2, $0.baseAddress, sqlite3_uint64($0.count), transient) }
            _ = sqlite3_step(statement)
        }
    }

    /// Whether the bytes of `sha256` are kept.
    func hasContent(sha256: String) -> Bool {
        lock.withLock { ((try? query("SELECT 1 FROM content WHERE sha256 = ?", [sha256])) ?? []).isEmpty == false }
    }

    /// Writes the kept bytes of `sha256` to `descriptor`.
    /// - Returns: how many bytes were written, or nil when none are kept or the write failed.
    func writeContent(sha256: String, to descriptor: Int32) -> Int? {
        lock.withLock {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(database, "SELECT bytes FROM content WHERE sha256 = ?", -1, &statement, nil) == SQLITE_OK,
                  let statement else { return nil }
            defer { sqlite3_finalize(statement) }
            let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
            sqlite3_bind_text(statement, 1, sha256, -1, transient)
            guard sqlite3_step(statement) == SQLITE_ROW else { return nil }
            let count = Int(sqlite3_column_bytes(statement, 0))
            guard let bytes = sqlite3_column_blob(statement, 0) else { return count == 0 ? 0 : nil }
            return writeAll(descriptor, UnsafeRawBufferPointer(start: bytes, count: count)) == nil ? count : nil
        }
    }

    // MARK: SQLite, one statement at a time

    private struct SQLiteError: Error {
        var code: Int32
        var message: String

        var busy: Bool { code & 0xFF == SQLITE_BUSY || code & 0xFF == SQLITE_LOCKED }
    }

    private func execute(_ sql: String, _ bindings: [String?] = []) throws(CacheError) {
        do {
            _ = try run(sql, bindings)
        } catch {
            throw CacheError(message: "\(path): \(error.message)", busy: error.busy)
        }
    }

    private func query(_ sql: String, _ bindings: [String?] = []) throws(SQLiteError) -> [[String?]] {
        try run(sql, bindings)
    }

    private func run(_ sql: String, _ bindings: [String?]) throws(SQLiteError) -> [[String?]] {
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(database, sql, -1, &statement, nil)
        guard prepared == SQLITE_OK, let statement else {
            throw SQLiteError(code: prepared, message: String(cString: sqlite3_errmsg(database)))
        }
        defer { sqlite3_finalize(statement) }
        // SQLITE_TRANSIENT: SQLite copies the text before the Swift string goes away.
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for (index, value) in bindings.enumerated() {
            if let value {
                sqlite3_bind_text(statement, Int32(index + 1), value, -1, transient)
            } else {
                sqlite3_bind_null(statement, Int32(index + 1))
            }
        }
        var rows: [[String?]] = []
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW:
                let columns = sqlite3_column_count(statement)
                rows.append((0..<columns).map { column in
                    sqlite3_column_text(statement, column).map { String(cString: $0) }
                })
            case SQLITE_DONE:
                return rows
            case let code:
                throw SQLiteError(code: code, message: String(cString: sqlite3_errmsg(database)))
            }
        }
    }
}
