// A tour of Sluice against a loopback HTTP server started in this process: typed requests through APIClient
// and NetworkRequestPerformer, with what each pipeline stage took.
import Foundation
import Sluice
import SluiceTesting

let server = try LoopbackServer()
Catalog.install(on: server)
let tour = Tour(server: server)
print("Sluice tour: a loopback HTTP server at \(server.baseURL)\n")
await tour.run()
server.stop()
