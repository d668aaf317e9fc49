/// Moves a non-Sendable value to exactly one other thread. The sender must
/// not touch the value after handing it off; that is what makes this safe.
struct Handoff<Value>: @unchecked Sendable {
    let value: Value
}
