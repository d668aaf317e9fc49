import Glibc
import Testing
@testable import NottiMedia

/// The small stand-ins for standard pieces that pulled whole runtimes into the
/// binary: `firstRange(of:)` (the regex engine), `ContinuousClock` (Swift
/// Concurrency), `DispatchSemaphore` (libdispatch).
@Suite struct SupportTests {
    @Test(arguments: [
        ("https://cdn.example/a.png", "://", "https"), ("image/webp", "image/", ""), ("x://y://z", "://", "x"),
        ("café://ü", "://", "café"), ("no scheme", "://", nil), ("", "://", nil), ("ab", "abc", nil), ("aab", "ab", "a"),
    ])
    func rangeOfBytesFindsTheFirstOccurrence(text: String, needle: String, before: String?) {
        let range = text.range(ofBytes: needle)
        #expect(range.map { String(text[..<$0.lowerBound]) } == before)
        if let range { #expect(String(text[range]) == needle) }
        #expect(Substring(text).range(ofBytes: needle).map { String(text[..<$0.lowerBound]) } == before)
    }

    @Test func instantsMeasureElapsedTime() {
        let start = MonotonicInstant.now
        let deadline = start + .milliseconds(1500)
        #expect(deadline - start == .milliseconds(1500))
        #expect(start < deadline && !(deadline < start))
        usleep(20_000)
        let elapsed = MonotonicInstant.now - start
        #expect(elapsed >= .milliseconds(20) && elapsed < .seconds(5))
    }

    @Test func aSemaphoreCountsAndTimesOut() {
        let semaphore = Semaphore(value: 2)
        #expect(semaphore.wait(milliseconds: 0))
        #expect(semaphore.wait(milliseconds: 0))
        #expect(!semaphore.wait(milliseconds: 0))
        let start = MonotonicInstant.now
        #expect(!semaphore.wait(milliseconds: 50))
        #expect(MonotonicInstant.now - start >= .milliseconds(50))
        semaphore.signal()
        #expect(semaphore.wait(milliseconds: 50))
    }

    @Test func aSignalFromAnotherThreadWakesAWaiter() {
        let semaphore = Semaphore(value: 0)
        let thread = JoinableThread { usleep(30_000); semaphore.signal() }
        #expect(semaphore.wait(milliseconds: 5000))
        thread.join()
    }

    @Test func recordsAreWrittenInInputOrderEvenWhenTheyArriveFurtherAheadThanTheRing() {
        struct Numbered: InputOrdered { var sequence: Int }
        let writer = OrderedWriter<Numbered>(capacity: 4)
        // Out of order, and as far as 37 ahead of the next to write: the ring of 4 must grow.
        var order = Array(0..<40)
        order.swapAt(0, 39)
        order.swapAt(5, 17)
        order.reverse()
        let emitted = Lock()
        nonisolated(unsafe) var written: [Int] = []
        let thread = JoinableThread { writer.run { record in emitted.withLock { written.append(record.sequence) } } }
        for chunk in stride(from: 0, to: order.count, by: 3) {
            writer.deliver(order[chunk..<min(order.count, chunk + 3)].map { Numbered(sequence: $0) })
        }
        writer.close()
        thread.join()
        #expect(emitted.withLock { written } == Array(0..<40))
    }
}
