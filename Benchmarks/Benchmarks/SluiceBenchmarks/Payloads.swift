import Foundation

/// Deterministic JSON payloads in the shapes of the standard corpora, of a REST list and of a small object.
///
/// The corpora are twitter.json, citm_catalog.json and canada.json. The payloads are generated in code, from a
/// fixed seed, so that every run measures the same bytes and the benchmarks depend on no file.
enum Payloads {
    static let twitter = generateTwitter()
    static let catalog = generateCatalog()
    static let canada = generateCanada()
    static let restList = generateRESTList()
    static let order = generateOrder()

    /// A search response of 100 statuses with their users, entities and quoted statuses: about 630 KB.
    static func generateTwitter() -> Data {
        var random = SplitMix64(seed: 1)
        let json = JSONText()
        json.object {
            json.key("statuses")
            json.array {
                for index in 0..<100 {
                    json.separator()
                    status(json, &random, index: index, depth: 0)
                }
            }
            json.key("search_metadata")
            json.object {
                json.key("completed_in")
                json.number("0.087")
                json.key("max_id")
                json.number("505874924095815681")
                json.key("max_id_str")
                json.string("505874924095815681")
                json.key("next_results")
                json.string("?max_id=505874847260352512&q=%E4%B8%80&count=100&include_entities=1")
                json.key("query")
                json.string("%E4%B8%80")
                json.key("refresh_url")
                json.string("?since_id=505874924095815681&q=%E4%B8%80&include_entities=1")
                json.key("count")
                json.number("100")
                json.key("since_id")
                json.number("0")
                json.key("since_id_str")
                json.string("0")
            }
        }
        return json.data
    }

