/// What the decorators that decide on a response read from either form of the transport stage's answer: the head.
///
/// ``RetryingPerformer`` and ``AuthenticatingPerformer`` run one code path over ``RequestPerformer/perform(_:)`` and
/// ``RequestPerformer/stream(_:)`` through it. A streamed response they do not hand out is dropped, which ends its
/// transfer.
package protocol ResponseHead: Sendable {
    /// The response status.
    var status: HTTPStatus { get }
    /// The response header fields.
    var headers: HTTPHeaders { get }
}

extension HTTPResponse: ResponseHead {}

extension HTTPResponse.Streamed: ResponseHead {}
