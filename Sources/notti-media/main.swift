import Glibc

// Parse, run, exit: everything else lives in the commands.
exit(Tool.run(arguments: Array(CommandLine.arguments.dropFirst())))
