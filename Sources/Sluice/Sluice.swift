// `import Sluice` brings the whole client: the core (the pipeline, HTTP, middleware, transports, streaming,
// transfers, observability, errors) and the three ways of describing an endpoint built on it. Every seed sample
// and every user's code compiles with this one import, as it did before the two were separate modules.
@_exported public import SluiceCore
@_exported public import SluiceEndpoints
