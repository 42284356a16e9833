mod tool_cli;
mod pilot;
