import Glibc

/// An OS thread that can be joined: `join` returns only once the thread has
/// fully exited, so none of it is still winding down when the process ends
/// (LeakSanitizer saw Foundation threads that had signalled "done" but not yet
/// exited as leaks, under load).
package final class JoinableThread: @unchecked Sendable {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    private var handle = pthread_t()

    /// Starts `run` on a new OS thread at once.
    package convenience init(_ run: @escaping @Sendable () -> Void) {
        self.init(starting: run)!
    }

    /// Starts `run` on a new OS thread at once, or returns nil when no thread
    /// can be made (`pthread_create` fails with EAGAIN at the process's limit).
    /// A function, not a failable `init`: a second init taking one closure would
    /// make `JoinableThread { ... }` pick the optional one.
    static func startIfPossible(_ run: @escaping @Sendable () -> Void) -> JoinableThread? {
        JoinableThread(starting: run)
    }

    private init?(starting run: @escaping @Sendable () -> Void) {
        let body = Unmanaged.passRetained(Body(run))
        let status = pthread_create(&handle, nil, { context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, body.toOpaque())
        guard status == 0 else {
            body.release()
            return nil
        }
    }

    package func join() {
        pthread_join(handle, nil)
    }
}
