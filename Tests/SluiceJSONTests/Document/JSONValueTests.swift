import Foundation
import SluiceJSON
import TestSupport
import Testing

@Suite struct JSONValueTests {
    let document: JSON

    init() throws {
        document = try JSON(
            parsing: """
                {"name": "Ada", "age": 36, "score": -1.5e2, "admin": true, "manager": null,
                 "tags": ["x", "y\\n", "\\u00e9"], "nested": {"deep": [[], {}]}, "dup": 1, "dup": 2}
                """
        )
    }

    @Test func readsTypedValues() throws {
        #expect(document["name"]?.string == "Ada")
        #expect(document["age"]?.int == 36)
        #expect(document["score"]?.double == -150)
        #expect(document["score"]?.int == -150)
        #expect(document["admin"]?.bool == true)
        #expect(document["manager"]?.isNull == true)
        #expect(document["tags"]?[1]?.string == "y\n")
        #expect(document["tags"]?[2]?.string == "é")
        #expect(document["tags"]?[3] == nil)
        #expect(document["tags"]?[-1] == nil)
        #expect(document["missing"] == nil)
        #expect(document["name"]?.int == nil)
        #expect(document["age"]?.string == nil)
        #expect(document["dup"]?.int == 1)
    }

    @Test func reportsKindsAndCounts() throws {
        #expect(document.kind == .object)
        #expect(document.count == 9)
        #expect(document["tags"]?.count == 3)
        #expect(document["name"]?.count == nil)
        #expect(document["nested"]?["deep"]?.array?.map(\.kind) == [.array, .object])
        #expect(document.members?.keys == ["name", "age", "score", "admin", "manager", "tags", "nested", "dup", "dup"])
        #expect(document.object?.count == 8)
    }

