import Synchronization

/// Set once, from any thread (a signal handler's queue), to stop work in progress:
/// transfers check it at least once a second and abort, removing partial files.
public final class Cancellation: Sendable {
    private let flag = Atomic<Bool>(false)

    public init() {}

    public func cancel() { flag.store(true, ordering: .releasing) }

    public var isCancelled: Bool { flag.load(ordering: .acquiring) }
}
