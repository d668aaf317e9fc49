import Glibc

/// What `OrderedWriter` orders by: a protocol requirement, read in place (a key path was
/// read through the runtime, with a copy of the whole record: 0.8 k instructions a line).
protocol InputOrdered: Sendable {
    /// The record's position in the input.
    var sequence: Int { get }
}

/// Puts records finished in any order back into input order: a record is
/// emitted as soon as every earlier one has been.
///
/// Records wait in a ring indexed by sequence number, not a dictionary: the
/// pipeline's window keeps every waiting record within `capacity` of the next
/// one to write, so a slot is found without hashing (the ring grows if that
/// ever does not hold).
final class OrderedWriter<Record: InputOrdered>: @unchecked Sendable {
    // Guarded by `condition`.
    private let condition = Condition()
    /// Slot `sequence % slots.count` holds the record of that sequence number, if it is in.
    private var slots: [Record?]
    private var next = 0
    private var closed = false

    /// - Parameter capacity: how far ahead of the next record to write records may arrive.
    init(capacity: Int) {
        slots = Array(repeating: nil, count: max(1, capacity))
    }

    /// Called by workers, from any thread, with the records they finished;
    /// handing over a batch at a time keeps lock traffic and wake-ups low.
    func deliver(_ records: consuming [Record]) {
        guard !records.isEmpty else { return }
        var records = records
        condition.lock()
        var wakeWriter = false
        // Popped, so each record moves into its slot (a for-in loop copied every one).
        while let record = records.popLast() {
            let position = record.sequence
            while position - next >= slots.count { grow() }
            wakeWriter = wakeWriter || position == next
            slots[position % slots.count] = consume record
        }
        if wakeWriter { condition.signal() }
        condition.unlock()
    }

    /// Twice the slots, each waiting record moved to its place in the larger ring.
    private func grow() {
        var larger: [Record?] = Array(repeating: nil, count: slots.count * 2)
        for index in slots.indices {
            guard let record = slots[index].take() else { continue }
            larger[record.sequence % larger.count] = record
        }
        slots = larger
    }

    /// Records delivered but not written: those past a gap when the run was closed.
    var unwritten: Int {
        condition.lock()
        defer { condition.unlock() }
        return slots.reduce(0) { $0 + ($1 == nil ? 0 : 1) }
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
            if let record = slots[next % slots.count].take() {
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
