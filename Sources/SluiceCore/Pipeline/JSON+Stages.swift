// The JSON engine lives in SluiceJSON, which knows nothing of the pipeline; these conformances make its
// deserializer and its document the pipeline's default deserialize and parse stages.

extension JSONDeserializer: Deserializer {}

extension JSON: Parser {}
