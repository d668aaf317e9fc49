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
            // Listed by key: a device's order is undefined. The last of duplicate keys wins, as in the SDK's dictionary.
            var byKey: [String: JSONValue] = [:]
            for member in members { byKey[member.key] = member.value }
            let entries = byKey.keys.sorted().map { name in
                var value = byKey[name]!
                // OneSignal trims white space and new lines before reading the URL.
                if case .string(let text) = value { value = .string(text.trimmingCharacters(in: " \t\n\r")) }
                return MediaEntry(key: "\(key).\(name)", value: value, identifier: name)
            }
            return .entries(entries, overrides: nil)
        })
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        let characters = Set(set)
        var slice = Substring(self)
        while let first = slice.first, characters.contains(first) { slice.removeFirst() }
        while let last = slice.last, characters.contains(last) { slice.removeLast() }
        return String(slice)
    }
}
