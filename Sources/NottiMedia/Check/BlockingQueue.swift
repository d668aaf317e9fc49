import Glibc

/// A FIFO that worker threads block on until an element arrives or it is closed.
package final class BlockingQueue<Element: Sendable>: @unchecked Sendable {
    // All state is guarded by `condition`.
    private let condition = Condition()
    /// Popped slots are set to nil at once, so a popped element is freed as
    /// soon as its consumer is done with it, not when the array is compacted.
    private var elements: [Element?] = []
    private var head = 0
    private var closed = false

    package init() {}

    package func push(_ element: Element) {
        condition.lock()
        elements.append(element)
        condition.signal()
        condition.unlock()
    }

    /// No more pushes: `pop` returns nil once the queue is drained.
    package func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// The next element, waiting for one; nil when closed and empty.
    package func pop() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while head == elements.count && !closed { condition.wait() }
        guard head < elements.count else { return nil }
        let element = elements[head]
        elements[head] = nil
        head += 1
        if head >= 64 && head * 2 >= elements.count {
            elements.removeFirst(head)
            head = 0
        }
        return element
    }
}
