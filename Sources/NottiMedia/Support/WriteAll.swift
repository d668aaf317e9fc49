import Glibc

/// Writes every byte of `bytes` to `descriptor`: `write` may take fewer than
/// asked, and a signal may interrupt it before it takes any.
/// - Returns: nil, or the errno of the write that failed.
package func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
    guard let base = bytes.baseAddress else { return nil }
    var written = 0
    while written < bytes.count {
        let step = write(descriptor, base + written, bytes.count - written)
        if step < 0 {
            if errno == EINTR { continue }
            return errno
        }
        written += step
    }
    return nil
}
