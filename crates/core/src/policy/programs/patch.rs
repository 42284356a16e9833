//! patch: applies a diff. Its own effect is changing files: the ORIGFILE it is given
//! (`patch FILE p.patch`), the `-o` output, or else the files the patch text names. That text
//! is not in the command line (`patch -p0 < p.patch`) and the folder it is read in is only known
//! on the server (`patch -d / -p0`, or the terminal's current folder, which may be a home
//! folder), so that form asks. `--dry-run` changes nothing (plan mode may run it). Options that
//! put backups in another folder, run ed scripts or check files out with RCS or SCCS ask.

use super::args::Call;
use super::spec::Spec;
use super::verdict::Verdict;

pub const SPECS: &[Spec] = &[Spec {
    names: &["patch"],
    family: "patch",
    text: "@read-only
           @operands files
           -b, --backup
           --backup-if-mismatch
           --no-backup-if-mismatch
           -B PREFIX, --prefix=PREFIX
           --binary
           -c, --context
           -d DIR, --directory=DIR
           -D NAME, --ifdef=NAME
           --dry-run
           -e, --ed : unprovable reads the patch as an ed script, which can run shell commands
           -E, --remove-empty-files
           -f, --force
           -F NUM, --fuzz=NUM
           -g NUM, --get=NUM : unprovable can check files out with RCS or SCCS, programs of their own
           --help
           -i FILE, --input=FILE : reads
           -l, --ignore-whitespace
           --merge[=STYLE]
           -n, --normal
           -N, --forward
           -o FILE, --output=FILE : writes
           -p NUM, --strip=NUM
           --posix
           --quoting-style=WORD
           -r FILE, --reject-file=FILE : writes
           -R, --reverse
           --read-only=BEHAVIOR
           --reject-format=FORMAT
           -s, --silent, --quiet
           --follow-symlinks
           -t, --batch
           -T, --set-time
           -u, --unified
           -v, --version
           -V METHOD, --version-control=METHOD
           --verbose
           -x NUM, --debug=NUM
           -Y PREFIX, --basename-prefix=PREFIX
           -z SUFFIX, --suffix=SUFFIX
           -Z, --set-utc",
    hook: Some(patch),
}];

/// `file` as seen from `folder` (an absolute or home path stays itself).
fn in_folder(folder: Option<&str>, file: &str) -> String {
    match folder {
        Some(folder) if !file.starts_with('/') && !file.starts_with('~') => {
            format!("{}/{file}", folder.trim_end_matches('/'))
        }
        _ => file.to_owned(),
    }
}

fn patch(call: &Call<'_>, verdict: &mut Verdict) {
    let display = call.display();
    for option in ["--prefix", "--basename-prefix", "--suffix"] {
        for (value, _) in call.values(option) {
            if value.contains('/') || value.starts_with('~') {
                verdict.unprovable(format!(
                    "`patch {option} {value}` puts backup files in another folder, next to files this line does not name"
                ));
            }
        }
    }
    if call.has("--dry-run") {
        return;
    }
    let folder = call.value("--directory");
    let operands = call.operand_texts();
    if !call.has("--output") {
        match operands.first() {
            Some(file) => verdict.write(&in_folder(folder, file), "patch", false, true),
            None => {
                let place = match folder {
                    Some(folder) => format!("below {folder}"),
                    None => "below the terminal's current folder".to_owned(),
                };
                verdict.unprovable(format!(
                    "`{display}` changes the files its patch text names, {place}; which files cannot be read from this line (`--dry-run` shows them)"
                ));
                if let Some(folder) = folder {
                    verdict.write(folder, "patch", true, true);
                }
            }
        }
    }
    verdict.not_read_only(format!(
        "`{display}` is not read-only: it changes files (plan mode allows only reading forms)"
    ));
}
