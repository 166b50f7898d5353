/// Lowercase hexadecimal text for bytes, such as a digest in a key or a name.
public enum Hex {
    /// Two lowercase hex digits per byte, in order.
    public static func lowercase(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef")
        var text = ""
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return text
    }
}
