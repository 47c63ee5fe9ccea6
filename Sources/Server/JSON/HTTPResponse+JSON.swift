import ExperimentDefinitions
import HTTPTransport

extension HTTPResponse {
    /// A JSON response from a value.
    static func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, body: JSONWriter.bytes(value))
    }
}
