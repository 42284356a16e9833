//! The policy's invariants on arbitrary input, shared by the cargo-fuzz target
//! (fuzz/fuzz_targets/analyse.rs), the stable runner CI uses (crates/core/examples/policy_fuzz.rs,
//! run by scripts/fuzz.sh) and the property tests (crates/core/tests/policy_props.rs):
//!
//! 1. Planted payloads, judged without the analysis: the generator puts a payload whose danger it
//!    knows ([`PAYLOADS`]: a forbidden `rm -rf /`, a write to /etc/ssh/sshd_config, `mkfs`, …)
//!    where the shell certainly runs it — first on the line, through wrappers that still run it
//!    ([`wrap`]), the input after it — and the decision must say what the generator knows: a
//!    forbidden program is denied in every mode, also typed as send_input; anything else on the
//!    list is never allowed.
//! 2. The decision agrees with the analysis: an allowed line has no unprovable part and no reason
//!    that must ask, and a forbidden program the analysis found is denied. This catches `decide`
//!    and `analyse` disagreeing; an analysis that misses something agrees with itself, which is
//!    what 1 is for.
//! 3. The analysis never panics and never hangs (the runners time each input).
//!
//! Only text is judged: a command reaches the policy as a string (JSON from the model), so bytes
//! that are not UTF-8 are [`Verdict::NotText`], never counted as passed.
//!
//! What a line is known to do must never be taken from the analysis these invariants check.

// Each of the three runners uses its own part of this file.
#![allow(dead_code)]

use kaiport_core::policy::rules::first_loose_match;
use kaiport_core::policy::{CallFacts, Decision, PolicyContext, analyse, decide, must_ask_reasons};
use kaiport_protocol::{ConnectionSettings, Mode, TabKind};

pub const MODES: [Mode; 3] = [Mode::Ask, Mode::Autopilot, Mode::Plan];

/// The connection every invariant is checked on.
pub fn settings() -> ConnectionSettings {
    ConnectionSettings {
        forbidden_commands: vec!["rm".to_owned(), "shutdown".to_owned()],
        allowed_commands: ["ls", "echo", "cat", "git", "docker", "awk", "grep"]
            .iter()
            .map(|name| (*name).to_owned())
            .collect(),
        ..ConnectionSettings::default()
    }
}

/// What the generator knows about a payload, whatever the analysis makes of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Known {
    /// Runs a program on [`settings`]' forbidden list: denied in every mode.
    Forbidden,
    /// Can lock the user out or destroy data: never allowed (asked, or denied in plan mode).
    NeverAllowed,
}

/// Payloads with what they are known to be. Each is one simple command, so every wrapper of
/// [`wrap`] can go around it.
pub const PAYLOADS: &[(&str, Known)] = &[
    ("rm -rf /", Known::Forbidden),
    ("rm -f /etc/passwd", Known::Forbidden),
    ("shutdown -h now", Known::Forbidden),
    (
        "echo 'PermitRootLogin yes' >> /etc/ssh/sshd_config",
        Known::NeverAllowed,
    ),
    ("tee /etc/ssh/sshd_config", Known::NeverAllowed),
    ("sed -i s/yes/no/ /etc/ssh/sshd_config", Known::NeverAllowed),
    ("chmod 000 /etc/ssh/sshd_config", Known::NeverAllowed),
    ("cp /tmp/x /root/.ssh/authorized_keys", Known::NeverAllowed),
    ("mkfs.ext4 /dev/sda", Known::NeverAllowed),
    ("dd if=/dev/zero of=/dev/sda", Known::NeverAllowed),
    ("iptables -F", Known::NeverAllowed),
];

/// What may come between the planted payload and the rest of the line: with each, the shell
/// has run (or is running) the payload before it reads anything after it.
pub const SEPARATORS: &[&str] = &["; ", " && ", " || ", " | ", " & ", "\n", " |& "];

/// `'…'` quoting for a payload.
pub fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// How many wrapper numbers [`wrap`] knows (higher numbers wrap nothing).
pub const WRAPPERS: usize = 46;

