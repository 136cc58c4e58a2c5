public import Foundation
public import SluiceCore

extension LoopbackServer {
    /// An HTTP request as ``LoopbackServer`` received and parsed it.
    ///
    /// The server records every complete request in ``LoopbackServer/receivedRequests`` and hands it to the route that
    /// answers it. You can also create one yourself to unit-test a route's closure without a socket.
    public struct Request: Sendable, Equatable, CustomStringConvertible {
        /// The request method, such as `GET`, exactly as sent (methods are case-sensitive).
        public let method: String

        /// The raw request-target from the request line, such as `/users?page=2`, still percent-encoded.
        public let target: String

        /// The protocol version from the request line: `HTTP/1.1` or `HTTP/1.0`.
        public let version: String

        /// The header fields in the order they were received, including repeated names.
        public let headers: [HTTPHeaders.Field]

        /// The request body; de-chunked if the client sent `Transfer-Encoding: chunked`, empty if there was none.
        public let body: Data

        /// Creates a request, for example to call a route's closure directly in a unit test.
        ///
        /// - Parameters:
        ///   - method: The request method, such as `GET`.
        ///   - target: The request-target, such as `/users?page=2`.
        ///   - version: The protocol version, `HTTP/1.1` unless you say otherwise.
        ///   - headers: The header fields in order.
        ///   - body: The decoded body.
        public init(
            method: String,
            target: String,
            version: String = "HTTP/1.1",
            headers: [HTTPHeaders.Field] = [],
            body: Data = Data()
        ) {
            self.method = method
            self.target = target
            self.version = version
            self.headers = headers
            self.body = body
        }

        /// The path part of ``target`` (everything before `?`), still percent-encoded as received.
        ///
        /// For an absolute-form target such as `http://host/a?b` this is the path after the authority, `/a`.
        public var path: String {
            let originForm = Self.originForm(of: target)
            guard let questionMark = originForm.firstIndex(of: "?") else {
                return originForm
            }
            return String(originForm[..<questionMark])
        }

        /// The raw query (everything after the first `?`), or `nil` when the target has no `?`.
        public var query: String? {
            guard let questionMark = target.firstIndex(of: "?") else {
                return nil
            }
            return String(target[target.index(after: questionMark)...])
        }

        /// The query split into percent-decoded name/value pairs, in order; empty when there is no query.
        ///
        /// A `+` is kept as is (it is not turned into a space), the same as `URLComponents` does.
        public var queryItems: [URLQueryItem] {
            guard let query, !query.isEmpty else {
                return []
            }
            if let components = URLComponents(string: "http://127.0.0.1/?" + query),
                let items = components.queryItems
            {
                return items
            }
            // URLComponents refuses some byte sequences a client can still send; split by hand instead of giving up.
            return query.split(separator: "&", omittingEmptySubsequences: false).map { pair in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(parts[0])
                let value = parts.count > 1 ? String(parts[1]) : nil
                return URLQueryItem(
                    name: name.removingPercentEncoding ?? name,
                    value: value.map { $0.removingPercentEncoding ?? $0 }
                )
            }
        }

        /// The body decoded as UTF-8, with invalid bytes replaced by U+FFFD.
        public var bodyText: String {
            String(decoding: body, as: UTF8.self)
        }

        /// A one-line summary such as `POST /users HTTP/1.1 (3 headers, 12 body bytes)`.
        public var description: String {
            "\(method) \(target) \(version) (\(headers.count) headers, \(body.count) body bytes)"
        }

        /// The value of the first header with the given name, compared case-insensitively.
        ///
        /// - Parameter name: The header name, in any case.
        /// - Returns: The first matching value, or `nil` when the request has no such header.
        public func header(_ name: String) -> String? {
            headers.first { $0.hasName(name) }?.value
        }

        /// The values of every header with the given name, compared case-insensitively, in the order received.
        ///
        /// - Parameter name: The header name, in any case.
        /// - Returns: All matching values; empty when the request has no such header.
        public func headerValues(_ name: String) -> [String] {
            headers.filter { $0.hasName(name) }.map(\.value)
        }

        /// Strips `scheme://authority` from an absolute-form target, leaving origin-form (`/path?query`).
        private static func originForm(of target: String) -> String {
            guard let schemeEnd = target.range(of: "://"), target[..<schemeEnd.lowerBound].allSatisfy(\.isLetter) else {
                return target
            }
            let afterScheme = target[schemeEnd.upperBound...]
            guard let pathStart = afterScheme.firstIndex(where: { $0 == "/" || $0 == "?" }) else {
                return "/"
            }
            let rest = afterScheme[pathStart...]
            return rest.hasPrefix("?") ? "/" + rest : String(rest)
        }
    }
}
