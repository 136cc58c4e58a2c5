/// An encoded request body: bytes in memory, or a stream produced afresh for each attempt, with its content type.
public struct RequestBody: Sendable {
    enum Content: Sendable {
        case data(Data)
        case stream(length: Int?, make: @Sendable () throws -> InputStream)
    }

    let content: Content
    /// The media type of the body, sent as `Content-Type` unless the definition sets that header; a `multipart/*`
    /// type the definition sets without a `boundary` gets the boundary given here.
    public var contentType: String?

    /// The bytes of a body held in memory; `nil` for a stream.
    package var bytesInMemory: Data? {
        if case .data(let data) = content { data } else { nil }
    }

    /// A body held in memory.
    ///
    /// - Parameters:
    ///   - data: The bytes.
    ///   - contentType: The media type.
    /// - Returns: The body.
    public static func data(_ data: Data, contentType: String?) -> RequestBody {
        RequestBody(content: .data(data), contentType: contentType)
    }

    /// A body read from a stream, for bodies too large to hold in memory.
    ///
    /// URLSession on Linux cannot send a stream with `Content-Length`: it always uses `Transfer-Encoding: chunked`,
    /// so ``NetworkRequestPerformer`` leaves the `Content-Length` out there rather than send both, which strict
    /// servers refuse. Other transports, and URLSession on Apple platforms, send the length.
    ///
    /// - Parameters:
    ///   - length: The length in bytes, sent as `Content-Length` when known; a `Content-Length` the definition
    ///     sets must be the same.
    ///   - contentType: The media type.
    ///   - make: Opens a new stream over the body; called once per attempt.
    /// - Returns: The body.
    public static func stream(
        length: Int?,
        contentType: String?,
        _ make: @escaping @Sendable () throws -> InputStream
    ) -> RequestBody {
        RequestBody(content: .stream(length: length, make: make), contentType: contentType)
    }

    /// A body that an async sequence of byte chunks produces, made afresh for each attempt, so that a retry or a
    /// replay after 401 sends it again from the start (see `URLRequest.setBody(length:_:)`).
    ///
    /// - Parameters:
    ///   - length: The length in bytes, sent as `Content-Length` when known; every sequence made must give exactly
    ///     that many, and a `Content-Length` the definition sets must be the same.
    ///   - contentType: The media type.
    ///   - makeBytes: Makes the body's chunks (`Data`, `[UInt8]`…), from the start; called once per attempt.
    /// - Returns: The body.
    public static func bytes<Bytes: AsyncSequence & SendableMetatype>(
        length: Int?,
        contentType: String?,
        _ makeBytes: @escaping @Sendable () -> Bytes
    ) -> RequestBody where Bytes.Element: Collection, Bytes.Element.Element == UInt8 {
        let source = AsyncBodyStream.Source(making: makeBytes)
        return .stream(length: length, contentType: contentType) { AsyncBodyStream(source) }
    }
}

extension RequestBody {
    /// An encoder of an endpoint's `Body`: Foundation's `JSONEncoder` (the default) and `PropertyListEncoder`, the
    /// ``MultipartForm/Encoder``, or one of your own.
    ///
    /// ```swift
    /// /// Sends a `String` body as plain text.
    /// struct PlainTextEncoder: RequestBody.Encoder {
    ///     func encodeBody<T: Encodable>(_ value: T) throws -> RequestBody {
    ///         guard let text = value as? String else {
    ///             throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "expected a String body"))
    ///         }
    ///         return .data(Data(text.utf8), contentType: "text/plain; charset=utf-8")
    ///     }
    /// }
    /// ```
    ///
    /// An encoder that can say which field of the body is at fault throws a ``SluiceError`` whose ``SluiceError/invalidField`` whose field is
    /// a path in the body, such as `parts[1].contentType`: the build stage reports it under the endpoint's `body`,
    /// `UploadAvatar.body.parts[1].contentType`. Any other error is reported as the body's.
    public protocol Encoder {
        /// Encodes a body.
        ///
        /// - Parameter value: The endpoint's body.
        /// - Returns: The bytes or stream, with the content type.
        /// - Throws: An error saying what could not be encoded; the request is not sent.
        func encodeBody<T: Encodable>(_ value: T) throws -> RequestBody
    }
}

extension JSONEncoder: RequestBody.Encoder {
    /// Encodes the body as JSON, `application/json`.
    ///
    /// - Parameter value: The body.
    /// - Returns: The JSON bytes.
    /// - Throws: `EncodingError` for a value JSON cannot represent.
    public func encodeBody<T: Encodable>(_ value: T) throws -> RequestBody {
        .data(try encode(value), contentType: "application/json")
    }
}

extension PropertyListEncoder: RequestBody.Encoder {
    /// Encodes the body as a property list, `application/x-plist`.
    ///
    /// - Parameter value: The body.
    /// - Returns: The property list bytes.
    /// - Throws: `EncodingError` for a value a property list cannot represent.
    public func encodeBody<T: Encodable>(_ value: T) throws -> RequestBody {
        .data(try encode(value), contentType: "application/x-plist")
    }
}
