//! A network namespace of the test's own, joined to this one by a veth pair: a server inside it
//! ([`crate::sshd::Sshd::start_in`]) is reached over a link the test can cut
//! ([`TestNet::link`]), as a dropped network would. Needs root (`ip netns`); the addresses are
//! a /30 of 10.213.0.0/16 that exists only between the pair. Removed on drop.

use anyhow::{Context, Result, bail};
use std::process::Command;

pub struct TestNet {
    /// The namespace's name (for `ip netns exec`).
    pub name: String,
    /// This side's end of the pair.
    host_link: String,
    /// The address of the namespace's end, where its servers listen.
    pub inner_addr: String,
}

fn ip(args: &[&str]) -> Result<()> {
    let output = Command::new("ip")
        .args(args)
        .output()
        .context("running ip (iproute2)")?;
    if !output.status.success() {
        bail!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(())
}

impl TestNet {
    /// A namespace named after this process, with its link up.
    pub fn create() -> Result<TestNet> {
        let pid = std::process::id();
        // One /30 per process: nextest runs every test in its own.
        let slot = pid % 16_000;
        let (third, fourth) = (slot / 64, (slot % 64) * 4);
        let name = format!("kpnet{pid}");
        let net = TestNet {
            host_link: format!("kpv{pid}h"),
            inner_addr: format!("10.213.{third}.{}", fourth + 2),
            name,
        };
        let inner_link = format!("kpv{pid}n");
        let host_addr = format!("10.213.{third}.{}/30", fourth + 1);
        let inner_cidr = format!("{}/30", net.inner_addr);
        ip(&["netns", "add", &net.name])?;
        // From here on, drop removes what was made.
        ip(&[
            "link",
            "add",
            &net.host_link,
            "type",
            "veth",
            "peer",
            "name",
            &inner_link,
        ])?;
        ip(&["link", "set", &inner_link, "netns", &net.name])?;
        ip(&["addr", "add", &host_addr, "dev", &net.host_link])?;
        ip(&["link", "set", &net.host_link, "up"])?;
        let inside = |args: &[&str]| {
            let mut all = vec!["netns", "exec", net.name.as_str(), "ip"];
            all.extend_from_slice(args);
            ip(&all)
        };
        inside(&["addr", "add", &inner_cidr, "dev", &inner_link])?;
        inside(&["link", "set", &inner_link, "up"])?;
        inside(&["link", "set", "lo", "up"])?;
        Ok(net)
    }

    /// Cuts (`false`) or restores (`true`) the link to the namespace.
    pub fn link(&self, up: bool) -> Result<()> {
        ip(&[
            "link",
            "set",
            &self.host_link,
            if up { "up" } else { "down" },
        ])
    }
}

impl Drop for TestNet {
    fn drop(&mut self) {
        // The pair goes with the namespace; this side's end too, should it be left.
        let _ = ip(&["netns", "del", &self.name]);
        let _ = ip(&["link", "del", &self.host_link]);
    }
}
