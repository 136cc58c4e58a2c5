/// A `multipart/form-data` body (RFC 7578): text fields and files, written by ``MultipartForm/Encoder``.
///
/// ```swift
/// struct UploadAvatar: Endpoint {
///     static let definition: Definition<UploadAvatar> = Definition(method: .post, path: "avatar")
///     typealias Response = Void
///     let body: MultipartForm
///     var bodyEncoder: MultipartForm.Encoder { MultipartForm.Encoder() }
/// }
///
/// let upload = UploadAvatar(body: MultipartForm([
///     .field("caption", "At the beach"),
///     .file("photo", fileURL: URL(fileURLWithPath: "/tmp/beach.jpg"), contentType: "image/jpeg"),
/// ]))
/// ```
///
/// A file given by URL is streamed from disk when the request is sent, a few kilobytes at a time, so a large
/// upload is never held in memory.
public struct MultipartForm: Encodable, Sendable {
    /// One part of the form.
    public struct Part: Sendable {
        enum Content: Sendable {
            case data(Data)
            case file(URL)
        }

        /// The form field name.
        public var name: String
        /// The file name sent with a file part.
        public var filename: String?
        /// The media type of the part; none for a text field.
        public var contentType: String?
        let content: Content

        /// The bytes of a part held in memory; `nil` for a file streamed from disk.
        package var bytesInMemory: Data? {
            if case .data(let data) = content { data } else { nil }
        }

        /// A text field.
        ///
        /// - Parameters:
        ///   - name: The field name.
        ///   - value: The text.
        /// - Returns: The part.
        public static func field(_ name: String, _ value: String) -> Part {
            Part(name: name, filename: nil, contentType: nil, content: .data(Data(value.utf8)))
        }

        /// A file held in memory.
        ///
        /// - Parameters:
        ///   - name: The field name.
        ///   - filename: The file name to send.
        ///   - contentType: The file's media type.
        ///   - data: The file's bytes.
        /// - Returns: The part.
        public static func file(_ name: String, filename: String, contentType: String, data: Data) -> Part {
            Part(name: name, filename: filename, contentType: contentType, content: .data(data))
        }

        /// A file streamed from disk when the request is sent.
        ///
        /// - Parameters:
        ///   - name: The field name.
        ///   - fileURL: The file's location.
        ///   - filename: The file name to send; the URL's last component by default.
        ///   - contentType: The file's media type.
        /// - Returns: The part.
        public static func file(_ name: String, fileURL: URL, filename: String? = nil, contentType: String) -> Part {
            Part(
                name: name,
                filename: filename ?? fileURL.lastPathComponent,
                contentType: contentType,
                content: .file(fileURL)
            )
        }
    }

    /// The parts, in order.
    public var parts: [Part]

    /// Creates a form.
    ///
    /// - Parameter parts: The parts, in order.
    public init(_ parts: [Part]) {
        self.parts = parts
    }

    /// Throws: a form is written by ``MultipartForm/Encoder``, not by a general-purpose encoder.
    ///
    /// - Parameter encoder: The encoder.
    /// - Throws: `EncodingError.invalidValue` saying to use ``MultipartForm/Encoder``.
    public func encode(to encoder: any Swift.Encoder) throws {
        throw EncodingError.invalidValue(
            self,
            EncodingError.Context(
                codingPath: encoder.codingPath,
                debugDescription: "a MultipartForm is written by MultipartForm.Encoder; set the endpoint's bodyEncoder"
            )
        )
    }
}
