import ClientFixtures
import Foundation
import SluiceEndpoints
import Testing

/// The spellings kept from before each concept had one name still compile and still do what their replacements do.
///
/// The only place the tests use them, so the compiler's deprecation warnings stand here alone.
@Suite struct DeprecatedTests {
    @Test func theEffectiveDefaultIsTheDefault() async {
        let scoped = Server([.production: URL(staticString: "https://scoped.example.com")])
        #expect(Server.effectiveDefault === Server.default)
        await Server.withDefault(scoped) {
            #expect(Server.effectiveDefault === scoped)
        }
    }
}