    @Test func patternMatchesOnValue() throws {
        var seen: [String] = []
        for (key, value) in try #require(document.members) {
            switch value.value {
            case .string(let text): seen.append("\(key)=string:\(text)")
            case .number(let number): seen.append("\(key)=number:\(number.text)")
            case .bool(let flag): seen.append("\(key)=bool:\(flag)")
            case .null: seen.append("\(key)=null")
            case .array(let elements): seen.append("\(key)=array:\(elements.count)")
            case .object(let members): seen.append("\(key)=object:\(members.keys)")
            }
        }
        #expect(
            seen == [
                "name=string:Ada", "age=number:36", "score=number:-1.5e2", "admin=bool:true", "manager=null",
                "tags=array:3", "nested=object:[\"deep\"]", "dup=number:1", "dup=number:2",
            ]
        )
    }

    @Test func convertsIntegersExactly() throws {
        let numbers = try JSON(
            parsing:
                "[9223372036854775807, -9223372036854775808, 18446744073709551615, 18446744073709551616, 2.0, 2.5, 25e-1, 3e2, 1e400, -0]"
        )
        #expect(numbers[0]?.int64 == .max)
        #expect(numbers[1]?.int64 == .min)
        #expect(numbers[2]?.int64 == nil)
        #expect(numbers[2]?.uint64 == .max)
        #expect(numbers[3]?.uint64 == nil)
        #expect(numbers[4]?.int == 2)
        #expect(numbers[5]?.int == nil)
        #expect(numbers[6]?.int == nil)
        #expect(numbers[7]?.int == 300)
        #expect(numbers[8]?.int == nil)
        #expect(numbers[8]?.double == .infinity)
        #expect(numbers[9]?.int == 0)
    }

    @Test(arguments: [
        "0.1", "1e23", "2.2250738585072014e-308", "4.9e-324", "1.7976931348623157e308", "0.30000000000000004",
        "-65.613616999999977", "123456789012345678901234567890", "9007199254740993", "3.14159265358979323846",
        "0.5", "0.000123", "-0.0000000000000000000000000012345678901234567890123", "100000000000000000000.5",
        "12345678901234567890123e-5", "0.1234567890123456789012", "10.000000000000000000001",
    ])
    func convertsDoublesWithCorrectRounding(_ text: String) throws {
        let json = try JSON(parsing: text)
        #expect(json.double == Double(text))
    }

    @Test func comparesByMeaning() throws {
        #expect(try JSON(parsing: #"{"a": 1, "b": [1.0, "x"]}"#) == JSON(parsing: #"{"b": [1, "\u0078"], "a": 10e-1}"#))
        #expect(try JSON(parsing: "[1, 2]") != JSON(parsing: "[2, 1]"))
        #expect(try JSON(parsing: #"{"a": 1}"#) != JSON(parsing: #"{"a": 1, "b": 2}"#))
        #expect(try JSON(parsing: "null") == JSON.null)
    }

    @Test func comparesObjectsWithRepeatedKeysByEachValue() throws {
        // Found by the fuzzer: a document with a repeated key must equal itself.
        let document = try JSON(parsing: #"{"":true,"":[1.2,{"b":null}],"c0$:trud":false}"#)
        #expect(document == document)
        #expect(try JSON(parsing: document.jsonData) == document)
        #expect(try JSON(parsing: #"{"a":1,"b":0,"a":2}"#) == JSON(parsing: #"{"b":0,"a":1,"a":2}"#))
        #expect(try JSON(parsing: #"{"a":1,"a":2}"#) != JSON(parsing: #"{"a":2,"a":1}"#))
        #expect(try JSON(parsing: #"{"a":1,"a":2}"#) != JSON(parsing: #"{"a":1,"b":2}"#))
    }

    @Test func aRepeatedKeyReadsItsFirstValueAndIsCountedEachTime() throws {
        let json = try JSON(parsing: #"{"a":1,"b":2,"a":"x"}"#)
        let members = try #require(json.members)
        #expect(json["a"]?.int == 1)
        #expect(members["a"]?.int == 1)
        #expect(json.object?["a"]?.int == 1)
        #expect(json.object?.count == 2)
        #expect(json.count == 3)
        #expect(members.count == 3)
        #expect(members.keys == ["a", "b", "a"])
        #expect(members.map(\.value.jsonText) == ["1", "2", #""x""#])
    }

    @Test func buildsFromLiterals() throws {
        let body: JSON = ["name": "Ada \"the first\"", "tags": ["admin", 1, 2.5, true, .null], "empty": [:]]
        #expect(body.jsonText == #"{"name":"Ada \"the first\"","tags":["admin",1,2.5,true,null],"empty":{}}"#)
        #expect(body["name"]?.string == "Ada \"the first\"")
        #expect(JSON(Double.nan).isNull)
    }

    @Test func writesCompactTextFromTheSource() throws {
        let json = try JSON(parsing: " { \"a\" : [ 1 , \"x\\n\" , { } ] , \"b\" : null } ")
        #expect(json.description == #"{"a":[1,"x\n",{}],"b":null}"#)
        #expect(json["a"]?.description == #"[1,"x\n",{}]"#)
        #expect(try JSON(parsing: json.jsonData) == json)
        #expect(json.sourceRange == 1..<43)
        #expect(json["a"]?.sourceRange == 9..<28)
    }

    @Test func convertsFoundationObjects() throws {
        let data = Data(#"{"a": [1, 2.5, "x", true, null, {"b": false}], "n": 18446744073709551615}"#.utf8)
        let object = try JSONSerialization.jsonObject(with: data)
        let json = try JSON.parse(object)
        #expect(json == (try JSON(parsing: data)), "\(json)")
    }

    @Test func rejectsObjectsThatAreNotJSON() throws {
        let error = try #require(throws: DecodingError.self) { try JSON.parse(["a": [Date()]]) }
        guard case .dataCorrupted(let context) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["a", "Index 0"])
        #expect(
            context.debugDescription.hasPrefix(
                "expected a JSON value (a JSON document or JSONSerialization output), found a value of type"
            )
        )
    }
}

@Suite struct JSONDoubleConversionTests {
    /// Random decimal texts of every length and exponent, read by Sluice and by the C library: all must agree
    /// to the bit.
    @Test func agreesWithTheCLibraryOnRandomNumbers() throws {
        var generator = SplitMix64(seed: 0x5EED)
        func next() -> UInt64 { generator.next() }
        var texts: [String] = []
        for _ in 0..<20_000 {
            let digits = 1 + Int(next() % 22)
            var mantissa = String(1 + next() % 9)
            for _ in 1..<digits {
                mantissa += String(next() % 10)
            }
            let point = Int(next() % UInt64(digits + 1))
            var text =
                point == digits
                ? mantissa
                : String(mantissa.prefix(point == 0 ? 1 : point)) + "." + mantissa.dropFirst(point == 0 ? 1 : point)
            if text.hasSuffix(".") {
                text.removeLast()
            }
            let exponent = Int(next() % 700) - 350
            texts.append((next() % 2 == 0 ? "-" : "") + text + "e\(exponent)")
        }
        let halfways = [
            "9007199254740993", "9007199254740995", "2.2250738585072011e-308", "1.7976931348623158e308",
            "4.9406564584124654e-324", "2.4703282292062327e-324", "2.4703282292062328e-324", "0.1e-2",
            "123456789012345678e10",
        ]
        let document = try JSON(parsing: "[" + (texts + halfways).joined(separator: ",") + "]")
        for (text, value) in zip(texts + halfways, try #require(document.elements)) {
            let expected = try #require(Double(text))
            let actual = try #require(value.double)
            #expect(actual.bitPattern == expected.bitPattern, "\(text): \(actual) != \(expected)")
        }
    }
}
