mod tool_cli;
mod storage_cli;
