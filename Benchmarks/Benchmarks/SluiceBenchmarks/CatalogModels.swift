// Models of a catalog in the shape of the standard citm_catalog.json corpus: many small objects, integers, and
// large dictionaries keyed by identifiers.

struct Catalog: Codable, Sendable {
    var areaNames: [String: String]
    var audienceSubCategoryNames: [String: String]
    var events: [String: CatalogEvent]
    var performances: [Performance]
    var seatCategoryNames: [String: String]
    var subTopicNames: [String: String]
    var topicNames: [String: String]
    var topicSubTopics: [String: [Int]]
    var venueNames: [String: String]
}

struct CatalogEvent: Codable, Sendable {
    var description: String?
    var id: Int
    var logo: String?
    var name: String
    var subTopicIds: [Int]
    var subjectCode: String?
    var subtitle: String?
    var topicIds: [Int]
}

struct Performance: Codable, Sendable {
    var eventId: Int
    var id: Int
    var logo: String?
    var name: String?
    var prices: [Price]
    var seatCategories: [SeatCategory]
    var seatMapImage: String?
    var start: Int64
    var venueCode: String
}

struct Price: Codable, Sendable {
    var amount: Int
    var audienceSubCategoryId: Int
    var seatCategoryId: Int
}

struct SeatCategory: Codable, Sendable {
    var areas: [Area]
    var seatCategoryId: Int
}

struct Area: Codable, Sendable {
    var areaId: Int
    var blockIds: [Int]
}
