/// Numbers as people and JSON read them.
package enum NumberText {
    /// `20` for 20.0, `1.5` for 1.5: no trailing `.0` on whole numbers.
    package static func decimal(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }
}
