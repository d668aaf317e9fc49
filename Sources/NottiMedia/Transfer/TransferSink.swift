import Glibc
internal import CCurl
internal import CCurlShim

/// The state libcurl's callbacks work on during one download: the open file,
/// the byte count and hash, and why the transfer was stopped, if it was.
///
/// The SHA-256 is made over the bytes as they are written (`WrittenFileHasher`:
/// in the write callback, and for a large body beside it, on a thread of its own).
///
/// The callbacks must stay cheap: libcurl checks its own deadline between them,
/// so a slow write callback would let a 20 s timeout fire late.
final class TransferSink {
    enum Stop: Equatable {
        /// More than `maxBytes` decoded bytes arrived.
        case tooLarge
        /// The response is not 2xx, so its body is not media; status checked on its first byte.
        case status(Int)
        /// Writing the file failed with this errno.
        case writeFailed(Int32)
        case deadline
        case cancelled
    }

    private let easy: UnsafeMutableRawPointer
    private let fileDescriptor: Int32
    private let maxBytes: Int
    private let deadline: MonotonicInstant
    private let cancellation: Cancellation?
    /// The caps to note the crossing of (ascending), and the next one not yet crossed.
    private let watchedCaps: [Int]
    private var nextWatched = 0
    private let start: MonotonicInstant
    /// When the body went over each watched cap.
    private(set) var capCrossings: [TransferFacts.CapCrossing] = []

    private(set) var bytes = 0
    private(set) var stop: Stop?
    /// The last address `--deny-private-networks` refused, and why.
    private(set) var blockedAddress: (text: String, refusal: String)?
    private let denyPrivateNetworks: Bool
    private let hasher: WrittenFileHasher
    private var statusChecked = false
    /// Bytes of a redirect's body skipped so far; libcurl only reports where a
    /// 3xx leads when its transfer completes, so those bodies are read and dropped.
    private var skipped = 0
    private static let maxSkippedRedirectBody = 1 << 20

    init(
        easy: CurlEasy, fileDescriptor: Int32, maxBytes: Int, deadline: MonotonicInstant,
        cancellation: Cancellation?, denyPrivateNetworks: Bool, watchedCaps: [Int] = [], start: MonotonicInstant = .now
    ) {
        self.watchedCaps = watchedCaps.filter { $0 <= maxBytes }
        self.start = start
        self.denyPrivateNetworks = denyPrivateNetworks
        self.easy = easy.handle
        self.fileDescriptor = fileDescriptor
        hasher = WrittenFileHasher(descriptor: fileDescriptor)
        self.maxBytes = maxBytes
        self.deadline = deadline
        self.cancellation = cancellation
    }

    /// Resets the per-response state before each request (each redirect hop).
    func beginResponse() {
        // A refusal belongs to the hop that made it: a later hop's TLS error or
        // refused connection must not be reported as `blocked_address`.
        blockedAddress = nil
        statusChecked = false
        skipped = 0
        if case .status = stop { stop = nil }
    }

    /// The SHA-256 of every body byte written; the errno when the file could not be read back to hash it.
    /// Call once, when the body is complete.
    func finishHash() -> Result<String, Errno> {
        hasher.finish()
    }

    /// The write callback's work: returns `count` to go on, 0 to make libcurl abort.
    func receive(_ data: UnsafeRawPointer, count: Int) -> Int {
        if !statusChecked {
            statusChecked = true
            var code = 0
            _ = CCurlShim_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &code)
            if !(200..<300).contains(code) { stop = .status(code) }
        }
        if case .status(let code) = stop {
            // An error page is not media: stop reading it at once.
            guard (300..<400).contains(code), skipped + count <= Self.maxSkippedRedirectBody else { return 0 }
            skipped += count
            return count
        }
        // One comparison a callback while no cap is near.
        while nextWatched < watchedCaps.count, count > watchedCaps[nextWatched] - bytes {
            capCrossings.append(.init(cap: watchedCaps[nextWatched], atMilliseconds: MediaFetcher.milliseconds(since: start)))
            nextWatched += 1
        }
        guard count <= maxBytes - bytes else {
            stop = .tooLarge
            return 0
        }
        if let error = writeAll(fileDescriptor, UnsafeRawBufferPointer(start: data, count: count)) {
            stop = .writeFailed(error)
            return 0
        }
        bytes += count
        hasher.wrote(UnsafeRawBufferPointer(start: data, count: count), total: bytes)
        return count
    }

    /// The progress callback's work: false makes libcurl abort the transfer.
    func shouldContinue() -> Bool {
        if cancellation?.isCancelled == true {
            stop = .cancelled
            return false
        }
        if MonotonicInstant.now >= deadline {
            stop = .deadline
            return false
        }
        return true
    }

    /// The open-socket callback's work: a socket for `address`, or -1 to refuse it.
    func openSocket(family: Int32, type: Int32, protocol: Int32, address: UnsafeRawPointer) -> Int32 {
        if denyPrivateNetworks, let judged = AddressGuard.judge(address), let refusal = judged.refusal {
            blockedAddress = (judged.text, refusal)
            return -1
        }
        // An allowed candidate after a refused one: whatever fails next is not the refusal.
        blockedAddress = nil
        return socket(family, type | Int32(SOCK_CLOEXEC.rawValue), `protocol`)
    }

    /// Registers the callbacks on `easy`, with `self` as their context.
    /// The caller keeps `self` alive for as long as `easy` may call them.
    func install(on easy: CurlEasy) throws(CurlOptionError) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        try easy.setWriteCallback({ data, size, count, context in
            guard let data, let context else { return 0 }
            let sink = Unmanaged<TransferSink>.fromOpaque(context).takeUnretainedValue()
            return sink.receive(UnsafeRawPointer(data), count: size * count)
        }, context: context)
        try easy.setProgressCallback({ context, _, _, _, _ in
            guard let context else { return 1 }
            let sink = Unmanaged<TransferSink>.fromOpaque(context).takeUnretainedValue()
            return sink.shouldContinue() ? 0 : 1
        }, context: context)
        try easy.setOpenSocketCallback({ context, purpose, address in
            guard let context, let address else { return -1 }
            let sink = Unmanaged<TransferSink>.fromOpaque(context).takeUnretainedValue()
            // libcurl's storage behind `addr` is large enough for any sockaddr.
            let raw = UnsafeRawPointer(address) + MemoryLayout<curl_sockaddr>.offset(of: \.addr)!
            return sink.openSocket(
                family: address.pointee.family, type: address.pointee.socktype,
                protocol: address.pointee.protocol, address: raw)
        }, context: context)
    }
}
