//! Shell integration snippets: small shell code that makes bash, zsh and fish print OSC 133 marks
//! (`A` prompt start, `B` prompt end, `C` output start, `D;$?` finished) around every command,
//! and POSIX shells (dash, busybox ash, ksh, mksh) all of them but `C`, through `PS1` alone.
//!
//! How injection works (the terminal drives it, this module only provides the text):
//! 1. [`PROBE_LINE`] is typed with a leading space while the terminal hides the shell's output
//!    from the user and the mirror. It is valid in bash, zsh, fish and POSIX sh (undefined
//!    variables expand to nothing in all of them) and prints `__kp:<fish>:<bash>:<zsh>:<$0>:`;
//!    [`parse_probe`] reads which one answered. A shell that sets none of the three versions but
//!    names itself in `$0` is a POSIX sh (fish and PowerShell leave `$0` empty). csh and cmd.exe
//!    do not answer at all and get no snippet.
//! 2. The snippet for that shell is typed the same hidden way, as one line with a leading space.
//!    Each snippet is idempotent (a second injection does nothing), keeps `$?` / `$status` for
//!    the user's own prompt code, and only wraps the existing prompt in zero-width marks, so the
//!    prompt looks the same.
//! 3. History: bash deletes its own line and the probe from the history list (`history -d`,
//!    only entries containing `__kp`, so `HISTCONTROL=ignorespace` is handled too); zsh switches
//!    to a fresh history list re-read from `$HISTFILE` (`fc -p`), which drops the two in-memory
//!    lines; fish never records lines that start with a space.
//!
//! bash, zsh and fish also report the current folder as OSC 7 (`ESC ] 7 ; file://HOST/PATH BEL`,
//! the path percent-encoded byte by byte), printed in the same write right after an
//! authentic mark (`D` in bash and zsh, `A` in fish): only there does the terminal believe it,
//! never after `C`, which the command's own output follows (see [`super::marks`]). POSIX
//! shells get none (their marks live in `PS1`, which cannot encode).
//!
//! These snippets must never print anything visible, change the prompt's look, or change the
//! user's shell options.
//!
//! **Every mark carries the session secret** (`;kp=<secret>`, see [`super::marks`]): output that
//! prints OSC 133 marks of its own cannot end a command. [`snippet`] puts the secret into the
//! text; the secret is hex only, so it needs no quoting in any of the shells. It lives in the
//! shell's memory (prompt variables, function bodies) and in no file: the line that carries it is
//! typed hidden (never shown, not in the mirror or history the model reads) and removed from the
//! shell's history as described above. What the model is given is scrubbed of it as well
//! ([`super::Terminal`]), so it can only be learnt by commands that transform it on purpose —
//! the guard is against output (files, programs) faking marks, not against a command line the
//! policy already let run.

/// A shell we have an integration snippet for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellKind {
    Bash,
    Zsh,
    Fish,
    /// A POSIX shell (dash, busybox ash, ksh, mksh): marks from `PS1`, which these shells expand
    /// at every prompt, so `$?` there is the status of the command that just ran. There is no
    /// hook before a command runs, so no `C` mark: the output starts after the echoed line.
    Sh,
}

impl ShellKind {
    pub fn name(self) -> &'static str {
        match self {
            ShellKind::Bash => "bash",
            ShellKind::Zsh => "zsh",
            ShellKind::Fish => "fish",
            ShellKind::Sh => "sh",
        }
    }
}

/// The detection probe (typed after a leading space). Prints `__kp:<fish>:<bash>:<zsh>:<$0>:`.
pub const PROBE_LINE: &str = r#"echo "__kp:$FISH_VERSION:$BASH_VERSION:$ZSH_VERSION:$0:""#;

