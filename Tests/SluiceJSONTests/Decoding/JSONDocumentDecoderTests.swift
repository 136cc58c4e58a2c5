import Foundation
import SluiceJSON
import Testing

@Suite struct JSONDocumentDecoderTests {
    struct User: Codable, Equatable {
        var id: Int
        var name: String
        var email: String?
        var score: Double
        var tags: [String]
        var address: Address
        var role: Role
    }

    struct Address: Codable, Equatable {
        var city: String
        var zip: String?
    }

    enum Role: String, Codable {
        case admin
        case member
    }

    let userText = """
        {"id": 7, "name": "Ada", "score": 99.5, "tags": ["a", "b"],
         "address": {"city": "London", "zip": null}, "role": "admin"}
        """

    @Test func decodesModels() throws {
        let user = try JSONDocumentDecoder().decode(User.self, from: Data(userText.utf8))
        #expect(
            user
                == User(
                    id: 7,
                    name: "Ada",
                    email: nil,
                    score: 99.5,
                    tags: ["a", "b"],
                    address: Address(city: "London", zip: nil),
                    role: .admin
                )
        )
    }

    @Test func agreesWithFoundationOnARoundTrip() throws {
        let users = (0..<50).map { index in
            User(
                id: index * 7919 - 100,
                name: "user \(index) \u{e9}\u{1F600} \"quoted\"",
                email: index.isMultiple(of: 3) ? nil : "u\(index)@example.com",
                score: Double(index) / 7,
                tags: (0..<(index % 4)).map { "t\($0)" },
                address: Address(city: "City \(index)", zip: index.isMultiple(of: 2) ? "\(10000 + index)" : nil),
                role: index.isMultiple(of: 5) ? .admin : .member
            )
        }
        let data = try JSONEncoder().encode(users)
        #expect(
            try JSONDocumentDecoder().decode([User].self, from: data) == JSONDecoder().decode([User].self, from: data)
        )
        #expect(try JSONDocumentDecoder().decode([User].self, from: data) == users)
    }

    @Test func decodesEveryScalarType() throws {
        struct Scalars: Decodable, Equatable {
            var int8: Int8
            var int16: Int16
            var int32: Int32
            var int64: Int64
            var uint: UInt
            var uint8: UInt8
            var uint16: UInt16
            var uint32: UInt32
            var uint64: UInt64
            var float: Float
            var bool: Bool
            var url: URL
            var decimal: Decimal
            var data: Data
            var dictionary: [String: Int]
            var nested: [[Int?]]
            var raw: JSON
        }
        let text = """
            {"int8": -128, "int16": 32767, "int32": -2147483648, "int64": 9223372036854775807, "uint": 0,
             "uint8": 255, "uint16": 65535, "uint32": 4294967295, "uint64": 18446744073709551615, "float": 1.5,
             "bool": false, "url": "https://example.com/a?b=c", "decimal": 12.345678901234567890,
             "data": "AAEC/w==", "dictionary": {"x": 1, "y": 2}, "nested": [[1, null], []], "raw": {"any": [1]}}
            """
        let scalars = try JSONDocumentDecoder().decode(Scalars.self, from: Data(text.utf8))
        #expect(scalars.int8 == -128)
        #expect(scalars.uint64 == .max)
        #expect(scalars.url.absoluteString == "https://example.com/a?b=c")
        #expect(scalars.decimal == Decimal(string: "12.345678901234567890"))
        #expect(scalars.data == Data([0, 1, 2, 255]))
        #expect(scalars.dictionary == ["x": 1, "y": 2])
        #expect(scalars.nested == [[1, nil], []])
        #expect(scalars.raw == ["any": [1]])
    }

    @Test func convertsSnakeCaseKeysAsFoundationDoes() throws {
        struct Keys: Decodable, Equatable {
            var userId: Int?
            var createdAt: Int?
            var privateKey: Int?
            var doubleLead: Int?
            var alreadyCamel: Int?
            var allCapsKey: Int?
            var single: Int?
            var trailing: Int?
            var multipleUnderscores: Int?
            var with1Number: Int?
            var urlValue: Int?
            var mixedCase: Int?

            enum CodingKeys: String, CodingKey {
                case userId, createdAt, alreadyCamel, allCapsKey, single, multipleUnderscores, with1Number, urlValue
                case privateKey = "_privateKey_"
                case doubleLead = "__doubleLead"
                case trailing = "trailing_"
                case mixedCase = "mixedCase"
            }
        }
        let keys = [
            "user_id", "created_at", "_private_key_", "__double__lead", "already_Camel", "ALL_CAPS_KEY", "single",
            "trailing_", "multiple___underscores", "with_1number", "URL_value", "mixed_Case", "_", "",
        ]
        var object: [String: Int] = [:]
        for (index, key) in keys.enumerated() {
            object[key] = index
        }
        let data = try JSONSerialization.data(withJSONObject: object)
        let foundation = JSONDecoder()
        foundation.keyDecodingStrategy = .convertFromSnakeCase
        let sluice = JSONDocumentDecoder(keyDecodingStrategy: .convertFromSnakeCase)
        let ours = try sluice.decode(Keys.self, from: data)
        #expect(ours == (try foundation.decode(Keys.self, from: data)))
        #expect(ours.userId == 0)
        #expect(ours.with1Number == 9)
        // Dictionary keys are data, not property names: neither decoder converts them.
        let dictionary = try sluice.decode([String: Int].self, from: data)
        #expect(dictionary == (try foundation.decode([String: Int].self, from: data)))
        #expect(dictionary == object)

        struct Event: Decodable {
            var eventId: Int
            var startsAt: String
            var isPublic: Bool?
        }
        let event = try sluice.decode(
            Event.self,
            from: Data(#"{"starts_at": "now", "event_id": 3, "is_public": true}"#.utf8)
        )
        #expect(event.eventId == 3)
        #expect(event.startsAt == "now")
        #expect(event.isPublic == true)
    }

    @Test func decodesDatesWithStrategies() throws {
        struct Stamp: Decodable {
            var at: Date
        }
        let iso = JSONDocumentDecoder(dateDecodingStrategy: .iso8601)
        let cases: [(String, Double)] = [
            ("2026-03-01T09:30:00Z", 1_772_357_400),
            ("2026-03-01T09:30:00.250Z", 1_772_357_400.25),
            ("2026-03-01T10:30:00+01:00", 1_772_357_400),
            ("2024-02-29T00:00:00z", 1_709_164_800),
            ("1969-12-31T23:59:59Z", -1),
        ]
        for (text, seconds) in cases {
            let stamp = try iso.decode(Stamp.self, from: Data(#"{"at": "\#(text)"}"#.utf8))
            #expect(stamp.at.timeIntervalSince1970 == seconds, "\(text)")
        }
        for bad in ["2026-02-30T00:00:00Z", "2026-03-01 09:30:00Z", "2026-03-01T09:30:00", "2026-13-01T00:00:00Z"] {
            let error = try #require(throws: DecodingError.self) {
                try iso.decode(Stamp.self, from: Data(#"{"at": "\#(bad)"}"#.utf8))
            }
            guard case .dataCorrupted(let context) = error else {
                Issue.record("unexpected \(error)")
                continue
            }
            #expect(
                context.debugDescription
                    == "expected an ISO 8601 date such as 2026-03-01T09:30:00Z, found string \"\(bad)\""
            )
            #expect(context.codingPath.map(\.stringValue) == ["at"])
        }
        let seconds = JSONDocumentDecoder(dateDecodingStrategy: .secondsSince1970)
        #expect(try seconds.decode(Stamp.self, from: Data(#"{"at": 1.5}"#.utf8)).at.timeIntervalSince1970 == 1.5)
        let millis = JSONDocumentDecoder(dateDecodingStrategy: .millisecondsSince1970)
        #expect(try millis.decode(Stamp.self, from: Data(#"{"at": 1500}"#.utf8)).at.timeIntervalSince1970 == 1.5)
        let deferred = try JSONDocumentDecoder().decode(Stamp.self, from: Data(#"{"at": 10}"#.utf8))
        #expect(deferred.at.timeIntervalSinceReferenceDate == 10)
    }

    @Test func decodesDatesWithAParseStrategy() throws {
        // The strategy's documentation snippet.
        let day = Date.ParseStrategy(
            format: "\(year: .defaultDigits)-\(month: .twoDigits)-\(day: .twoDigits)",
            timeZone: .gmt,
            isLenient: false
        )
        let decoder = JSONDocumentDecoder(dateDecodingStrategy: .formatted(day))
        let dates = try decoder.decode([Date].self, from: Data(#"["1970-01-02", "2026-11-22"]"#.utf8))
        #expect(dates.map(\.timeIntervalSince1970) == [86_400, 1_795_305_600])
        let error = try #require(throws: DecodingError.self) {
            try decoder.decode([Date].self, from: Data(#"["1970-01-02", "22/11/2026"]"#.utf8))
        }
        guard case .dataCorrupted(let context) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(context.debugDescription == #"expected a date in the strategy's format, found string "22/11/2026""#)
        #expect(context.codingPath.map(\.stringValue) == ["Index 1"])
        #expect(context.underlyingError != nil)
    }

    @Test func decodesNonConformingFloats() throws {
        let decoder = JSONDocumentDecoder(
            nonConformingFloatDecodingStrategy: .convertFromString(
                positiveInfinity: "+inf",
                negativeInfinity: "-inf",
                nan: "nan"
            )
        )
        let values = try decoder.decode([Double].self, from: Data(#"["+inf", "-inf", "nan", 1]"#.utf8))
        #expect(values[0] == .infinity)
        #expect(values[1] == -.infinity)
        #expect(values[2].isNaN)
        #expect(throws: DecodingError.self) {
            try JSONDocumentDecoder().decode([Double].self, from: Data(#"["+inf"]"#.utf8))
        }
    }

    @Test func reportsTypeMismatchWithPathAndWhatWasFound() throws {
        let data = Data(#"{"items": [{"id": 1}, {"id": 2}, {"id": "3"}]}"#.utf8)
        struct Item: Decodable {
            var id: Int
        }
        struct Page: Decodable {
            var items: [Item]
        }
        let error = try #require(throws: DecodingError.self) { try JSONDocumentDecoder().decode(Page.self, from: data) }
        guard case .typeMismatch(_, let context) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["items", "Index 2", "id"])
        #expect(context.debugDescription == #"expected Int, found string "3""#)
    }

    @Test func reportsMissingKeysWithTheKeysThatArePresent() throws {
        struct Item: Decodable {
            var id: Int
            var title: String
        }
        let error = try #require(throws: DecodingError.self) {
            try JSONDocumentDecoder().decode([Item].self, from: Data(#"[{"id": 1, "name": "x"}]"#.utf8))
        }
        guard case .keyNotFound(let key, let context) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(key.stringValue == "title")
        #expect(context.codingPath.map(\.stringValue) == ["Index 0"])
        #expect(context.debugDescription == #"no value for key "title" in an object with keys "id", "name""#)
    }

    @Test func reportsNullForANonOptionalAsValueNotFound() throws {
        struct Item: Decodable {
            var id: Int
        }
        let error = try #require(throws: DecodingError.self) {
            try JSONDocumentDecoder().decode(Item.self, from: Data(#"{"id": null}"#.utf8))
        }
        guard case .valueNotFound(_, let context) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(context.debugDescription == "expected Int, found null")
    }

    @Test func reportsNumbersThatDoNotFit() throws {
        let error = try #require(throws: DecodingError.self) {
            try JSONDocumentDecoder().decode([UInt8].self, from: Data("[1, 256]".utf8))
        }
        guard case .dataCorrupted(let context) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(context.debugDescription == "number 256 does not fit in UInt8")
        #expect(context.codingPath.map(\.stringValue) == ["Index 1"])
        #expect(throws: DecodingError.self) { try JSONDocumentDecoder().decode(Int.self, from: Data("1.5".utf8)) }
        #expect(try JSONDocumentDecoder().decode(Int.self, from: Data("1.0".utf8)) == 1)
        #expect(throws: DecodingError.self) { try JSONDocumentDecoder().decode(Float.self, from: Data("1e39".utf8)) }
    }

    /// A model whose decoding asks for its superclass's decoder, with keys that have no `super`.
    struct WithSuper: Decodable {
        enum CodingKeys: String, CodingKey { case id }
        init(from decoder: any Decoder) throws {
            _ = try decoder.container(keyedBy: CodingKeys.self).superDecoder().singleValueContainer().decode(Int.self)
        }
    }

    /// A model that reads two integers from an array.
    struct TwoInts: Decodable {
        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            _ = try container.decode(Int.self)
            _ = try container.decode(Int.self)
        }
    }

    /// Failures of the decoder that no other test renders, with their messages.
    static let failures: [(String, @Sendable () throws -> Void, String)] = [
        (
            "fraction into Int", { _ = try JSONDocumentDecoder().decode(Int.self, from: Data("1.5".utf8)) },
            "number 1.5 does not fit in Int"
        ),
        (
            "beyond Float", { _ = try JSONDocumentDecoder().decode(Float.self, from: Data("1e39".utf8)) },
            "number 1e39 does not fit in Float"
        ),
        (
            "infinity without a strategy",
            { _ = try JSONDocumentDecoder().decode([Double].self, from: Data(#"["+inf"]"#.utf8)) },
            #"expected Double, found string "+inf""#
        ),
        (
            "Base64", { _ = try JSONDocumentDecoder().decode(Data.self, from: Data(#""%%%""#.utf8)) },
            #"expected Base64-encoded data, found string "%%%""#
        ),
        ("URL", { _ = try JSONDocumentDecoder().decode(URL.self, from: Data(#""""#.utf8)) }, #"invalid URL string """#),
        (
            "below Int64",
            { _ = try JSONDocumentDecoder().decode(Int64.self, from: Data("-9223372036854775809".utf8)) },
            "number -9223372036854775809 does not fit in Int64"
        ),
        (
            "beyond UInt64",
            { _ = try JSONDocumentDecoder().decode(UInt64.self, from: Data("18446744073709551616".utf8)) },
            "number 18446744073709551616 does not fit in UInt64"
        ),
        (
            "Decimal", { _ = try JSONDocumentDecoder().decode(Decimal.self, from: Data("1e400".utf8)) },
            "number 1e400 does not fit in Decimal"
        ),
        (
            "end of an array", { _ = try JSONDocumentDecoder().decode(TwoInts.self, from: Data("[1]".utf8)) },
            "expected Int, found the end of an array of 1"
        ),
        (
            "no super key", { _ = try JSONDocumentDecoder().decode(WithSuper.self, from: Data(#"{"id": 1}"#.utf8)) },
            "expected Int, found null"
        ),
    ]

    @Test func decodesTheEndsOfThe64BitRanges() throws {
        let decoder = JSONDocumentDecoder()
        #expect(try decoder.decode(Int64.self, from: Data("-9223372036854775808".utf8)) == .min)
        #expect(try decoder.decode(Int64.self, from: Data("9223372036854775807".utf8)) == .max)
        #expect(try decoder.decode(UInt64.self, from: Data("18446744073709551615".utf8)) == .max)
        #expect(try decoder.decode([Int].self, from: Data("[-9223372036854775808, 0]".utf8)) == [.min, 0])
    }

    @Test(arguments: failures)
    func rendersEachFailure(_ name: String, _ decode: @Sendable () throws -> Void, _ message: String) throws {
        let error = try #require(throws: DecodingError.self) { try decode() }
        let context: DecodingError.Context
        switch error {
        case .dataCorrupted(let c), .keyNotFound(_, let c), .typeMismatch(_, let c), .valueNotFound(_, let c):
            context = c
        @unknown default:
            Issue.record("\(name): unexpected \(error)")
            return
        }
        #expect(context.debugDescription == message, "\(name)")
    }

    @Test func readsKeysInAnyOrder() throws {
        struct Point: Decodable {
            var x: Int
            var y: Int
            var z: Int
        }
        let points = try JSONDocumentDecoder().decode(
            [Point].self,
            from: Data(#"[{"z": 3, "y": 2, "x": 1}, {"x": 4, "z": 6, "y": 5}, {"y": 8, "x": 7, "z": 9}]"#.utf8)
        )
        #expect(points.map { [$0.x, $0.y, $0.z] } == [[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    }

    @Test func supportsCustomKeyStrategies() throws {
        struct Item: Decodable {
            var name: String
        }
        let decoder = JSONDocumentDecoder(
            keyDecodingStrategy: .custom { path in
                JSONKey(path.last.map { $0.stringValue.lowercased() } ?? "")
            }
        )
        #expect(try decoder.decode(Item.self, from: Data(#"{"NAME": "x"}"#.utf8)).name == "x")
    }

    @Test func decodesWithUnkeyedAndNestedContainers() throws {
        struct Pair: Decodable {
            var first: Int
            var second: String
            init(from decoder: any Decoder) throws {
                var container = try decoder.unkeyedContainer()
                #expect(container.count == 2)
                first = try container.decode(Int.self)
                second = try container.decode(String.self)
                #expect(container.isAtEnd)
                #expect(throws: DecodingError.self) { try container.decode(Int.self) }
            }
        }
        #expect(try JSONDocumentDecoder().decode(Pair.self, from: Data(#"[1, "a"]"#.utf8)).second == "a")
    }

    @Test func givesUserInfoToModels() throws {
        struct Probe: Decodable {
            var flag: Bool
            init(from decoder: any Decoder) throws {
                flag = decoder.userInfo[CodingUserInfoKey(rawValue: "flag")!] as? Bool ?? false
            }
        }
        let decoder = JSONDocumentDecoder(userInfo: [CodingUserInfoKey(rawValue: "flag")!: true])
        #expect(try decoder.decode(Probe.self, from: Data("{}".utf8)).flag)
    }

    @Test func anArrayThatFailsPartWayReleasesTheElementsItHadDecoded() throws {
        // Elements are decoded into the array's storage in place; those decoded before the failure must be released
        // once each, and none after it touched.
        typealias Tally = Locked<(alive: Int, made: Int)>
        final class Counted: Decodable {
            let tally: Tally
            let value: Int
            init(from decoder: any Decoder) throws {
                tally = decoder.userInfo[CodingUserInfoKey(rawValue: "tally")!] as! Tally
                value = try decoder.singleValueContainer().decode(Int.self)
                tally.withLock {
                    $0.alive += 1
                    $0.made += 1
                }
            }
            deinit { tally.withLock { $0.alive -= 1 } }
        }
        let tally = Tally((alive: 0, made: 0))
        let decoder = JSONDocumentDecoder(userInfo: [CodingUserInfoKey(rawValue: "tally")!: tally])
        let error = #expect(throws: DecodingError.self) {
            try decoder.decode([Counted].self, from: Data(#"[1, 2, 3, "four", 5]"#.utf8))
        }
        let message = String(describing: error)
        #expect(message.contains("Path: [3]") && message.contains(#"found string "four""#))
        #expect(tally.withLock { $0.made } == 3)
        #expect(tally.withLock { $0.alive } == 0)
        let decoded = try decoder.decode([Counted].self, from: Data("[1, 2, 3]".utf8))
        #expect(decoded.map(\.value) == [1, 2, 3])
        #expect(tally.withLock { $0.alive } == 3)
    }

    @Test func decodesEmptyArraysOfModelsOnManyThreadsAtOnce() async throws {
        // Under the thread sanitizer (as CI runs it), an empty array built through `unsafeUninitializedCapacity`
        // was reported as a race on the standard library's shared empty array.
        struct Item: Decodable, Equatable { var id: Int }
        struct Page: Decodable, Equatable { var items: [Item] }
        let data = Data(#"{"items":[]}"#.utf8)
        try await withThrowingTaskGroup(of: Page.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var last = Page(items: [Item(id: 0)])
                    for _ in 0..<200 {
                        last = try JSONDocumentDecoder().decode(Page.self, from: data)
                    }
                    return last
                }
            }
            for try await page in group {
                #expect(page == Page(items: []))
            }
        }
    }

    @Test func decodesADocumentOfMoreTypesThanItsTableOfKindsHolds() throws {
        // Forty `Tagged` types and forty arrays of them: eighty types, more than the decoder's table of the types it
        // has met holds, so that the last ones met are looked up each time. Those include a dictionary and an array
        // of scalars, which the decoder reads its own way: as a model, the dictionary's keys would be converted.
        struct Tagged<Tag>: Decodable, Equatable {
            var n: Int
        }
        enum Tag1 {}
        enum Tag2 {}
        enum Tag3 {}
        enum Tag4 {}
        enum Tag5 {}
        enum Tag6 {}
        enum Tag7 {}
        enum Tag8 {}
        enum Tag9 {}
        enum Tag10 {}
        enum Tag11 {}
        enum Tag12 {}
        enum Tag13 {}
        enum Tag14 {}
        enum Tag15 {}
        enum Tag16 {}
        enum Tag17 {}
        enum Tag18 {}
        enum Tag19 {}
        enum Tag20 {}
        enum Tag21 {}
        enum Tag22 {}
        enum Tag23 {}
        enum Tag24 {}
        enum Tag25 {}
        enum Tag26 {}
        enum Tag27 {}
        enum Tag28 {}
        enum Tag29 {}
        enum Tag30 {}
        enum Tag31 {}
        enum Tag32 {}
        enum Tag33 {}
        enum Tag34 {}
        enum Tag35 {}
        enum Tag36 {}
        enum Tag37 {}
        enum Tag38 {}
        enum Tag39 {}
        enum Tag40 {}
        struct ManyTypes: Decodable, Equatable {
            var t1: [Tagged<Tag1>]
            var t2: [Tagged<Tag2>]
            var t3: [Tagged<Tag3>]
            var t4: [Tagged<Tag4>]
            var t5: [Tagged<Tag5>]
            var t6: [Tagged<Tag6>]
            var t7: [Tagged<Tag7>]
            var t8: [Tagged<Tag8>]
            var t9: [Tagged<Tag9>]
            var t10: [Tagged<Tag10>]
            var t11: [Tagged<Tag11>]
            var t12: [Tagged<Tag12>]
            var t13: [Tagged<Tag13>]
            var t14: [Tagged<Tag14>]
            var t15: [Tagged<Tag15>]
            var t16: [Tagged<Tag16>]
            var t17: [Tagged<Tag17>]
            var t18: [Tagged<Tag18>]
            var t19: [Tagged<Tag19>]
            var t20: [Tagged<Tag20>]
            var t21: [Tagged<Tag21>]
            var t22: [Tagged<Tag22>]
            var t23: [Tagged<Tag23>]
            var t24: [Tagged<Tag24>]
            var t25: [Tagged<Tag25>]
            var t26: [Tagged<Tag26>]
            var t27: [Tagged<Tag27>]
            var t28: [Tagged<Tag28>]
            var t29: [Tagged<Tag29>]
            var t30: [Tagged<Tag30>]
            var t31: [Tagged<Tag31>]
            var t32: [Tagged<Tag32>]
            var t33: [Tagged<Tag33>]
            var t34: [Tagged<Tag34>]
            var t35: [Tagged<Tag35>]
            var t36: [Tagged<Tag36>]
            var t37: [Tagged<Tag37>]
            var t38: [Tagged<Tag38>]
            var t39: [Tagged<Tag39>]
            var t40: [Tagged<Tag40>]
            var lastMap: [String: Int]
            var lastScalars: [Int]
        }
        let members = (1...40).map { #""t\#($0)":[{"n":\#($0)},{"n":-\#($0)}]"# }
        let last = #""last_map":{"a_b":1,"c_d":2},"last_scalars":[1,2,3]"#
        let data = Data(("{" + members.joined(separator: ",") + "," + last + "}").utf8)
        let sluice = try JSONDocumentDecoder(keyDecodingStrategy: .convertFromSnakeCase)
            .decode(ManyTypes.self, from: data)
        let foundation = JSONDecoder()
        foundation.keyDecodingStrategy = .convertFromSnakeCase
        #expect(sluice == (try foundation.decode(ManyTypes.self, from: data)))
        #expect(sluice.t40 == [Tagged(n: 40), Tagged(n: -40)])
        #expect(sluice.lastMap == ["a_b": 1, "c_d": 2])
        #expect(sluice.lastScalars == [1, 2, 3])
    }

    @Test func decodesFromAValueInsideADocument() throws {
        let document = try JSON(parsing: #"{"data": {"user": {"id": 3, "name": "x"}}}"#)
        struct Small: Decodable {
            var id: Int
            var name: String
        }
        let user = try #require(document["data"]?["user"])
        #expect(try user.decode(Small.self).id == 3)
        let error = try #require(throws: DecodingError.self) { try user.decode([Int].self) }
        guard case .typeMismatch(_, let context) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(context.debugDescription == "expected an array, found an object")
    }
}
