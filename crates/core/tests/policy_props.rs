//! Property tests of the command analysis and the policy, with the invariants the fuzz target
//! checks (fuzz/invariants.rs, included below):
//!
//! 1. A payload whose danger the generator knows (a forbidden `rm -rf /`, a write to
//!    /etc/ssh/sshd_config, …), planted where the shell certainly runs it, is judged as the
//!    generator knows it: forbidden denied in every mode, the rest never allowed. The generated
//!    text goes after it, so this holds whatever the text is.
//! 2. The decision agrees with the analysis: an allowed line has no unprovable part and no reason
//!    that must ask, and a forbidden program the analysis found is denied.
//!
//! The generator reaches a forbidden program through wrappers (sudo, env, nice, timeout, xargs,
//! find -exec, bash -c, sh -c, `$( )`, backticks, eval, ssh host, git alias and pager, awk
//! system(), docker exec, kubectl exec, vim -c, less +!, tar --to-command, rsync -e, env -S,
//! parallel, nsenter, …), spellings (`\rm`, `'r'm`, `/bin/r[m]`, `r\⏎m`, `{rm,-f}`) and shell
//! forms (coproc, here-documents, scripts the line writes and runs, copies of the program), and
//! every such line must be denied.
//!
//! 3. An allowed program with an option from its own `--help` or manual page (every source the
//!    spec test checks: tests/support/sources.rs) and a payload (`sh
//!    -c id`, a path under /etc/ssh): either its spec knows the option and the decision follows
//!    the option's class (one that runs, deletes or is dangerous never allows; one that writes
//!    never allows a write to /etc/ssh), or the answer is ask.
//!
//! Speed is measured by the policy benchmark (benches/policy.rs); here only a generous hang guard
//! remains, so a busy shared machine cannot fail a test that is about correctness.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../../fuzz/invariants.rs"]
mod invariants;
mod support;

use invariants::{
    MODES, PAYLOADS, SEPARATORS, WRAPPERS, agrees_with_analysis, check_text, judged_as_known,
    planted, settings, wrapped,
};
use kaiport_core::policy::programs::model::{Arity, Class};
use kaiport_core::policy::programs::{is_complete, option_class};
use kaiport_core::policy::{CallFacts, Decision, PolicyContext, analyse, decide};
use kaiport_protocol::{ConnectionSettings, Mode, TabKind};
use proptest::prelude::*;
use std::collections::HashSet;
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use support::help::{installed, listed_options};
use support::sources::{sources, texts};

/// Far above any real analysis (BENCHMARKS.md: well under a millisecond); only a hang fails it.
const HANG_GUARD: Duration = Duration::from_secs(10);

fn decision(line: &str, mode: Mode, settings: &ConnectionSettings) -> Decision {
    let facts = CallFacts::Command {
        line: line.to_owned(),
    };
    decide(
        &facts,
        PolicyContext::new(mode, settings, TabKind::Terminal),
    )
}

/// Both invariants for `text`: 2 on the text itself, 1 on the text after the payload `payload`
/// of [`PAYLOADS`] through `wrappers`, then separator `separator`.
fn check_invariants(
    text: &str,
    (payload, wrappers, separator): (usize, Vec<usize>, usize),
) -> Result<(), String> {
    let settings = settings();
    let started = Instant::now();
    agrees_with_analysis(text, &settings)?;
    if started.elapsed() > HANG_GUARD {
        return Err(format!("analysis took {:?}", started.elapsed()));
    }
    let (line, known) = planted(payload, &wrappers, separator, text);
    judged_as_known(&line, known, &settings)
}

/// Which payload to plant, through which wrappers (numbers past [`WRAPPERS`] wrap nothing), after
/// which separator.
fn plant() -> impl Strategy<Value = (usize, Vec<usize>, usize)> {
    (
        0..PAYLOADS.len(),
        proptest::collection::vec(0..WRAPPERS + 4, 0..3),
        0..SEPARATORS.len(),
    )
}

