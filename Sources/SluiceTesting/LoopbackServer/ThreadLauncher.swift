import Foundation

// POSIX threads come from the C library, which is Darwin on Apple platforms and Glibc on Linux; the two import a
// few pthread types with different optionality, and each difference below is marked where it occurs.
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// A key whose value is non-nil only on threads started by ``ThreadLauncher``.
private let serverThreadKey: pthread_key_t? = {
    var key = pthread_key_t()
    return pthread_key_create(&key, nil) == 0 ? key : nil
}()

/// Carries a thread's name and closure across `pthread_create`'s untyped context pointer.
private final class ThreadPayload: Sendable {
    /// The thread's name, for debuggers; keep it within 15 bytes, the Linux limit.
    let name: String

    /// What the thread runs.
    let body: @Sendable () -> Void

    /// Creates a payload.
    init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }

    /// Names the calling thread, marks it as a server thread, and runs the body.
    func run() {
        // Glibc hides pthread_setname_np from Swift, so the name is set through Foundation, which uses it internally.
        Thread.current.name = name
        if let serverThreadKey {
            _ = pthread_setspecific(serverThreadKey, UnsafeRawPointer(bitPattern: 1))
        }
        body()
    }
}

// The start routine is a file-level function, not a closure literal, because Swift 6.3.1 crashes (SendNonSendable
// pass) on the closure form. Darwin passes the context as a non-optional pointer, Glibc as an optional one.
#if canImport(Darwin)
/// The start routine of every server thread: takes ownership of the payload and runs it.
private func threadMain(_ context: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
    Unmanaged<ThreadPayload>.fromOpaque(context).takeRetainedValue().run()
    return nil
}
#else
/// The start routine of every server thread: takes ownership of the payload and runs it.
private func threadMain(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    if let context {
        Unmanaged<ThreadPayload>.fromOpaque(context).takeRetainedValue().run()
    }
    return nil
}
#endif

/// Starts detached POSIX threads for the server's blocking work.
///
/// The server uses plain threads rather than Swift concurrency or Dispatch because every connection blocks in
/// `poll` while it waits for its client; a few hundred such waits would starve a cooperative or width-limited pool.
/// `pthread_create` is used directly, rather than `Foundation.Thread`, so that a failure to start is reported and the
/// connection can be closed instead of silently leaking.
enum ThreadLauncher {
    /// Whether the calling thread was started by ``start(name:_:)``, that is, belongs to some server.
    static var isServerThread: Bool {
        guard let serverThreadKey else {
            return false
        }
        return pthread_getspecific(serverThreadKey) != nil
    }

    /// Starts a detached thread running `body`.
    ///
    /// - Parameters:
    ///   - name: The thread's name, as debuggers show it; at most 15 bytes.
    ///   - body: What the thread runs.
    /// - Returns: 0 when the thread started, or the `errno`-style code `pthread_create` returned.
    static func start(name: String, _ body: @escaping @Sendable () -> Void) -> Int32 {
        // Allocated rather than zero-initialized: Dispatch's C module declares pthread_attr_t as well, and when the
        // compiler meets that declaration first, `pthread_attr_t()` is taken to be Dispatch's and does not compile
        // without importing it. pthread_attr_init initializes the memory.
        let attributes = UnsafeMutablePointer<pthread_attr_t>.allocate(capacity: 1)
        defer { attributes.deallocate() }
        guard pthread_attr_init(attributes) == 0 else {
            return ENOMEM
        }
        defer { pthread_attr_destroy(attributes) }
        _ = pthread_attr_setdetachstate(attributes, Int32(PTHREAD_CREATE_DETACHED))
        let context = Unmanaged.passRetained(ThreadPayload(name: name, body: body)).toOpaque()
        // Darwin's pthread_t is an optional pointer, Glibc's an integer.
        #if canImport(Darwin)
        var thread: pthread_t?
        #else
        var thread = pthread_t()
        #endif
        let result = pthread_create(&thread, attributes, threadMain, context)
        if result != 0 {
            Unmanaged<ThreadPayload>.fromOpaque(context).release()
        }
        return result
    }
}
