/// One entry of a report's `media` (SPEC 5; every key always present, null when unknown): the
/// download's facts, what the profile's rule made of the type (`MediaTyping`, the judge's note) and,
/// for an SDK that attaches several, which entry it is. Built at assembly, once per judgement
/// (`JudgedEntries`), so a campaign's records naming one URL share it: a class for that, immutable.
public final class MediaOutput: Sendable {
    /// What the download found.
    public let facts: MediaFacts
    /// The rule's type decision; nil for Android's pictures and for failures before a download.
    package let typing: MediaTyping?
    /// The entry's identifier, for SDKs that attach several.
    public let identifier: String?
    /// Where the entry is in a payload of several (`att.hero`): what its findings' `entry` says; nil for one.
    package let entryKey: String?

    package init(facts: MediaFacts, typing: MediaTyping?, identifier: String? = nil, entryKey: String? = nil) {
        self.facts = facts
        self.typing = typing
        self.identifier = identifier
        self.entryKey = entryKey
    }

    public var json: JSONValue {
        var members: [JSONMember] = identifier.map { [JSONMember("identifier", .string($0))] } ?? []
        members += [
            JSONMember("url", .string(facts.url)),
            JSONMember("finalUrl", .optional(facts.finalURL)),
            JSONMember("redirects", .optional(facts.redirects)),
            JSONMember("httpStatus", .optional(facts.httpStatus)),
            JSONMember("declaredMime", .optional(facts.declaredMime)),
            JSONMember("urlExtension", .optional(facts.urlExtension)),
            JSONMember("sniffedMime", .optional(facts.sniffedMime)),
        ]
        members += MediaTyping.jsonMembers(typing)
        members += [
            JSONMember("bytes", .optional(facts.bytes)),
            JSONMember("sha256", .optional(facts.sha256)),
            JSONMember("dimensions", facts.dimensions?.json ?? .null),
            JSONMember("decoded", facts.decoded?.json ?? .null),
            JSONMember("elapsedMs", .optional(facts.elapsedMilliseconds)),
            JSONMember("timings", facts.timings?.json ?? .null),
            JSONMember("http", facts.http?.json ?? .null),
            JSONMember("tls", facts.transfer?.tls?.json ?? .null),
            JSONMember("estimates", estimatesJSON),
            JSONMember("limits", facts.policy.limitsJSON),
        ]
        if let cacheState = facts.cacheState { members.append(JSONMember("cache", .string(cacheState))) }
        if !facts.deviceAnswers.isEmpty { members.append(JSONMember("deviceAnswers", .array(facts.deviceAnswers.map(\.json)))) }
        return .object(members)
    }

    /// The least download time on each named network, once the size is known.
    private var estimatesJSON: JSONValue {
        guard facts.bytes != nil else { return .null }
        return .object(NetworkProfile.presets.map { JSONMember($0.name, .optional(facts.estimate(on: $0))) })
    }
}
