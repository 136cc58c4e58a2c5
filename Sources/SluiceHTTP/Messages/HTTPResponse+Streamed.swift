public import Foundation

extension HTTPResponse {
    /// A response whose head has arrived and whose body is still arriving: what the transport stage's streaming form,
    /// ``RequestPerformer/stream(_:)``, returns.
    ///
    /// ```swift
    /// let response = try await NetworkRequestPerformer().stream(URLRequest(url: url))
    /// print(response.status)  // 200 OK, before the body
    /// var received = 0
    /// for try await chunk in response.body {
    ///     received += chunk.count
    /// }
    /// ```
    public struct Streamed: Sendable {
        /// The response status.
        public var status: HTTPStatus
        /// The response header fields, looked up case-insensitively.
        public var headers: HTTPHeaders
        /// The URL the response came from, after any redirects, when the transport knows it.
        public var url: URL?
        /// The body, read once, as it arrives.
        public var body: HTTPBody
        /// The HTTP version that carried the response, `HTTP/1.1` or `HTTP/2`, when the transport says.
        public var protocolVersion: String?

        /// The fields that came after the body, such as gRPC's `grpc-status` in HTTP/2 trailers, once the body has
        /// been read to its end: empty before then, and when none came.
        ///
        /// ```swift
        /// let response = try await performer.stream(call)
        /// for try await message in response.body {
        ///     print(message.count)
        /// }
        /// print(response.trailers["grpc-status"] ?? "none")  // 0
        /// ```
        ///
        /// A body given with ``replacingBody(with:)`` reports the trailers of the body it reads through, when it was
        /// made from this one by Sluice's decorators; one of your own reports none.
        public var trailers: HTTPHeaders { body.trailers }

        /// Creates a streamed response.
        ///
        /// - Parameters:
        ///   - status: The response status.
        ///   - headers: The response header fields.
        ///   - url: The URL the response came from.
        ///   - body: The body.
        public init(status: HTTPStatus, headers: HTTPHeaders = [:], url: URL? = nil, body: HTTPBody) {
            self.status = status
            self.headers = headers
            self.url = url
            self.body = body
        }

        /// A buffered response as a streamed one, its body one chunk.
        ///
        /// - Parameter response: The response.
        public init(_ response: HTTPResponse) {
            self.init(
                status: response.status,
                headers: response.headers,
                url: response.url,
                body: HTTPBody(response.body, trailers: response.trailers)
            )
            protocolVersion = response.protocolVersion
        }

        /// This response with a body of other chunks, such as the same chunks counted or timed.
        ///
        /// - Parameter body: The new body.
        /// - Returns: The response with that body.
        public func replacingBody(with body: HTTPBody) -> HTTPResponse.Streamed {
            var copy = self
            copy.body = body
            return copy
        }

        /// Reads the whole body and returns the buffered response.
        ///
        /// - Parameter limit: The most bytes accepted.
        /// - Returns: The response with its body in memory.
        /// - Throws: ``SluiceError/Code/transport`` when the body is longer than `limit`; what the transfer throws
        ///   otherwise.
        public func collect(upTo limit: Int) async throws -> HTTPResponse {
            var response = HTTPResponse(
                status: status,
                headers: headers,
                body: try await body.collect(upTo: limit),
                url: url
            )
            response.protocolVersion = protocolVersion
            response.trailers = body.trailers
            return response
        }
    }
}
