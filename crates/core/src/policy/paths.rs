//! Paths as the policy compares them, and the files that can lock a user out of a server.
//!
//! [`normalise_path`] turns what a command or tool names (`//etc/./ssh/../ssh/sshd_config`,
//! `~/.ssh/authorized_keys`, `$HOME/.ssh`, a path relative to a `cd` earlier in the line) into one
//! spelling; [`lockout_match`] says whether changing that path can cut off access (sshd config,
//! authorized_keys, sudoers, PAM, accounts, firewall, network, fstab, the ssh units), and
//! [`is_key_folder`] whether its mode and owner matter to sshd (home and `.ssh` folders).
//!
//! This module must never answer "harmless" for a path it could not resolve: a relative path in
//! an unknown folder may lie anywhere, and a pattern (`authorized_key?`, `.ss[h]`, `{a,b}`)
//! matches whatever it could expand to.

/// The files and folders whose change can lock the user out (docs/policy.md). `**` matches any
/// number of folders, `*` any part of one name. `~` is any user's home folder.
pub const LOCKOUT_PATHS: &[&str] = &[
    "/etc/ssh",
    "/etc/ssh/sshd_config",
    "/etc/ssh/sshd_config.d",
    "/etc/ssh/sshd_config.d/**",
    "/etc/ssh/authorized_keys*",
    "/etc/ssh/authorized_keys*/**",
    "~/.ssh",
    "~/.ssh/authorized_keys*",
    "/root/.ssh",
    "/root/.ssh/authorized_keys*",
    "/home/*/.ssh",
    "/home/*/.ssh/authorized_keys*",
    // Any other user's `.ssh` folder (`/srv/git`, `/var/lib/jenkins`): the folder itself and its
    // keys. Above such a folder only its path names it (a folder is not known to be a home).
    "**/.ssh",
    "**/.ssh/authorized_keys*",
    "/etc/sudoers",
    "/etc/sudoers.d",
    "/etc/sudoers.d/**",
    "/etc/pam.conf",
    "/etc/pam.d",
    "/etc/pam.d/**",
    "/etc/security",
    "/etc/security/**",
    "/etc/passwd",
    "/etc/passwd-",
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/group",
    "/etc/group-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/nsswitch.conf",
    "/etc/nologin",
    "/run/nologin",
    "/var/run/nologin",
    "/etc/hosts.allow",
    "/etc/hosts.deny",
    "/etc/iptables",
    "/etc/iptables/**",
    "/etc/sysconfig/iptables*",
    "/etc/sysconfig/ip6tables*",
    "/etc/nftables.conf",
    "/etc/nftables.d/**",
    "/etc/nftables/**",
    "/etc/ufw",
    "/etc/ufw/**",
    "/etc/default/ufw",
    "/etc/firewalld",
    "/etc/firewalld/**",
    "/etc/netplan",
    "/etc/netplan/**",
    "/etc/network/interfaces",
    "/etc/network/interfaces.d/**",
    "/etc/NetworkManager/**",
    "/etc/systemd/network/**",
    "/etc/sysconfig/network-scripts/**",
    "/etc/resolv.conf",
    "/etc/fstab",
    "/etc/crypttab",
    // The ssh units, their drop-ins and the links that start them, wherever systemd reads units.
    "/etc/systemd/system/ssh*.service",
    "/etc/systemd/system/ssh*.socket",
    "/etc/systemd/system/ssh*.service.d",
    "/etc/systemd/system/ssh*.service.d/**",
    "/etc/systemd/system/ssh*.socket.d",
    "/etc/systemd/system/ssh*.socket.d/**",
    "/etc/systemd/system/*.wants/ssh*.service",
    "/etc/systemd/system/*.wants/ssh*.socket",
    "/run/systemd/system/ssh*.service",
    "/run/systemd/system/ssh*.socket",
    "/run/systemd/system/ssh*.service.d",
    "/run/systemd/system/ssh*.service.d/**",
    "/run/systemd/system/ssh*.socket.d",
    "/run/systemd/system/ssh*.socket.d/**",
    "/run/systemd/system/*.wants/ssh*.service",
    "/run/systemd/system/*.wants/ssh*.socket",
    "/lib/systemd/system/ssh*.service",
    "/lib/systemd/system/ssh*.socket",
    "/lib/systemd/system/ssh*.service.d/**",
    "/lib/systemd/system/ssh*.socket.d/**",
    "/usr/lib/systemd/system/ssh*.service",
    "/usr/lib/systemd/system/ssh*.socket",
    "/usr/lib/systemd/system/ssh*.service.d/**",
    "/usr/lib/systemd/system/ssh*.socket.d/**",
    "/etc/init.d/ssh",
    "/etc/init.d/sshd",
    "/etc/default/ssh",
];

