//! `kaiport-model-server SCRIPT.json`: run the scripted model server by hand on 127.0.0.1 (see
//! `kaiport_tests::model_server`). Prints the base URLs, serves until an empty line (or the end of
//! stdin), then prints every request it got (as JSON lines) and any failed expectations. A line
//! `open NAME` opens the gate NAME (answers held with `after_gate`) and prints `opened NAME`.

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
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        match line.trim().strip_prefix("open ") {
            Some(gate) => {
                server.open_gate(gate.trim());
                println!("opened {}", gate.trim());
            }
            None => break,
        }
    }
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
