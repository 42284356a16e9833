mod tool_cli;
