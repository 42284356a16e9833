mod pilot;
mod policy_cli;
mod tool_cli;
