import Foundation
import Testing

@testable import SluiceCore

@Suite struct RetryAfterTests {
    let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT

    @Test(arguments: [
        ("120", Duration.seconds(120)),
        ("0", .zero),
        ("Sun, 06 Nov 1994 08:49:47 GMT", .seconds(10)),
        ("Sunday, 06-Nov-94 08:50:37 GMT", .seconds(60)),
        ("Sun Nov  6 08:49:57 1994", .seconds(20)),
        ("Sun, 06 Nov 1994 08:00:00 GMT", .zero),
    ])
    func readsEveryForm(_ value: String, _ expected: Duration) {
        #expect(RetryAfter.delay(value, now: now) == expected)
    }

    @Test(arguments: ["-1", "soon", "Sun, 06 Nov 1994 25:00:00 GMT", "Sun, 32 Nov 1994 08:00:00 GMT", ""])
    func ignoresWhatItCannotRead(_ value: String) {
        #expect(RetryAfter.delay(value, now: now) == nil)
    }
}
