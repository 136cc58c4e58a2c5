// The vocabulary every layer of Sluice shares is made of Foundation types (`Data`, `URL`, `URLRequest`), so a module
// that imports it gets them too.
@_exported public import Foundation
// The JSON engine is its own module; errors carry its `JSONError`, and `import Sluice` brings it with the rest.
@_exported public import SluiceJSON

// URLRequest, URLSession and HTTPURLResponse live in FoundationNetworking on Linux and in Foundation elsewhere.
#if canImport(FoundationNetworking)
@_exported public import FoundationNetworking
#endif
