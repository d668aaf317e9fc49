extension SDKProfile {
    /// OneSignal (OneSignal-iOS-SDK, OneSignalAttachmentHandler.m): `att` (or
    /// `os_data.att`), one attachment per key; a value that is not http(s) names a
    /// file in the app bundle; downloads announced over 50,000,000 bytes are
    /// cancelled; each entry fails alone.
    package static let oneSignal = SDKProfile(
        sdk: .onesignal, mediaKeys: [["att"], ["os_data", "att"]], refusesHTTPItself: false,
        deadlineSeconds: DeviceModel.systemDeadlineSeconds, sizeCap: .announced(50_000_000), rule: .typed(.oneSignal),
        failurePolicy: .perEntry, identifier: .entry, bundleFiles: .otherSchemesAttach,
        readSpec: { payload in
            let path: [String]
            if payload.root["att"] != nil {
                path = ["att"]
            } else if payload.root.value(at: ["os_data", "att"]) != nil {
                path = ["os_data", "att"]
            } else {
                return .absent
            }
            let key = path.joined(separator: ".")
            guard case .object(let members)? = payload.root.value(at: path) else {
                return .invalid("\(key) must be an object of name to URL: OneSignal delivers the push without media")
            }
            // One attachment, the common case: no dictionary to build.
            if members.count == 1 { return .entries([entry(key, members[0].key, members[0].value)], overrides: nil) }
            // Listed by key: a device's order is undefined. The last of duplicate keys wins, as in the SDK's dictionary.
            var byKey: [String: JSONValue] = [:]
            for member in members { byKey[member.key] = member.value }
            return .entries(byKey.keys.sorted().map { entry(key, $0, byKey[$0]!) }, overrides: nil)
        })

    /// The attachment `name` of `att` (at `key`).
    private static func entry(_ key: String, _ name: String, _ value: JSONValue) -> MediaEntry {
        var value = value
        // OneSignal trims white space and new lines before reading the URL.
        if case .string(let text) = value { value = .string(text.trimmingCharacters(in: " \t\n\r")) }
        // Joined, not interpolated: a campaign makes this key for every payload.
        return MediaEntry(key: key + "." + name, value: value, identifier: name)
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        // Most values have nothing to trim: no set to build for them.
        guard let first = utf8.first, let last = utf8.last,
              set.utf8.contains(first) || set.utf8.contains(last) || first >= 0x80 || last >= 0x80 else { return self }
        let characters = Set(set)
        var slice = Substring(self)
        while let first = slice.first, characters.contains(first) { slice.removeFirst() }
        while let last = slice.last, characters.contains(last) { slice.removeLast() }
        return String(slice)
    }
}