/// The command name a user means: the last path component, so `/usr/bin/../bin/rm` is `rm`.
pub fn normalise_name(word: &str) -> String {
    let trimmed = word.trim_end_matches('/');
    trimmed.rsplit('/').next().unwrap_or(trimmed).to_owned()
}

/// A path in one spelling: absolute (`/etc/ssh`), home-relative (`~/.ssh`), or relative to a
/// folder the analysis does not know (`sshd_config`, kept relative).
///
/// `cwd` is the folder relative paths start from, when known (`cd /etc/ssh && …`).
pub fn normalise_path(path: &str, cwd: Option<&str>) -> String {
    let path = path.trim();
    let (root, rest) = if let Some(rest) = strip_home(path) {
        ("~", rest)
    } else if let Some(rest) = path.strip_prefix('/') {
        ("/", rest)
    } else if let Some(cwd) = cwd {
        let joined = format!("{cwd}/{path}");
        return normalise_path(&joined, None);
    } else {
        ("", path)
    };
    let mut parts: Vec<&str> = Vec::new();
    for component in rest.split('/') {
        match component {
            "" | "." => {}
            ".." => {
                // `..` above an unknown folder cannot be resolved: keep it so the caller can see
                // the path is not fully known.
                if parts.last().is_some_and(|last| *last != "..") {
                    parts.pop();
                } else if root.is_empty() {
                    parts.push("..");
                }
            }
            other => parts.push(other),
        }
    }
    match root {
        "/" => format!("/{}", parts.join("/")),
        "~" if parts.is_empty() => "~".to_owned(),
        "~" => format!("~/{}", parts.join("/")),
        _ if parts.is_empty() => ".".to_owned(),
        _ => parts.join("/"),
    }
}

/// `~`, `~user`, `$HOME`, `${HOME}` at the start of a path: the rest after the home folder.
fn strip_home(path: &str) -> Option<&str> {
    for prefix in ["$HOME", "${HOME}"] {
        if let Some(rest) = path.strip_prefix(prefix)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            return Some(rest);
        }
    }
    let rest = path.strip_prefix('~')?;
    // `~user/...`: another user's home is still a home folder.
    let end = rest.find('/').unwrap_or(rest.len());
    let user = &rest[..end];
    if user
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        Some(&rest[end..])
    } else {
        None
    }
}

/// Most words one path's brace groups are expanded into; past it each group counts as `*`.
const MAX_BRACE_WORDS: usize = 64;

/// The lock-out entry that `path` (already normalised) falls under, if any. With `subtree`,
/// a folder that contains a lock-out path counts too (`rm -r /etc`, `mv /etc/ssh /tmp`,
/// `cp -rT evil /home/alice`).
///
/// `path` may be a pattern the shell expands (`authorized_key?`, `.ss[h]`, `authorized_{keys,x}`):
/// it matches when any name it could expand to does. A path relative to a folder the analysis
/// does not know may lie anywhere: it matches when it could be the end of an entry, or (with
/// `subtree`) a folder above one that the entry names literally (`home` may be `/home`). The
/// current folder itself (`.`) is not judged here.
pub fn lockout_match(path: &str, subtree: bool) -> Option<&'static str> {
    expand_braces(path)
        .iter()
        .find_map(|alternative| lockout_match_one(alternative, subtree))
}

fn lockout_match_one(path: &str, subtree: bool) -> Option<&'static str> {
    let relative = !(path.starts_with('/') || path.starts_with('~'));
    let mut parts = components(path);
    if relative {
        // `..` above an unknown folder leads to another unknown folder.
        parts.retain(|part| !matches!(*part, "." | ".."));
        if parts.is_empty() {
            return None;
        }
        // It may lie below any folder.
        parts.insert(0, "**");
    }
    LOCKOUT_PATHS.iter().copied().find(|entry| {
        let pattern = components(entry);
        Meeting::new(&parts, &pattern, subtree, relative).meet()
    })
}

fn components(path: &str) -> Vec<&str> {
    let mut parts: Vec<&str> = path.split('/').filter(|part| !part.is_empty()).collect();
    if path.starts_with('/') {
        parts.insert(0, "/");
    }
    parts
}

