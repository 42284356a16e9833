//! Heuristics on screen text, for shells without shell integration: does the cursor line look
//! like a shell prompt, an interpreter's prompt, or a program waiting for an answer.
//!
//! Pure functions on strings; they never touch the mirror or the shell. They are guesses by
//! nature and the callers always combine them with "output has been quiet".

use std::sync::LazyLock;

use regex::Regex;

/// Characters a prompt usually ends with (after trimming trailing spaces).
const PROMPT_ENDINGS: &[char] = &['$', '#', '%', '>', '❯', '»', '➜', 'λ'];

/// Powerline separators (private-use glyphs of patched fonts).
const POWERLINE: &[char] = &[
    '\u{e0b0}', '\u{e0b1}', '\u{e0b2}', '\u{e0b3}', '\u{e0b4}', '\u{e0b5}',
];

static USER_AT_HOST: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^\S*?[A-Za-z0-9_.-]+@[A-Za-z0-9_.-]+").ok());

/// Whether `line` ends in a character prompts end in (`$ # % > ❯ …` or a Powerline separator),
/// trailing blanks aside.
pub fn ends_like_prompt(line: &str) -> bool {
    line.trim_end()
        .chars()
        .last()
        .is_some_and(|last| PROMPT_ENDINGS.contains(&last) || POWERLINE.contains(&last))
}

/// Whether `line` (the text of the cursor row, up to the cursor) looks like a shell prompt.
/// `session_prompt` is the prompt seen when the session started, if known.
pub fn looks_like_prompt(line: &str, session_prompt: Option<&str>) -> bool {
    let trimmed = line.trim_end();
    if trimmed.is_empty() {
        return false;
    }
    if let Some(session) = session_prompt {
        let session = session.trim_end();
        if !session.is_empty() && trimmed == session {
            return true;
        }
    }
    if let Some(last) = trimmed.chars().last()
        && (PROMPT_ENDINGS.contains(&last) || POWERLINE.contains(&last))
    {
        return true;
    }
    // `user@host` prompts that end in something else (`user@host:~`); only when it is short
    // enough to be a prompt rather than a line of output.
    trimmed.chars().count() <= 120
        && USER_AT_HOST.as_ref().is_some_and(|re| re.is_match(trimmed))
        && !trimmed.contains(' ')
}

static INTERPRETER_PROMPTS: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(>>>|\.\.\.|>|->|sqlite>|\.\.\.>|mysql>|MariaDB \[[^\]]*\]>|php >|s?ftp>|scala>|ghci>",
        r"|[\w.-]+[=(-][#>]", // psql: `postgres=#`, `app=>`, `postgres-#`
        r"|(redis )?[\w.-]+:\d+(\[\d+\])?>", // redis-cli: `127.0.0.1:6379>`
        r"|irb\([^)]*\):\d+:\d+[>*\x22'`]|pry\([^)]*\)>|iex\(\d+\)>)$",
    ))
    .ok()
});

/// Whether the cursor line is an interpreter's prompt (a REPL: `>>>`, `sqlite>`, `mysql>`,
/// `postgres=#`, `irb(main):001:0>`, a bare `>` of node or a shell's continuation line), where
/// the next line typed goes to the interpreter, not the shell. They end in `>` or `#`, so
/// [`looks_like_prompt`] takes them for a shell's: callers ask this first. A line that is the
/// session's own prompt is the shell's.
pub fn looks_like_interpreter_prompt(line: &str, session_prompt: Option<&str>) -> bool {
    let trimmed = line.trim();
    if trimmed.is_empty()
        || session_prompt.is_some_and(|session| session.trim() == trimmed && !session.is_empty())
    {
        return false;
    }
    INTERPRETER_PROMPTS
        .as_ref()
        .is_some_and(|re| re.is_match(trimmed))
}

/// Phrases that mean "a program asks something" wherever they are on the line.
const QUESTION_PHRASES: &[&str] = &[
    "[y/n]",
    "(y/n)",
    "[yes/no]",
    "(yes/no",
    "password:",
    "password for",
    "passphrase",
    "verification code",
    "press enter",
    "press any key",
    "press return",
    "continue?",
];

/// Whether the cursor line (the text up to the cursor, trailing spaces kept) looks like a program
/// waiting for an answer: `[y/N]`, a password prompt, or a line ending in `? ` / `: `.
pub fn looks_like_question(line: &str) -> bool {
    let lower = line.to_lowercase();
    if QUESTION_PHRASES.iter().any(|phrase| lower.contains(phrase)) {
        return true;
    }
    let trimmed = lower.trim_end();
    if trimmed.is_empty() {
        return false;
    }
    let had_space = trimmed.len() < lower.len();
    (trimmed.ends_with('?') || trimmed.ends_with(':')) && (had_space || trimmed.len() > 1)
}

/// Phrases of a prompt for a secret (a password, passphrase, PIN or one-time code).
const SECRET_PHRASES: &[&str] = &[
    "password",
    "passphrase",
    "passcode",
    "pin:",
    "pin for",
    "pin (",
    "verification code",
    "one-time code",
    "authenticator code",
    "otp:",
];

