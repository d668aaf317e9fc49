import Glibc

/// How many frames a GIF holds, read from its blocks (header, logical screen,
/// color tables, extensions, image descriptors): Android's BitmapFactory shows
/// the first alone, so an animated GIF loses its animation there.
enum GIFFrames {
    /// The frames of the GIF file at `path`, counting up to `atMost`; nil when it is not a readable GIF.
    static func count(ofFileAt path: String, atMost: Int = 2) -> Int? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var reader = BlockReader(descriptor: descriptor)
        guard let header = reader.bytes(13), header.starts(with: Array("GIF".utf8)) else { return nil }
        if header[10] & 0x80 != 0 { guard reader.skip(3 << (Int(header[10] & 0x07) + 1)) else { return nil } }
        var frames = 0
        while frames < atMost, let introducer = reader.byte() {
            switch introducer {
            case 0x21:  // an extension: its label, then sub-blocks
                guard reader.byte() != nil, reader.skipSubBlocks() else { return frames }
            case 0x2C:  // an image descriptor: 9 bytes, a local color table, the LZW code size, sub-blocks
                guard let descriptor = reader.bytes(9) else { return frames }
                if descriptor[8] & 0x80 != 0 { guard reader.skip(3 << (Int(descriptor[8] & 0x07) + 1)) else { return frames } }
                frames += 1
                guard reader.byte() != nil, reader.skipSubBlocks() else { return frames }
            default:  // the trailer (0x3B), or bytes that are not blocks
                return frames
            }
        }
        return frames
    }

    /// Buffered reads from a descriptor.
    private struct BlockReader {
        let descriptor: Int32
        private var buffer: [UInt8] = []
        private var position = 0

        init(descriptor: Int32) { self.descriptor = descriptor }

        private mutating func fill() -> Bool {
            var block = [UInt8](repeating: 0, count: 64 * 1024)
            let count = block.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return false }
            buffer = Array(block[..<count])
            position = 0
            return true
        }

        mutating func byte() -> UInt8? {
            if position >= buffer.count && !fill() { return nil }
            defer { position += 1 }
            return buffer[position]
        }

        mutating func bytes(_ count: Int) -> [UInt8]? {
            var out: [UInt8] = []
            for _ in 0..<count {
                guard let byte = byte() else { return nil }
                out.append(byte)
            }
            return out
        }

        mutating func skip(_ count: Int) -> Bool {
            var left = count
            while left > 0 {
                if position >= buffer.count && !fill() { return false }
                let step = min(left, buffer.count - position)
                position += step
                left -= step
            }
            return true
        }

        mutating func skipSubBlocks() -> Bool {
            while let size = byte() {
                if size == 0 { return true }
                guard skip(Int(size)) else { return false }
            }
            return false
        }
    }
}
