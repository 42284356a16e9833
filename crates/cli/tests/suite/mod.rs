mod pilot;
mod tool_cli;
