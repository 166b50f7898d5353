import HTTPCore

/// The text form of stored header fields: one `Name: value` line per field, each ended by CR LF,
/// in received order with repeated names kept, as on the wire and readable in any SQLite shell.
enum HeaderCoding {
    /// Encodes `headers`, or returns the first field that cannot be written in this form.
    /// The text is written once into a string of its final size, rather than grown by four appends
    /// per field, and each name and value is checked and copied as one run of bytes (read a byte at
    /// a time through their UTF-8 views, they cost a few thousand instructions a response).
    static func encode(_ headers: HTTPHeaders) -> Result<String, InvalidField> {
        var size = 0
        for field in headers.fields {
            let nameIsValid = !field.name.isEmpty
                && bytes(of: field.name) { !$0.contains { $0 == 58 || $0 == 13 || $0 == 10 } }
            guard nameIsValid, bytes(of: field.value, { !$0.contains { $0 == 13 || $0 == 10 } }) else {
                return .failure(InvalidField(name: field.name))
            }
            size += field.name.utf8.count + field.value.utf8.count + 4
        }
        guard size > 0 else { return .success("") }
        return .success(String(unsafeUninitializedCapacity: size) { buffer in
            var end = 0
            func write(_ text: String) {
                bytes(of: text) { source in
                    guard let base = source.baseAddress else { return }
                    (buffer.baseAddress! + end).initialize(from: base, count: source.count)
                    end += source.count
                }
            }
            for field in headers.fields {
                write(field.name)
                buffer[end] = 58
                buffer[end + 1] = 32
                end += 2
                write(field.value)
                buffer[end] = 13
                buffer[end + 1] = 10
                end += 2
            }
            return end
        })
    }

    /// What `body` makes of the UTF-8 bytes of `text`, read in place.
    private static func bytes<T>(of text: String, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        var text = text
        return text.withUTF8(body)
    }

    /// Decodes the UTF-8 bytes of text written by ``encode(_:)``, read in place from their column.
    static func decode(bytes: UnsafeBufferPointer<UInt8>) -> HTTPHeaders {
        var fields: [HTTPField] = []
        // One line per field, each ended by CR LF: counted first, so that the array grows once.
        fields.reserveCapacity(bytes.reduce(1) { count, byte in byte == 10 ? count + 1 : count })
        var lineStart = 0
        var index = 0
        while index < bytes.count {
            if bytes[index] == 13, index + 1 < bytes.count, bytes[index + 1] == 10 {
                fields.append(field(UnsafeBufferPointer(rebasing: bytes[lineStart..<index])))
                index += 2
                lineStart = index
            } else {
                index += 1
            }
        }
        if lineStart < bytes.count {
            fields.append(field(UnsafeBufferPointer(rebasing: bytes[lineStart...])))
        }
        return HTTPHeaders(fields)
    }

    private static func field(_ line: UnsafeBufferPointer<UInt8>) -> HTTPField {
        guard let colon = line.firstIndex(of: 58) else {
            return HTTPField(name: String(decoding: line, as: UTF8.self), value: "")
        }
        var valueStart = colon + 1
        if valueStart < line.count, line[valueStart] == 32 {
            valueStart += 1
        }
        return HTTPField(
            name: String(decoding: UnsafeBufferPointer(rebasing: line[..<colon]), as: UTF8.self),
            value: String(decoding: UnsafeBufferPointer(rebasing: line[valueStart...]), as: UTF8.self)
        )
    }

    /// A header field whose name or value cannot be stored (a colon in the name, or a line break).
    struct InvalidField: Error {
        let name: String
    }
}
