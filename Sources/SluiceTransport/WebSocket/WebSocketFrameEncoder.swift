/// Writes WebSocket frames (RFC 6455, section 5): the header with the shortest length that holds the payload, and the
/// payload masked with the frame's key, as every frame from a client must be, or unmasked, as a server sends it.
///
/// I/O-free: it appends the frame to a buffer the connection sends from.
package enum WebSocketFrameEncoder {
    /// Appends one frame.
    ///
    /// - Parameters:
    ///   - opcode: What the frame carries.
    ///   - payload: The payload, unmasked; at most 125 bytes for a control frame.
    ///   - fin: Whether it is a message's last frame; `true` for control frames.
    ///   - reservedBits: The reserved bits a negotiated extension sets (0x40 for a compressed message); none by
    ///     default.
    ///   - maskKey: The frame's masking key: from a strong source of randomness, new for every frame a client sends;
    ///     `nil` for a server's frame, which goes unmasked.
    ///   - output: Where the frame goes.
    package static func encode(
        _ opcode: WebSocketOpcode,
        payload: UnsafeRawBufferPointer,
        fin: Bool = true,
        reservedBits: UInt8 = 0,
        maskKey: UInt32?,
        into output: inout [UInt8]
    ) {
        appendHeader(
            opcode,
            length: UInt64(payload.count),
            fin: fin,
            reservedBits: reservedBits,
            masked: maskKey != nil,
            into: &output
        )
        guard let maskKey else {
            output.append(contentsOf: payload)
            return
        }
        let key = [
            UInt8(maskKey >> 24), UInt8(truncatingIfNeeded: maskKey >> 16), UInt8(truncatingIfNeeded: maskKey >> 8),
            UInt8(truncatingIfNeeded: maskKey),
        ]
        output.append(contentsOf: key)
        let start = output.count
        output.append(contentsOf: payload)
        output.withUnsafeMutableBytes { buffer in
            mask(UnsafeMutableRawBufferPointer(rebasing: buffer[start...]), key: maskKey)
        }
    }

    /// Appends a frame's header up to its masking key: the first byte, and the length in the fewest bytes that hold it.
    ///
    /// - Parameters:
    ///   - opcode: What the frame carries.
    ///   - length: The payload's length, which may differ from what follows when a frame is made to break the rules.
    ///   - fin: Whether it is a message's last frame.
    ///   - reservedBits: The reserved bits to set.
    ///   - masked: Whether a masking key follows, as in every frame from a client.
    ///   - output: Where the header goes.
    package static func appendHeader(
        _ opcode: WebSocketOpcode,
        length: UInt64,
        fin: Bool = true,
        reservedBits: UInt8 = 0,
        masked: Bool,
        into output: inout [UInt8]
    ) {
        output.append((fin ? 0x80 : 0) | (reservedBits & 0x70) | (opcode.rawValue & 0x0F))
        let maskBit: UInt8 = masked ? 0x80 : 0
        if length < 126 {
            output.append(maskBit | UInt8(length))
        } else if length <= 0xFFFF {
            output.append(maskBit | 126)
            output.append(UInt8(length >> 8))
            output.append(UInt8(length & 0xFF))
        } else {
            output.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                output.append(UInt8(truncatingIfNeeded: length >> UInt64(shift)))
            }
        }
    }

    /// XORs bytes with a masking key in place, the key's first byte against the first byte; masking and unmasking
    /// are the same.
    ///
    /// - Parameters:
    ///   - bytes: The bytes.
    ///   - key: The key, its most significant byte first.
    package static func mask(_ bytes: UnsafeMutableRawBufferPointer, key: UInt32) {
        // Eight bytes at a time: the key repeated twice, in the byte order of the machine's loads.
        let keyBytes = [
            UInt8(key >> 24), UInt8(truncatingIfNeeded: key >> 16), UInt8(truncatingIfNeeded: key >> 8),
            UInt8(truncatingIfNeeded: key),
        ]
        var wide: UInt64 = 0
        withUnsafeMutableBytes(of: &wide) { word in
            for index in 0..<8 {
                word[index] = keyBytes[index & 3]
            }
        }
        let count = bytes.count
        var index = 0
        while index + 8 <= count {
            let value = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            bytes.storeBytes(of: value ^ wide, toByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < count {
            bytes[index] ^= keyBytes[index & 3]
            index += 1
        }
    }
}
