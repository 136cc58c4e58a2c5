// Sluice's public API is made of Foundation types (`Data`, `URL`, `URLRequest`), so a client that writes
// `import Sluice` gets them too, as the seed samples expect.
@_exported public import Foundation
// The JSON engine is its own module; `import Sluice` brings its document, decoder and errors with it.
@_exported public import SluiceJSON

// URLRequest, URLSession and HTTPURLResponse live in FoundationNetworking on Linux and in Foundation elsewhere.
#if canImport(FoundationNetworking)
@_exported public import FoundationNetworking
#endif
