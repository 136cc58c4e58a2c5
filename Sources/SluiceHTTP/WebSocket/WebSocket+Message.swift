import Foundation

extension WebSocket {
    /// A whole WebSocket message, however many frames carried it.
    public enum Message: Sendable, Hashable {
        /// A text message: UTF-8 on the wire, checked as it arrives.
        case text(String)
        /// A binary message.
        case binary(Data)
    }
}
