// The REST list's models as a service often writes them: coding keys for the snake-case names and dates kept as
// strings, decoded with no strategy at all.

struct PlainUserList: Codable, Sendable {
    var data: [PlainUser]
    var meta: PlainPageMeta
}

struct PlainPageMeta: Codable, Sendable {
    var page: Int
    var perPage: Int
    var total: Int
    var nextCursor: String?

    enum CodingKeys: String, CodingKey {
        case page
        case perPage = "per_page"
        case total
        case nextCursor = "next_cursor"
    }
}

struct PlainUser: Codable, Sendable {
    var id: Int
    var uuid: String
    var username: String
    var email: String
    var firstName: String
    var lastName: String
    var displayName: String
    var bio: String?
    var avatarURL: String
    var isActive: Bool
    var isVerified: Bool
    var role: String
    var score: Double
    var followersCount: Int
    var followingCount: Int
    var createdAt: String
    var updatedAt: String
    var lastLoginAt: String?
    var address: PlainAddress
    var tags: [String]
    var preferences: PlainPreferences

    enum CodingKeys: String, CodingKey {
        case id, uuid, username, email
        case firstName = "first_name"
        case lastName = "last_name"
        case displayName = "display_name"
        case bio
        case avatarURL = "avatar_url"
        case isActive = "is_active"
        case isVerified = "is_verified"
        case role, score
        case followersCount = "followers_count"
        case followingCount = "following_count"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case lastLoginAt = "last_login_at"
        case address, tags, preferences
    }
}

struct PlainAddress: Codable, Sendable {
    var street: String
    var city: String
    var postalCode: String
    var countryCode: String
    var latitude: Double
    var longitude: Double

    enum CodingKeys: String, CodingKey {
        case street, city
        case postalCode = "postal_code"
        case countryCode = "country_code"
        case latitude, longitude
    }
}

struct PlainPreferences: Codable, Sendable {
    var theme: String
    var language: String
    var emailNotifications: Bool
    var pushNotifications: Bool
    var timezone: String

    enum CodingKeys: String, CodingKey {
        case theme, language
        case emailNotifications = "email_notifications"
        case pushNotifications = "push_notifications"
        case timezone
    }
}
