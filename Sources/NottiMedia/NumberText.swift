/// Numbers as people read them in messages.
enum NumberText {
    /// `20` for 20.0, `1.5` for 1.5.
    static func seconds(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }
}