/// Which shell answered the probe, from the rendered output lines of the probe. The echoed probe
/// line itself contains `$` signs and is never mistaken for the answer.
pub fn parse_probe(text: &str) -> Option<ShellKind> {
    text.lines().find_map(|line| {
        let start = line.find("__kp:")?;
        let fields: Vec<&str> = line[start + "__kp:".len()..].split(':').collect();
        if fields.len() < 5 || fields[..4].iter().any(|f| f.contains('$')) {
            return None;
        }
        if !fields[0].trim().is_empty() {
            Some(ShellKind::Fish)
        } else if !fields[1].trim().is_empty() {
            Some(ShellKind::Bash)
        } else if !fields[2].trim().is_empty() {
            Some(ShellKind::Zsh)
        } else if !fields[3].trim().is_empty() {
            Some(ShellKind::Sh)
        } else {
            None
        }
    })
}

/// Whether the probe answered at all (even with "no shell we know").
pub fn probe_answered(text: &str) -> bool {
    text.lines()
        .any(|line| line.contains("__kp:") && !line.contains('$'))
}

// `NONCE` stands for the session secret in the templates below; [`snippet`] substitutes it.
const NONCE: &str = "@KP_NONCE@";

const BASH: &str = concat!(
    r#"if [ -z "${__kp_installed-}" ]; then __kp_installed=1; "#,
    // First in PROMPT_COMMAND: report the status, then hand it on unchanged.
    // The current folder, percent-encoded byte by byte (C locale) into `__kp_url`.
    r#"__kp_cwd() { local LC_ALL=C p=$PWD c i; __kp_url=; case $p in *[!A-Za-z0-9/._~-]*) for ((i=0; i<${#p}; i++)); do c=${p:i:1}; case $c in [A-Za-z0-9/._~-]) __kp_url+=$c;; *) builtin printf -v c '%%%02X' "'$c"; __kp_url+=$c;; esac; done;; *) __kp_url=$p;; esac; }; "#,
    r#"__kp_pre() { local s=$?; __kp_cwd; builtin printf '\033]133;D;%s;kp=@KP_NONCE@\007\033]7;file://%s%s\007' "$s" "${HOSTNAME-}" "$__kp_url"; return $s; }; "#,
    // Last in PROMPT_COMMAND: (re)wrap PS1 if a prompt theme rebuilt it.
    r#"__kp_post() { local s=$?; case "$PS1" in *'133;A;kp=@KP_NONCE@'*) ;; *) PS1='\[\033]133;A;kp=@KP_NONCE@\007\]'"$PS1"'\[\033]133;B;kp=@KP_NONCE@\007\]';; esac; return $s; }; "#,
    r#"if [[ "$(declare -p PROMPT_COMMAND 2>/dev/null)" == "declare -a"* ]]; then PROMPT_COMMAND=(__kp_pre "${PROMPT_COMMAND[@]}" __kp_post); "#,
    r#"else PROMPT_COMMAND=$'__kp_pre\n'"${PROMPT_COMMAND-}"$'\n__kp_post'; fi; "#,
    r#"PS0="${PS0-}"'\033]133;C;kp=@KP_NONCE@\007'; "#,
    // Our PROMPT_COMMAND names functions a child shell would not have: never export it.
    r#"export -n PROMPT_COMMAND PS0; "#,
    r#"fi; "#,
    // Remove this line and the probe from the history list, if they are there.
    r#"__kp_hist() { local n; n=$(HISTTIMEFORMAT= builtin history 1); case "$n" in *__kp*) n=${n#"${n%%[0-9]*}"}; n=${n%%[!0-9]*}; builtin history -d "$n";; *) return 1;; esac; }; "#,
    r#"__kp_hist && __kp_hist; unset -f __kp_hist"#,
);

