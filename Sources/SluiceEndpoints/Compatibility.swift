// The spellings that the endpoint styles Sluice supports use for the same thing, kept together so that each
// concept has one type and a reader finds every alias in one place.
//
// - The enum-based definition style (`APIDefinition`) spells methods in upper case (`.GET`); the declarative
//   and repository styles in lower case (`.get`). The upper-case members are aliases of the lower-case ones.
// - The declarative style calls "nothing to send or decode" `EmptyCodable`; the pipeline and the repository layer
//   call it `EmptyResponse`. They are one type, so either name works in either place.

/// Nothing to send or decode, under the name the declarative endpoint style uses.
///
/// The default `Body` and `ErrorResponse` of an ``Endpoint``. The same type as ``EmptyResponse``.
public typealias EmptyCodable = EmptyResponse

extension HTTPMethod {
    // swift-format-ignore: AlwaysUseLowerCamelCase
    /// `GET`, spelled as in enum-based API definitions; the same value as ``get``.
    public static let GET = get
    // swift-format-ignore: AlwaysUseLowerCamelCase
    /// `HEAD`, spelled as in enum-based API definitions; the same value as ``head``.
    public static let HEAD = head
    // swift-format-ignore: AlwaysUseLowerCamelCase
    /// `POST`, spelled as in enum-based API definitions; the same value as ``post``.
    public static let POST = post
    // swift-format-ignore: AlwaysUseLowerCamelCase
    /// `PUT`, spelled as in enum-based API definitions; the same value as ``put``.
    public static let PUT = put
    // swift-format-ignore: AlwaysUseLowerCamelCase
    /// `PATCH`, spelled as in enum-based API definitions; the same value as ``patch``.
    public static let PATCH = patch
    // swift-format-ignore: AlwaysUseLowerCamelCase
    /// `DELETE`, spelled as in enum-based API definitions; the same value as ``delete``.
    public static let DELETE = delete
    // swift-format-ignore: AlwaysUseLowerCamelCase
    /// `OPTIONS`, spelled as in enum-based API definitions; the same value as ``options``.
    public static let OPTIONS = options
}
