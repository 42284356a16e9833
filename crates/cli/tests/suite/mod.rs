mod tool_cli;
mod policy_cli;
