import Testing
@testable import NottiMedia

/// The content handed to iOS, shaped like UNNotificationContent.
@Suite struct ContentTests {
    private func content(_ json: String) throws -> JSONValue {
        NotificationContent.json(for: try Payload(json: Array(json.utf8)), attachments: [])
    }

    private func keys(_ value: JSONValue) -> [String] {
        guard case .object(let members) = value else { return [] }
        return members.map(\.key)
    }

    @Test func anAlertStringIsTheBody() throws {
        let value = try content(#"{"aps":{"alert":"Hello"}}"#)
        #expect(value["body"] == .string("Hello"))
        #expect(keys(value) == ["body", "userInfo", "attachments"])
    }

    @Test func anAlertObjectGivesTitleSubtitleAndBody() throws {
        let value = try content(#"{"aps":{"alert":{"body":"B","title":"T","subtitle":"S","loc-key":"k"}}}"#)
        #expect(keys(value) == ["title", "subtitle", "body", "userInfo", "attachments"])
        #expect(value["title"] == .string("T"))
        #expect(value["subtitle"] == .string("S"))
        #expect(value["body"] == .string("B"))
    }

    @Test func apsFieldsMapToTheirContentNames() throws {
        let value = try content(#"""
            {"aps":{"alert":"x","badge":3,"sound":"chime.caf","thread-id":"promo","category":"offer",
             "target-content-id":"w1","interruption-level":"time-sensitive","relevance-score":0.8}}
            """#)
        #expect(keys(value) == [
            "body", "badge", "sound", "threadIdentifier", "categoryIdentifier", "targetContentIdentifier",
            "interruptionLevel", "relevanceScore", "userInfo", "attachments",
        ])
        #expect(value["badge"] == .number("3"))
        #expect(value["sound"] == .string("chime.caf"))
        #expect(value["threadIdentifier"] == .string("promo"))
        #expect(value["categoryIdentifier"] == .string("offer"))
        #expect(value["targetContentIdentifier"] == .string("w1"))
        #expect(value["interruptionLevel"] == .string("time-sensitive"))
        #expect(value["relevanceScore"] == .number("0.8"))
    }

    @Test func aCriticalSoundDictionaryIsKept() throws {
        let value = try content(#"{"aps":{"alert":"x","sound":{"critical":1,"name":"a.caf","volume":0.5}}}"#)
        #expect(JSONWriter.string(value["sound"]!) == #"{"critical":1,"name":"a.caf","volume":0.5}"#)
    }

    @Test func keysThePayloadDoesNotSetAreOmitted() throws {
        let value = try content(#"{"aps":{"content-available":1}}"#)
        #expect(keys(value) == ["userInfo", "attachments"])
        #expect(value["attachments"] == .array([]))
    }

    @Test func wrongTypedFieldsAreNotInventedIntoContent() throws {
        let value = try content(#"{"aps":{"alert":{"title":5,"body":null},"badge":"1","thread-id":7}}"#)
        #expect(keys(value) == ["userInfo", "attachments"])
    }

    @Test func userInfoIsTheWholePayloadWithValuesAndTypesKept() throws {
        let text = #"{"aps":{"alert":"x"},"notti_image_url":"https://a.example/x.png","id":18446744073709551615,"#
            + #""neg":-12345678901234567890,"ok":true,"no":false,"nothing":null,"nested":{"a":[null,{"b":null}]},"#
            + #""ratio":1.50,"text":"héllo 🎉 \"q\"","Simulator Target Bundle":"com.example.app"}"#
        let value = try content(text)
        #expect(JSONWriter.string(value["userInfo"]!) == text)
    }
}