const ZSH: &str = concat!(
    r#"if [[ -z "${__kp_installed-}" ]]; then __kp_installed=1; "#,
    r#"__kp_cwd() { emulate -L zsh; local LC_ALL=C p=$PWD c i; REPLY=; if [[ $p != *[^A-Za-z0-9/._~-]* ]]; then REPLY=$p; return; fi; for (( i=1; i<=${#p}; i++ )); do c=${p[i]}; case $c in ([A-Za-z0-9/._~-]) REPLY+=$c;; (*) builtin printf -v c '%%%02X' "'$c"; REPLY+=$c;; esac; done; }; "#,
    r#"__kp_precmd() { local s=$? REPLY; __kp_cwd; builtin printf '\e]133;D;%s;kp=@KP_NONCE@\a\e]7;file://%s%s\a' "$s" "${HOST-}" "$REPLY"; return $s; }; "#,
    r#"__kp_wrap() { local s=$?; if [[ "$PS1" != *'133;A;kp=@KP_NONCE@'* ]]; then PS1=$'%{\e]133;A;kp=@KP_NONCE@\a%}'"$PS1"$'%{\e]133;B;kp=@KP_NONCE@\a%}'; fi; return $s; }; "#,
    r#"__kp_preexec() { builtin print -n "\e]133;C;kp=@KP_NONCE@\a"; }; "#,
    r#"precmd_functions=(__kp_precmd $precmd_functions __kp_wrap); "#,
    r#"preexec_functions=($preexec_functions __kp_preexec); "#,
    r#"fi; "#,
    r#"if [[ -n "${HISTFILE-}" ]]; then fc -p "$HISTFILE" "${HISTSIZE:-1000}" "${SAVEHIST:-0}"; else fc -p; fi"#,
);

const FISH: &str = concat!(
    r#"if not set -q __kp_installed; set -g __kp_installed 1; "#,
    r#"function __kp_postexec --on-event fish_postexec; set -l s $status; printf '\e]133;D;%s;kp=@KP_NONCE@\a' $s; end; "#,
    r#"function __kp_preexec --on-event fish_preexec; printf '\e]133;C;kp=@KP_NONCE@\a'; end; "#,
    r#"function __kp_prompt_start --on-event fish_prompt; printf '\e]133;A;kp=@KP_NONCE@\a\e]7;file://%s%s\a' $hostname (string escape --style=url -- $PWD); end; "#,
    r#"functions -q fish_prompt; and functions -c fish_prompt __kp_orig_prompt; "#,
    r#"function fish_prompt; __kp_orig_prompt; printf '\e]133;B;kp=@KP_NONCE@\a'; end; "#,
    r#"end"#,
);

// `$?` is escaped so that PS1 keeps it and the shell expands it at each prompt; the user's PS1
// is kept as it is, between the marks. Raw ESC/BEL come from printf: POSIX sh has no `$'…'`.
const SH: &str = concat!(
    r#"case "$PS1" in *'133;A;kp=@KP_NONCE@'*) ;; *) __kp_e=$(printf '\033'); __kp_b=$(printf '\007'); "#,
    r#"PS1="${__kp_e}]133;D;\$?;kp=@KP_NONCE@${__kp_b}${__kp_e}]133;A;kp=@KP_NONCE@${__kp_b}${PS1}${__kp_e}]133;B;kp=@KP_NONCE@${__kp_b}"; "#,
    r#"unset __kp_e __kp_b;; esac"#,
);

/// The integration snippet for `shell` whose marks carry `secret`, as one line (type it after a
/// leading space). `secret` must be made of ASCII letters and digits (see [`new_secret`]).
pub fn snippet(shell: ShellKind, secret: &str) -> String {
    let template = match shell {
        ShellKind::Bash => BASH,
        ShellKind::Zsh => ZSH,
        ShellKind::Fish => FISH,
        ShellKind::Sh => SH,
    };
    template.replace(NONCE, secret)
}

/// Whose passthrough the marks need: a shell inside tmux or screen prints them wrapped (DCS,
/// `ESC P tmux; … ESC \\` with every ESC doubled for tmux, `ESC P … ESC \\` for screen), so
/// the multiplexer hands them to kaiport unchanged instead of swallowing them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Passthrough {
    #[default]
    None,
    Tmux,
    Screen,
}

