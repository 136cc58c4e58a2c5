/// A request the client wraps around one of yours to send it with something more, such as a header field: test
/// doubles match their stubs against ``wrappedRequest``, the request you gave.
package protocol WrappingRequest: Request {
    /// The request this one wraps.
    var wrappedRequest: any Request { get }
}

/// A request sent with some header fields set on top of those it builds, such as `Last-Event-ID` to resume an event
/// stream or `Range` to resume a download; otherwise the request it wraps.
struct HeaderSettingRequest<Base: Request>: WrappingRequest {
    typealias ResponseObject = Base.ResponseObject
    typealias ResponseParser = Base.ResponseParser

    let base: Base
    /// The fields to set, replacing any of the same name the base request builds.
    let headers: HTTPHeaders

    var wrappedRequest: any Request { base }

    func build() throws -> URLRequest {
        var request = try base.build()
        for field in headers {
            request.setValue(field.value, forHTTPHeaderField: field.name.name)
        }
        return request
    }

    func parse(_ representation: Base.ResponseParser.Representation) throws -> Base.ResponseObject {
        try base.parse(representation)
    }

    var deserializer: (any Deserializer)? { base.deserializer }

    func responseObject(passingThrough body: Data) -> Base.ResponseObject? {
        base.responseObject(passingThrough: body)
    }

    func errorResponse(from response: HTTPResponse) throws -> (any Sendable)? {
        try base.errorResponse(from: response)
    }
}