fn shellish() -> impl Strategy<Value = String> {
    // Mostly shell syntax, so the parser sees deep and broken structures, not just words.
    proptest::collection::vec(
        prop_oneof![
            Just("rm".to_owned()),
            Just("sudo".to_owned()),
            Just("bash -c".to_owned()),
            Just("$(".to_owned()),
            Just("`".to_owned()),
            Just("<<EOF\n".to_owned()),
            Just("EOF\n".to_owned()),
            Just("${x:-".to_owned()),
            Just("find . -exec".to_owned()),
            Just("xargs".to_owned()),
            Just("git -c core.pager=".to_owned()),
            Just("awk 'BEGIN{system(\"".to_owned()),
            Just("coproc".to_owned()),
            Just("\\\n".to_owned()),
            Just("> s.sh; . s.sh".to_owned()),
            Just("cp /bin/rm /tmp/d; /tmp/d".to_owned()),
            Just("{rm,-f}".to_owned()),
            Just("/bin/r[m]".to_owned()),
            Just("ln -s /".to_owned()),
            Just("cd /etc/ssh &&".to_owned()),
            "[ -~\n]{1,6}",
            "[;&|(){}<>'\"\\\\$`*!]{1,3}",
        ],
        0..40,
    )
    .prop_map(|parts| parts.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn arbitrary_text_keeps_the_invariants(line in "\\PC{0,300}", plant in plant()) {
        let result = check_invariants(&line, plant);
        prop_assert!(result.is_ok(), "{line:?}: {result:?}");
    }

    #[test]
    fn shell_like_text_keeps_the_invariants(line in shellish(), plant in plant()) {
        let result = check_invariants(&line, plant);
        prop_assert!(result.is_ok(), "{line:?}: {result:?}");
    }

    /// A forbidden program through up to three wrappers, in any spelling, after any harmless
    /// prefix: always denied, in every mode and typed as input.
    #[test]
    fn forbidden_through_wrappers_is_denied(
        prefix in prop::sample::select(vec!["ls -la", "echo hi", "cat /etc/hosts", "true", "grep -r x .", "df -h", "git log"]),
        separator in prop::sample::select(vec!["; ", " && ", " || ", " | ", " & ", "\n", " |& "]),
        spelling in prop::sample::select(vec![
            "rm", "/bin/rm", "\\rm", "'rm'", "\"rm\"", "r''m", "/usr/bin/../bin/rm", "r\\\nm",
            "/bin/r[m]", "/bin/r?", "{rm,-f}", "shutdown", "/sbin/shutdow[n]",
        ]),
        wrappers in proptest::collection::vec(0..WRAPPERS + 4, 0..4),
        first in any::<bool>(),
    ) {
        let command = wrapped(&format!("{spelling} -f x"), &wrappers);
        let line = if first {
            format!("{command}{separator}{prefix}")
        } else {
            format!("{prefix}{separator}{command}")
        };
        let settings = settings();
        for mode in MODES {
            let decision = decision(&line, mode, &settings);
            prop_assert!(matches!(decision, Decision::Deny { .. }), "{line:?} in {mode:?}: {decision:?}");
        }
        let result = agrees_with_analysis(&line, &settings);
        prop_assert!(result.is_ok(), "{line:?}: {result:?}");
    }

    /// A copy of or link to the forbidden program, run in the same line: denied.
    #[test]
    fn forbidden_program_copied_and_run_is_denied(
        how in prop::sample::select(vec!["cp", "ln -s", "install -m 755", "cp -p", "sudo cp"]),
        source in prop::sample::select(vec!["/bin/rm", "/usr/bin/rm", "/sbin/shutdown"]),
        target in prop::sample::select(vec!["/tmp/d", "./d", "/usr/local/bin/d"]),
        run in prop::sample::select(vec!["{t} x", "sudo {t} x", "env {t} x", "bash -c '{t} x'", "timeout 5 {t} x"]),
        separator in prop::sample::select(vec!["; ", " && ", "\n"]),
    ) {
        let run = run.replace("{t}", target);
        let line = format!("{how} {source} {target}{separator}{run}");
        for mode in MODES {
            let decision = decision(&line, mode, &settings());
            prop_assert!(matches!(decision, Decision::Deny { .. }), "{line:?} in {mode:?}: {decision:?}");
        }
    }
}

#[test]
fn deep_nesting_and_long_lines_end() {
    for line in [
        "(".repeat(20_000),
        format!("{}ls{}", "(".repeat(5_000), ")".repeat(5_000)),
        format!("{}ls{}", "$(".repeat(3_000), ")".repeat(3_000)),
        "bash -c \"".repeat(2_000),
        "{ ".repeat(10_000),
        "a".repeat(200_000),
        "echo x | ".repeat(5_000),
        "\\\n".repeat(20_000),
        "cat <<EOF\n`".repeat(2_000),
        "git -c core.pager='".repeat(2_000),
    ] {
        let started = Instant::now();
        let analysis = analyse(&line);
        assert!(
            started.elapsed() < HANG_GUARD,
            "{} bytes took {:?}",
            line.len(),
            started.elapsed()
        );
        // Whatever it could not follow is reported, never dropped.
        if line.len() > 60_000 || line.contains("((") || line.contains("$($(") {
            assert!(!analysis.unprovable.is_empty(), "{}", &line[..40]);
        }
        check_text(&line).unwrap();
    }
}

/// Cases the generator above found. A file the line runs is checked against everything written
/// to it, not only the last write: a run can come between two writes, and `parallel` reads its
/// words two ways (as a command and as one shell line), each writing the file once. A `$(( … ))`
/// or `(( … ))` that is not arithmetic is a subshell to bash.
#[test]
fn a_run_file_is_checked_against_every_content_written_to_it() {
    let settings = settings();
    for line in [
        "ls -la; parallel bash -c 'printf '\\''/usr/bin/../bin/rm -f x'\\'' > s.sh; bash s.sh' ::: a",
        "printf 'rm -f x' > s.sh; bash s.sh; echo hi > s.sh",
        "printf 'rm -f x' > s.sh; chmod +x s.sh; ./s.sh; : > s.sh",
        "cp /bin/rm d; ./d x; echo hi > d",
        // Not arithmetic, so bash runs it as a subshell in a command substitution.
        "ls -la; echo $(( awk 'BEGIN{system(\"/bin/r[m] -f x\")}' ))",
        "(( rm -f x ))",
    ] {
        for mode in MODES {
            let decision = decision(line, mode, &settings);
            assert!(
                matches!(decision, Decision::Deny { .. }),
                "{line:?} in {mode:?}: {decision:?}"
            );
        }
        agrees_with_analysis(line, &settings).unwrap();
    }
    // Harmless contents are still never allowed (what runs is only known when it runs).
    let line = "printf 'ls' > s.sh; bash s.sh; echo hi > s.sh";
    for mode in MODES {
        let decision = decision(line, mode, &settings);
        assert!(
            !matches!(decision, Decision::Allow { .. }),
            "{line:?} in {mode:?}: {decision:?}"
        );
    }
}

/// The parse budget counts the parser's work, not time: the longest ordinary lines the analysis
/// takes (plain words, quoted words, a pipeline of a thousand commands) are followed to their
/// end on any machine, however loaded, and the same line always gets the same analysis.
#[test]
fn the_longest_ordinary_lines_are_analysed_whole_and_alike() {
    const LONGEST: usize = 64 * 1024;
    for line in [
        format!("echo {}", "word ".repeat((LONGEST - 16) / 5)),
        format!("echo {}", "'a b' \"c d\" ".repeat((LONGEST - 16) / 12)),
        format!("{}true", "echo x | ".repeat(1_000)),
    ] {
        assert!(line.len() <= LONGEST);
        let first = analyse(&line);
        assert!(
            first.unprovable.is_empty(),
            "{}: {:?}",
            &line[..20],
            first.unprovable
        );
        assert_eq!(analyse(&line), first);
    }
}

/// (program, subcommand path, option) from the installed programs' help, read once.
fn help_options() -> &'static [(&'static str, &'static [&'static str], String)] {
    static OPTIONS: OnceLock<Vec<(&'static str, &'static [&'static str], String)>> =
        OnceLock::new();
    OPTIONS.get_or_init(|| {
        let sources = sources();
        let mut all = Vec::new();
        let mut seen = HashSet::new();
        for text in texts() {
            let source = &sources[text.source];
            if !is_complete(source.name()) {
                continue;
            }
            let man = text.command.first() == Some(&"man");
            for option in listed_options(&text.text, man) {
                if source.ignore.contains(&option.as_str())
                    || !seen.insert((source.program, source.path, option.clone()))
                {
                    continue;
                }
                all.push((source.program, source.path, option));
            }
        }
        all
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// An option of an allowed program, with a payload: known and judged by its class, or asked.
    #[test]
    fn an_allowed_program_is_allowed_only_for_its_own_effect(
        pick in any::<prop::sample::Index>(),
        payload in prop::sample::select(vec![
            "'sh -c id'",
            "/etc/ssh/sshd_config",
            "'sh -c \"id > /etc/ssh/sshd_config\"'",
            "/etc/ssh/sshd_config.d/x.conf",
        ]),
        attached in any::<bool>(),
        mode in prop::sample::select(vec![Mode::Ask, Mode::Autopilot]),
    ) {
        let options = help_options();
        prop_assume!(!options.is_empty());
        let (program, path, option) = &options[pick.index(options.len())];
        let result = option_follows_its_class(program, path, option, payload, attached, mode);
        prop_assert!(result.is_ok(), "{result:?}");
    }
}

/// The third property for one option, payload and mode (see the module docs).
fn option_follows_its_class(
    program: &str,
    path: &[&str],
    option: &str,
    payload: &str,
    attached: bool,
    mode: Mode,
) -> Result<(), String> {
    let attach = attached && option.starts_with("--");
    let value = if attach {
        format!("{option}={payload}")
    } else {
        format!("{option} {payload}")
    };
    let mut words = vec![program.to_owned()];
    words.extend(path.iter().map(|word| (*word).to_owned()));
    words.push(value);
    words.push("/tmp/kaiport-prop".to_owned());
    let line = words.join(" ");
    let settings = ConnectionSettings {
        allowed_commands: vec![program.to_owned()],
        ..ConnectionSettings::default()
    };
    let decision = decision(&line, mode, &settings);
    let allowed = matches!(decision, Decision::Allow { .. });
    let asks = match option_class(program, path, option) {
        None => true,
        Some((class, arity)) => {
            let takes_payload = arity == Arity::Value || (arity == Arity::Optional && attach);
            match class {
                Class::Runs(_) => takes_payload,
                Class::Deletes(_)
                | Class::Dangerous(_)
                | Class::Lockout(_)
                | Class::Unprovable(_) => true,
                Class::Writes | Class::WritesInto => takes_payload && payload.starts_with('/'),
                Class::Harmless
                | Class::Judged(_)
                | Class::Reads
                | Class::Network(_)
                | Class::Changes(_) => false,
            }
        }
    };
    if asks && allowed {
        return Err(format!("{line:?} in {mode:?} was allowed: {decision:?}"));
    }
    Ok(())
}

/// The same for every option the installed programs list, every payload, both modes: cheap
/// enough to do whole, so no option is left to chance.
#[test]
fn every_listed_option_of_an_allowed_program_follows_its_class() {
    let mut broken = Vec::new();
    for (program, path, option) in help_options() {
        for payload in ["'sh -c id'", "/etc/ssh/sshd_config"] {
            for attached in [false, true] {
                for mode in [Mode::Ask, Mode::Autopilot] {
                    if let Err(error) =
                        option_follows_its_class(program, path, option, payload, attached, mode)
                    {
                        broken.push(error);
                    }
                }
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn the_help_of_the_installed_programs_gives_options() {
    // Tar is everywhere the suite runs: the third property has options to draw from.
    if installed("tar") {
        assert!(help_options().len() > 100, "{}", help_options().len());
    }
}

/// Found by the planted-payload oracle: tree-sitter-bash paired the backticks of two lines as
/// one substitution, so `iptables -F` lost its `-F` and the line was allowed in autopilot.
#[test]
fn backticks_on_two_lines_are_not_one_substitution() {
    let settings = settings();
    for line in [
        "echo `iptables -F`\n`etimeout 5 cho ls` ",
        "echo `iptables -F`\n`x`",
    ] {
        judged_as_known(line, invariants::Known::NeverAllowed, &settings).unwrap();
        agrees_with_analysis(line, &settings).unwrap();
    }
    judged_as_known(
        "echo `rm -rf /`\n`x`",
        invariants::Known::Forbidden,
        &settings,
    )
    .unwrap();
    // Escaped backticks nest, as in bash: nothing to ask about.
    for line in ["echo `date`", "echo `echo \\`date\\``"] {
        let decision = decision(line, Mode::Autopilot, &settings);
        assert!(
            matches!(decision, Decision::Allow { .. }),
            "{line:?}: {decision:?}"
        );
    }
}
