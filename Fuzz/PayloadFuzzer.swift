// libFuzzer entry point over the payload parser, URL validation, lints, content
// builder and report (PayloadInvariants). Built by scripts/fuzz together with
// the library's sources: SwiftPM renames an executable's entry point, which
// libFuzzer's own main cannot live with.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if let violation = PayloadInvariants.violation(in: bytes) {
        fatalError(violation)
    }
    return 0
}
