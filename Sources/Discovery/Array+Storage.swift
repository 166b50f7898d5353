extension Array {
    /// Takes the storage of `other`, emptied, in place of its own: for a value made new that keeps
    /// the buffers its predecessor grew (``CSSTokenizer/reset()``).
    mutating func takeStorage(of other: inout Array) {
        swap(&self, &other)
        removeAll(keepingCapacity: true)
    }
}
