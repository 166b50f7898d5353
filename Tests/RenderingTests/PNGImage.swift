import CZlib
import Foundation

/// A decoded 8-bit, non-interlaced PNG, to compare screenshots pixel by pixel.
struct PNGImage: Equatable {
    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    var width: Int
    var height: Int
    var channels: Int
    /// Unfiltered rows, one after another.
    var pixels: [UInt8]

    init(_ data: Data) throws {
        let bytes = [UInt8](data)
        guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
            throw Invalid(description: "not a PNG")
        }
        var offset = 8
        var compressed: [UInt8] = []
        var header: [UInt8] = []
        func integer(_ at: Int) -> Int {
            bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
        }
        while offset + 8 <= bytes.count {
            let length = integer(offset)
            let kind = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            let chunk = Array(bytes[offset + 8..<offset + 8 + length])
            if kind == "IHDR" { header = chunk }
            if kind == "IDAT" { compressed += chunk }
            offset += 12 + length
        }
        guard header.count == 13, header[8] == 8, header[12] == 0 else {
            throw Invalid(description: "unsupported PNG layout")
        }
        width = header[0..<4].reduce(0) { $0 << 8 | Int($1) }
        height = header[4..<8].reduce(0) { $0 << 8 | Int($1) }
        guard let channels = [0: 1, 2: 3, 4: 2, 6: 4][Int(header[9])] else {
            throw Invalid(description: "unsupported colour type \(header[9])")
        }
        self.channels = channels
        let stride = width * channels
        var raw = [UInt8](repeating: 0, count: (stride + 1) * height)
        var rawLength = uLongf(raw.count)
        let status = raw.withUnsafeMutableBufferPointer { output in
            compressed.withUnsafeBufferPointer { input in
                uncompress(output.baseAddress, &rawLength, input.baseAddress, uLong(input.count))
            }
        }
        guard status == Z_OK, Int(rawLength) == raw.count else { throw Invalid(description: "bad image data") }
        var pixels = [UInt8](repeating: 0, count: stride * height)
        for y in 0..<height {
            let filter = raw[y * (stride + 1)]
            for x in 0..<stride {
                let value = raw[y * (stride + 1) + 1 + x]
                let left = x >= channels ? Int(pixels[y * stride + x - channels]) : 0
                let up = y > 0 ? Int(pixels[(y - 1) * stride + x]) : 0
                let corner = x >= channels && y > 0 ? Int(pixels[(y - 1) * stride + x - channels]) : 0
                let predicted: Int
                switch filter {
                case 1: predicted = left
                case 2: predicted = up
                case 3: predicted = (left + up) / 2
                case 4:
                    let p = left + up - corner
                    let (pa, pb, pc) = (abs(p - left), abs(p - up), abs(p - corner))
                    predicted = pa <= pb && pa <= pc ? left : (pb <= pc ? up : corner)
                default: predicted = 0
                }
                pixels[y * stride + x] = UInt8((Int(value) + predicted) & 0xFF)
            }
        }
        self.pixels = pixels
    }

    /// How many pixels differ from `other`'s (all of them when the sizes differ).
    func differingPixels(from other: PNGImage) -> Int {
        guard width == other.width, height == other.height, channels == other.channels else { return width * height }
        return stride(from: 0, to: pixels.count, by: channels).count { index in
            pixels[index..<index + channels] != other.pixels[index..<index + channels]
        }
    }
}
