import Foundation
import SluiceEndpoints

/// The rows of the dialect table that send a body, or a method that could carry one.
let bodyRows: [DialectRow] = [
    DialectRow(
        name: "POST with a JSON body",
        plain: { try Row.request("POST", "\(Row.base)/users", headers: Row.jsonType, body: Row.json(Row.ada)) },
        endpoint: .built { try BodyEndpoint<PostBody>(body: Row.ada).build(on: dialectServer) },
        apiDefinition: Row.api(RowAPI(path: "users", method: .POST, encoding: .jsonBody(parameters: Row.ada))),
        repository: .built { try RowEndpoint<UsersPath>(method: .post, body: Row.ada).build() }
    ),
    DialectRow(
        name: "POST with a JSON body from untyped repository parameters",
        plain: { try Row.request("POST", "\(Row.base)/users", headers: Row.jsonType, body: Row.json(Row.ada)) },
        endpoint: .built { try BodyEndpoint<PostBody>(body: Row.ada).build(on: dialectServer) },
        apiDefinition: Row.api(RowAPI(path: "users", method: .POST, encoding: .jsonBody(parameters: Row.ada))),
        repository: .built {
            try RowEndpoint<UsersPath>(method: .post, parameters: ["name": "Ada", "age": 36]).build()
        }
    ),
    DialectRow(
        name: "PUT with a Row.nested JSON body",
        plain: { try Row.request("PUT", "\(Row.base)/users/7", headers: Row.jsonType, body: Row.json(Row.nested)) },
        endpoint: .built { try BodyEndpoint<PutBody>(body: Row.nested).build(on: dialectServer) },
        apiDefinition: Row.api(RowAPI(path: "users/7", method: .PUT, encoding: .jsonBody(parameters: Row.nested))),
        repository: .built { try RowEndpoint<UserPath>(method: .put, body: Row.nested).build() }
    ),
    DialectRow(
        name: "PATCH with an array in the JSON body",
        plain: { try Row.request("PATCH", "\(Row.base)/users/7", headers: Row.jsonType, body: Row.json(Row.tagged)) },
        endpoint: .built { try BodyEndpoint<PatchBody>(body: Row.tagged).build(on: dialectServer) },
        apiDefinition: Row.api(RowAPI(path: "users/7", method: .PATCH, encoding: .jsonBody(parameters: Row.tagged))),
        repository: .built { try RowEndpoint<UserPath>(method: .patch, body: Row.tagged).build() }
    ),
    DialectRow(
        name: "POST with a JSON body and a content type of its own",
        plain: {
            try Row.request(
                "POST",
                "\(Row.base)/users",
                headers: ["Content-Type": "application/vnd.api+json"],
                body: Row.json(Row.ada)
            )
        },
        endpoint: .built { try BodyEndpoint<VendorTypeBody>(body: Row.ada).build(on: dialectServer) },
        apiDefinition: Row.api(
            RowAPI(
                path: "users",
                method: .POST,
                encoding: .jsonBody(parameters: Row.ada),
                headers: ["Content-Type": "application/vnd.api+json"]
            )
        ),
        repository: .built {
            try RowEndpoint<UsersPath>(
                method: .post,
                body: Row.ada,
                headers: ["Content-Type": "application/vnd.api+json"]
            )
            .build()
        }
    ),
    DialectRow(
        name: "POST without a body",
        plain: { try Row.request("POST", "\(Row.base)/users") },
        endpoint: .built { try ShapedEndpoint<EmptyPost>().build(on: dialectServer) },
        apiDefinition: Row.api(RowAPI(path: "users", method: .POST)),
        repository: .built { try RowEndpoint<UsersPath>(method: .post).build() }
    ),
    DialectRow(
        name: "POST with a form body",
        plain: {
            try Row.request(
                "POST",
                "\(Row.base)/users",
                headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Data("name=Ada+Lovelace&tags=a%26b".utf8)
            )
        },
        endpoint: .built {
            try ShapedEndpoint<FormPost>(parameters: RowValues(q: "Ada Lovelace", tags: ["a&b"])).build(
                on: dialectServer
            )
        },
        apiDefinition: .inexpressible("an encoding strategy has no form body"),
        repository: .inexpressible(Row.noForms)
    ),
    DialectRow(
        name: "POST with a multipart body",
        plain: {
            let body =
                "--row-boundary\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\nAt the beach\r\n"
                + "--row-boundary--\r\n"
            return try Row.request(
                "POST",
                "\(Row.base)/avatar",
                headers: ["Content-Type": "multipart/form-data; boundary=row-boundary"],
                body: Data(body.utf8)
            )
        },
        endpoint: .built {
            try MultipartEndpoint(body: MultipartForm([.field("caption", "At the beach")])).build(on: dialectServer)
        },
        apiDefinition: .inexpressible("an encoding strategy has no multipart body"),
        repository: .inexpressible(Row.noForms)
    ),
]
