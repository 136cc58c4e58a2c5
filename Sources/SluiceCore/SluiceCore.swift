// The core sits on the two layers below it and re-exports them, so that `import SluiceCore` (and `import Sluice`)
// brings the HTTP vocabulary, the transports, Foundation and the JSON engine, as the seed samples expect.
@_exported public import SluiceHTTP
@_exported public import SluiceTransport
