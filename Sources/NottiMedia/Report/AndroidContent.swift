/// What an Android phone shows for a send request (SPEC 15, 20): the title and
/// body always; the big picture when it downloaded and decoded (the large icon
/// instead, under Expo's builder); the data the app receives.
enum AndroidContent {
    static func json(for payload: Payload, picture: Attachment?, dimensions: Dimensions?, largeIcon: Bool) -> JSONValue {
        let notification = payload.root["notification"]
        return .object([
            JSONMember("title", notification?["title"] ?? .null),
            JSONMember("body", notification?["body"] ?? .null),
            JSONMember("style", .string(picture == nil ? "text" : largeIcon ? "large_icon" : "big_picture")),
            JSONMember("picture", picture.map { picture in
                .object([
                    JSONMember("url", .string(picture.fileURL)),
                    JSONMember("mimeType", .string(picture.mimeType)),
                    JSONMember("size", .int(picture.size)),
                    JSONMember("sha256", .string(picture.sha256)),
                    JSONMember("width", .optional(dimensions?.width)),
                    JSONMember("height", .optional(dimensions?.height)),
                ])
            } ?? .null),
            JSONMember("data", payload.root["data"] ?? .object([])),
        ])
    }
}