/// [`snippet`] for a shell inside `passthrough`'s multiplexer.
pub fn snippet_for(shell: ShellKind, secret: &str, passthrough: Passthrough) -> String {
    let template = match shell {
        ShellKind::Bash => BASH,
        ShellKind::Zsh => ZSH,
        ShellKind::Fish => FISH,
        ShellKind::Sh => SH,
    };
    if passthrough == Passthrough::None {
        return snippet(shell, secret);
    }
    // ESC as each snippet writes it, and the marks' ends in each quoting the snippet uses; the
    // ST added after a mark's BEL is written for that quoting (a backslash doubled where
    // double or fish single quotes, or bash's prompt decoding, would take it).
    let (esc, ends): (&str, &[(&str, &str)]) = match shell {
        ShellKind::Bash => (r"\033", &[(r"@KP_NONCE@\007", r"@KP_NONCE@\007\033\\")]),
        ShellKind::Zsh => (
            r"\e",
            &[
                ("@KP_NONCE@\\a\"", "@KP_NONCE@\\a\\e\\\\\\\\\""),
                (r"@KP_NONCE@\a%}", r"@KP_NONCE@\a\e\\%}"),
            ],
        ),
        ShellKind::Fish => (r"\e", &[(r"@KP_NONCE@\a'", r"@KP_NONCE@\a\e\\\\'")]),
        ShellKind::Sh => (
            "${__kp_e}",
            &[("@KP_NONCE@${__kp_b}", r"@KP_NONCE@${__kp_b}${__kp_e}\\")],
        ),
    };
    // The OSC 7 that follows a mark goes in the same passthrough, so that it still comes right
    // after the mark's end (only there is it the shell's: marks.rs): its ESC doubled for tmux,
    // the ST after its BEL, none after the mark's.
    let (bel, osc7_end, osc7_wrapped) = match shell {
        ShellKind::Bash => (r"\007", r"file://%s%s\007'", r"file://%s%s\007\033\\'"),
        ShellKind::Zsh => (r"\a", r"file://%s%s\a'", r"file://%s%s\a\e\\'"),
        ShellKind::Fish => (r"\a", r"file://%s%s\a'", r"file://%s%s\a\e\\\\'"),
        ShellKind::Sh => ("", "", ""),
    };
    let (opened, inner_esc) = match passthrough {
        Passthrough::Tmux => (format!("{esc}Ptmux;{esc}{esc}]133;"), format!("{esc}{esc}")),
        _ => (format!("{esc}P{esc}]133;"), esc.to_owned()),
    };
    let mark_then_osc7 = format!("{NONCE}{bel}{esc}]7;");
    let mut text = template
        .replace(&mark_then_osc7, OSC7_AFTER_MARK)
        .replace(&format!("{esc}]133;"), &opened);
    for (end, wrapped) in ends {
        text = text.replace(end, wrapped);
    }
    if shell != ShellKind::Sh {
        text = text
            .replace(OSC7_AFTER_MARK, &format!("{NONCE}{bel}{inner_esc}]7;"))
            .replace(osc7_end, osc7_wrapped);
    }
    if passthrough == Passthrough::Screen {
        for (at, split) in screen_url_split(shell) {
            text = text.replacen(at, split, 1);
        }
    }
    text.push_str(CLEAR_MULTIPLEXER);
    text.replace(NONCE, secret)
}

/// Where a shell's snippet for screen splits its folder's URL, and how: screen drops a control
/// string longer than about 760 bytes and prints the rest of it as text (and the mark before it
/// is lost with it), while a percent-encoded path may be 12 KiB. The URL is cut into pieces of
/// 300 characters, each piece its own passthrough (`ESC \ ESC P` between them): screen hands
/// them on back to back, so the terminal reads one OSC 7. The first piece shares its
/// passthrough with the mark and a host name (at most 64 bytes): well under the limit. The URL
/// is percent-encoded ASCII, so characters are bytes. Each pair is (text in the snippet, the
/// same text with the split).
fn screen_url_split(shell: ShellKind) -> &'static [(&'static str, &'static str)] {
    match shell {
        ShellKind::Bash => &[
            (
                "__kp_pre() {",
                r#"__kp_split() { local u=$__kp_url r=; while ((${#u} > 300)); do r+=${u:0:300}$'\e\\\eP'; u=${u:300}; done; __kp_url=$r$u; }; __kp_pre() {"#,
            ),
            (
                "__kp_cwd; builtin printf",
                "__kp_cwd; __kp_split; builtin printf",
            ),
        ],
        ShellKind::Zsh => &[
            (
                "__kp_precmd() {",
                r#"__kp_split() { emulate -L zsh; local u=$REPLY r=; while (( ${#u} > 300 )); do r+=${u[1,300]}$'\e\\\eP'; u=${u[301,-1]}; done; REPLY=$r$u; }; __kp_precmd() {"#,
            ),
            (
                "__kp_cwd; builtin printf",
                "__kp_cwd; __kp_split; builtin printf",
            ),
        ],
        ShellKind::Fish => &[(
            "(string escape --style=url -- $PWD)",
            r#"(set -l u (string escape --style=url -- $PWD); set -l r ''; while test (string length -- $u) -gt 300; set r $r(string sub -l 300 -- $u)\e\\\eP; set u (string sub -s 301 -- $u); end; printf '%s' $r$u)"#,
        )],
        ShellKind::Sh => &[],
    }
}

