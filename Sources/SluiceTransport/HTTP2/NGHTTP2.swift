import CSluiceSystem

/// The system's nghttp2, loaded at run time: `libnghttp2.so.14`, the library FoundationNetworking's libcurl already
/// loads into a Linux process for its own HTTP/2.
///
/// It is the HTTP/2 engine of Sluice's own transport, used without I/O: bytes from the socket go in through
/// `mem_recv`, the frames to write come out of `mem_send` (see ``HTTP2Session``), and the pool, limits, windows and
/// timeouts stay Sluice's. Only the library's first API is bound (Debian 12 has 1.52.0). Nothing of it is linked at
/// build time; where it cannot be loaded, ``shared`` says why, and the transport offers only HTTP/1.1.
///
/// The handle is never closed: the functions live as long as the process. `@unchecked Sendable`: every property is a
/// constant, and nghttp2's functions may be called from any thread, each session from one at a time.
package final class NGHTTP2: @unchecked Sendable {
    /// The library, or why it could not be loaded; loaded on first use.
    package static let shared: Result<NGHTTP2, SystemLibraryUnavailable> = load("libnghttp2.so.14")

    /// The file that was loaded, such as `libnghttp2.so.14`.
    package let libraryName: String

    let callbacksNew: SluiceH2CallbacksNew
    let callbacksDelete: SluiceH2CallbacksDelete
    let setOnFrameReceive: SluiceH2SetOnFrameReceive
    let setOnBeginHeaders: SluiceH2SetOnBeginHeaders
    let setOnHeader: SluiceH2SetOnHeader
    let setOnDataChunk: SluiceH2SetOnDataChunk
    let setOnStreamClose: SluiceH2SetOnStreamClose
    let setOnError: SluiceH2SetOnError
    let optionNew: SluiceH2OptionNew
    let optionDelete: SluiceH2OptionDelete
    let optionSetNoAutoWindowUpdate: SluiceH2OptionSetNoAutoWindowUpdate
    let optionSetPeerMaxConcurrentStreams: SluiceH2OptionSetPeerMaxConcurrentStreams
    let sessionClientNew: SluiceH2SessionClientNew
    let sessionDelete: SluiceH2SessionDelete
    let sessionReceive: SluiceH2SessionReceive
    let sessionSend: SluiceH2SessionSend
    let sessionWantsRead: SluiceH2SessionWant
    let sessionWantsWrite: SluiceH2SessionWant
    let submitSettings: SluiceH2SubmitSettings
    let submitRequest: SluiceH2SubmitRequest
    let submitResetStream: SluiceH2SubmitResetStream
    let submitGoAway: SluiceH2SubmitGoAway
    let sessionConsume: SluiceH2SessionConsume
    let sessionResumeData: SluiceH2SessionResumeData
    let sessionRemoteSetting: SluiceH2SessionGetRemoteSettings
    let stringForError: SluiceH2StringForError
    let submitWindowUpdate: SluiceH2SubmitWindowUpdate
    let submitPing: SluiceH2SubmitPing

    /// Looks every symbol up in a loaded library.
    ///
    /// - Throws: ``SystemLibraryUnavailable`` naming each symbol missing.
    private init(libraryName: String, handle: UnsafeMutableRawPointer) throws(SystemLibraryUnavailable) {
        var lookup = SymbolLookup(library: libraryName)
        self.libraryName = libraryName
        callbacksNew = lookup.find("nghttp2_session_callbacks_new", in: handle)
        callbacksDelete = lookup.find("nghttp2_session_callbacks_del", in: handle)
        setOnFrameReceive = lookup.find("nghttp2_session_callbacks_set_on_frame_recv_callback", in: handle)
        setOnBeginHeaders = lookup.find("nghttp2_session_callbacks_set_on_begin_headers_callback", in: handle)
        setOnHeader = lookup.find("nghttp2_session_callbacks_set_on_header_callback", in: handle)
        setOnDataChunk = lookup.find("nghttp2_session_callbacks_set_on_data_chunk_recv_callback", in: handle)
        setOnStreamClose = lookup.find("nghttp2_session_callbacks_set_on_stream_close_callback", in: handle)
        setOnError = lookup.find("nghttp2_session_callbacks_set_error_callback2", in: handle)
        optionNew = lookup.find("nghttp2_option_new", in: handle)
        optionDelete = lookup.find("nghttp2_option_del", in: handle)
        optionSetNoAutoWindowUpdate = lookup.find("nghttp2_option_set_no_auto_window_update", in: handle)
        optionSetPeerMaxConcurrentStreams = lookup.find("nghttp2_option_set_peer_max_concurrent_streams", in: handle)
        sessionClientNew = lookup.find("nghttp2_session_client_new2", in: handle)
        sessionDelete = lookup.find("nghttp2_session_del", in: handle)
        sessionReceive = lookup.find("nghttp2_session_mem_recv", in: handle)
        sessionSend = lookup.find("nghttp2_session_mem_send", in: handle)
        sessionWantsRead = lookup.find("nghttp2_session_want_read", in: handle)
        sessionWantsWrite = lookup.find("nghttp2_session_want_write", in: handle)
        submitSettings = lookup.find("nghttp2_submit_settings", in: handle)
        submitRequest = lookup.find("nghttp2_submit_request", in: handle)
        submitResetStream = lookup.find("nghttp2_submit_rst_stream", in: handle)
        submitGoAway = lookup.find("nghttp2_submit_goaway", in: handle)
        sessionConsume = lookup.find("nghttp2_session_consume", in: handle)
        sessionResumeData = lookup.find("nghttp2_session_resume_data", in: handle)
        sessionRemoteSetting = lookup.find("nghttp2_session_get_remote_settings", in: handle)
        stringForError = lookup.find("nghttp2_strerror", in: handle)
        submitWindowUpdate = lookup.find("nghttp2_submit_window_update", in: handle)
        submitPing = lookup.find("nghttp2_submit_ping", in: handle)
        try lookup.check(as: "nghttp2")
    }

    /// Loads the library and looks its symbols up.
    ///
    /// - Parameter name: Its file name or path.
    /// - Returns: The library, or why it could not be used.
    package static func load(_ name: String) -> Result<NGHTTP2, SystemLibraryUnavailable> {
        do throws(SystemLibraryUnavailable) {
            return .success(try NGHTTP2(libraryName: name, handle: try SystemLibrary.open(name, as: "nghttp2").get()))
        } catch {
            return .failure(error)
        }
    }

    /// nghttp2's words for one of its error codes.
    func describe(_ code: Int) -> String {
        stringForError(Int32(clamping: code)).map { String(cString: $0) } ?? "error \(code)"
    }
}
