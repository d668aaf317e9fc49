/// Moves a non-Sendable value to exactly one other thread. The sender must
/// not touch the value after handing it off; that is what makes this safe.
package struct Handoff<Value>: @unchecked Sendable {
    package let value: Value

    package init(value: Value) {
        self.value = value
    }
}
