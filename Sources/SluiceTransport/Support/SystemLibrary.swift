// dlopen and dlsym come from the C library: Darwin on Apple platforms, Glibc on Linux.
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// A library of the system's that Sluice's own transport loads at run time, rather than linking it: OpenSSL for TLS,
/// zlib, brotli and zstd for compressed bodies.
///
/// Nothing is linked at build time, so the package builds without the libraries' headers, and a process where one is
/// missing still runs without what it offers. The handles are never closed: the functions live as long as the process.
enum SystemLibrary {
    /// Opens a library by file name, such as `libz.so.1`.
    ///
    /// - Parameters:
    ///   - name: The file name, looked up as the dynamic loader looks up any library.
    ///   - library: The library as people name it, such as `zlib`, for the error.
    /// - Returns: The library's handle, or what the dynamic loader said of its failure.
    static func open(_ name: String, as library: String) -> Result<UnsafeMutableRawPointer, SystemLibraryUnavailable> {
        guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
            return .failure(SystemLibraryUnavailable(library: library, reason: "\(name): \(lastLoaderError())"))
        }
        return .success(handle)
    }

    /// What `dlerror` says of the last failure.
    private static func lastLoaderError() -> String {
        dlerror().map { String(cString: $0) } ?? "not found"
    }
}

/// Why a library of the system's could not be used: each file tried, and what failed.
package struct SystemLibraryUnavailable: Error, Sendable, CustomStringConvertible {
    /// The library as people name it, such as `OpenSSL` or `zlib`.
    let library: String
    /// The files tried and why each failed, such as `libz.so.1: cannot open shared object file`.
    let reason: String

    package var description: String { "the system's \(library) could not be loaded: \(reason)" }
}

/// Looks symbols up in a loaded library, remembering those it did not find.
struct SymbolLookup {
    /// The library's file, for the error.
    let library: String
    /// The symbols not found.
    private(set) var missing: [String] = []

    init(library: String) {
        self.library = library
    }

    /// The function a symbol names, as a pointer of type `Function`; when it is missing, the library's handle stands
    /// in for it, never called, since ``check(as:)`` then throws.
    mutating func find<Function>(_ names: [String], in handle: UnsafeMutableRawPointer) -> Function {
        for name in names {
            if let symbol = dlsym(handle, name) {
                return unsafeBitCast(symbol, to: Function.self)
            }
        }
        missing.append(names.joined(separator: " or "))
        return unsafeBitCast(handle, to: Function.self)
    }

    /// The function one symbol names.
    mutating func find<Function>(_ name: String, in handle: UnsafeMutableRawPointer) -> Function {
        find([name], in: handle)
    }

    /// Throws when a symbol was missing.
    ///
    /// - Parameter name: The library as people name it, such as `zlib`, for the error.
    /// - Throws: ``SystemLibraryUnavailable`` naming the file and each symbol it lacks.
    func check(as name: String) throws(SystemLibraryUnavailable) {
        guard missing.isEmpty else {
            throw SystemLibraryUnavailable(library: name, reason: "\(library) lacks \(missing.joined(separator: ", "))")
        }
    }
}