/// Whether a path (its components) and a lock-out entry can name the same file, or (with
/// `subtree`) the path a folder above one the entry names. `**` (in either) stands for any
/// number of components; names may hold wildcards on both sides. A relative path must meet a
/// name of the entry before the entry's `**` may take its components (`x` is not below
/// `/etc/sudoers.d/**`, `sudoers.d/x` is).
struct Meeting<'a> {
    path: &'a [&'a str],
    entry: &'a [&'a str],
    subtree: bool,
    relative: bool,
    /// Answers already found, by (path index, entry index, above, anchored).
    memo: Vec<Option<bool>>,
}

impl<'a> Meeting<'a> {
    fn new(path: &'a [&'a str], entry: &'a [&'a str], subtree: bool, relative: bool) -> Self {
        let size = (path.len() + 1) * (entry.len() + 1) * 4;
        Meeting {
            path,
            entry,
            subtree,
            relative,
            memo: vec![None; size],
        }
    }

    fn meet(&mut self) -> bool {
        self.at(0, 0, false, !self.relative)
    }

    /// `above`: the last path component met an entry component that names a folder on the way
    /// to the entry (not one `**` swallowed), so the path may be a folder above the rest.
    /// `anchored`: a path component met a name of the entry.
    fn at(&mut self, i: usize, j: usize, above: bool, anchored: bool) -> bool {
        let key =
            ((i * (self.entry.len() + 1) + j) * 2 + usize::from(above)) * 2 + usize::from(anchored);
        if let Some(known) = self.memo[key] {
            return known;
        }
        let found = self.step(i, j, above, anchored);
        self.memo[key] = Some(found);
        found
    }

    fn step(&mut self, i: usize, j: usize, above: bool, anchored: bool) -> bool {
        let (path, entry) = (self.path, self.entry);
        match (path.get(i), entry.get(j)) {
            (None, None) => true,
            (None, Some(&"**")) => self.at(i, j + 1, above, anchored),
            (None, Some(_)) => self.subtree && above,
            (Some(_), None) => false,
            (Some(&"**"), Some(_)) => {
                self.at(i + 1, j, false, anchored) || self.at(i, j + 1, false, anchored)
            }
            (Some(_), Some(&"**")) => {
                self.at(i, j + 1, above, anchored)
                    || (anchored && self.at(i + 1, j, false, anchored))
            }
            (Some(name), Some(want)) => {
                // A folder only known by its trailing names is above an entry only where the
                // entry names that folder literally (`home`, `.ssh`), not through a wildcard.
                let names_folder = !self.relative || !has_wildcard(want);
                names_meet(name, want) && self.at(i + 1, j + 1, names_folder, true)
            }
        }
    }
}

/// Characters that make a name a pattern the shell expands.
/// Whether the components of `path` match those of `pattern`, `**` standing for any number of
/// them (this computer's start-up places, `super::this_computer`).
pub(super) fn glob_components(pattern: &[&str], path: &[&str]) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((&"**", rest)) => (0..=path.len()).any(|skip| glob_components(rest, &path[skip..])),
        Some((first, rest)) => match path.split_first() {
            Some((name, path_rest)) => {
                glob_matches(first, name) && glob_components(rest, path_rest)
            }
            None => false,
        },
    }
}

fn has_wildcard(name: &str) -> bool {
    name.contains(['*', '?', '['])
}

/// Whether two names, either of which may hold `*`, `?` and `[…]`, can be the same name. Two
/// patterns are compared by what they must start and end with, which may say yes where the
/// exact answer is no, never the other way round.
fn names_meet(name: &str, want: &str) -> bool {
    match (has_wildcard(name), has_wildcard(want)) {
        (false, false) => name == want,
        (false, true) => glob_matches(want, name),
        (true, false) => glob_matches(name, want),
        (true, true) => {
            let (name_start, name_end) = literal_ends(name);
            let (want_start, want_end) = literal_ends(want);
            (name_start.starts_with(want_start) || want_start.starts_with(name_start))
                && (name_end.ends_with(want_end) || want_end.ends_with(name_end))
        }
    }
}

/// The literal text before the first wildcard and after the last one.
fn literal_ends(pattern: &str) -> (&str, &str) {
    let start = pattern
        .find(['*', '?', '['])
        .map_or(pattern, |end| &pattern[..end]);
    let end = pattern
        .rfind(['*', '?', ']'])
        .map_or(pattern, |at| &pattern[at + 1..]);
    (start, end)
}

