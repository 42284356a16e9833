//! The interactive shell's own memory and keys: the history (`fc`, zsh's `r`, `history`), key
//! bindings (`bind`) and programmable completion (`complete`, `compgen`). The terminal's shell is
//! interactive, so these run what no line shows:
//!
//! - `fc` (but `fc -l`) and `r` run earlier command lines again, edited or as they were
//!   (`fc -s 'echo '=` after `echo rm F` runs `rm F`): unprovable, and a re-run of the history
//!   (denied where the connection forbids commands, see `policy::decide`);
//! - `bind -x`, `bind -f FILE` and a binding given as an argument make keys run or type commands
//!   later (`bind -x '"\C-m":…'` runs on every Enter): unprovable, the `-x` command analysed as
//!   typed;
//! - `compgen -C`/`complete -C` run a command (now or on Tab), `-F` a shell function, and `-W`
//!   expands its word list (running any `$(…)` in it);
//! - `history -w`/`-a` write the history file they are given.

use super::args::Call;
use super::common::run_any;
use super::spec::Spec;
use super::verdict::Verdict;

/// The options `complete` and `compgen` share.
pub const BLOCKS: &[(&str, &str)] = &[(
    "completion",
    "-a
    -b
    -c
    -d
    -e
    -f
    -g
    -j
    -k
    -s
    -u
    -v
    -o OPTION
    -A ACTION
    -G GLOBPAT
    -W WORDLIST
    -F FUNCTION : unprovable runs a shell function, whose body this line does not show
    -C COMMAND : runs *
    -X FILTERPAT
    -P PREFIX
    -S SUFFIX",
)];

pub const SPECS: &[Spec] = &[
    Spec {
        names: &["fc"],
        family: "interactive",
        text: "@read-only
               @numeric
               -e EDITOR
               -l
               -n
               -r
               -s",
        hook: Some(fc),
    },
    Spec {
        names: &["r"],
        family: "interactive",
        text: "@opaque",
        hook: Some(rerun),
    },
    Spec {
        names: &["history"],
        family: "interactive",
        text: "@read-only
               -c : changes clears the history
               -d OFFSET : changes deletes an entry of the history
               -a : changes appends to the history file
               -n
               -r
               -w : changes writes the history file
               -p
               -s : changes adds a line to the history",
        hook: Some(history),
    },
    Spec {
        names: &["bind"],
        family: "interactive",
        text: "@read-only
               -m KEYMAP
               -l
               -p
               -P
               -s
               -S
               -v
               -V
               -X
               -q FUNCTION
               -u FUNCTION : changes unbinds the keys of a readline function
               -r KEYSEQ : changes removes a key binding
               -f FILE : unprovable reads key bindings from a file, which can bind keys to commands
               -x KEYSEQ:COMMAND : unprovable makes a key run a shell command later",
        hook: Some(bind),
    },
    Spec {
        names: &["compgen"],
        family: "interactive",
        text: "@read-only
               @use completion",
        hook: Some(completion),
    },
    Spec {
        names: &["complete"],
        family: "interactive",
        text: "@read-only
               @use completion
               -D
               -E
               -I
               -p
               -r : changes removes completion rules",
        hook: Some(completion),
    },
];

/// Re-runs of the history: unprovable, and marked so the policy can refuse them where commands
/// are forbidden.
fn reruns(call: &Call<'_>, verdict: &mut Verdict, what: &str) {
    verdict.reruns_history = true;
    verdict.unprovable(format!(
        "`{}` {what}; what they run is not in this line",
        call.display()
    ));
    verdict.not_read_only(format!(
        "`{}` runs earlier command lines again (plan mode allows only reading forms)",
        call.display()
    ));
}

fn fc(call: &Call<'_>, verdict: &mut Verdict) {
    if call.has("-l") {
        return;
    }
    if let Some((editor, index)) = call.values("-e").into_iter().last()
        && editor != "-"
    {
        run_any(verdict, editor, "fc -e", Some(index), true);
    }
    reruns(
        call,
        verdict,
        "runs earlier command lines again (history), edited or as they were",
    );
}

/// zsh's `r` (ksh's alias for `fc -e -`): the previous command line again.
fn rerun(call: &Call<'_>, verdict: &mut Verdict) {
    reruns(
        call,
        verdict,
        "runs an earlier command line again (zsh's and ksh's `r`)",
    );
}

fn history(call: &Call<'_>, verdict: &mut Verdict) {
    if call.has("-a") || call.has("-w") {
        let how = if call.has("-a") {
            "history -a"
        } else {
            "history -w"
        };
        match call.operand_texts().first() {
            Some(file) => verdict.output(file, how, false),
            // Without a file, the shell's own (`HISTFILE`).
            None => verdict.output("~/.bash_history", how, false),
        }
    }
}

fn bind(call: &Call<'_>, verdict: &mut Verdict) {
    for (value, index) in call.values("-x") {
        // `"\C-m": command` or `\C-m:command`: the command is analysed as typed.
        let command = match value.find("\":") {
            Some(end) => &value[end + 2..],
            None => value.split_once(':').map_or("", |(_, command)| command),
        };
        let command = command.trim().trim_matches(['"', '\'']);
        if !command.is_empty() {
            verdict.script(command, "bind -x", Some(index), false);
        }
    }
    for binding in call.operand_texts() {
        if binding.trim_start().starts_with("set ") {
            // A readline variable (`set completion-ignore-case on`): runs nothing.
            verdict.not_read_only(format!(
                "`{}` changes readline settings (plan mode allows only reading forms)",
                call.display()
            ));
        } else {
            verdict.unprovable(format!(
                "`bind {binding}` binds a key, which can type a command line and run it later"
            ));
        }
    }
}

fn completion(call: &Call<'_>, verdict: &mut Verdict) {
    for (words, index) in call.values("-W") {
        if words.contains(['$', '`']) {
            verdict.unprovable(format!(
                "`{} -W {words}` expands its word list when it runs, which runs any `$(…)` in it",
                call.name
            ));
            verdict.script(
                &format!(": {words}"),
                format!("{} -W", call.name),
                Some(index),
                false,
            );
        }
    }
    let lists = call.has("-p") || call.args.is_empty();
    if call.name == "complete" && !lists {
        verdict.not_read_only(format!(
            "`{}` changes completion rules (plan mode allows only reading forms)",
            call.display()
        ));
    }
}
