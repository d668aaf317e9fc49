import Testing
@testable import NottiMedia

@Suite struct JSONTests {
    private func roundTrip(_ text: String) throws -> String {
        JSONWriter.string(try JSONParser.parse(Array(text.utf8)))
    }

    @Test(arguments: [
        #"{"big":18446744073709551615,"neg":-9007199254740993,"f":1.50,"e":-2.5E+10}"#,
        #"{"t":true,"f":false,"n":null,"nested":{"a":[1,{"b":null}],"empty":{},"list":[]}}"#,
        #"{"u":"héllo 🎉 ünïcödé","q":"say \"hi\"","s":"a\\b","nl":"1\n2\t3"}"#,
        #"{"z":1,"a":2,"m":3}"#,
    ])
    func valuesTypesAndOrderSurviveExactly(_ text: String) throws {
        #expect(try roundTrip(text) == text)
    }

    @Test func escapesAreDecodedAndControlCharactersReEscaped() throws {
        let value = try JSONParser.parse(Array(#"{"s":"\u00e9\ud83c\udf89\/\u0001"}"#.utf8))
        #expect(value["s"]?.stringValue == "é🎉/\u{01}")
        #expect(JSONWriter.string(value) == #"{"s":"é🎉/\u0001"}"#)
    }

    @Test(arguments: [
        #"{}"#, #"[]"#, #"{"a":[1,{"b":null}],"c":"x"}"#, #"[true,false,null,-1.5e3,""]"#,
        #"{"s":"\"\\\n\t\u0001\u007f\u2028\u2029é🎉/"}"#,
        #"{"¨©":"©¨ \u00a8 ¨ \u2028"}"#,
    ])
    func compactByteCountIsTheCompactOutputsLength(_ text: String) throws {
        let value = try JSONParser.parse(Array(text.utf8))
        #expect(JSONWriter.compactByteCount(value) == JSONWriter.string(value).utf8.count)
    }

    @Test func prettyOutputIsIndentedByTwoSpaces() throws {
        let value = try JSONParser.parse(Array(#"{"a":[1,2],"b":{}}"#.utf8))
        #expect(JSONWriter.string(value, style: .pretty) == "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {}\n}")
    }

    @Test(arguments: [
        ("{\"a\":1,\n  \"b\":}", 2, 7, "expected a JSON value"),
        ("", 1, 1, "empty input"),
        ("{\"a\" 1}", 1, 6, "expected ':'"),
        ("{\"a\":1,}", 1, 8, "expected a string key"),
        ("[1,2", 1, 5, "expected ',' or ']'"),
        ("{\"a\":01}", 1, 7, "leading zero"),
        ("{\"a\":\"x}", 1, 6, "unterminated string"),
        ("{\"a\":\"\\q\"}", 1, 7, "invalid escape"),
        ("{\"a\":\"\\ud800\"}", 1, 7, "lone high surrogate"),
        ("{} {}", 1, 4, "unexpected text after"),
        ("{\"a\":tru}", 1, 6, "invalid literal"),
        ("{\"é\":[1,,2]}", 1, 9, "expected a JSON value"),
    ])
    func syntaxErrorsNameTheLineAndColumn(text: String, line: Int, column: Int, message: String) {
        #expect {
            _ = try JSONParser.parse(Array(text.utf8))
        } throws: { error in
            guard let error = error as? JSONSyntaxError else { return false }
            return error.line == line && error.column == column && error.message.contains(message)
        }
    }

    /// The string scan reads eight bytes a step: whatever ends, escapes or breaks a string is
    /// found at every position of a word and after it, in strings of every length around a word's.
    @Test func aStringIsReadTheSameWhereverItsSpecialByteFalls() throws {
        for length in 0...20 {
            let plain = String(repeating: "a", count: length)
            #expect(try JSONParser.parse(Array("\"\(plain)\"".utf8)) == .string(plain))
            for position in 0...length {
                let before = String(plain.prefix(position)), after = String(plain.dropFirst(position))
                #expect(try JSONParser.parse(Array("\"\(before)\\n\(after)\"".utf8)) == .string(before + "\n" + after))
                #expect(try JSONParser.parse(Array("\"\(before)é\(after)\"".utf8)) == .string(before + "é" + after))
                #expect(try JSONParser.parse(Array("[\"\(before)\",\"\(after)\"]".utf8)) == .array([.string(before), .string(after)]))
                #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(Array("\"\(before)\t\(after)\"".utf8)) }
                #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(Array("\"\(before)".utf8) + [0xFF] + Array("\(after)\"".utf8)) }
            }
        }
    }

    /// Keys from `KnownKeys`' table are the same strings as keys made anew: each known key, and
    /// each one byte shorter and longer, far from the end of the text and right at it.
    @Test func knownKeysReadAsThemselves() throws {
        for name in KnownKeys.names {
            for key in [name, String(name.dropLast()), name + "x", "x" + name] {
                let padded = try JSONParser.parse(Array("{\"\(key)\": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}".utf8))
                #expect(padded == .object([JSONMember(key, .array((1...10).map { .number(String($0)) }))]))
                #expect(try JSONParser.parse(Array("{\"\(key)\":0}".utf8)) == .object([JSONMember(key, .number("0"))]))
            }
        }
    }

    @Test func invalidUTF8IsASyntaxError() {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D]) }
    }

    @Test func nestingIsBoundedSoHostileInputCannotExhaustTheStack() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect {
            _ = try JSONParser.parse(Array(deep.utf8))
        } throws: { ($0 as? JSONSyntaxError)?.message.contains("nesting deeper than 512") == true }
        let fine = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect(throws: Never.self) { try JSONParser.parse(Array(fine.utf8)) }
    }

    @Test func duplicateKeysResolveToTheLastLikeOtherReaders() throws {
        let value = try JSONParser.parse(Array(#"{"a":1,"a":2}"#.utf8))
        #expect(value["a"]?.intValue == 2)
    }

    @Test func aByteOrderMarkIsSkipped() throws {
        #expect(try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("{}".utf8)) == .object([]))
    }
}
