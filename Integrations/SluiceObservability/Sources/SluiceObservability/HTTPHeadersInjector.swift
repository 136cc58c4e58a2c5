import SluiceCore
import Tracing

/// Writes what a tracer propagates into an attempt's header fields, replacing a field of the same name.
struct HTTPHeadersInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout HTTPHeaders) {
        carrier[Header(key)] = value
    }
}