/// Shell glob matching of one name: `*`, `?`, `[…]` (with `!`/`^` negation and ranges). A
/// leading dot is matched by wildcards too (as with `dotglob`): stricter, never looser.
pub fn glob_matches(pattern: &str, name: &str) -> bool {
    let pattern: Vec<char> = pattern.chars().collect();
    let name: Vec<char> = name.chars().collect();
    let mut memo = vec![None; (pattern.len() + 1) * (name.len() + 1)];
    glob_at(&pattern, &name, 0, 0, &mut memo)
}

fn glob_at(pattern: &[char], name: &[char], p: usize, n: usize, memo: &mut [Option<bool>]) -> bool {
    let key = p * (name.len() + 1) + n;
    if let Some(known) = memo[key] {
        return known;
    }
    let found = match pattern.get(p) {
        None => n == name.len(),
        Some('*') => {
            glob_at(pattern, name, p + 1, n, memo)
                || (n < name.len() && glob_at(pattern, name, p, n + 1, memo))
        }
        Some('?') => n < name.len() && glob_at(pattern, name, p + 1, n + 1, memo),
        Some('[') => match pattern[p + 1..]
            .iter()
            .skip(1)
            .position(|c| *c == ']')
            .map(|at| p + 2 + at)
        {
            // An unclosed `[` is a plain character.
            None => name.get(n) == Some(&'[') && glob_at(pattern, name, p + 1, n + 1, memo),
            Some(close) => match name.get(n) {
                None => false,
                Some(first) => {
                    let class = &pattern[p + 1..close];
                    let (negated, class) = match class.split_first() {
                        Some(('!' | '^', class)) => (true, class),
                        _ => (false, class),
                    };
                    let mut inside = false;
                    let mut index = 0;
                    while index < class.len() {
                        if index + 2 < class.len() && class[index + 1] == '-' {
                            inside |= (class[index]..=class[index + 2]).contains(first);
                            index += 3;
                        } else {
                            inside |= class[index] == *first;
                            index += 1;
                        }
                    }
                    inside != negated && glob_at(pattern, name, close + 1, n + 1, memo)
                }
            },
        },
        Some(c) => name.get(n) == Some(c) && glob_at(pattern, name, p + 1, n + 1, memo),
    };
    memo[key] = Some(found);
    found
}

/// The words bash's brace expansion makes of a path (`authorized_{keys,x}` → two; nested and
/// several groups too). `{a..z}` sequences, `{}` (the name `find -exec` or `xargs -I` puts
/// there), and groups past [`MAX_BRACE_WORDS`] words become `*`: they match whatever the group
/// could make.
fn expand_braces(path: &str) -> Vec<String> {
    let mut words = vec![path.to_owned()];
    let mut index = 0;
    while index < words.len() {
        match first_group(&words[index]) {
            None => index += 1,
            Some((open, close, alternatives)) => {
                let word = words.remove(index);
                let (before, after) = (&word[..open], &word[close + 1..]);
                if alternatives.is_empty() || words.len() + alternatives.len() > MAX_BRACE_WORDS {
                    words.insert(index, format!("{before}*{after}"));
                } else {
                    for (offset, alternative) in alternatives.iter().enumerate() {
                        words.insert(index + offset, format!("{before}{alternative}{after}"));
                    }
                }
            }
        }
    }
    words
}

/// The first `{…}` group bash would expand: its braces' byte offsets and its alternatives
/// (empty for a `{x..y}` sequence and `{}`). Another group without a top-level comma is literal
/// text.
fn first_group(word: &str) -> Option<(usize, usize, Vec<String>)> {
    let bytes = word.as_bytes();
    for (open, byte) in bytes.iter().enumerate() {
        if *byte != b'{' {
            continue;
        }
        let mut depth = 0;
        let mut commas = Vec::new();
        for (at, inner) in bytes.iter().enumerate().skip(open) {
            match inner {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        let body = &word[open + 1..at];
                        if !commas.is_empty() {
                            let mut alternatives = Vec::new();
                            let mut start = open + 1;
                            for comma in &commas {
                                alternatives.push(word[start..*comma].to_owned());
                                start = comma + 1;
                            }
                            alternatives.push(word[start..at].to_owned());
                            return Some((open, at, alternatives));
                        }
                        // `{}` is where `find -exec` and `xargs -I {}` put names only known
                        // when they run: any name.
                        if body.is_empty() || body.contains("..") {
                            return Some((open, at, Vec::new()));
                        }
                        break;
                    }
                }
                b',' if depth == 1 => commas.push(at),
                _ => {}
            }
        }
    }
    None
}

