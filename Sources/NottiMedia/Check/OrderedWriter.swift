import Glibc

/// Puts records finished in any order back into input order: a record is
/// emitted as soon as every earlier one has been.
final class OrderedWriter<Record: Sendable>: @unchecked Sendable {
    // Guarded by `condition`.
    private let condition = Condition()
    private var pending: [Int: Record] = [:]
    private var next = 0
    private var closed = false
    /// Where a record's position in the input is.
    private let sequence: KeyPath<Record, Int> & Sendable

    init(sequence: KeyPath<Record, Int> & Sendable) {
        self.sequence = sequence
    }

    /// Called by workers, from any thread, with the records they finished;
    /// handing over a batch at a time keeps lock traffic and wake-ups low.
    func deliver(_ records: [Record]) {
        guard !records.isEmpty else { return }
        condition.lock()
        var wakeWriter = false
        for record in records {
            pending[record[keyPath: sequence]] = record
            wakeWriter = wakeWriter || record[keyPath: sequence] == next
        }
        if wakeWriter { condition.signal() }
        condition.unlock()
    }

    /// No more deliveries: `run` writes what is contiguous and returns.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// The writer thread's loop: emits in order until closed; a gap left by an
    /// interrupted record ends the output there.
    func run(_ emit: (Record) -> Void) {
        condition.lock()
        while true {
            if let record = pending.removeValue(forKey: next) {
                next += 1
                condition.unlock()
                emit(record)
                condition.lock()
                continue
            }
            if closed { break }
            condition.wait()
        }
        condition.unlock()
    }
}
