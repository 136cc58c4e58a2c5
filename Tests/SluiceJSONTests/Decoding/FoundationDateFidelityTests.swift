import Foundation
import SluiceJSON
import TestSupport
import Testing

/// ISO 8601 dates read by Sluice's `.iso8601` strategy and by Foundation's, from the same text.
@Suite struct FoundationDateFidelityTests {
    struct Stamp: Decodable, Equatable {
        let date: Date
    }

    static func both(_ text: String) -> (sluice: Date?, foundation: Date?) {
        let bytes = Data(#"{"date":"\#(text)"}"#.utf8)
        let foundation = JSONDecoder()
        foundation.dateDecodingStrategy = .iso8601
        let sluice = JSONDocumentDecoder(dateDecodingStrategy: .iso8601)
        return (
            (try? sluice.decode(Stamp.self, from: bytes))?.date, (try? foundation.decode(Stamp.self, from: bytes))?.date
        )
    }

    @Test(arguments: [
        "2025-03-01T10:30:00Z", "2025-03-01T10:30:00.1Z", "2025-03-01T10:30:00.123456789Z",
        "2025-03-01T10:30:00.0000001Z", "2025-03-01T10:30:00+01:00", "2025-03-01T10:30:00+0100",
        "2025-03-01T10:30:00+01", "2025-03-01T10:30:00-0530", "2025-03-01T10:30:00.1234+0530",
        "2024-12-31T23:59:60Z", "2024-02-29T00:00:00Z", "1970-01-01T00:00:00Z", "1969-12-31T23:59:59.5Z",
        "1582-10-15T00:00:00Z", "1582-10-04T00:00:00Z", "1582-10-10T00:00:00Z", "1582-10-15T00:30:00+01:00",
        "1500-03-01T00:00:00Z", "1500-02-29T00:00:00Z", "0001-01-01T00:00:00Z", "0000-01-01T00:00:00Z",
        "0004-02-29T00:00:00Z", "9999-12-31T23:59:59Z", "2025-13-01T00:00:00Z", "2025-01-01 00:00:00Z",
        "2025-01-01T00:00:00", "2025-01-01T00:00:00.+01:00", "2025-01-01T00:00:00+24:00",
    ])
    func theSameTextGivesTheSameDateOrFailsInBoth(_ text: String) {
        let (sluice, foundation) = Self.both(text)
        #expect(
            sluice == foundation,
            "\(text): Sluice \(String(describing: sluice?.timeIntervalSinceReferenceDate)), Foundation \(String(describing: foundation?.timeIntervalSinceReferenceDate))"
        )
    }

    /// Texts that Foundation reads leniently or refuses where Sluice follows RFC 3339: the deliberate differences
    /// the documentation lists.
    @Test(arguments: [
        ("2025-02-30T00:00:00Z", false),  // Foundation rolls over to 2 March
        ("2025-01-01T00:00:00+0160", false),  // Foundation reads sixty minutes
        ("2025-01-01T00:00:00+1", false),  // Foundation reads a one-digit hour
        ("2025-03-01t10:30:00z", true),  // RFC 3339 allows lower case; Foundation refuses it
        ("2025-01-01T00:00:00.999999999999Z", true),  // Foundation refuses twelve digits of fraction
    ])
    func deliberateDifferencesAreTheDocumentedOnes(_ text: String, sluiceReads: Bool) {
        let (sluice, foundation) = Self.both(text)
        #expect((sluice != nil) == sluiceReads, "\(text)")
        #expect((foundation != nil) == !sluiceReads, "\(text)")
    }

    @Test func randomDatesAcrossTenThousandYearsAgreeWithFoundation() {
        var generator = SplitMix64(seed: 0x1508_1601)
        var differences: [String] = []
        for _ in 0..<2_000 {
            let year = Int.random(in: 1...9999, using: &generator)
            let month = Int.random(in: 1...12, using: &generator)
            let day = Int.random(in: 1...28, using: &generator)
            let time = String(
                format: "%02d:%02d:%02d",
                Int.random(in: 0...23, using: &generator),
                Int.random(in: 0...59, using: &generator),
                Int.random(in: 0...59, using: &generator)
            )
            let digits = Int.random(in: 0...9, using: &generator)
            let fraction =
                digits == 0
                ? "" : "." + String((0..<digits).map { _ in "0123456789".randomElement(using: &generator) ?? "0" })
            let offsets = ["Z", "+00:00", "-08:00", "+0530", "+01", "-1245"]
            let offset = offsets[Int.random(in: 0..<offsets.count, using: &generator)]
            let text = String(format: "%04d-%02d-%02dT", year, month, day) + time + fraction + offset
            let (sluice, foundation) = Self.both(text)
            if sluice != foundation {
                differences.append(text)
            }
        }
        #expect(differences.isEmpty, "\(differences.prefix(5))")
    }
}
