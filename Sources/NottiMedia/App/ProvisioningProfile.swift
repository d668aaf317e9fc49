internal import CCrypto

/// `embedded.mobileprovision` (SPEC 22): a property list signed in a CMS envelope, opened by OpenSSL's CMS
/// reader (the signature is not checked: the phone checks it; the tool reads what it says).
enum ProvisioningProfile {
    /// The most bytes a profile may be: real ones are tens of kilobytes.
    static let maxBytes = 4 << 20

    /// - Throws: `BuildError` when the bytes are no CMS envelope or hold no property list.
    static func plist(_ bytes: [UInt8], path: String, in build: String) throws(BuildError) -> JSONValue {
        let content: [UInt8]? = bytes.withUnsafeBufferPointer { buffer -> [UInt8]? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let envelope = d2i_CMS_ContentInfo(nil, &cursor, buffer.count) else { return nil }
            defer { CMS_ContentInfo_free(envelope) }
            guard let inner = CMS_get0_content(envelope), let octets = inner.pointee,
                  let data = ASN1_STRING_get0_data(octets) else { return nil }
            return Array(UnsafeBufferPointer(start: data, count: Int(ASN1_STRING_length(octets))))
        }
        guard let content else { throw BuildError("\(build): \(path) is not a signed provisioning profile (a CMS envelope) that parses") }
        return try PropertyList.parse(content, path: path, in: build)
    }
}