/// Whether the cursor line asks for a secret, which only a person may type.
pub fn looks_like_secret_prompt(line: &str) -> bool {
    let lower = line.to_lowercase();
    let trimmed = lower.trim_end();
    SECRET_PHRASES.iter().any(|phrase| trimmed.contains(phrase))
        && (trimmed.ends_with(':') || trimmed.ends_with('?') || trimmed.ends_with('>'))
}

static PAGER_LINES: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"^(:|\(END\)|--More--.*|.*\(press h for help or q to quit\).*|lines \d+-\d+.*|byte \d+.*|.*\(END\)\s*)$").ok()
});

/// Whether the cursor line is a pager's prompt (`less`, `more`, `man`) waiting for a key: `:`,
/// `(END)`, `--More--`, `lines 1-40/120 33%`. systemd and git run `less -X`, which keeps the
/// normal screen, so this is the only sign.
pub fn looks_like_pager(line: &str) -> bool {
    let trimmed = line.trim();
    !trimmed.is_empty() && PAGER_LINES.as_ref().is_some_and(|re| re.is_match(trimmed))
}

/// Whether the command line itself runs something that silently waits for a line of input on the
/// terminal (a bare `read`), which no screen text can reveal.
pub fn command_reads_terminal(command: &str) -> bool {
    command
        .split([';', '&', '|', '(', ')', '{', '}'])
        .filter_map(|part| part.split_whitespace().next())
        .any(|word| word == "read")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts() {
        for line in [
            "user@host:~$ ",
            "root@srv:/etc# ",
            "bash-5.2$",
            "% ",
            "~/src ❯ ",
            "PS C:\\> ",
            "\u{e0b0} ",
            "me@box",
            "[me@box ~]$",
        ] {
            assert!(looks_like_prompt(line, None), "{line:?}");
        }
        for line in [
            "",
            "   ",
            "hello world",
            "100%|#####| 3/3",
            "Downloading...",
        ] {
            assert!(!looks_like_prompt(line, None), "{line:?}");
        }
        assert!(looks_like_prompt("weird prompt ", Some("weird prompt")));
    }

    #[test]
    fn secrets_and_pagers() {
        for line in [
            "[sudo] password for alice: ",
            "Password:",
            "Enter passphrase for key '/home/me/.ssh/id_ed25519': ",
            "Enter PIN for 'PIV Card Holder pin (PIV_II)': ",
            "Verification code: ",
            "Enter your token passcode:",
        ] {
            assert!(looks_like_secret_prompt(line), "{line:?}");
        }
        for line in [
            "Continue? [y/N] ",
            "Name: ",
            "password changed successfully",
            "grep password /etc/app.conf",
        ] {
            assert!(!looks_like_secret_prompt(line), "{line:?}");
        }
        for line in [
            ":",
            "(END)",
            "--More--(42%)",
            "lines 1-40/120 33%",
            "lines 1-23",
            " Manual page ls(1) line 1 (press h for help or q to quit)",
            "byte 4096",
        ] {
            assert!(looks_like_pager(line), "{line:?}");
        }
        for line in ["", "user@host:~$ ", "Name: ", "lines of output", "x:"] {
            assert!(!looks_like_pager(line), "{line:?}");
        }
    }

    #[test]
    fn questions() {
        for line in [
            "Continue? [y/N] ",
            "Proceed (y/n)?",
            "[sudo] password for me: ",
            "Password:",
            "Enter passphrase for key '/home/me/.ssh/id': ",
            "Name: ",
            "Overwrite? ",
            "Are you sure you want to continue connecting (yes/no/[fingerprint])? ",
        ] {
            assert!(looks_like_question(line), "{line:?}");
        }
        for line in ["", "building", "step 3/4", "http://x", "user@host:~$ "] {
            assert!(!looks_like_question(line), "{line:?}");
        }
    }

    #[test]
    fn interpreters() {
        for line in [
            ">>> ",
            "... ",
            "sqlite> ",
            "   ...> ",
            "mysql> ",
            "MariaDB [shop]> ",
            "    -> ",
            "postgres=# ",
            "app=> ",
            "postgres-# ",
            "127.0.0.1:6379> ",
            "redis 127.0.0.1:6379[2]> ",
            "irb(main):001:0> ",
            "> ",
            "php > ",
            "sftp> ",
            "iex(1)> ",
        ] {
            assert!(looks_like_interpreter_prompt(line, None), "{line:?}");
        }
        for line in [
            "",
            "user@host:~$ ",
            "root@srv:/etc# ",
            "me@box ~> ",
            "% ",
            "~/src ❯ ",
            "PS C:\\> ",
            "[me@box ~]$",
            "build> step 3",
        ] {
            assert!(!looks_like_interpreter_prompt(line, None), "{line:?}");
        }
        // A shell whose own prompt looks like one is still the shell.
        assert!(!looks_like_interpreter_prompt("> ", Some("> ")));
    }

    #[test]
    fn reads_terminal() {
        assert!(command_reads_terminal("read x"));
        assert!(command_reads_terminal("echo a; read -r line && echo $line"));
        assert!(!command_reads_terminal("readlink -f x"));
        assert!(!command_reads_terminal("echo read"));
    }
}
