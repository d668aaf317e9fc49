/// A picture's size in pixels, as libmagic's description of the file states it
/// (`PNG image data, 48 x 48, ...`, `JPEG image data, ..., 64x48, ...`,
/// `PC bitmap, ..., 16 x 16 x 24`): the same library that sniffs the type, no
/// decoder of its own. Nil where libmagic states none (HEIC and AVIF among them).
public struct Dimensions: Sendable, Equatable {
    public var width: Int
    public var height: Int

    package init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// The first field of the description that is `W x H` (or `WxH`, or `W x H x depth`);
    /// a field with words around it (`density 1x1`) is not a size.
    package init?(libmagicDescription description: String) {
        for field in description.split(separator: ",") {
            let parts = field.split(separator: "x", omittingEmptySubsequences: false).map { $0.trimmingWhitespace() }
            guard parts.count == 2 || parts.count == 3,
                  parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
                  let width = Int(parts[0]), let height = Int(parts[1]), width > 0, height > 0
            else { continue }
            self.width = width
            self.height = height
            return
        }
        return nil
    }

    package var json: JSONValue {
        .object([JSONMember("width", .int(width)), JSONMember("height", .int(height))])
    }
}
