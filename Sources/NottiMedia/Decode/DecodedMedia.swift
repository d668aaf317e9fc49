internal import CDecodeDoor

/// What the decoder the phone runs made of a file (SPEC 17): `media.decoded`.
/// Width and height are the stored pixel grid, before any orientation.
package struct DecodedMedia: Sendable, Equatable {
    package enum Kind: String, Sendable {
        case picture, video, audio
    }

    package var kind: Kind
    /// A picture's format: jpeg, png, gif, webp, bmp, tiff, heif, avif.
    package var format: String?
    /// A video's container brand (`isom`, `mp42`, `qt  `).
    package var container: String?
    package var videoCodec: String?
    /// The video's sample entry (`avc1`, `hvc1`, `hev1`, `vp09`, `av01`).
    package var videoTag: String?
    package var audioCodec: String?
    package var width: Int?
    package var height: Int?
    package var frames: Int?
    /// The EXIF orientation, 1–8 (1 when there is none).
    package var orientation: Int?
    /// Every row (of the first frame) or every sample decoded; nil when not decoded (a header over the pixel bound).
    package var complete: Bool?
    /// width × height × 4: what a phone allocates to decode the picture at full size.
    package var decodedBytes: Int?
    package var durationSeconds: Double?
    /// How much a cut file draws: the picture's rows, or the percent of a stream's samples.
    package var drawnRows: Int?
    package var drawnPercent: Int?
    /// Why nothing of it decodes (`undecodable_media`), in the decoder's words; nil when it does.
    package var undecodable: String?
    /// Why no decode could be made (`decode_failed`, SPEC 17): the machine's fault, not the media's, so the
    /// pixels' verdict is unknown and no other fact is known; nil when a decoder read it.
    package var failed: String?

    package init(kind: Kind) {
        self.kind = kind
    }

    /// The kind a file of this sniffed type is decoded as; nil for types no phone decodes as media.
    package static func kind(ofMime mime: String) -> Kind? {
        if mime.hasPrefix("image/") { return Decodable.pictureMimes.contains(mime) ? .picture : nil }
        if mime.hasPrefix("video/") { return .video }
        if mime.hasPrefix("audio/") { return .audio }
        return nil
    }

    enum Decodable {
        /// The door's list (door.h: `door_picture_mime`), the one the worker reads too.
        static let pictureMimes: Set<String> = Set(
            sequence(state: Int32(0)) { index -> String? in
                defer { index += 1 }
                return door_picture_mime(index).map { String(cString: $0) }
            })
    }

    /// The worker's answer (a JSON object, door.h); nil when no phone decodes the type as media
    /// (`unsupported_type`). A decode the machine could not make (`decoder_missing`, `decoder_failed`) is
    /// `failed`, never "nothing to say".
    init?(answer: JSONValue, mime: String) {
        guard let status = answer[DOOR_STATUS_KEY]?.stringValue.flatMap(DoorStatus.init(name:)) else {
            guard let kind = Self.kind(ofMime: mime) else { return nil }
            self = .failed("the worker's answer has no status the door knows", kind: kind)
            return
        }
        let detail = answer[DOOR_DETAIL_KEY]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        switch status {
        case DOOR_DECODED, DOOR_UNDECODABLE: break
        case DOOR_DECODER_MISSING, DOOR_DECODER_FAILED, DOOR_SANDBOX_UNAVAILABLE:
            guard let kind = Self.kind(ofMime: mime) else { return nil }
            self = .failed(detail ?? "the decoder gave no reason", kind: kind)
            return
        default: return nil
        }
        guard let kind = answer[DOOR_KIND_KEY]?.stringValue.flatMap(Kind.init(rawValue:)) ?? Self.kind(ofMime: mime) else { return nil }
        self.kind = kind
        // A finite number (JSON has no infinity to write back).
        func number(_ field: DoorField) -> Double? {
            if case .number(let text)? = answer[door: field], let value = Double(text), value.isFinite { value } else { nil }
        }
        // Only the facts of its kind: what `json` writes, so the `--cache` form reads back the same.
        switch kind {
        case .picture:
            format = answer[door: DOOR_FORMAT]?.stringValue
            frames = answer[door: DOOR_FRAMES]?.intValue
            orientation = answer[door: DOOR_ORIENTATION]?.intValue
            decodedBytes = answer[door: DOOR_DECODED_BYTES]?.intValue
            drawnRows = answer[door: DOOR_DRAWN_ROWS]?.intValue
        case .video:
            container = answer[door: DOOR_CONTAINER]?.stringValue
            videoCodec = answer[door: DOOR_VIDEO_CODEC]?.stringValue
            videoTag = answer[door: DOOR_VIDEO_TAG]?.stringValue
            audioCodec = answer[door: DOOR_AUDIO_CODEC]?.stringValue
            durationSeconds = number(DOOR_DURATION_SECONDS)
            drawnPercent = answer[door: DOOR_DRAWN_PERCENT]?.intValue
        case .audio:
            audioCodec = answer[door: DOOR_AUDIO_CODEC]?.stringValue
            durationSeconds = number(DOOR_DURATION_SECONDS)
            drawnPercent = answer[door: DOOR_DRAWN_PERCENT]?.intValue
        }
        if kind != .audio {
            width = answer[door: DOOR_WIDTH]?.intValue
            height = answer[door: DOOR_HEIGHT]?.intValue
        }
        if status == DOOR_UNDECODABLE {
            // The decoder's own words; a message never has an empty detail.
            undecodable = detail ?? "the decoder read nothing of it"
            complete = false
        } else {
            complete = answer[door: DOOR_COMPLETE].flatMap { if case .bool(let value) = $0 { value } else { nil } }
        }
    }

    /// Bytes of a type no phone decodes as media (libmagic names no picture, video or sound in them: an
    /// HTML error page, a PNG whose signature was mangled): the phone's picture decoder, which a fallback
    /// or a hinted picture type hands them to, reads nothing of them (SPEC 17). Decoders find a format by
    /// its signature, as libmagic does: where it finds none, none of them reads the file.
    static func unreadable(mime: String) -> DecodedMedia {
        var decoded = DecodedMedia(kind: .picture)
        decoded.complete = false
        decoded.undecodable = "no picture decoder reads it: the bytes are \(mime), not a picture format phones decode"
        return decoded
    }

    /// A file no decode could be made of (`decode_failed`): only its kind is known.
    static func failed(_ why: String, kind: Kind) -> DecodedMedia {
        var decoded = DecodedMedia(kind: kind)
        decoded.failed = why
        return decoded
    }

    /// A file the decoder stopped on (a crash, a hang past the deadline, a kill): nothing of it decoded.
    static func stopped(_ why: String, mime: String) -> DecodedMedia? {
        guard let kind = kind(ofMime: mime) else { return nil }
        var decoded = DecodedMedia(kind: kind)
        decoded.complete = false
        decoded.undecodable = "the decoder stopped: \(why)"
        return decoded
    }

    /// The facts in the worker's own form (its answer), as `--cache` keeps them.
    /// A decode that failed is never kept (`--cache` asks again): nil for it.
    var answer: JSONValue {
        guard failed == nil, case .object(var members) = json else { return .null }
        members += [
            JSONMember(DOOR_STATUS_KEY, .string(DoorStatus.name(undecodable == nil ? DOOR_DECODED : DOOR_UNDECODABLE))),
            JSONMember(DOOR_DETAIL_KEY, .optional(undecodable)),
            JSONMember(String(cString: door_field_key(DOOR_DRAWN_ROWS)), .optional(drawnRows)),
            JSONMember(String(cString: door_field_key(DOOR_DRAWN_PERCENT)), .optional(drawnPercent)),
        ]
        return .object(members)
    }

    /// `media.dimensions` for a picture or a video.
    package var dimensions: Dimensions? {
        guard kind != .audio, let width, let height, width > 0, height > 0 else { return nil }
        return Dimensions(width: width, height: height)
    }

    /// `media.decoded`: the facts of the kind, in SPEC 17's order.
    package var json: JSONValue {
        var members = [JSONMember("kind", .string(kind.rawValue))]
        switch kind {
        case .picture:
            members += [
                JSONMember("format", .optional(format)), JSONMember("width", .optional(width)),
                JSONMember("height", .optional(height)), JSONMember("frames", .optional(frames)),
                JSONMember("orientation", .optional(orientation)), JSONMember("complete", .optional(complete)),
                JSONMember("decodedBytes", .optional(decodedBytes)),
            ]
        case .video:
            members += [
                JSONMember("container", .optional(container)), JSONMember("videoCodec", .optional(videoCodec)),
                JSONMember("videoTag", .optional(videoTag)), JSONMember("width", .optional(width)),
                JSONMember("height", .optional(height)), JSONMember("durationSeconds", durationSeconds.map { .double($0) } ?? .null),
                JSONMember("audioCodec", .optional(audioCodec)), JSONMember("complete", .optional(complete)),
            ]
        case .audio:
            members += [
                JSONMember("audioCodec", .optional(audioCodec)),
                JSONMember("durationSeconds", durationSeconds.map { .double($0) } ?? .null),
                JSONMember("complete", .optional(complete)),
            ]
        }
        return .object(members)
    }
}

/// The door's statuses (door.h) by the names the worker writes.
extension DoorStatus {
    init?(name: String) {
        guard let status = (0..<DOOR_STATUS_COUNT.rawValue).lazy.map({ DoorStatus(rawValue: $0) })
            .first(where: { String(cString: door_status_name($0)) == name }) else { return nil }
        self = status
    }

    static func name(_ status: DoorStatus) -> String { String(cString: door_status_name(status)) }
}

extension JSONValue {
    /// A worker's answer's member for a field of the door, by the door's key (door.h: `door_field_key`).
    subscript(door field: DoorField) -> JSONValue? { self[String(cString: door_field_key(field))] }
}