/// One way to run `command` so that it still runs: the new line, and whether it is still one
/// simple command (a wrapper such as `sudo` can only go around one of those; `bash -c` takes any
/// text). `None` when this wrapper does not fit.
pub fn wrap(wrapper: usize, command: &str, simple: bool) -> Option<(String, bool)> {
    let plain = !command.contains([
        '"', '\\', '\'', '`', '$', '%', '\n', ';', '|', '&', '<', '>',
    ]);
    let prefix = |prefix: &str| simple.then(|| (format!("{prefix} {command}"), true));
    let script = |line: String| Some((line, true));
    let statement = |line: String| Some((line, false));
    match wrapper {
        0 => prefix("sudo"),
        1 => prefix("sudo -u bob --"),
        2 => prefix("env X=1"),
        3 => prefix("nice -n 5"),
        4 => prefix("timeout 5"),
        5 => prefix("nohup"),
        6 => prefix("command"),
        7 => prefix("stdbuf -oL"),
        8 => prefix("xargs"),
        9 => simple.then(|| (format!("find . -exec {command} \\;"), true)),
        10 => script(format!("bash -c {}", quote(command))),
        11 => script(format!("sh -c {}", quote(command))),
        // The space: `$((` would start arithmetic, which runs nothing.
        12 => script(format!("echo $( {command})")),
        13 if !command.contains('`') => script(format!("echo `{command}`")),
        14 => script(format!("eval {}", quote(command))),
        15 => script(format!("ssh host {}", quote(command))),
        16 => script(format!(
            "git -c alias.x={} x",
            quote(&format!("!{command}"))
        )),
        17 => script(format!("git -c core.pager={} log", quote(command))),
        18 if plain => script(format!("awk 'BEGIN{{system(\"{command}\")}}'")),
        19 => prefix("docker exec web"),
        20 => prefix("kubectl exec pod --"),
        21 => script(format!("vim -c {} f", quote(&format!(":!{command}")))),
        22 => script(format!("less {} f", quote(&format!("+!{command}")))),
        23 => script(format!("tar -xf a.tar --to-command={}", quote(command))),
        24 => script(format!("rsync -e {} a b:", quote(command))),
        25 => script(format!("env -S {}", quote(command))),
        26 => simple.then(|| (format!("parallel {command} ::: a"), true)),
        27 => prefix("nsenter -t 1 -m"),
        28 => prefix("setsid"),
        29 => prefix("flock /tmp/l"),
        30 => prefix("chroot /mnt"),
        31 => simple.then(|| (format!("coproc {command}"), false)),
        32 => statement(format!("( {command} )")),
        33 => statement(format!("{{ {command}; }}")),
        34 => statement(format!("if true; then {command}; fi")),
        35 => statement(format!("for i in 1; do {command}; done")),
        36 => statement(format!("cat <<EOF\n$( {command})\nEOF\n")),
        37 => script(format!("cat <( {command})")),
        38 if plain => statement(format!("printf {} > s.sh; bash s.sh", quote(command))),
        39 if plain => statement(format!("echo {command} > s.sh; . ./s.sh")),
        40 if plain => script(format!("python3 -c 'import os; os.system(\"{command}\")'")),
        41 if !command.contains('\n') => {
            script(format!("sed -n {} f", quote(&format!("1e {command}"))))
        }
        42 => script(format!(
            "apt-get -o DPkg::Pre-Invoke={} install x",
            quote(command)
        )),
        43 => prefix("unshare -r"),
        44 => prefix("builtin command"),
        45 => script(format!("watch {}", quote(command))),
        _ => None,
    }
}

/// `command` (one simple command) through each of `wrappers` in turn, skipping those that do
/// not fit.
pub fn wrapped(command: &str, wrappers: &[usize]) -> String {
    let mut command = command.to_owned();
    let mut simple = true;
    for &wrapper in wrappers {
        if let Some((line, still_simple)) = wrap(wrapper, &command, simple) {
            command = line;
            simple = still_simple;
        }
    }
    command
}

/// Payload `payload` of [`PAYLOADS`] through `wrappers`, first on a line that goes on with
/// `separator` of [`SEPARATORS`] and `rest` (any text: the shell has run the payload before it
/// reads the rest). Indexes wrap around.
pub fn planted(
    payload: usize,
    wrappers: &[usize],
    separator: usize,
    rest: &str,
) -> (String, Known) {
    let (command, known) = PAYLOADS[payload % PAYLOADS.len()];
    let separator = SEPARATORS[separator % SEPARATORS.len()];
    (
        format!("{}{separator}{rest}", wrapped(command, wrappers)),
        known,
    )
}

fn judge(facts: CallFacts, mode: Mode, settings: &ConnectionSettings) -> Decision {
    decide(
        &facts,
        PolicyContext::new(mode, settings, TabKind::Terminal),
    )
}

