mod keychain_cli;
mod pilot;
mod policy_cli;
mod storage_cli;
mod tool_cli;
