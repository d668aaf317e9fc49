/// Numbers as people and JSON read them.
package enum NumberText {
    /// `20` for 20.0, `1.5` for 1.5: no trailing `.0` on whole numbers.
    package static func decimal(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }

    /// `3,807` for 3807: digits in groups of three, as the platforms' documentation writes limits.
    package static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var text = ""
        for (position, digit) in digits.enumerated() {
            if position > 0, (digits.count - position) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return value < 0 ? "-" + text : text
    }
}