/// Ends a snippet typed into a multiplexer's fresh session. The multiplexer keeps what it drew
/// and draws it again for the next connection: the lines typed hidden (the detection probe,
/// this snippet with its secret, and their echoes) are cleared from its screen and history, so
/// the prompt drawn next is at the top, where the tab shows it. `printf` takes `\033` in every
/// shell here (fish's and zsh's builtins, dash's and bash's).
const CLEAR_MULTIPLEXER: &str = r"; printf '\033[H\033[2J\033[3J'";

/// Stands for a mark's end followed by an OSC 7 while [`snippet_for`] wraps the marks.
const OSC7_AFTER_MARK: &str = "@KP_OSC7@";

/// A fresh session secret: 128 random bits as 32 hex digits.
pub fn new_secret() -> String {
    let bits: u128 = rand::random();
    format!("{bits:032x}")
}

#[cfg(test)]
mod tests {
    use super::super::marks;
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn probe_answers() {
        assert_eq!(
            parse_probe("__kp::5.2.15(1)-release::bash:"),
            Some(ShellKind::Bash)
        );
        assert_eq!(parse_probe("x\n__kp:::5.9:zsh:\n"), Some(ShellKind::Zsh));
        assert_eq!(parse_probe("__kp:3.7.1::::"), Some(ShellKind::Fish));
        assert_eq!(parse_probe("__kp::::-sh:"), Some(ShellKind::Sh));
        assert_eq!(parse_probe("__kp:::::"), None);
        assert!(probe_answered("__kp:::::"));
        assert_eq!(parse_probe(&format!("$ {PROBE_LINE}")), None);
        assert!(!probe_answered(&format!("$ {PROBE_LINE}")));
    }

    #[test]
    fn snippets_are_one_line() {
        for shell in [
            ShellKind::Bash,
            ShellKind::Zsh,
            ShellKind::Fish,
            ShellKind::Sh,
        ] {
            let text = snippet(shell, "0123abcd");
            assert!(!text.contains('\n'), "{}", shell.name());
            assert!(text.contains("__kp"), "{}", shell.name());
            assert!(!text.contains(NONCE), "{}", shell.name());
            // Every mark the snippet prints carries the secret.
            assert_eq!(
                text.matches("133;").count(),
                text.matches(";kp=0123abcd").count(),
                "{}: {text}",
                shell.name()
            );
        }
    }

    #[test]
    fn a_snippet_for_a_multiplexer_clears_its_screen_and_history_last() {
        for shell in [
            ShellKind::Bash,
            ShellKind::Zsh,
            ShellKind::Fish,
            ShellKind::Sh,
        ] {
            assert!(!snippet(shell, "0123abcd").contains(CLEAR_MULTIPLEXER));
            for passthrough in [Passthrough::Tmux, Passthrough::Screen] {
                let text = snippet_for(shell, "0123abcd", passthrough);
                assert!(text.ends_with(CLEAR_MULTIPLEXER), "{}", shell.name());
                assert!(!text.contains('\n'), "{}", shell.name());
            }
        }
        // What the shells' printf makes of it: home, clear the screen, clear the history.
        let cleared = std::process::Command::new("sh")
            .args(["-c", CLEAR_MULTIPLEXER.trim_start_matches("; ")])
            .output();
        match cleared {
            Ok(out) => assert_eq!(out.stdout, b"\x1b[H\x1b[2J\x1b[3J"),
            Err(err) => eprintln!("skipped: sh not runnable: {err}"),
        }
    }

