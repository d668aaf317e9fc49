/// A picture's or video's size in pixels, as the phone's decoder reads it (the stored
/// pixel grid, before any orientation; `DecodedMedia.dimensions`).
public struct Dimensions: Sendable, Equatable {
    public var width: Int
    public var height: Int

    package init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    package var json: JSONValue {
        .object([JSONMember("width", .int(width)), JSONMember("height", .int(height))])
    }
}