/// The decisions for a line the generator built knowing it is `known`: as run_command and as
/// send_input, in every mode.
pub fn judged_as_known(
    line: &str,
    known: Known,
    settings: &ConnectionSettings,
) -> Result<(), String> {
    for mode in MODES {
        for (how, facts) in [
            (
                "run_command",
                CallFacts::Command {
                    line: line.to_owned(),
                },
            ),
            (
                "send_input",
                CallFacts::TerminalInput {
                    text: format!("{line}\r"),
                },
            ),
        ] {
            let decision = judge(facts, mode, settings);
            let right = match known {
                Known::Forbidden => denied_or_stopped(&decision),
                Known::NeverAllowed => !matches!(decision, Decision::Allow { .. }),
            };
            if !right {
                return Err(format!(
                    "{line:?} is known {known:?}, but {how} in {mode:?} gave {decision:?}"
                ));
            }
        }
    }
    Ok(())
}

/// Invariant 2 for one line: the decision agrees with the analysis.
pub fn agrees_with_analysis(line: &str, settings: &ConnectionSettings) -> Result<(), String> {
    let analysis = analyse(line);
    let (must_ask, _) = must_ask_reasons(&analysis, settings);
    let forbidden = analysis
        .commands
        .iter()
        .find(|command| first_loose_match(command, &settings.forbidden_commands).is_some());
    for mode in MODES {
        let decision = judge(
            CallFacts::Command {
                line: line.to_owned(),
            },
            mode,
            settings,
        );
        if matches!(decision, Decision::Allow { .. })
            && (!analysis.unprovable.is_empty() || !must_ask.is_empty())
        {
            return Err(format!(
                "{line:?} allowed in {mode:?} with {:?} / {must_ask:?}",
                analysis.unprovable
            ));
        }
        // Typed into the terminal, the same text is judged the same way (parse errors aside).
        let input = judge(
            CallFacts::TerminalInput {
                text: line.to_owned(),
            },
            mode,
            settings,
        );
        for (how, decision) in [("run_command", &decision), ("send_input", &input)] {
            if let Some(command) = forbidden
                && !denied_or_stopped(decision)
            {
                return Err(format!(
                    "{line:?}: `{}` is forbidden but {how} in {mode:?} gave {decision:?}",
                    command.display()
                ));
            }
        }
    }
    Ok(())
}

/// FNV-1a: picks the planted payload from the input itself, so an input always checks the
/// same line and a fuzzer's mutations reach every payload, wrapper and separator.
fn fingerprint(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Every invariant for one text: 2 on the text itself, 1 on the text after a payload planted
/// in front of it.
pub fn check_text(text: &str) -> Result<(), String> {
    let settings = settings();
    agrees_with_analysis(text, &settings)?;
    let pick = fingerprint(text);
    let field = |shift: u32, bound: usize| ((pick >> shift) % bound as u64) as usize;
    // Up to two wrappers; numbers past WRAPPERS leave the payload bare.
    let wrappers = [field(16, WRAPPERS + 8), field(24, WRAPPERS + 8)];
    let wrappers = &wrappers[..field(32, 3)];
    let (line, known) = planted(field(0, PAYLOADS.len()), wrappers, field(8, 64), text);
    judged_as_known(&line, known, &settings)
}

/// What one input came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Passed,
    /// Not UTF-8: no command can be this, so nothing was checked.
    NotText,
    /// An invariant broke: which, and on what line.
    Broken(String),
}

/// Check one input.
pub fn check(data: &[u8]) -> Verdict {
    let Ok(text) = std::str::from_utf8(data) else {
        return Verdict::NotText;
    };
    match check_text(text) {
        Ok(()) => Verdict::Passed,
        Err(broken) => Verdict::Broken(broken),
    }
}

/// Denied, or asked because the analysis stopped: at its work budget ("too complex"), or before
/// it began (a line longer than it reads). The parse budget counts work, so the analysis inside
/// `decide` stops where the one before it did; only its one-second fuse (malformed input whose
/// error recovery takes that long) can stop one and not the other, and asking is safe.
pub fn denied_or_stopped(decision: &Decision) -> bool {
    match decision {
        Decision::Deny { .. } => true,
        Decision::Ask { reasons, .. } => reasons.iter().any(|reason| {
            reason.contains("too complex to analyse") || reason.contains("was not analysed")
        }),
        Decision::Allow { .. } => false,
    }
}
