import Glibc

/// An OS thread that can be joined: `join` returns only once the thread has
/// fully exited, so none of it is still winding down when the process ends
/// (LeakSanitizer saw Foundation threads that had signalled "done" but not yet
/// exited as leaks, under load).
public final class JoinableThread: @unchecked Sendable {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    private var handle = pthread_t()

    /// Starts `run` on a new OS thread at once.
    public init(_ run: @escaping @Sendable () -> Void) {
        let body = Unmanaged.passRetained(Body(run)).toOpaque()
        let status = pthread_create(&handle, nil, { context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, body)
        precondition(status == 0, "pthread_create failed: \(status)")
    }

    public func join() {
        pthread_join(handle, nil)
    }
}
