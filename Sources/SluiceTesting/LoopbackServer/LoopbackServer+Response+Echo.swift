import Foundation
import SluiceCore

// Responses that reflect the request back, as httpbin's `/anything` does, and redirects.
extension LoopbackServer.Response {
    /// How an echo writes what it reflects.
    public enum EchoFormat: Sendable, Hashable, CaseIterable {
        /// A JSON object: `method`, `url`, `args`, `headers`, `cookies`, `data`, `form` and `json`, written by
        /// `JSONSerialization` (which escapes `/` as `\/`).
        case json
        /// A form body (`application/x-www-form-urlencoded`): each query item, header and cookie as a field, and the
        /// body under `data`.
        case form
        /// Plain text: a `Name: value` line for each header, a `name=value` line for each query item and cookie,
        /// then the body.
        case text
    }

    /// A response that reflects every query item, header, cookie and the body of a request back, as httpbin does.
    ///
    /// ```swift
    /// server.route("/anything") { request in .echo(of: request, as: .json) }
    /// ```
    ///
    /// - Parameters:
    ///   - request: The request to reflect.
    ///   - format: How to write it.
    ///   - status: The status code; `200` unless you say otherwise.
    /// - Returns: The response.
    public static func echo(
        of request: LoopbackServer.Request,
        as format: EchoFormat,
        status: Int = 200
    ) -> LoopbackServer.Response {
        let args = request.queryItems.map { ($0.name, $0.value ?? "") }
        let headers = request.headers.map { ($0.name.name, $0.value) }
        let cookies = request.headerValues("Cookie").flatMap { $0.split(separator: ";") }.compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        }
        let body = request.bodyText
        switch format {
        case .json:
            let isForm = request.header("Content-Type")?.hasPrefix("application/x-www-form-urlencoded") == true
            let form = isForm ? formFields(body) : []
            let object: [String: Any] = [
                "method": request.method,
                "url": request.target,
                "args": Dictionary(args, uniquingKeysWith: { first, _ in first }),
                "headers": Dictionary(headers, uniquingKeysWith: { first, second in first + ", " + second }),
                "cookies": Dictionary(cookies, uniquingKeysWith: { first, _ in first }),
                "data": body,
                "form": Dictionary(form, uniquingKeysWith: { first, _ in first }),
                "json": (try? JSONSerialization.jsonObject(with: request.body, options: [.fragmentsAllowed]))
                    ?? NSNull(),
            ]
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            return LoopbackServer.Response(
                status: status,
                headers: [.init("Content-Type", "application/json")],
                body: data
            )
        case .form:
            var components = URLComponents()
            components.queryItems = (args + headers + cookies + [("data", body)]).map {
                URLQueryItem(name: $0, value: $1)
            }
            // A form body encodes what a query may leave as it is.
            let text = (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
            return LoopbackServer.Response(
                status: status,
                headers: [.init("Content-Type", "application/x-www-form-urlencoded")],
                body: Data(text.utf8)
            )
        case .text:
            let lines = headers.map { "\($0): \($1)" } + (args + cookies).map { "\($0)=\($1)" } + ["", body]
            return text(lines.joined(separator: "\n"), status: status)
        }
    }

    /// A redirect to another location, with an empty body.
    ///
    /// ```swift
    /// server.route("/login", response: .redirect(to: "/home").addingHeader("Set-Cookie", "session=abc; Path=/"))
    /// ```
    ///
    /// - Parameters:
    ///   - location: The `Location` header's value: a path on this server or an absolute URL.
    ///   - status: The status code; `302` unless you say otherwise.
    /// - Returns: The response.
    public static func redirect(to location: String, status: Int = 302) -> LoopbackServer.Response {
        LoopbackServer.Response(status: status, headers: [.init("Location", location)])
    }

    /// The fields of a form body, decoded.
    private static func formFields(_ body: String) -> [(String, String)] {
        body.split(separator: "&").map { field in
            let parts = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map { part in
                let spaced = part.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return (parts[0], parts.count > 1 ? parts[1] : "")
        }
    }
}