/// Folders that hold users' home folders, here or on other systems: `/home/alice`, gitolite's
/// `/srv/git`, Jenkins' `/var/lib/jenkins`, macOS's `/Users/alice`, the BSDs' `/usr/home/alice`.
/// kaiport does not read the server's user database, so any folder right below one of them is
/// taken for a home.
pub const HOME_ROOTS: &[&str] = &[
    "/home",
    "/srv",
    "/var/lib",
    "/var/home",
    "/Users",
    "/usr/home",
    "/export/home",
];

/// Home folders that are not below a home root: root's and www-data's.
const HOMES: &[&str] = &["/root", "/var/www"];

/// A folder that holds home folders ([`HOME_ROOTS`]).
pub fn is_home_root(path: &str) -> bool {
    HOME_ROOTS.contains(&path.trim_end_matches('/'))
}

/// Folders whose mode and owner sshd checks before it trusts the keys in them (`StrictModes`):
/// a home folder (`~`, `/root`, a folder right below a [`HOME_ROOTS`] entry), a `.ssh` folder
/// anywhere, and the current folder or one above it (the terminal starts in the home folder). A
/// `chmod 777` or `chown` of one of them can stop every key login of that user.
pub fn is_key_folder(path: &str) -> bool {
    let parts = components(path);
    let last = parts.last().copied().unwrap_or(".");
    let below_home_root = path
        .trim_end_matches('/')
        .rsplit_once('/')
        .is_some_and(|(parent, name)| !name.is_empty() && is_home_root(parent));
    matches!(path, "~" | "." | "..")
        || HOMES.contains(&path.trim_end_matches('/'))
        || path.ends_with("/..")
        || below_home_root
        || names_meet(last, ".ssh")
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn paths_are_normalised() {
        assert_eq!(
            normalise_path("//etc/./ssh/../ssh//sshd_config", None),
            "/etc/ssh/sshd_config"
        );
        assert_eq!(
            normalise_path("$HOME/.ssh/authorized_keys", None),
            "~/.ssh/authorized_keys"
        );
        assert_eq!(normalise_path("${HOME}/.ssh", None), "~/.ssh");
        assert_eq!(normalise_path("~bob/.ssh", None), "~/.ssh");
        assert_eq!(
            normalise_path("authorized_keys", Some("~/.ssh")),
            "~/.ssh/authorized_keys"
        );
        assert_eq!(
            normalise_path("../ssh/sshd_config", Some("/etc/pam.d")),
            "/etc/ssh/sshd_config"
        );
        assert_eq!(normalise_path("/../../etc/passwd", None), "/etc/passwd");
        assert_eq!(normalise_path("a/../../b", None), "../b");
    }

    #[test]
    fn lockout_paths_are_recognised() {
        for path in [
            "/etc/ssh/sshd_config",
            "/etc/ssh/sshd_config.d/10-x.conf",
            "~/.ssh/authorized_keys",
            "~/.ssh/authorized_keys2",
            "/home/bob/.ssh/authorized_keys",
            "/srv/git/.ssh/authorized_keys",
            "/etc/sudoers.d/90-x",
            "/etc/pam.d/sshd",
            "/etc/shadow",
            "/etc/netplan/01.yaml",
            "/etc/systemd/system/sshd.service.d/override.conf",
            "/run/systemd/system/ssh.service.d/override.conf",
            "/lib/systemd/system/ssh.service.d/10-x.conf",
            "/etc/fstab",
            "/etc/ssh/sshd_config.d/*.conf",
        ] {
            assert!(lockout_match(path, false).is_some(), "{path}");
        }
        for path in [
            "/etc/motd",
            "/etc/nginx/nginx.conf",
            "/tmp/sshd_config.bak",
            "~/.bashrc",
            "/home/bob/notes",
            // The ssh client's settings cannot lock anyone out of this server.
            "/etc/ssh/ssh_config",
            "/etc/ssh/ssh_config.d/10-x.conf",
            "/etc/ssh/ssh_config.d/*.conf",
            "/etc/ssh/ssh_config*",
            "ssh_config",
            "ssh_config.d/x.conf",
        ] {
            assert_eq!(lockout_match(path, false), None, "{path}");
        }
        // Relative to an unknown folder: the name decides.
        assert!(lockout_match("authorized_keys", false).is_some());
        assert!(lockout_match("sshd_config", false).is_some());
        assert!(lockout_match("ssh/sshd_config", false).is_some());
        assert_eq!(lockout_match("notes.txt", false), None);
        // Folders above lock-out files, for recursive changes only.
        assert!(lockout_match("/etc", true).is_some());
        assert_eq!(lockout_match("/etc", false), None);
        assert!(lockout_match("/etc/ss*", false).is_some());
        assert!(lockout_match("/etc/*", false).is_some());
        assert_eq!(lockout_match("/var/log/*.log", false), None);
    }

    #[test]
    fn any_users_ssh_folder_and_the_folders_above_it() {
        // Another user's `.ssh` folder (only the `**` rules name it): the folder and its keys.
        for path in [
            "/srv/git/.ssh",
            "/var/lib/jenkins/.ssh/authorized_keys2",
            ".ssh",
            "git/.ssh",
        ] {
            assert!(lockout_match(path, false).is_some(), "{path}");
        }
        assert_eq!(
            lockout_match("/var/lib/jenkins/.ssh/known_hosts", false),
            None
        );
        assert_eq!(lockout_match("~/.ssh/config", false), None);
        // Above a lock-out path, for writes below it: a wildcard in the entry counts.
        for path in ["/home/alice", "/root", "~", "/srv/git/.ssh", "/", "/home"] {
            assert!(lockout_match(path, true).is_some(), "{path}");
        }
        for path in ["/home/alice/project", "/srv/app", "/tmp/build"] {
            assert_eq!(lockout_match(path, true), None, "{path}");
        }
    }

    #[test]
    fn patterns_match_what_they_could_expand_to() {
        for path in [
            "/srv/git/.ssh/authorized_key?",
            "/srv/git/.ss[h]/authorized_keys",
            "/srv/git/.ssh/authorized_{keys,x}",
            "/srv/git/.ssh/authorized_{x,{y,keys}}",
            "/srv/*/.ssh/authorized_keys",
            "/srv/git/*/authorized_keys",
            "/srv/git/.ssh/*",
            "/etc/ssh/sshd_conf{a..z}g",
            "authorized_key?",
            ".ss[h]/authorized_keys",
            "/root/.s*",
        ] {
            assert!(lockout_match(path, false).is_some(), "{path}");
        }
        for path in [
            "/srv/app/*.log",
            "/srv/git/.ssh/known_{hosts,hosts.old}",
            "/srv/app/{a,b}.conf",
            "/etc/ssh/ssh_config.d/*.conf",
        ] {
            assert_eq!(lockout_match(path, false), None, "{path}");
        }
        assert!(glob_matches("authorized_key[s2]", "authorized_keys"));
        assert!(!glob_matches("authorized_key[!s]", "authorized_keys"));
        assert!(names_meet("authorized_key?", "authorized_keys*"));
        assert!(!names_meet("known_*", "authorized_keys*"));
        assert_eq!(
            expand_braces("a{b,c{d,e}}f"),
            ["abf", "acdf", "acef"].map(str::to_owned)
        );
        assert_eq!(expand_braces("${x}"), ["${x}"]);
    }

    #[test]
    fn relative_folders_may_lie_anywhere() {
        // Below it, a folder an entry names literally: `home` may be /home, `etc` /etc.
        for path in ["home", "etc", "git/.ssh", ".ssh"] {
            assert!(lockout_match(path, true).is_some(), "{path}");
        }
        // A name an entry only reaches through a wildcard, and the current folder, are not.
        for path in ["alice", "build", "a.txt", ".", "..", "src/lib/x"] {
            assert_eq!(lockout_match(path, true), None, "{path}");
        }
    }

    #[test]
    fn key_folders_are_home_and_ssh_folders() {
        for path in [
            "~",
            "/root",
            "/home/alice",
            "/srv/git/.ssh",
            ".ssh",
            ".",
            "..",
        ] {
            assert!(is_key_folder(path), "{path}");
        }
        // A folder right below a home root may be a home: gitolite's, Jenkins', macOS's.
        for path in ["/srv/git", "/var/lib/jenkins", "/var/www", "/Users/alice"] {
            assert!(is_key_folder(path), "{path}");
        }
        for path in [
            "/home/alice/project",
            "/srv/git/hooks",
            "/home",
            "/srv",
            "notes",
        ] {
            assert!(!is_key_folder(path), "{path}");
        }
    }
}
