//! Scheduled commands: crontab and at. What they schedule runs later, out of sight: installing a
//! crontab from a file or standard input cannot be checked here (asks), `crontab -r` removes
//! every job (dangerous), and `at` reads the commands it schedules from its standard input (they
//! are analysed as typed when they are literal).

use super::args::Call;
use super::common::has_flag;
use super::spec::Spec;
use super::verdict::{Payload, Shape, Verdict};

pub const SPECS: &[Spec] = &[
    Spec {
        names: &["crontab"],
        family: "cron",
        text: "@opaque
               @read-only
               -u USER
               -l
               -e
               -r
               -i
               -n
               -h
               -T
               -s
               -c",
        hook: Some(crontab),
    },
    Spec {
        names: &["at", "batch"],
        family: "cron",
        text: "@operands args
               -V
               -q QUEUE
               -f FILE : unprovable schedules commands from a file, which cannot be checked here
               -u USER
               -m
               -M
               -l
               -r
               -d
               -b
               -v
               -k
               -c
               -t TIME
               -o FORMAT",
        hook: Some(at),
    },
    Spec {
        names: &["atq"],
        family: "cron",
        text: "@read-only
               @operands args
               -V
               -q QUEUE
               -o FORMAT",
        hook: None,
    },
    Spec {
        names: &["atrm"],
        family: "cron",
        text: "@operands args
               -V",
        hook: Some(atrm),
    },
];

/// `crontab -l [-u USER]` and nothing else: a file argument installs a new crontab, `-r` removes
/// it, `-e` edits it, whatever else stands beside the `-l`.
fn lists_only(args: &[String]) -> bool {
    let mut lists = false;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "-l" => lists = true,
            "-u" if rest.next().is_some() => {}
            _ => return false,
        }
    }
    lists
}

fn crontab(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    let display = call.display();
    if lists_only(args) {
        return;
    }
    verdict.not_read_only(format!(
        "`{display}` is not read-only with these arguments (plan mode allows only reading forms)"
    ));
    if args
        .iter()
        .any(|arg| arg.starts_with('-') && !arg.starts_with("--") && arg.contains('r'))
    {
        verdict.dangerous(&display, "removes the whole crontab");
    }
    let mut installs = false;
    let mut index = 0;
    while let Some(arg) = args.get(index) {
        if arg == "-u" {
            index += 2;
            continue;
        }
        installs |= arg == "-" || !arg.starts_with('-');
        index += 1;
    }
    if installs {
        verdict.shape = Shape::Unprovable(
            "`crontab` installs commands from a file or standard input that run later; they cannot be checked here"
                .to_owned(),
        );
    }
}

fn at(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    verdict.not_read_only(format!("`{}` schedules commands", call.display()));
    let other = has_flag(args, 'f', "")
        || has_flag(args, 'l', "")
        || has_flag(args, 'r', "")
        || has_flag(args, 'd', "")
        || has_flag(args, 'c', "");
    if has_flag(args, 'f', "") {
        verdict.unprovable(
            "`at -f FILE` schedules commands from a file, which cannot be checked here",
        );
    }
    if !other {
        verdict.shape = Shape::Shell {
            payload: Payload::Stdin,
        };
    }
}

fn atrm(call: &Call<'_>, verdict: &mut Verdict) {
    if call.name == "atrm" {
        verdict.not_read_only(format!("`{}` removes scheduled jobs", call.display()));
    }
}
