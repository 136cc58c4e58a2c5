import Foundation
import SluiceCore
import Testing

/// The rules of `Redaction`, one at a time, through the cURL renderer and the body rendering.
@Suite struct RedactionTests {
    func request(_ url: String, headers: [String: String] = [:], body: String? = nil) throws -> URLRequest {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = body == nil ? "GET" : "POST"
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        request.httpBody = body.map { Data($0.utf8) }
        return request
    }

    @Test(arguments: ["access_token", "accessToken", "Access-Token", "ACCESS.TOKEN", "x-api-key", "X_API_KEY"])
    func matchesNamesInTheirCommonSpellings(_ name: String) {
        let body = Data(#"{"data": {"\#(name)": "abc"}, "page": 2}"#.utf8)
        #expect(Redaction.default.body(body, limit: 1_000) == #"{"data":{"\#(name)":"<redacted>"},"page":2}"#)
    }

    @Test func hidesNamesInsideStringsNestedInJSON() {
        let body = Data(
            #"{"payload": "{\"client_secret\":\"abc\",\"id\":1}", "form": "user=ada&password=abc", "plain": "note"}"#
                .utf8
        )
        let nested = #"{"payload":"{\"client_secret\":\"<redacted>\",\"id\":1}","#
        let form = #""form":"user=ada&password=%3Credacted%3E","plain":"note"}"#
        #expect(Redaction.default.body(body, limit: 1_000) == nested + form)
    }

    @Test func hidesEveryCredentialOfTheRequestByValueWhereverItAppears() throws {
        let token = "tok/en+value"
        let encoded = token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let base64 = Data(token.utf8).base64EncodedString()
        let echoed = try request(
            "https://api.example.com/x?next=\(encoded)",
            headers: ["Authorization": "Bearer \(token)", "X-Echo": "was \(token)"],
            body: #"{"note": "\#(token)", "escaped": "tok\/en+value", "b64": "\#(base64)"}"#
        )
        let curl = echoed.curlCommand()
        #expect(!curl.contains("tok"), "\(curl)")
        #expect(curl.contains("next=%3Credacted%3E"))
        #expect(curl.contains("-H 'X-Echo: was <redacted>'"))
        #expect(curl.contains(#"--data-binary '{"note":"<redacted>","escaped":"<redacted>","b64":"<redacted>"}'"#))
    }

    @Test func hidesTheUserAndPasswordOfBasicCredentials() throws {
        let basic = "Basic " + Data("ada:lovelace-1815".utf8).base64EncodedString()
        let login = try request(
            "https://api.example.com/login",
            headers: ["Authorization": basic],
            body: "the password is lovelace-1815"
        )
        #expect(login.curlCommand().hasSuffix("--data-binary 'the password is <redacted>'"))
    }

    @Test func leavesValuesShorterThanTheMinimumToTheNames() throws {
        #expect(Redaction.minimumSecretLength == 4)
        let short = try request("https://api.example.com/x", headers: ["Cookie": "k=abc"], body: "abc and abc")
        #expect(short.curlCommand().hasSuffix("--data-binary 'abc and abc'"))
        #expect(short.curlCommand().contains("-H 'Cookie: <redacted>'"))
    }

    @Test func hidesNothingWithNone() throws {
        let raw = try request(
            "https://ada:pass-word@api.example.com/x?token=abcd",
            headers: ["Authorization": "Bearer abcd"],
            body: #"{"password":"abcd"}"#
        )
        let curl = raw.curlCommand(redacting: .none)
        #expect(curl.contains("https://ada:pass-word@api.example.com/x?token=abcd"))
        #expect(curl.contains("-H 'Authorization: Bearer abcd'"))
        #expect(curl.hasSuffix(#"--data-binary '{"password":"abcd"}'"#))
    }

    @Test func keepsTheDefaultListDocumentedAndExtendable() {
        #expect(
            Redaction.defaultNames.isSuperset(of: [
                "authorization", "cookie", "set-cookie", "password", "passwd", "secret", "client_secret", "token",
                "access_token", "refresh_token", "id_token", "api_key", "apikey", "x-api-key", "session", "private_key",
            ])
        )
        let wider = Redaction.default.adding(jsonKeys: ["PIN_Code"])
        #expect(wider.jsonKeys.contains("pincode"))
        #expect(wider.body(Data(#"{"pinCode":"1234"}"#.utf8), limit: 100) == #"{"pinCode":"<redacted>"}"#)
    }
}
