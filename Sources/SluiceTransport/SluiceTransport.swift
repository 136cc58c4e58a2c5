// The transports speak the shared vocabulary (`URLRequest`, `HTTPResponse`, `SluiceError`, `RequestPerformer`), and
// every module above them speaks it too, so it comes with them.
@_exported public import SluiceHTTP
