import Glibc
internal import CBuildShim

/// A property list (an `Info.plist`, a provisioning profile's), XML or binary, read by Debian's libplist and
/// held as a `JSONValue`, the tree every output is written from: dictionaries as objects in their written
/// order, strings, integers and reals as numbers, booleans; a date as its RFC 3339 text, data as
/// `"<N bytes>"` (nothing SPEC 22 reads is either).
enum PropertyList {
    /// The deepest nesting and the most values read: a real `Info.plist` holds a few hundred values, a few deep.
    static let maxDepth = 64
    static let maxValues = 200_000

    /// - Throws: `BuildError` naming `path` in `build` when the bytes are no property list, or one past the bounds.
    static func parse(_ bytes: [UInt8], path: String, in build: String) throws(BuildError) -> JSONValue {
        guard !bytes.isEmpty, bytes.count <= Int(UInt32.max) else { throw BuildError("\(build): \(path) is empty or too large to be a property list") }
        let plist = try BuildLibraries.functions().pointee
        var root: plist_t?
        bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { plist.plist_from_memory($0.baseAddress, UInt32($0.count), &root) }
        }
        guard let root else { throw BuildError("\(build): \(path) is not a property list (XML or binary) that parses") }
        defer { plist.plist_free(root) }
        var budget = maxValues
        guard let value = value(of: root, depth: 0, budget: &budget, plist) else {
            throw BuildError("\(build): \(path) nests deeper than \(maxDepth) or holds more than \(maxValues) values: refused")
        }
        return value
    }

    private static func value(of node: plist_t, depth: Int, budget: inout Int, _ plist: build_functions) -> JSONValue? {
        budget -= 1
        guard depth <= maxDepth, budget >= 0 else { return nil }
        switch plist.plist_get_node_type(node) {
        case PLIST_DICT:
            var members: [JSONMember] = []
            var iterator: plist_dict_iter?
            plist.plist_dict_new_iter(node, &iterator)
            defer { free(iterator) }
            while true {
                var key: UnsafeMutablePointer<CChar>?
                var item: plist_t?
                plist.plist_dict_next_item(node, iterator, &key, &item)
                guard let item else {
                    free(key)
                    break
                }
                let name = key.map { String(cString: $0) } ?? ""
                free(key)
                guard let inner = value(of: item, depth: depth + 1, budget: &budget, plist) else { return nil }
                members.append(JSONMember(name, inner))
            }
            return .object(members)
        case PLIST_ARRAY:
            var items: [JSONValue] = []
            for index in 0..<plist.plist_array_get_size(node) {
                guard let item = plist.plist_array_get_item(node, index), let inner = value(of: item, depth: depth + 1, budget: &budget, plist) else { return nil }
                items.append(inner)
            }
            return .array(items)
        case PLIST_STRING, PLIST_KEY:
            var text: UnsafeMutablePointer<CChar>?
            plist.plist_get_string_val(node, &text)
            defer { free(text) }
            return .string(text.map { String(cString: $0) } ?? "")
        case PLIST_BOOLEAN:
            var flag: UInt8 = 0
            plist.plist_get_bool_val(node, &flag)
            return .bool(flag != 0)
        case PLIST_UINT:
            var number: UInt64 = 0
            plist.plist_get_uint_val(node, &number)
            return .number(String(number))
        case PLIST_REAL:
            var number: Double = 0
            plist.plist_get_real_val(node, &number)
            return number.isFinite ? .double(number) : .null
        case PLIST_DATE:
            var seconds: Int32 = 0, microseconds: Int32 = 0
            plist.plist_get_date_val(node, &seconds, &microseconds)
            // A property list's dates count from 2001-01-01 (978,307,200 s after 1970).
            return .string(CertificateFacts.timestamp(Int(seconds) + 978_307_200))
        case PLIST_DATA:
            var length: UInt64 = 0
            var data: UnsafeMutablePointer<CChar>?
            plist.plist_get_data_val(node, &data, &length)
            free(data)
            return .string("<\(length) bytes>")
        default:
            return .null
        }
    }
}
