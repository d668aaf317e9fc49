import Glibc

/// How the process ends once `Tool.run` has returned, its output written and
/// flushed (`Tool.finalStatus`), its files closed and its threads joined.
///
/// `_exit` rather than `exit`: the libraries' exit-time teardown (OpenSSL
/// freeing its providers and tables, gnutls its globals, stdio its buffers)
/// frees only what the kernel frees with the process anyway: 0.3 to 0.5 ms
/// between the last write and `exit_group` in a 5 MiB `process`, and 1 ms of
/// its 14 ms in an A/B run (docs/lean-binary.md).
enum ProcessExit {
    static func now(_ status: Int32) -> Never {
        // LeakSanitizer checks for leaks at `exit`; under AddressSanitizer (the
        // test suite's sanitizer runs) its check is run here instead, so every
        // CLI run in the tests is still checked. Elsewhere the symbol is absent.
        if let leakCheck = dlsym(nil, "__lsan_do_leak_check") {
            unsafeBitCast(leakCheck, to: (@convention(c) () -> Void).self)()
        }
        _exit(status)
    }
}
