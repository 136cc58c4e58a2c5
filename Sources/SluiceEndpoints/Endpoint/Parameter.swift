/// A form or query parameter of an ``Endpoint``: a name and either a key path into the endpoint's `Parameters`
/// or a fixed value.
///
/// ```swift
/// parameters: [
///     .query("q", \.text),                 // from the endpoint's parameters
///     .queryValue("per_page", value: 50),  // always sent
///     .form("token", \.token),             // in an application/x-www-form-urlencoded body
///     .query("tag", each: \.tags),         // an array, written as the definition's QueryEncoding says
/// ]
/// ```
///
/// Write key paths with the typed spellings, `query(_:_:)`, `query(_:each:)`, `form(_:_:)` and `form(_:each:)`:
/// the compiler checks that the value is ``PathRepresentable`` (optionals included), or an array of such values,
/// so a property of another type is a compile error. The cases `query(_:path:)` and `form(_:path:)` take any key
/// path, as earlier definitions wrote them, and check the value when the request is built: a value of another type
/// fails the build stage with a ``SluiceError`` whose ``SluiceError/invalidField`` names the parameter.
///
/// A `nil` optional is left out, whether read by key path or given as a fixed value:
/// `.queryValue("since", value: Int?.none)` sends no `since` at all.
public enum Parameter<T>: Sendable {
    /// A form parameter read from the endpoint's parameters, checked when the request is built.
    case form(String, path: any PartialKeyPath<T> & Sendable)
    /// A form parameter with a fixed value.
    case formValue(String, value: any PathRepresentable)
    /// A query parameter read from the endpoint's parameters, checked when the request is built.
    case query(String, path: any PartialKeyPath<T> & Sendable)
    /// A query parameter with a fixed value.
    case queryValue(String, value: any PathRepresentable)
}

extension Parameter {
    /// A query parameter read from the endpoint's parameters, whose type the compiler checks.
    ///
    /// - Parameters:
    ///   - name: The parameter's name.
    ///   - path: The key path of a ``PathRepresentable`` value; a `nil` optional is left out.
    /// - Returns: The parameter.
    public static func query<V: PathRepresentable>(_ name: String, _ path: any KeyPath<T, V> & Sendable) -> Parameter {
        .query(name, path: path)
    }

    /// A query parameter holding each element of an array read from the endpoint's parameters.
    ///
    /// - Parameters:
    ///   - name: The parameter's name.
    ///   - path: The key path of an array of ``PathRepresentable`` values; `nil` elements are left out.
    /// - Returns: The parameter.
    public static func query<V: PathRepresentable>(
        _ name: String,
        each path: any KeyPath<T, [V]> & Sendable
    ) -> Parameter {
        .query(name, path: path)
    }

    /// A query parameter holding each element of an optional array read from the endpoint's parameters.
    ///
    /// - Parameters:
    ///   - name: The parameter's name.
    ///   - path: The key path of an optional array of ``PathRepresentable`` values; `nil` leaves the parameter out.
    /// - Returns: The parameter.
    public static func query<V: PathRepresentable>(
        _ name: String,
        each path: any KeyPath<T, [V]?> & Sendable
    ) -> Parameter {
        .query(name, path: path)
    }

    /// A form parameter read from the endpoint's parameters, whose type the compiler checks.
    ///
    /// - Parameters:
    ///   - name: The parameter's name.
    ///   - path: The key path of a ``PathRepresentable`` value; a `nil` optional is left out.
    /// - Returns: The parameter.
    public static func form<V: PathRepresentable>(_ name: String, _ path: any KeyPath<T, V> & Sendable) -> Parameter {
        .form(name, path: path)
    }

    /// A form parameter holding each element of an array read from the endpoint's parameters.
    ///
    /// - Parameters:
    ///   - name: The parameter's name.
    ///   - path: The key path of an array of ``PathRepresentable`` values; `nil` elements are left out.
    /// - Returns: The parameter.
    public static func form<V: PathRepresentable>(
        _ name: String,
        each path: any KeyPath<T, [V]> & Sendable
    ) -> Parameter {
        .form(name, path: path)
    }

    /// A form parameter holding each element of an optional array read from the endpoint's parameters.
    ///
    /// - Parameters:
    ///   - name: The parameter's name.
    ///   - path: The key path of an optional array of ``PathRepresentable`` values; `nil` leaves the parameter out.
    /// - Returns: The parameter.
    public static func form<V: PathRepresentable>(
        _ name: String,
        each path: any KeyPath<T, [V]?> & Sendable
    ) -> Parameter {
        .form(name, path: path)
    }
}