    /// Each shell inside screen, in a folder whose URL is 2 KiB: every passthrough it prints is
    /// short enough for screen, and handed on back to back they are the shell's mark and one
    /// OSC 7 that names the whole folder.
    #[test]
    fn in_screen_a_long_folder_is_told_in_pieces_screen_passes_on() {
        let root = tempfile::tempdir().unwrap();
        let mut folder = std::fs::canonicalize(root.path()).unwrap();
        for i in 0..16 {
            folder.push(format!("{i} a folder é {}", "x".repeat(150)));
        }
        std::fs::create_dir_all(&folder).unwrap();
        let folder = folder.to_str().unwrap().to_owned();
        // The function that prints the folder, called as the shell's prompt would.
        for (program, shell, prompt) in [
            ("bash", ShellKind::Bash, "__kp_pre"),
            ("zsh", ShellKind::Zsh, "__kp_precmd"),
            ("fish", ShellKind::Fish, "__kp_prompt_start"),
        ] {
            let text = snippet_for(shell, "0123abcd", Passthrough::Screen);
            let text = text.trim_end_matches(CLEAR_MULTIPLEXER);
            let script = format!("{text}; cd '{folder}'; {prompt}");
            let out = match std::process::Command::new(program)
                .args(["-c", &script])
                .env("HOME", root.path())
                .output()
            {
                Ok(out) => out,
                Err(err) => {
                    eprintln!("skipped: {program} not runnable: {err}");
                    continue;
                }
            };
            assert!(out.status.success(), "{program}: {out:?}");
            let passed = screen_passthroughs(&out.stdout, program);
            let mark = if shell == ShellKind::Fish { "A" } else { "D;0" };
            let head = format!("\x1b]133;{mark};kp=0123abcd\x07\x1b]7;");
            let url = passed
                .strip_prefix(head.as_bytes())
                .and_then(|rest| rest.strip_suffix(b"\x07"))
                .unwrap_or_else(|| panic!("{program}: {}", passed.escape_ascii()));
            assert!(url.len() > 2000, "{program}: {}", url.escape_ascii());
            assert_eq!(
                marks::parse_osc7(url).as_deref(),
                Some(folder.as_str()),
                "{program}"
            );
        }
    }

    /// What screen hands on from `out`'s passthroughs (`ESC P … ESC \`), each checked to be under
    /// screen's limit; nothing but passthroughs is printed.
    fn screen_passthroughs(out: &[u8], program: &str) -> Vec<u8> {
        let mut passed = Vec::new();
        let mut rest = out;
        while let Some(body) = rest.strip_prefix(b"\x1bP") {
            let end = body
                .windows(2)
                .position(|pair| pair == b"\x1b\\")
                .unwrap_or_else(|| panic!("{program}: unended: {}", body.escape_ascii()));
            assert!(end < 700, "{program}: {end} bytes in one passthrough");
            passed.extend_from_slice(&body[..end]);
            rest = &body[end + 2..];
        }
        assert!(
            rest.is_empty(),
            "{program}: also printed {}",
            rest.escape_ascii()
        );
        passed
    }

    #[test]
    fn bash_and_sh_snippets_parse() {
        for (interpreter, shell) in [("bash", ShellKind::Bash), ("sh", ShellKind::Sh)] {
            for text in [
                snippet(shell, &new_secret()),
                snippet_for(shell, &new_secret(), Passthrough::Tmux),
            ] {
                let status = std::process::Command::new(interpreter)
                    .args(["-n", "-c", &text])
                    .status();
                match status {
                    Ok(status) => assert!(status.success(), "{interpreter}"),
                    Err(err) => eprintln!("skipped: {interpreter} not runnable: {err}"),
                }
            }
        }
    }
}
