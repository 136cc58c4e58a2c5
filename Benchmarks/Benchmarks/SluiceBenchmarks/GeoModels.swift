// Models of GeoJSON in the shape of the standard canada.json corpus: almost all floating-point numbers, in deep
// arrays.

struct FeatureCollection: Codable, Sendable {
    var type: String
    var features: [Feature]
}

struct Feature: Codable, Sendable {
    var type: String
    var properties: [String: String]
    var geometry: Geometry
}

struct Geometry: Codable, Sendable {
    var type: String
    var coordinates: [[[Double]]]
}
