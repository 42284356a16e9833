//! `kaiport-model-server SCRIPT.json`: run the scripted model server by hand on 127.0.0.1 (see
//! `kaiport_tests::model_server`). Prints the base URLs, serves until Enter is pressed, then
//! prints every request it got (as JSON lines) and any failed expectations.

use anyhow::{Context, Result, bail};
use kaiport_tests::model_server::ModelServer;
use std::io::BufRead;

fn main() -> Result<()> {
    let Some(path) = std::env::args().nth(1) else {
        bail!("usage: kaiport-model-server SCRIPT.json");
    };
    let text = std::fs::read_to_string(&path).with_context(|| format!("reading {path}"))?;
    let server =
        ModelServer::from_json(serde_json::from_str(&text).context("SCRIPT is not JSON")?)?;
    println!(
        "anthropic: --provider anthropic --base-url {}",
        server.anthropic_url()
    );
    println!(
        "openai:    --provider openai --base-url {}",
        server.openai_url()
    );
    println!("press Enter to stop");
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    for request in server.requests() {
        println!(
            "{}",
            serde_json::json!({"protocol": request.protocol, "path": request.path, "auth_ok": request.auth_ok, "body": request.body})
        );
    }
    for failure in server.failures() {
        println!("FAILED: {failure}");
    }
    Ok(())
}
