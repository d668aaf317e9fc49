// Parse, run, exit: everything else lives in the commands.
ProcessExit.now(Tool.run(arguments: Array(CommandLine.arguments.dropFirst())))
