import SluiceJSON
import Testing

@Suite struct QuotedSourceTests {
    @Test func aLineIsQuotedWithItsNumberAndACaretUnderTheColumn() {
        let lines = QuotedSource.lines(number: 3, source: #"{"id": 3,}"#, caretColumn: 10)
        #expect(lines == [#" 3 | {"id": 3,}"#, "   |          ^"])
    }

    @Test func theMarginIsAsWideAsTheNumber() {
        #expect(QuotedSource.lines(number: 120, source: "[1,]", caretColumn: 4) == [" 120 | [1,]", "     |    ^"])
        #expect(QuotedSource.margin(for: 9) == " ")
        #expect(QuotedSource.margin(for: 10) == "  ")
    }

    @Test func aLineWithoutAColumnHasNoCaret() {
        #expect(QuotedSource.lines(number: 1, source: "data: x", caretColumn: nil) == [" 1 | data: x"])
    }
}
