#if canImport(Glibc)
import Glibc
#endif

let code = CommandLineTool.run(Array(CommandLine.arguments.dropFirst()), commands: CommandRegistry.all)
exit(code.rawValue)
