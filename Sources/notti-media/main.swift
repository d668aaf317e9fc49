// Reserve the standard descriptors, parse, run, exit: everything else lives in the commands.
StandardDescriptors.reserve()
ProcessExit.now(Tool.run(arguments: Array(CommandLine.arguments.dropFirst())))
