/// Why a call to the server gave no usable answer.
enum ServerError: Error, Sendable, CustomStringConvertible {
    case timeout(Duration)
    case unreachable(String)
    /// A status other than 200, with the API's error code and message when the body had them.
    case status(Int, code: String?, message: String?)
    case badAnswer(String)

    var description: String {
        switch self {
        case .timeout(let limit): "no answer within \(limit)"
        case .unreachable(let why): "unreachable: \(why)"
        case .status(let status, let code, let message): "HTTP \(status)" + (code.map { " \($0)" } ?? "") + (message.map { ": \($0)" } ?? "")
        case .badAnswer(let why): "unreadable answer: \(why)"
        }
    }

    /// The reason an answer from the cache or the default gives for this error.
    var answerCode: AnswerReason.Code {
        switch self {
        case .timeout: .timeout
        case .unreachable: .unreachable
        case .status: .serverError
        case .badAnswer: .badAnswer
        }
    }
}
