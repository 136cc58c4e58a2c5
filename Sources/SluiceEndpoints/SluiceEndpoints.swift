// The three ways of describing an endpoint (`Endpoint`, `APIDefinition`, `Repository`) are built on the core's
// `Request` and speak its types (`HTTPMethod`, `HTTPHeaders`, `SluiceError`) in their public API, so importing
// this module brings the core with it.
@_exported public import SluiceCore
