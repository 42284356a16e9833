mod storage_cli;
mod tool_cli;
