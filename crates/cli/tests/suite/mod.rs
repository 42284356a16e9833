mod cli_edges;
mod keychain_cli;
mod pilot;
mod policy_cli;
mod secrets_log;
mod sftp_keys_cli;
mod storage_cli;
mod tool_cli;
