import Foundation

// Parse, run, exit: everything else lives in the commands.
Signals.install()
exit(Tool.run(arguments: Array(CommandLine.arguments.dropFirst())))