    private static func status(_ json: JSONText, _ random: inout SplitMix64, index: Int, depth: Int) {
        let id = 505_874_924_095_815_681 - UInt64(index) * 1_000_003 - UInt64(depth)
        json.object {
            json.key("metadata")
            json.object {
                json.key("result_type")
                json.string("recent")
                json.key("iso_language_code")
                json.string(index % 3 == 0 ? "en" : "ja")
            }
            json.key("created_at")
            json.string("Sun Aug 31 00:29:\(10 + index % 50) +0000 2014")
            json.key("id")
            json.number(String(id))
            json.key("id_str")
            json.string(String(id))
            json.key("text")
            json.string(random.text(words: 30 + random.below(30), japanese: index % 3 != 0))
            json.key("source")
            json.string(#"<a href="http://twitter.com/download/iphone" rel="nofollow">Twitter for iPhone</a>"#)
            json.key("truncated")
            json.bool(false)
            let reply = index % 4 == 0
            json.key("in_reply_to_status_id")
            json.number(reply ? String(id - 77) : nil)
            json.key("in_reply_to_status_id_str")
            json.string(reply ? String(id - 77) : nil)
            json.key("in_reply_to_user_id")
            json.number(reply ? String(1_186_275_104 + index) : nil)
            json.key("in_reply_to_user_id_str")
            json.string(reply ? String(1_186_275_104 + index) : nil)
            json.key("in_reply_to_screen_name")
            json.string(reply ? "user_\(index)" : nil)
            json.key("user")
            user(json, &random, index: index)
            json.key("geo")
            json.null()
            json.key("coordinates")
            json.null()
            json.key("place")
            json.null()
            json.key("contributors")
            json.null()
            if depth == 0 {
                json.key("retweeted_status")
                status(json, &random, index: index + 1_000, depth: 1)
            }
            json.key("retweet_count")
            json.number(String(random.below(1_000)))
            json.key("favorite_count")
            json.number(String(random.below(500)))
            json.key("entities")
            json.object {
                json.key("hashtags")
                json.array {
                    for tag in 0..<random.below(3) {
                        json.separator()
                        json.object {
                            json.key("text")
                            json.string("タグ\(tag)")
                            json.key("indices")
                            json.array { json.numbers([10 + tag * 5, 14 + tag * 5]) }
                        }
                    }
                }
                json.key("symbols")
                json.array {}
                json.key("urls")
                json.array {
                    for link in 0..<random.below(2) {
                        json.separator()
                        json.object {
                            json.key("url")
                            json.string("http://t.co/\(random.token(10))")
                            json.key("expanded_url")
                            json.string("http://example.com/articles/\(index)/\(link)?ref=search")
                            json.key("display_url")
                            json.string("example.com/articles/\(index)/…")
                            json.key("indices")
                            json.array { json.numbers([40, 62]) }
                        }
                    }
                }
                json.key("user_mentions")
                json.array {
                    for mention in 0..<(1 + random.below(2)) {
                        json.separator()
                        json.object {
                            json.key("screen_name")
                            json.string("mention_\(index)_\(mention)")
                            json.key("name")
                            json.string(random.text(words: 2, japanese: true))
                            json.key("id")
                            json.number(String(866_260_188 + index * 7 + mention))
                            json.key("id_str")
                            json.string(String(866_260_188 + index * 7 + mention))
                            json.key("indices")
                            json.array { json.numbers([0, 9]) }
                        }
                    }
                }
            }
            json.key("favorited")
            json.bool(false)
            json.key("retweeted")
            json.bool(false)
            json.key("lang")
            json.string(index % 3 == 0 ? "en" : "ja")
        }
    }

    private static func user(_ json: JSONText, _ random: inout SplitMix64, index: Int) {
        let id = 1_186_275_104 + index * 31
        json.object {
            json.key("id")
            json.number(String(id))
            json.key("id_str")
            json.string(String(id))
            json.key("name")
            json.string(random.text(words: 2, japanese: index % 3 != 0))
            json.key("screen_name")
            json.string("screen_\(index)")
            json.key("location")
            json.string(index % 2 == 0 ? "東京" : "")
            json.key("description")
            json.string(random.text(words: 30 + random.below(35), japanese: index % 3 != 0))
            json.key("url")
            json.string(index % 5 == 0 ? "http://t.co/\(random.token(10))" : nil)
            json.key("entities")
            json.object {
                json.key("description")
                json.object {
                    json.key("urls")
                    json.array {}
                }
            }
            json.key("protected")
            json.bool(false)
            json.key("followers_count")
            json.number(String(random.below(5_000)))
            json.key("friends_count")
            json.number(String(random.below(5_000)))
            json.key("listed_count")
            json.number(String(random.below(50)))
            json.key("created_at")
            json.string("Thu Jul 04 00:18:\(10 + index % 50) +0000 2013")
            json.key("favourites_count")
            json.number(String(random.below(3_000)))
            json.key("utc_offset")
            json.number(index % 2 == 0 ? "32400" : nil)
            json.key("time_zone")
            json.string(index % 2 == 0 ? "Tokyo" : nil)
            json.key("geo_enabled")
            json.bool(index % 7 == 0)
            json.key("verified")
            json.bool(false)
            json.key("statuses_count")
            json.number(String(random.below(100_000)))
            json.key("lang")
            json.string("ja")
            json.key("contributors_enabled")
            json.bool(false)
            json.key("is_translator")
            json.bool(false)
            json.key("is_translation_enabled")
            json.bool(false)
            json.key("profile_background_color")
            json.string("C0DEED")
            json.key("profile_background_image_url")
            json.string("http://abs.twimg.com/images/themes/theme1/bg.png")
            json.key("profile_background_image_url_https")
            json.string("https://abs.twimg.com/images/themes/theme1/bg.png")
            json.key("profile_background_tile")
            json.bool(false)
            json.key("profile_image_url")
            json.string("http://pbs.twimg.com/profile_images/\(id)/\(random.token(8))_normal.jpeg")
            json.key("profile_image_url_https")
            json.string("https://pbs.twimg.com/profile_images/\(id)/\(random.token(8))_normal.jpeg")
            json.key("profile_banner_url")
            json.string("https://pbs.twimg.com/profile_banners/\(id)/1402756153")
            json.key("profile_link_color")
            json.string("0084B4")
            json.key("profile_sidebar_border_color")
            json.string("C0DEED")
            json.key("profile_sidebar_fill_color")
            json.string("DDEEF6")
            json.key("profile_text_color")
            json.string("333333")
            json.key("profile_use_background_image")
            json.bool(true)
            json.key("default_profile")
            json.bool(true)
            json.key("default_profile_image")
            json.bool(false)
            json.key("following")
            json.bool(false)
            json.key("follow_request_sent")
            json.bool(false)
            json.key("notifications")
            json.bool(false)
        }
    }

    /// A catalog of 184 events and 243 performances with their prices and seat categories: about 1.7 MB.
    static func generateCatalog() -> Data {
        var random = SplitMix64(seed: 2)
        let json = JSONText()
        let areaIDs = (0..<17).map { 205_705_993 + $0 }
        let audienceIDs = [337_100_890, 337_100_891, 337_100_892]
        let seatIDs = (0..<64).map { 338_937_235 + $0 }
        let topicIDs = (0..<4).map { 107_888_604 + $0 * 1_000 }
        let subTopicIDs = (0..<19).map { 337_184_262 + $0 }
        let eventIDs = (0..<184).map { 138_586_341 + $0 * 17 }
        json.object {
            json.key("areaNames")
            json.object {
                for id in areaIDs {
                    json.key(String(id))
                    json.string("Zone \(id % 100) – \(random.word())")
                }
            }
            json.key("audienceSubCategoryNames")
            json.object {
                for id in audienceIDs {
                    json.key(String(id))
                    json.string("Abonné \(id % 10)")
                }
            }
            json.key("blockNames")
            json.object {}
            json.key("events")
            json.object {
                for id in eventIDs {
                    json.key(String(id))
                    json.object {
                        json.key("description")
                        json.string(nil)
                        json.key("id")
                        json.number(String(id))
                        json.key("logo")
                        json.string(id % 3 == 0 ? "/images/UE0AAAAACEKo6QAAAAVDSVRN" : nil)
                        json.key("name")
                        json.string(random.text(words: 3, japanese: false))
                        json.key("subTopicIds")
                        json.array {
                            json.numbers((0..<2).map { _ in subTopicIDs[random.below(subTopicIDs.count)] })
                        }
                        json.key("subjectCode")
                        json.string(nil)
                        json.key("subtitle")
                        json.string(nil)
                        json.key("topicIds")
                        json.array {
                            json.numbers((0..<2).map { _ in topicIDs[random.below(topicIDs.count)] })
                        }
                    }
                }
            }
            json.key("performances")
            json.array {
                for index in 0..<243 {
                    json.separator()
                    json.object {
                        json.key("eventId")
                        json.number(String(eventIDs[index % eventIDs.count]))
                        json.key("id")
                        json.number(String(339_887_544 + index * 3))
                        json.key("logo")
                        json.string(nil)
                        json.key("name")
                        json.string(nil)
                        let categories = 6 + random.below(8)
                        json.key("prices")
                        json.array {
                            for category in 0..<categories {
                                json.separator()
                                json.object {
                                    json.key("amount")
                                    json.number(String(20_000 + random.below(80) * 1_250))
                                    json.key("audienceSubCategoryId")
                                    json.number(String(audienceIDs[category % 3]))
                                    json.key("seatCategoryId")
                                    json.number(String(seatIDs[category]))
                                }
                            }
                        }
                        json.key("seatCategories")
                        json.array {
                            for category in 0..<categories {
                                json.separator()
                                json.object {
                                    json.key("areas")
                                    json.array {
                                        for area in 0..<(10 + random.below(14)) {
                                            json.separator()
                                            json.object {
                                                json.key("areaId")
                                                json.number(String(areaIDs[area % areaIDs.count]))
                                                json.key("blockIds")
                                                json.array {}
                                            }
                                        }
                                    }
                                    json.key("seatCategoryId")
                                    json.number(String(seatIDs[category]))
                                }
                            }
                        }
                        json.key("seatMapImage")
                        json.string(nil)
                        json.key("start")
                        json.number(String(1_372_898_700_000 + index * 86_400_000))
                        json.key("venueCode")
                        json.string("PLEYEL_PLEYEL")
                    }
                }
            }
            json.key("seatCategoryNames")
            json.object {
                for id in seatIDs {
                    json.key(String(id))
                    json.string("\(id % 64 + 1)ère catégorie")
                }
            }
            json.key("subTopicNames")
            json.object {
                for id in subTopicIDs {
                    json.key(String(id))
                    json.string("Musique \(random.word())")
                }
            }
            json.key("subjectNames")
            json.object {}
            json.key("topicNames")
            json.object {
                for id in topicIDs {
                    json.key(String(id))
                    json.string("Activité \(id % 10)")
                }
            }
            json.key("topicSubTopics")
            json.object {
                for id in topicIDs {
                    json.key(String(id))
                    json.array { json.numbers(Array(subTopicIDs.prefix(3 + random.below(5)))) }
                }
            }
            json.key("venueNames")
            json.object {
                json.key("PLEYEL_PLEYEL")
                json.string("Salle Pleyel")
            }
        }
        return json.data
    }

    /// A GeoJSON polygon of 480 rings and about 56,000 points, each coordinate a double of 15 to 17 significant
    /// digits: about 2.2 MB.
    static func generateCanada() -> Data {
        var random = SplitMix64(seed: 3)
        let json = JSONText()
        json.object {
            json.key("type")
            json.string("FeatureCollection")
            json.key("features")
            json.array {
                json.separator()
                json.object {
                    json.key("type")
                    json.string("Feature")
                    json.key("properties")
                    json.object {
                        json.key("name")
                        json.string("Canada")
                    }
                    json.key("geometry")
                    json.object {
                        json.key("type")
                        json.string("Polygon")
                        json.key("coordinates")
                        json.array {
                            for ring in 0..<480 {
                                json.separator()
                                var longitude = -141.0 + Double(ring % 80)
                                var latitude = 42.0 + Double(ring / 12)
                                let points = ring < 40 ? 700 + random.below(300) : 20 + random.below(60)
                                json.array {
                                    for _ in 0..<points {
                                        // Steps of whole micro-degrees, plus the binary noise real data carries.
                                        longitude += Double(Int(random.below(2_001)) - 1_000) * 1e-6
                                        latitude += Double(Int(random.below(2_001)) - 1_000) * 1e-6
                                        json.separator()
                                        json.array {
                                            json.separator()
                                            json.number(String(longitude + Double(random.below(7)) * 1e-14))
                                            json.separator()
                                            json.number(String(latitude - Double(random.below(7)) * 1e-14))
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return json.data
    }

    /// A page of 1,000 users with snake-case keys and ISO 8601 dates: about 1.5 MB.
    static func generateRESTList() -> Data {
        var random = SplitMix64(seed: 4)
        let json = JSONText()
        json.object {
            json.key("data")
            json.array {
                for index in 0..<1_000 {
                    json.separator()
                    json.object {
                        json.key("id")
                        json.number(String(100_000 + index))
                        json.key("uuid")
                        json.string(random.uuid())
                        json.key("username")
                        json.string("user_\(index)_\(random.token(6))")
                        json.key("email")
                        json.string("user\(index)@example.com")
                        json.key("first_name")
                        json.string(random.word().capitalized)
                        json.key("last_name")
                        json.string(random.word().capitalized)
                        json.key("display_name")
                        json.string(random.text(words: 2, japanese: false))
                        json.key("bio")
                        json.string(index % 4 == 0 ? nil : random.text(words: 100 + random.below(80), japanese: false))
                        json.key("avatar_url")
                        json.string("https://cdn.example.com/avatars/\(index)/\(random.token(16)).png")
                        json.key("is_active")
                        json.bool(index % 9 != 0)
                        json.key("is_verified")
                        json.bool(index % 3 == 0)
                        json.key("role")
                        json.string(["member", "admin", "owner", "guest"][index % 4])
                        json.key("score")
                        json.number(String(Double(random.below(1_000_000)) / 1_000))
                        json.key("followers_count")
                        json.number(String(random.below(100_000)))
                        json.key("following_count")
                        json.number(String(random.below(5_000)))
                        json.key("created_at")
                        json.string(random.isoDate(year: 2018))
                        json.key("updated_at")
                        json.string(random.isoDate(year: 2025))
                        json.key("last_login_at")
                        json.string(index % 5 == 0 ? nil : random.isoDate(year: 2026))
                        json.key("address")
                        json.object {
                            json.key("street")
                            json.string("\(1 + random.below(999)) \(random.word().capitalized) Street")
                            json.key("city")
                            json.string(random.word().capitalized)
                            json.key("postal_code")
                            json.string(String(10_000 + random.below(89_999)))
                            json.key("country_code")
                            json.string(["GB", "FR", "JP", "US", "DE"][index % 5])
                            json.key("latitude")
                            json.number(String(Double(random.below(180_000_000)) / 1e6 - 90))
                            json.key("longitude")
                            json.number(String(Double(random.below(360_000_000)) / 1e6 - 180))
                        }
                        json.key("tags")
                        json.array {
                            for _ in 0..<random.below(5) {
                                json.separator()
                                json.string(random.word())
                            }
                        }
                        json.key("preferences")
                        json.object {
                            json.key("theme")
                            json.string(index % 2 == 0 ? "dark" : "light")
                            json.key("language")
                            json.string(["en", "fr", "ja"][index % 3])
                            json.key("email_notifications")
                            json.bool(index % 2 == 1)
                            json.key("push_notifications")
                            json.bool(index % 3 == 1)
                            json.key("timezone")
                            json.string(["Europe/London", "Europe/Paris", "Asia/Tokyo"][index % 3])
                        }
                    }
                }
            }
            json.key("meta")
            json.object {
                json.key("page")
                json.number("1")
                json.key("per_page")
                json.number("1000")
                json.key("total")
                json.number("48213")
                json.key("next_cursor")
                json.string("eyJpZCI6MTAwOTk5fQ==")
            }
        }
        return json.data
    }

    /// An order of a few items: about 1 KB.
    static func generateOrder() -> Data {
        var random = SplitMix64(seed: 5)
        let json = JSONText()
        json.object {
            json.key("id")
            json.number("84213")
            json.key("status")
            json.string("paid")
            json.key("customer")
            json.object {
                json.key("id")
                json.number("1207")
                json.key("name")
                json.string("Ada Lovelace")
                json.key("email")
                json.string("ada@example.com")
            }
            json.key("items")
            json.array {
                for index in 0..<9 {
                    json.separator()
                    json.object {
                        json.key("sku")
                        json.string("SKU-\(10_000 + index)-\(random.token(4))")
                        json.key("name")
                        json.string(random.text(words: 4, japanese: false))
                        json.key("quantity")
                        json.number(String(1 + random.below(5)))
                        json.key("price")
                        json.number(String(Double(random.below(100_000)) / 100))
                    }
                }
            }
            json.key("total")
            json.number("1234.5")
            json.key("currency")
            json.string("EUR")
            json.key("note")
            json.string("Leave at the door, please.")
            json.key("paid")
            json.bool(true)
            json.key("placed_at")
            json.number("1767225600.25")
        }
        return json.data
    }
}
