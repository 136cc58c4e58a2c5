extension String {
    /// The start of some UTF-8 text, at most `limit` bytes of whole characters, followed by how many bytes were
    /// left out; the whole text when it fits.
    ///
    /// The cut falls before a character rather than through it: it backs off over the continuation bytes (up to
    /// three) of a character that the limit would split. Error messages and logs both cut bodies this way.
    ///
    /// - Parameters:
    ///   - utf8: The text's bytes.
    ///   - limit: The most bytes kept.
    package init(excerptOf utf8: some Collection<UInt8>, limit: Int) {
        let count = utf8.count
        let limit = Swift.max(0, limit)
        guard count > limit else {
            self.init(decoding: utf8, as: UTF8.self)
            return
        }
        // The kept bytes and the one after them, which tells whether the cut is inside a character.
        let head = Array(utf8.prefix(limit + 1))
        var end = limit
        while end > 0, end > limit - 3, head[end] & 0xC0 == 0x80 {
            end -= 1
        }
        self = String(decoding: head[..<end], as: UTF8.self) + "… (\(count - end) more bytes)"
    }
}
