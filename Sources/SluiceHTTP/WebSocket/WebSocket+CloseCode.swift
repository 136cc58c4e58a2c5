extension WebSocket {
    /// The code of a closing handshake (RFC 6455, section 7.4): why a side closed the connection.
    ///
    /// An open set: compare against the static members; codes 3000 to 4999 are for applications and libraries.
    public struct CloseCode: Hashable, Sendable, CustomStringConvertible {
        /// The number on the wire.
        public let rawValue: UInt16

        /// A code from its number.
        ///
        /// - Parameter rawValue: The number, such as 1000 or an application's 4000.
        public init(rawValue: UInt16) {
            self.rawValue = rawValue
        }

        /// 1000: the purpose of the connection is fulfilled.
        public static let normalClosure = CloseCode(rawValue: 1000)
        /// 1001: the side is going away, as a server going down or a client cancelled.
        public static let goingAway = CloseCode(rawValue: 1001)
        /// 1002: the peer broke the protocol.
        public static let protocolError = CloseCode(rawValue: 1002)
        /// 1003: a message of a kind the side cannot accept (binary for a text-only endpoint).
        public static let unsupportedData = CloseCode(rawValue: 1003)
        /// 1005: the closing frame carried no code; never sent.
        public static let noStatusReceived = CloseCode(rawValue: 1005)
        /// 1006: the connection ended without a closing frame; never sent.
        public static let abnormalClosure = CloseCode(rawValue: 1006)
        /// 1007: a message's data did not match its type, such as invalid UTF-8 in a text message.
        public static let invalidFramePayloadData = CloseCode(rawValue: 1007)
        /// 1008: a message broke the side's policy.
        public static let policyViolation = CloseCode(rawValue: 1008)
        /// 1009: a message too big to process.
        public static let messageTooBig = CloseCode(rawValue: 1009)
        /// 1010: the server did not negotiate an extension the client requires.
        public static let mandatoryExtension = CloseCode(rawValue: 1010)
        /// 1011: the server met an unexpected condition.
        public static let internalServerError = CloseCode(rawValue: 1011)

        /// The code's number and, for those RFC 6455 names, its name: `1000 (normal closure)`.
        public var description: String {
            let names: [UInt16: String] = [
                1000: "normal closure", 1001: "going away", 1002: "protocol error", 1003: "unsupported data",
                1005: "no status received", 1006: "abnormal closure", 1007: "invalid frame payload data",
                1008: "policy violation", 1009: "message too big", 1010: "mandatory extension",
                1011: "internal server error", 1012: "service restart", 1013: "try again later",
                1014: "bad gateway",
            ]
            return names[rawValue].map { "\(rawValue) (\($0))" } ?? "\(rawValue)"
        }

        /// Whether a peer may put the code in a closing frame: 1000 to 1003, 1007 to 1014, and 3000 to 4999
        /// (RFC 6455, section 7.4, and the IANA registry).
        package static func maySend(_ code: UInt16) -> Bool {
            switch code {
            case 1000...1003, 1007...1014, 3000...4999: true
            default: false
            }
        }
    }
}
