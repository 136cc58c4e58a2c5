// Models of a search API response in the shape of the standard twitter.json corpus: nested objects, many strings,
// unicode text, URLs and nulls. Keys are snake case, mapped with coding keys.

struct SearchResponse: Codable, Sendable {
    var statuses: [Status]
    var searchMetadata: SearchMetadata

    enum CodingKeys: String, CodingKey {
        case statuses
        case searchMetadata = "search_metadata"
    }
}

struct SearchMetadata: Codable, Sendable {
    var completedIn: Double
    var maxID: Int64
    var maxIDString: String
    var nextResults: String
    var query: String
    var refreshURL: String
    var count: Int
    var sinceID: Int64
    var sinceIDString: String

    enum CodingKeys: String, CodingKey {
        case completedIn = "completed_in"
        case maxID = "max_id"
        case maxIDString = "max_id_str"
        case nextResults = "next_results"
        case query
        case refreshURL = "refresh_url"
        case count
        case sinceID = "since_id"
        case sinceIDString = "since_id_str"
    }
}

struct Status: Codable, Sendable {
    var metadata: StatusMetadata
    var createdAt: String
    var id: Int64
    var idString: String
    var text: String
    var source: String
    var truncated: Bool
    var inReplyToStatusID: Int64?
    var inReplyToUserID: Int64?
    var inReplyToScreenName: String?
    var user: TwitterUser
    var retweetCount: Int
    var favoriteCount: Int
    var entities: Entities
    var favorited: Bool
    var retweeted: Bool
    var lang: String

    enum CodingKeys: String, CodingKey {
        case metadata
        case createdAt = "created_at"
        case id
        case idString = "id_str"
        case text, source, truncated
        case inReplyToStatusID = "in_reply_to_status_id"
        case inReplyToUserID = "in_reply_to_user_id"
        case inReplyToScreenName = "in_reply_to_screen_name"
        case user
        case retweetCount = "retweet_count"
        case favoriteCount = "favorite_count"
        case entities, favorited, retweeted, lang
    }
}

struct StatusMetadata: Codable, Sendable {
    var resultType: String
    var isoLanguageCode: String

    enum CodingKeys: String, CodingKey {
        case resultType = "result_type"
        case isoLanguageCode = "iso_language_code"
    }
}

struct TwitterUser: Codable, Sendable {
    var id: Int64
    var idString: String
    var name: String
    var screenName: String
    var location: String
    var description: String
    var url: String?
    var protected: Bool
    var followersCount: Int
    var friendsCount: Int
    var listedCount: Int
    var createdAt: String
    var favouritesCount: Int
    var utcOffset: Int?
    var timeZone: String?
    var geoEnabled: Bool
    var verified: Bool
    var statusesCount: Int
    var lang: String
    var profileBackgroundColor: String
    var profileImageURL: String
    var profileImageURLHTTPS: String
    var defaultProfile: Bool
    var following: Bool

    enum CodingKeys: String, CodingKey {
        case id
        case idString = "id_str"
        case name
        case screenName = "screen_name"
        case location, description, url, protected
        case followersCount = "followers_count"
        case friendsCount = "friends_count"
        case listedCount = "listed_count"
        case createdAt = "created_at"
        case favouritesCount = "favourites_count"
        case utcOffset = "utc_offset"
        case timeZone = "time_zone"
        case geoEnabled = "geo_enabled"
        case verified
        case statusesCount = "statuses_count"
        case lang
        case profileBackgroundColor = "profile_background_color"
        case profileImageURL = "profile_image_url"
        case profileImageURLHTTPS = "profile_image_url_https"
        case defaultProfile = "default_profile"
        case following
    }
}

struct Entities: Codable, Sendable {
    var hashtags: [Hashtag]
    var urls: [LinkEntity]
    var userMentions: [UserMention]

    enum CodingKeys: String, CodingKey {
        case hashtags, urls
        case userMentions = "user_mentions"
    }
}

struct Hashtag: Codable, Sendable {
    var text: String
    var indices: [Int]
}

struct LinkEntity: Codable, Sendable {
    var url: String
    var expandedURL: String
    var displayURL: String
    var indices: [Int]

    enum CodingKeys: String, CodingKey {
        case url
        case expandedURL = "expanded_url"
        case displayURL = "display_url"
        case indices
    }
}

struct UserMention: Codable, Sendable {
    var screenName: String
    var name: String
    var id: Int64
    var idString: String
    var indices: [Int]

    enum CodingKeys: String, CodingKey {
        case screenName = "screen_name"
        case name, id
        case idString = "id_str"
        case indices
    }
}
