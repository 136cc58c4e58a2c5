// The engine's API is made of Foundation types (`Data`, `Date`, `DecodingError`), so a module that writes
// `import SluiceJSON` gets them too.
@_exported public import Foundation
