import Foundation
import SluiceEndpoints

// The declarative definitions of the dialect table's rows, one per shape.

enum PlainGet: EndpointShape {
    static var definition: Definition<ShapedEndpoint<Self>> { Definition(method: .get, path: "users") }
}

enum ScalarQuery: EndpointShape {
    static var definition: Definition<ShapedEndpoint<Self>> {
        Definition(method: .get, path: "users", parameters: [.query("page", \.page), .query("q", \.q)])
    }
}

enum ArrayQuery: EndpointShape {
    static var definition: Definition<ShapedEndpoint<Self>> {
        Definition(method: .get, path: "users", parameters: [.query("tags", each: \.tags)])
    }
}

enum SegmentPath: EndpointShape {
    static var definition: Definition<ShapedEndpoint<Self>> { Definition(method: .get, path: "files/\(path: \.id)") }
}

enum HeadersGet: EndpointShape {
    static var definition: Definition<ShapedEndpoint<Self>> {
        Definition(
            method: .get,
            path: "users",
            headers: [.accept: .fieldValue(value: "application/json"), "X-Trace": .field(\.trace)]
        )
    }
}

enum TimeoutGet: EndpointShape {
    static var definition: Definition<ShapedEndpoint<Self>> {
        Definition(method: .get, path: "users", timeout: .milliseconds(2_500))
    }
}

enum DeleteWithQuery: EndpointShape {
    static var definition: Definition<ShapedEndpoint<Self>> {
        Definition(method: .delete, path: "users/7", parameters: [.queryValue("force", value: true)])
    }
}

enum HeadWithQuery: EndpointShape {
    static var definition: Definition<ShapedEndpoint<Self>> {
        Definition(method: .head, path: "users", parameters: [.query("page", \.page)])
    }
}

enum FormPost: EndpointShape {
    static var definition: Definition<ShapedEndpoint<Self>> {
        Definition(method: .post, path: "users", parameters: [.form("name", \.q), .form("tags", each: \.tags)])
    }
}

enum SlashPath: EndpointShape {
    static var definition: Definition<ShapedEndpoint<Self>> { Definition(method: .get, path: "/users") }
}

enum Everything: EndpointShape {
    static var definition: Definition<ShapedEndpoint<Self>> {
        Definition(
            method: .get,
            path: "users",
            parameters: [.query("page", \.page), .query("q", \.q), .query("tags", each: \.tags)],
            headers: ["X-Trace": .field(\.trace)],
            timeout: .seconds(30)
        )
    }
}

enum EmptyPost: EndpointShape {
    static var definition: Definition<ShapedEndpoint<Self>> { Definition(method: .post, path: "users") }
}

enum PostBody: BodyShape {
    static var definition: Definition<BodyEndpoint<Self>> { Definition(method: .post, path: "users") }
}

enum PutBody: BodyShape {
    static var definition: Definition<BodyEndpoint<Self>> { Definition(method: .put, path: "users/7") }
}

enum PatchBody: BodyShape {
    static var definition: Definition<BodyEndpoint<Self>> { Definition(method: .patch, path: "users/7") }
}

enum VendorTypeBody: BodyShape {
    static var definition: Definition<BodyEndpoint<Self>> {
        Definition(
            method: .post,
            path: "users",
            headers: [.contentType: .fieldValue(value: "application/vnd.api+json")]
        )
    }
}
