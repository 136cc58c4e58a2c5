import Foundation

// Models of a typical REST list response: user objects with snake-case keys, ISO 8601 dates, optionals, nested
// objects and arrays, decoded with `convertFromSnakeCase` and a date strategy.

struct UserList: Codable, Sendable {
    var data: [RESTUser]
    var meta: PageMeta
}

struct PageMeta: Codable, Sendable {
    var page: Int
    var perPage: Int
    var total: Int
    var nextCursor: String?
}

struct RESTUser: Codable, Sendable {
    var id: Int
    var uuid: String
    var username: String
    var email: String
    var firstName: String
    var lastName: String
    var displayName: String
    var bio: String?
    var avatarUrl: String
    var isActive: Bool
    var isVerified: Bool
    var role: String
    var score: Double
    var followersCount: Int
    var followingCount: Int
    var createdAt: Date
    var updatedAt: Date
    var lastLoginAt: Date?
    var address: Address
    var tags: [String]
    var preferences: Preferences
}

struct Address: Codable, Sendable {
    var street: String
    var city: String
    var postalCode: String
    var countryCode: String
    var latitude: Double
    var longitude: Double
}

struct Preferences: Codable, Sendable {
    var theme: String
    var language: String
    var emailNotifications: Bool
    var pushNotifications: Bool
    var timezone: String
}

/// A small object, about 1 KB: what most API calls return.
struct Order: Codable, Sendable {
    var id: Int
    var status: String
    var customer: OrderCustomer
    var items: [OrderItem]
    var total: Double
    var currency: String
    var note: String?
    var paid: Bool
    var placedAt: Date

    enum CodingKeys: String, CodingKey {
        case id, status, customer, items, total, currency, note, paid
        case placedAt = "placed_at"
    }
}

struct OrderCustomer: Codable, Sendable {
    var id: Int
    var name: String
    var email: String
}

struct OrderItem: Codable, Sendable {
    var sku: String
    var name: String
    var quantity: Int
    var price: Double
}
