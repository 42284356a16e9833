//! git: every subcommand admins type and the options each accepts (from git's own help and
//! manual pages), and what decides beyond the table:
//!
//! - `-c KEY=VALUE` settings that name a program (`core.pager`, `diff.external`, `core.sshCommand`,
//!   `alias.x=!cmd`, …) run it: as if typed when it is plainly a program that setting is for (a
//!   pager for `core.pager`), else asked (`git -c diff.external=/tmp/evil.sh diff`);
//! - `git config` planting such a setting (`git config --global alias.st '!sh -c …'`) asks;
//! - subcommands that change the work tree write it: the folder `-C`/`--work-tree` names (or the
//!   current one) and the paths named (`git -C /etc checkout -- ssh/sshd_config` writes
//!   `/etc/ssh/sshd_config`, a lock-out path);
//! - `git clean -f` deletes (dangerous), `git reset --hard` on a system folder is dangerous;
//! - `ext::` transports and `--upload-pack`/`--exec`/`rebase -x` run programs (asked).

use super::args::{Call, Found};
use super::common::{is_switch, is_system_folder};
use super::model::Runs;
use super::spec::Spec;
use super::verdict::Verdict;

pub const SPECS: &[Spec] = &[Spec {
    names: &["git"],
    family: "git",
    text: "@operands args
               @negatable
               -v, --version
               -h, --help
               -C X
               -c X
               --config-env=X : unprovable takes a setting from a variable, which can name a program
               --exec-path[=X] : unprovable makes git run its commands from another folder
               --html-path
               --man-path
               --info-path
               -p, --paginate
               -P, --no-pager
               --git-dir=X
               --work-tree=X
               --namespace=X
               --super-prefix=X
               --bare
               --no-replace-objects
               --literal-pathspecs
               --glob-pathspecs
               --noglob-pathspecs
               --icase-pathspecs
               --no-optional-locks
               --no-lazy-fetch
               --no-advice
               --list-cmds=X
               @block git-1
               @use git-5
               @use git-16
               @use git-21
               @use git-34
               -p, -u, --patch
               --diff-merges=X
               --no-diff-merges
               @end
               @block git-2
               @use git-7
               @use git-29
               -p, --patch
               -U
               --unified[=X]
               -W, --function-context, --no-function-context
               -X
               --dirstat[=X]
               --stat[=X]
               --stat-width=X
               --stat-name-width=X
               --stat-graph-width=X
               --stat-count=X
               --compact-summary, --no-compact-summary
               --full-index, --no-full-index
               --abbrev[=X]
               --no-abbrev
               --default-prefix
               --output-indicator-new=X
               --output-indicator-old=X
               --output-indicator-context=X
               --find-copies-harder, --no-find-copies-harder
               --follow, --no-follow
               --no-ignore-matching-lines
               --indent-heuristic, --no-indent-heuristic
               -a, --text, --no-text
               --exit-code, --no-exit-code
               --quiet, --no-quiet
               --ext-diff, --no-ext-diff
               --ita-visible-in-index
               --rotate-to=X
               --skip-to=X
               --diff-filter[=X]
               @end
               @block git-3
               @use git-4
               --merge-base
               -m
               @end
               @block git-4
               @use git-5
               @use git-29
               -p
               --stat
               --abbrev=X
               -a
               --patch
               --text
               --exit-code
               --quiet
               @end
               @block git-5
               @use git-7
               @use git-20
               --diff-filter=X
               @end
               @block git-6
               @use git-8
               --author=X, --committer=X
               --date-order
               --author-date-order
               --topo-order
               --reverse
               --no-walk[=X]
               --do-walk
               --relative-date
               --parents
               --children
               --left-right
               --graph
               --show-linear-break[=X]
               @end
               @block git-7
               @use git-11
               -s, --no-patch
               --raw
               --patch-with-raw
               --patch-with-stat
               --check
               --name-only
               --name-status
               --color[=X]
               --no-color
               --ws-error-highlight=X
               -z
               --word-diff[=X]
               --word-diff-regex=X
               --color-words[=X]
               --color-moved[=X]
               --no-color-moved
               --color-moved-ws=X
               --no-color-moved-ws
               -R
               --submodule[=X]
               -S X
               -G X
               --pickaxe-all
               --pickaxe-regex
               --find-object=X
               --output=X : writes
               @end
               @block git-8
               @use git-25
               --date=X
               --skip=X
               --since-as-filter=X
               --grep-reflog=X
               --grep=X
               --all-match
               --invert-grep
               -i, --regexp-ignore-case
               --basic-regexp
               -E, --extended-regexp
               -F, --fixed-strings
               -P, --perl-regexp
               --remove-empty
               --merges
               --no-merges
               --first-parent
               --exclude-first-parent-only
               --reflog
               --alternate-refs
               --single-worktree
               --ignore-missing
               --bisect
               --stdin
               --cherry-mark
               --cherry-pick
               --left-only, --right-only
               --cherry
               -g, --walk-reflogs
               --merge
               --boundary
               --simplify-by-decoration
               --show-pulls
               --full-history
               --dense
               --sparse
               --simplify-merges
               --ancestry-path[=X]
               @end
               @block git-9
               --incremental, --no-incremental
               -b
               --root, --no-root
               --show-stats, --no-show-stats
               --progress, --no-progress
               --score-debug, --no-score-debug
               -f, --show-name, --no-show-name
               -n, --show-number, --no-show-number
               -p, --porcelain, --no-porcelain
               -c
               -t
               -l
               -s
               -w
               --ignore-rev=X
               --no-ignore-rev
               --ignore-revs-file=X
               --no-ignore-revs-file
               --color-lines, --no-color-lines
               --color-by-age, --no-color-by-age
               --minimal, --no-minimal
               -S X : reads
               --contents=X : reads
               --no-contents
               -C[X]
               -M[X]
               -L X
               --abbrev[=X]
               --no-abbrev
               --reverse=X
               --first-parent
               --line-porcelain
               --encoding=X
               --date=X
               -h
               @end
               @block git-10
               @use git-19
               -n
               --all, --no-all
               -a, --append, --no-append
               --upload-pack=X : runs *
               -f, --force, --no-force
               -t, --tags, --no-tags
               -p, --prune, --no-prune
               --dry-run, --no-dry-run
               -k, --keep, --no-keep
               --deepen=X
               --no-deepen
               --unshallow
               --refmap=X
               -o X, --server-option=X
               --negotiation-tip=X
               --no-negotiation-tip
               --show-forced-updates, --no-show-forced-updates
               --set-upstream, --no-set-upstream
               --update-shallow
               --negotiate-only
               @end
               @block git-11
               --binary
               --minimal
               --patience
               --histogram
               --anchored=X
               --diff-algorithm=X
               --numstat
               --shortstat
               --cumulative
               --dirstat-by-file[=X]
               --summary
               --no-renames
               --rename-empty, --no-rename-empty
               -D, --irreversible-delete
               -l X
               -O X
               --relative[=X]
               --no-relative
               --ignore-cr-at-eol
               -b, --ignore-space-change
               -w, --ignore-all-space
               --ignore-blank-lines
               -I X, --ignore-matching-lines=X
               --inter-hunk-context=X
               --textconv, --no-textconv
               --ignore-submodules[=X]
               --src-prefix=X
               --dst-prefix=X
               --no-prefix
               --line-prefix=X
               --ita-invisible-in-index
               @end
               @block git-12
               @use git-30
               --stat, --no-stat
               --summary, --no-summary
               --log[=X]
               --no-log
               --squash, --no-squash
               --commit, --no-commit
               --ff, --no-ff
               --ff-only
               --verify-signatures, --no-verify-signatures
               -s X, --strategy=X
               --allow-unrelated-histories, --no-allow-unrelated-histories
               --autostash, --no-autostash
               @end
               @block git-13
               @use git-30
               @use git-41
               -n, --no-commit
               --commit
               -e, --edit, --no-edit
               -s, --signoff, --no-signoff
               -m X, --mainline=X
               --no-mainline
               --strategy=X
               @end
               @block git-14
               @use git-18
               --create-reflog, --no-create-reflog
               -f, --force, --no-force
               --column[=X]
               --no-column
               -i, --ignore-case, --no-ignore-case
               @end
               @block git-15
               @use git-27
               --guess, --no-guess
               -d, --detach, --no-detach
               -t, --no-track
               --track[=X]
               -f, --force, --no-force
               --orphan=X
               --no-orphan
               --overwrite-ignore, --no-overwrite-ignore
               --ignore-other-worktrees, --no-ignore-other-worktrees
               @end
               @block git-16
               @use git-22
               --combined-all-paths
               -t
               --notes[=X]
               --no-notes
               --show-notes[=X]
               --standard-notes, --no-standard-notes
               @end
               @block git-17
               @use git-40
               @use git-41
               --verify
               --committer-date-is-author-date, --no-committer-date-is-author-date
               --empty=X
               -S, --no-gpg-sign
               --gpg-sign[=X]
               @end
               @block git-18
               --omit-empty, --no-omit-empty
               --format=X
               --no-format
               --color[=X]
               --no-color
               --sort=X
               --no-sort
               --points-at=X
               --no-points-at
               --merged=X
               --no-merged=X
               --contains=X
               --no-contains=X
               @end
               @block git-19
               @use git-44
               -v, --verbose, --no-verbose
               --no-upload-pack
               --depth=X
               --no-depth
               --shallow-since=X
               --no-shallow-since
               --shallow-exclude=X
               --no-shallow-exclude
               --no-server-option
               @end
               @block git-20
               -U X, --unified=X
               --output-indicator-new=X, --output-indicator-old=X, --output-indicator-context=X
               --indent-heuristic
               --no-indent-heuristic
               --compact-summary
               -X[X], --dirstat[=X]
               --full-index
               --find-copies-harder
               --skip-to=X, --rotate-to=X
               --ignore-space-at-eol
               -W, --function-context
               --ext-diff
               --no-ext-diff
               @end
               @block git-21
               -q, --quiet, --no-quiet
               --source, --no-source
               --use-mailmap, --no-use-mailmap
               --mailmap, --no-mailmap
               --clear-decorations
               --decorate-refs=X
               --no-decorate-refs
               --decorate-refs-exclude=X
               --no-decorate-refs-exclude
               --decorate[=X]
               --no-decorate
               -L X
               @end
               @block git-22
               --abbrev-commit
               --pretty[=X]
               --format=X
               --no-abbrev-commit
               --oneline
               --encoding=X
               --expand-tabs=X
               --expand-tabs, --no-expand-tabs
               --show-signature
               @end
               @block git-23
               @use git-45
               --overlay, --no-overlay
               -2, --ours
               -3, --theirs
               --ignore-skip-worktree-bits, --no-ignore-skip-worktree-bits
               @end
               @block git-24
               -3, --3way, --no-3way
               --ignore-space-change, --no-ignore-space-change
               --directory=X
               --no-directory
               --exclude=X
               --include=X
               -p X
               --reject, --no-reject
               @end
               @block git-25
               --not
               --all
               --glob=X
               --exclude=X
               --exclude-hidden=X
               --since=X, --after=X
               --until=X, --before=X
               @end
               @block git-26
               -m X, --message=X
               -F X, --file=X : reads
               --no-file
               --trailer=X
               -e, --edit, --no-edit
               --cleanup=X
               --no-cleanup
               @end
               @block git-27
               @use git-44
               -m, --merge, --no-merge
               --conflict=X
               --no-conflict
               @end
               @block git-28
               --bare, --no-bare
               --template=X : unprovable copies hooks from a template folder, which later git commands run
               --no-template
               --separate-git-dir=X : writes-into
               --no-separate-git-dir
               --ref-format=X
               --no-ref-format
               @end
               @block git-29
               -u
               -B
               --break-rewrites[=X]
               -M
               --find-renames[=X]
               -C
               --find-copies[=X]
               @end
               @block git-30
               --cleanup=X
               --no-cleanup
               --no-strategy
               -X X, --strategy-option=X
               --no-strategy-option
               -S, --no-gpg-sign
               --gpg-sign[=X]
               @end
               @block git-31
               -v, --verbose, --no-verbose
               --ahead-behind, --no-ahead-behind
               --long, --no-long
               -z, --null, --no-null
               -u, --no-untracked-files
               --untracked-files[=X]
               @end
               @block git-32
               -n, --dry-run, --no-dry-run
               -f, --force, --no-force
               --sparse, --no-sparse
               --pathspec-from-file=X : reads
               --no-pathspec-from-file
               --pathspec-file-nul, --no-pathspec-file-nul
               @end
               @block git-33
               -j X, --jobs=X
               --no-jobs
               -4, --ipv4
               -6, --ipv6
               --filter=X
               --no-filter
               @end
               @block git-34
               --stat[=X]
               --abbrev[=X]
               -B[X], --break-rewrites[=X]
               -M[X], --find-renames[=X]
               -C[X], --find-copies[=X]
               -a, --text
               @end
               @block git-35
               --min-parents=X, --max-parents=X
               --no-min-parents, --no-max-parents
               --branches[=X]
               --tags[=X]
               --remotes[=X]
               @end
               @block git-36
               --all, --no-all
               --tags, --no-tags
               --exclude=X
               --no-exclude
               --always, --no-always
               @end
               @block git-37
               -z
               -t
               --abbrev[=X]
               --no-abbrev
               --format=X
               @end
               @block git-38
               @use git-45
               -q, --quiet, --no-quiet
               @end
               @block git-39
               -v, --verbose, --no-verbose
               -q, --quiet, --no-quiet
               --progress, --no-progress
               --no-verify
               --verify
               @end
               @block git-40
               -C X
               --whitespace=X
               --no-whitespace
               --ignore-whitespace, --no-ignore-whitespace
               -q, --quiet, --no-quiet
               @end
               @block git-41
               --quit
               --continue
               --abort
               --skip
               --rerere-autoupdate, --no-rerere-autoupdate
               @end
               @block git-42
               --creation-factor=X
               --no-creation-factor
               --notes[=X]
               --no-notes
               @end
               @block git-43
               -f, --force
               -n, --dry-run
               -q, --quiet
               -v, --verbose
               @end
               @block git-44
               -q, --quiet, --no-quiet
               --progress, --no-progress
               --recurse-submodules[=X]
               --no-recurse-submodules
               @end
               @block git-45
               -p, --patch, --no-patch
               --pathspec-from-file=X : reads
               --no-pathspec-from-file
               --pathspec-file-nul, --no-pathspec-file-nul
               @end
               @sub status : read-only
               @negatable
               --summary-limit=N
               @use git-31
               -s, --short, --no-short
               -b, --branch, --no-branch
               --show-stash, --no-show-stash
               --porcelain[=X]
               --no-porcelain
               --ignored[=X]
               --no-ignored
               --ignore-submodules[=X]
               --no-ignore-submodules
               --column[=X]
               --no-column
               --no-renames
               --renames
               -M
               --find-renames[=X]
               @sub log : read-only
               @negatable
               @numeric
               @use git-1
               @use git-6
               @use git-35
               --follow
               --full-diff
               --log-size
               -n X, --max-count=X
               @sub diff : read-only
               @negatable
               --cached
               --merge-base
               --no-index
               -1, --base
               -2, --ours
               -3, --theirs
               --diff-merges=FORMAT
               @use git-2
               --ignore-space-at-eol
               -0
               @sub show : read-only
               @negatable
               @use git-1
               @sub whatchanged : read-only
               @negatable
               @use git-21
               @sub blame : read-only
               @negatable
               --since=X
               @use git-9
               -e, --show-email
               @sub annotate : read-only
               @negatable
               -e, --show-email
               @use git-9
               @sub describe : read-only
               @negatable
               @use git-36
               --contains, --no-contains
               --debug, --no-debug
               --long, --no-long
               --first-parent, --no-first-parent
               --abbrev[=X]
               --no-abbrev
               --exact-match, --no-exact-match
               --candidates=X
               --no-candidates
               --match=X
               --no-match
               --dirty[=X]
               --no-dirty
               --broken[=X]
               --no-broken
               @sub shortlog : read-only
               @negatable
               @numeric
               --pretty[=X]
               @use git-8
               @use git-35
               -c, --committer, --no-committer
               -n, --numbered, --no-numbered
               -s, --summary, --no-summary
               -e, --email, --no-email
               -w[X]
               --group=X
               --no-group
               --format[=X]
               --max-count=X
               --author=X
               @sub rev-parse : read-only
               @negatable
               @use git-25
               --parseopt
               --sq-quote
               --keep-dashdash
               --stop-at-non-option
               --stuck-long
               --revs-only
               --no-revs
               --flags
               --no-flags
               --default=X
               --prefix=X
               --verify
               -q, --quiet
               --sq
               --short[=X]
               --abbrev-ref[=X]
               --symbolic
               --symbolic-full-name
               --branches[=X], --tags[=X], --remotes[=X]
               --disambiguate=X
               --local-env-vars
               --path-format=X
               --git-dir
               --git-common-dir
               --resolve-git-dir=X
               --git-path=X
               --show-toplevel
               --show-superproject-working-tree
               --shared-index-path
               --absolute-git-dir
               --is-inside-git-dir
               --is-inside-work-tree
               --is-bare-repository
               --is-shallow-repository
               --show-cdup
               --show-prefix
               --show-object-format[=X]
               @sub rev-list : read-only
               @negatable
               @numeric
               @use git-6
               @use git-22
               --max-count=X
               --max-age=X
               --min-age=X
               --min-parents=X
               --no-min-parents
               --max-parents=X
               --no-max-parents
               --branches
               --tags
               --remotes
               --quiet
               --disk-usage[=X]
               --unpacked
               --object-names, --no-object-names
               --abbrev=X
               --count
               --bisect-vars
               --bisect-all
               -n X
               --use-bitmap-index
               --progress=X
               --objects
               --in-commit-order
               --objects-edge
               --objects-edge-aggressive
               --indexed-objects
               --filter=X
               --no-filter
               --filter-provided-objects
               --filter-print-omitted
               --missing=X
               --exclude-promisor-objects
               --header
               --no-commit-header
               --commit-header
               --timestamp
               @sub ls-files : read-only
               @negatable
               @use git-37
               -v
               -f
               -c, --cached, --no-cached
               -d, --deleted, --no-deleted
               -m, --modified, --no-modified
               -o, --others, --no-others
               -i, --ignored, --no-ignored
               -s, --stage, --no-stage
               -k, --killed, --no-killed
               --directory, --no-directory
               --eol, --no-eol
               --empty-directory, --no-empty-directory
               -u, --unmerged, --no-unmerged
               --resolve-undo, --no-resolve-undo
               -x X, --exclude=X
               -X X, --exclude-from=X : reads
               --exclude-per-directory=X
               --no-exclude-per-directory
               --exclude-standard
               --full-name
               --recurse-submodules, --no-recurse-submodules
               --error-unmatch, --no-error-unmatch
               --with-tree=X
               --no-with-tree
               --debug, --no-debug
               --deduplicate, --no-deduplicate
               --sparse, --no-sparse
               @sub ls-tree : read-only
               @negatable
               @use git-37
               -d
               -r
               -l, --long
               --name-only
               --name-status
               --object-only
               --full-name, --no-full-name
               --full-tree, --no-full-tree
               @sub ls-remote : read-only
               @negatable
               -q, --quiet, --no-quiet
               --upload-pack=X : runs *
               --no-upload-pack
               -t, --tags, --no-tags
               -b, --branches, --no-branches
               --refs, --no-refs
               --get-url, --no-get-url
               --sort=X
               --no-sort
               --exit-code, --no-exit-code
               --symref, --no-symref
               -o X, --server-option=X
               --no-server-option
               -h, --heads
               @sub cat-file : read-only
               @negatable
               -e
               -p
               -t
               -s
               --allow-unknown-type, --no-allow-unknown-type
               --use-mailmap, --no-use-mailmap
               --mailmap, --no-mailmap
               --batch[=X]
               --batch-check[=X]
               -Z
               --batch-command[=X]
               --batch-all-objects
               --buffer, --no-buffer
               --follow-symlinks, --no-follow-symlinks
               --unordered, --no-unordered
               --textconv : harmless
               --filters : harmless
               --path=X
               -z
               @sub grep : read-only
               @negatable
               @numeric
               --parent-basename
               --cached, --no-cached
               --no-index
               --index
               --untracked, --no-untracked
               --exclude-standard, --no-exclude-standard
               --recurse-submodules, --no-recurse-submodules
               -v, --invert-match, --no-invert-match
               -i, --ignore-case, --no-ignore-case
               -w, --word-regexp, --no-word-regexp
               -a, --text, --no-text
               -I
               --textconv, --no-textconv
               -r, --recursive, --no-recursive
               --max-depth=X
               -E, --extended-regexp, --no-extended-regexp
               -G, --basic-regexp, --no-basic-regexp
               -F, --fixed-strings, --no-fixed-strings
               -P, --perl-regexp, --no-perl-regexp
               -n, --line-number, --no-line-number
               --column, --no-column
               -h
               -H
               --full-name, --no-full-name
               -l, --files-with-matches, --no-files-with-matches
               --name-only, --no-name-only
               -L, --files-without-match, --no-files-without-match
               -z, --null, --no-null
               -o, --only-matching, --no-only-matching
               -c, --count, --no-count
               --color[=X]
               --no-color
               --break, --no-break
               --heading, --no-heading
               -C X, --context=X
               --no-context
               -B X, --before-context=X
               --no-before-context
               -A X, --after-context=X
               --no-after-context
               --threads=X
               --no-threads
               -NUM
               -p, --show-function, --no-show-function
               -W, --function-context, --no-function-context
               -f X : reads
               -e X
               --and
               --or
               --not
               -q, --quiet, --no-quiet
               --all-match, --no-all-match
               -O, --no-open-files-in-pager : runs less more most cat bat
               --open-files-in-pager[=X] : runs less more most cat bat
               --ext-grep, --no-ext-grep
               -m X, --max-count=X
               --no-max-count
               @sub reflog : read-only
               @negatable
               @subs-optional
               --all
               --single-worktree
               --expire=X
               --expire-unreachable=X
               --updateref
               --rewrite
               --stale-fix
               -n, --dry-run
               --verbose
               @sub show-ref : read-only
               @negatable
               --tags, --no-tags
               --branches, --no-branches
               --exists, --no-exists
               --verify, --no-verify
               --head, --no-head
               -d, --dereference, --no-dereference
               -s, --no-hash
               --hash[=X]
               --abbrev[=X]
               --no-abbrev
               -q, --quiet, --no-quiet
               --exclude-existing[=X]
               --heads
               @sub for-each-ref : read-only
               @negatable
               @use git-18
               -s, --shell, --no-shell
               -p, --perl, --no-perl
               --python, --no-python
               --tcl, --no-tcl
               --count=X
               --no-count
               --exclude=X
               --no-exclude
               --ignore-case, --no-ignore-case
               --stdin, --no-stdin
               --include-root-refs, --no-include-root-refs
               @sub count-objects : read-only
               @negatable
               -v, --verbose, --no-verbose
               -H, --human-readable, --no-human-readable
               @sub fsck : read-only
               @negatable
               -v, --verbose, --no-verbose
               --unreachable, --no-unreachable
               --dangling, --no-dangling
               --tags, --no-tags
               --root, --no-root
               --cache, --no-cache
               --reflogs, --no-reflogs
               --full, --no-full
               --connectivity-only, --no-connectivity-only
               --strict, --no-strict
               --lost-found, --no-lost-found
               --progress, --no-progress
               --name-objects, --no-name-objects
               @sub merge-base : read-only
               @negatable
               -a, --all, --no-all
               --octopus
               --independent
               --is-ancestor
               --fork-point
               @sub name-rev : read-only
               @negatable
               @use git-36
               --name-only, --no-name-only
               --refs=X
               --no-refs
               --undefined, --no-undefined
               --annotate-stdin
               --stdin
               @sub cherry : read-only
               @negatable
               --abbrev[=X]
               --no-abbrev
               -v, --verbose, --no-verbose
               @sub version : read-only
               @negatable
               --build-options, --no-build-options
               @sub help : read-only
               @negatable
               -a, --all
               --external-commands, --no-external-commands
               --aliases, --no-aliases
               -m, --man, --no-man
               -w, --web, --no-web
               -i, --info, --no-info
               -v, --verbose, --no-verbose
               -g, --guides
               --user-interfaces
               --developer-interfaces
               -c, --config
               @sub var : read-only
               @negatable
               -l
               @sub check-ignore : read-only
               @negatable
               -q, --quiet, --no-quiet
               -v, --verbose, --no-verbose
               --stdin, --no-stdin
               -z
               -n, --non-matching, --no-non-matching
               --no-index
               --index
               @sub check-attr : read-only
               @negatable
               -a, --all, --no-all
               --cached, --no-cached
               --stdin, --no-stdin
               -z
               --source=X
               --no-source
               @sub check-mailmap : read-only
               @negatable
               --stdin, --no-stdin
               --mailmap-file=X
               --no-mailmap-file
               --mailmap-blob=X
               --no-mailmap-blob
               @sub check-ref-format : read-only
               @negatable
               --branch
               --allow-onelevel, --no-allow-onelevel
               --refspec-pattern
               --normalize
               @sub diff-tree : read-only
               @negatable
               --diff-merges=FORMAT
               @use git-3
               @use git-16
               -r
               -c
               --cc
               --root
               --stdin
               -v
               --no-commit-id
               --always
               @sub diff-index : read-only
               @negatable
               --diff-merges=FORMAT
               @use git-3
               --cached
               @sub diff-files : read-only
               @negatable
               --diff-merges=FORMAT
               -1, --base
               -2, --ours
               -3, --theirs
               @use git-4
               -c, --cc
               -q
               @sub verify-commit : read-only
               @negatable
               -v, --verbose, --no-verbose
               --raw, --no-raw
               @sub verify-tag : read-only
               @negatable
               -v, --verbose, --no-verbose
               --raw, --no-raw
               --format=X
               --no-format
               @sub range-diff : read-only
               @negatable
               --ignore-space-at-eol
               @use git-2
               @use git-42
               --no-dual-color
               --dual-color
               --left-only, --no-left-only
               --right-only, --no-right-only
               @sub show-branch : read-only
               @negatable
               -a, --all, --no-all
               -r, --remotes, --no-remotes
               --color[=X]
               --no-color
               --more[=X]
               --no-more
               --list, --no-list
               --no-name
               --name
               --current, --no-current
               --sha1-name, --no-sha1-name
               --merge-base, --no-merge-base
               --independent, --no-independent
               --topo-order
               --topics, --no-topics
               --sparse, --no-sparse
               --date-order
               -g
               --reflog[=X]
               @sub branch : read-only
               @negatable
               @use git-14
               -v, --verbose, --no-verbose
               -q, --quiet, --no-quiet
               -t, --no-track
               --track[=X]
               -u X, --set-upstream-to=X
               --no-set-upstream-to
               -r, --remotes
               --abbrev[=X]
               --no-abbrev
               -a, --all
               -d, --delete, --no-delete
               -D
               -m, --move, --no-move
               -M
               -c, --copy, --no-copy
               -C
               -l, --list, --no-list
               --show-current, --no-show-current
               --edit-description, --no-edit-description
               --recurse-submodules, --no-recurse-submodules
               -vv
               --set-upstream
               --unset-upstream
               @sub tag : read-only
               @negatable
               @use git-14
               @use git-26
               -l, --list
               -n[X]
               -d, --delete
               -v, --verify
               -a, --annotate, --no-annotate
               -s, --sign, --no-sign
               -u X, --local-user=X
               --no-local-user
               @sub remote : read-only
               @negatable
               -v, --verbose, --no-verbose
               @sub remote/add : changes adds a remote to the repository's settings
               @negatable
               -t X, --track=X
               -m X, --master=X
               -f, --fetch
               --tags, --no-tags
               --mirror[=X]
               @sub remote/rename : changes renames a remote in the repository's settings
               @negatable
               --progress, --no-progress
               @sub remote/remove, remote/rm : changes removes a remote and its remote-tracking branches
               @sub remote/set-head : changes
               @negatable
               -a, --auto
               -d, --delete
               @sub remote/show : read-only
               -n
               @sub remote/prune : changes
               -n, --dry-run
               @sub remote/update : changes
               -p, --prune, --no-prune
               @sub remote/set-branches : changes
               --add
               @sub remote/get-url : read-only
               --push
               --all
               @sub remote/set-url : changes
               --push
               --add
               --delete
               @sub config : read-only
               @negatable
               @subs-optional
               @block git-config-file
               --global
               --system
               --local
               --worktree
               -f X, --file=X : reads
               --blob=X : harmless
               @end
               @block git-config-display
               --type=X
               --bool, --int, --bool-or-int, --path, --expiry-date
               --no-type
               -z, --null
               --name-only
               --show-origin
               --show-scope
               @end
               @use git-config-file
               @use git-config-display
               --replace-all
               --add
               --get
               --get-all
               --get-regexp
               --get-urlmatch=X
               --remove-section
               --rename-section
               --unset
               --unset-all
               -l, --list
               --fixed-value
               --get-colorbool=X
               --get-color=X
               -e, --edit : changes opens the settings in an editor
               --includes, --no-includes
               --default=X
               @sub config/list : read-only
               @negatable
               @use git-config-file
               @use git-config-display
               --includes, --no-includes
               @sub config/get : read-only
               @negatable
               @use git-config-file
               @use git-config-display
               --includes, --no-includes
               --all
               --regexp
               --value=X
               --fixed-value
               --url=X
               --default=X
               @sub config/set : changes changes git's settings
               @negatable
               @use git-config-file
               --type=X
               --no-type
               --bool, --int, --bool-or-int, --path, --expiry-date
               --all
               --value=X
               --fixed-value
               --append
               --comment=X
               @sub config/unset : changes changes git's settings
               @negatable
               @use git-config-file
               --all
               --value=X
               --fixed-value
               @sub config/rename-section, config/remove-section : changes changes git's settings
               @use git-config-file
               @sub config/edit : changes opens the settings in an editor
               @use git-config-file
               @sub stash : read-only
               @negatable
               @dashdash push
               @block git-stash-push
               -p, --patch
               -S, --staged
               -k, --keep-index, --no-keep-index
               -q, --quiet
               -u, --include-untracked, --no-include-untracked
               -a, --all
               --pathspec-from-file=X : reads
               --pathspec-file-nul
               @end
               @use git-stash-push
               --only-untracked
               --index
               -m X, --message=X
               @sub stash/list : read-only
               @negatable
               @numeric
               @use git-1
               @use git-6
               @use git-35
               -n X, --max-count=X
               @sub stash/show : read-only
               @negatable
               -u, --include-untracked, --no-include-untracked
               --only-untracked
               @use git-2
               @sub stash/push : changes
               @negatable
               @use git-stash-push
               -m X, --message=X
               @sub stash/save : changes
               @negatable
               @use git-stash-push
               @sub stash/pop, stash/apply : changes
               @negatable
               --index
               -q, --quiet
               @sub stash/branch, stash/create : changes
               @sub stash/store : changes
               @negatable
               -m X, --message=X
               -q, --quiet
               @sub stash/drop : deletes drops a stash entry, which cannot be listed again
               @negatable
               -q, --quiet
               @sub stash/clear : deletes drops every stash entry
               @sub worktree : read-only
               @negatable
               @sub worktree/add : changes adds a working tree in a new folder
               @negatable
               -f, --force
               -q, --quiet
               -d, --detach
               --checkout, --no-checkout
               --guess-remote, --no-guess-remote
               --track, --no-track
               --lock
               --reason=X
               --orphan
               -b X, -B X
               @sub worktree/list : read-only
               @negatable
               -v, --verbose
               --porcelain
               -z
               --expire=X
               @sub worktree/lock : changes
               --reason=X
               @sub worktree/move : changes
               -f, --force
               @sub worktree/prune : changes
               @negatable
               -n, --dry-run
               -v, --verbose
               --expire=X
               @sub worktree/repair, worktree/unlock : changes
               @sub worktree/remove : deletes deletes a working tree's folder
               -f, --force
               @sub submodule : read-only
               @negatable
               -q, --quiet
               --cached
               @sub submodule/add : changes
               @negatable
               -b X, --branch=X
               -f, --force
               --name=X
               --reference=X
               --dissociate
               --depth=X
               --progress
               @sub submodule/status : read-only
               @negatable
               --cached
               --recursive
               @sub submodule/init, submodule/absorbgitdirs : changes
               @sub submodule/deinit : deletes removes the submodules' working trees
               -f, --force
               --all
               @sub submodule/update : changes
               @negatable
               --init
               --filter=X
               --remote
               -N, --no-fetch, --fetch
               -f, --force
               --checkout
               --merge
               --rebase
               --recommend-shallow, --no-recommend-shallow
               --reference=X
               --dissociate
               --recursive
               --depth=X
               -j X, --jobs=X
               --single-branch, --no-single-branch
               --progress
               --require-init
               @sub submodule/set-branch : changes
               -d, --default
               -b X, --branch=X
               @sub submodule/set-url : changes
               @sub submodule/summary : read-only
               @negatable
               --cached
               --files
               -n X, --summary-limit=X
               @sub submodule/foreach : changes runs a command in every submodule
               @posix
               --recursive
               @sub submodule/sync : changes
               --recursive
               @sub notes : read-only
               @negatable
               --ref=X
               --no-ref
               @block git-notes-message
               --allow-empty
               --separator[=X], --no-separator
               --stripspace, --no-stripspace
               -m X, --message=X
               -F X, --file=X : reads
               -C X, --reuse-message=X
               -c X, --reedit-message=X
               @end
               @sub notes/list, notes/show, notes/get-ref : read-only
               @sub notes/add : changes
               @negatable
               -f, --force
               @use git-notes-message
               @sub notes/append : changes
               @negatable
               @use git-notes-message
               @sub notes/copy : changes
               @negatable
               -f, --force
               --stdin
               --for-rewrite=X
               @sub notes/edit : changes opens the note in an editor
               @negatable
               --allow-empty
               @sub notes/merge : changes
               @negatable
               -v, --verbose
               -q, --quiet
               -s X, --strategy=X
               --commit
               --abort
               @sub notes/remove : changes
               @negatable
               --ignore-missing
               --stdin
               @sub notes/prune : changes
               @negatable
               -n, --dry-run
               -v, --verbose
               @sub bisect : read-only
               @subs-optional
               @sub bisect/start : changes checks out commits to test
               @negatable
               --term-new=X, --term-bad=X
               --term-old=X, --term-good=X
               --no-checkout
               --first-parent
               @sub bisect/good, bisect/bad, bisect/new, bisect/old, bisect/skip, bisect/next, bisect/reset, bisect/replay : changes checks out commits to test
               @sub bisect/terms : read-only
               --term-good, --term-bad
               @sub bisect/log, bisect/visualize, bisect/view, bisect/help : read-only
               @sub bisect/run : changes checks out commits and runs a command on each
               @posix
               @sub add : changes
               @negatable
               @use git-32
               -v, --verbose, --no-verbose
               -i, --interactive, --no-interactive
               -p, --patch, --no-patch
               -e, --edit, --no-edit
               -u, --update, --no-update
               --renormalize, --no-renormalize
               -N, --intent-to-add, --no-intent-to-add
               -A, --all, --no-all
               --refresh, --no-refresh
               --ignore-errors, --no-ignore-errors
               --chmod=X
               --no-chmod
               --no-ignore-removal
               --ignore-removal
               --ignore-missing
               --no-warn-embedded-repo
               @sub commit, ci : changes
               @negatable
               @use git-26
               @use git-31
               @use git-38
               --author=X
               --no-author
               --date=X
               --no-date
               --no-message
               -c X, --reedit-message=X
               --no-reedit-message
               -C X, --reuse-message=X
               --no-reuse-message
               --fixup[=X]
               --no-fixup
               --squash=X
               --no-squash
               --reset-author, --no-reset-author
               -s, --signoff, --no-signoff
               -t X, --template=X : reads
               --no-template
               --status, --no-status
               -S, --no-gpg-sign
               --gpg-sign[=X]
               -a, --all, --no-all
               -i, --include, --no-include
               --interactive, --no-interactive
               -o, --only, --no-only
               -n, --no-verify
               --verify
               --dry-run, --no-dry-run
               --short, --no-short
               --branch, --no-branch
               --porcelain, --no-porcelain
               --amend, --no-amend
               --no-post-rewrite
               --post-rewrite
               --allow-empty
               --allow-empty-message
               @sub checkout, co : changes
               @negatable
               @use git-15
               @use git-23
               -b X
               -B X
               -l
               @sub switch : changes
               @negatable
               @use git-15
               -c X, --create=X
               --no-create
               -C X, --force-create=X
               --no-force-create
               --discard-changes, --no-discard-changes
               --merge.
               @sub restore : changes
               @negatable
               @use git-23
               @use git-27
               -s X, --source=X
               --no-source
               -S, --staged, --no-staged
               -W, --worktree, --no-worktree
               --ignore-unmerged, --no-ignore-unmerged
               @sub reset : changes
               @negatable
               @use git-38
               --no-refresh
               --refresh
               --mixed
               --soft
               --hard
               --merge
               --keep
               --recurse-submodules[=X]
               --no-recurse-submodules
               -N, --intent-to-add, --no-intent-to-add
               @sub merge : changes
               @negatable
               @use git-12
               @use git-39
               -n
               -e, --edit, --no-edit
               --rerere-autoupdate, --no-rerere-autoupdate
               -m X, --message=X
               --no-message
               -F X, --file=X : reads
               --into-name=X
               --no-into-name
               --abort, --no-abort
               --quit, --no-quit
               --continue, --no-continue
               --overwrite-ignore, --no-overwrite-ignore
               --signoff, --no-signoff
               @sub rebase : changes
               @negatable
               @use git-17
               --onto=X
               --no-onto
               --keep-base, --no-keep-base
               --no-verify
               -v, --verbose, --no-verbose
               -n, --no-stat
               --stat
               --signoff, --no-signoff
               --reset-author-date, --no-reset-author-date
               -f, --force-rebase, --no-force-rebase
               --no-ff
               --ff
               --edit-todo
               --show-current-patch
               --apply
               -m, --merge
               -i, --interactive
               --autosquash, --no-autosquash
               --update-refs, --no-update-refs
               --autostash, --no-autostash
               -x X, --exec=X : runs *
               --no-exec
               -r, --no-rebase-merges
               --rebase-merges[=X]
               --fork-point, --no-fork-point
               -s X, --strategy=X
               --no-strategy
               -X X, --strategy-option=X
               --no-strategy-option
               --root, --no-root
               --reschedule-failed-exec, --no-reschedule-failed-exec
               --reapply-cherry-picks, --no-reapply-cherry-picks
               --no-keep-empty, --keep-empty
               --allow-empty-message
               --ignore-date
               --format=X
               @sub pull : changes
               @negatable
               @use git-10
               @use git-12
               -r, --no-rebase
               --rebase[=X]
               --signoff[=X]
               --no-signoff
               --edit, --no-edit
               --verify, --no-verify
               -j, --no-jobs
               --jobs[=X]
               -4, --ipv4, --no-ipv4
               -6, --ipv6, --no-ipv6
               -e
               --atomic
               --prefetch
               @sub fetch : changes
               @negatable
               @use git-10
               @use git-33
               --atomic, --no-atomic
               -m, --multiple, --no-multiple
               --prefetch, --no-prefetch
               --porcelain, --no-porcelain
               --write-fetch-head, --no-write-fetch-head
               -u, --update-head-ok, --no-update-head-ok
               --refetch
               --auto-maintenance, --no-auto-maintenance
               --auto-gc, --no-auto-gc
               --write-commit-graph, --no-write-commit-graph
               --stdin, --no-stdin
               -P, --prune-tags
               --submodule-prefix=X
               --recurse-submodules-default=X
               @sub push : network sends commits to another repository
               @negatable
               @use git-39
               --repo=X
               --no-repo
               --all, --no-all
               --branches, --no-branches
               --mirror, --no-mirror
               -d, --delete, --no-delete
               --tags, --no-tags
               -n, --dry-run, --no-dry-run
               --porcelain, --no-porcelain
               -f, --force, --no-force
               --force-with-lease[=X]
               --no-force-with-lease
               --force-if-includes, --no-force-if-includes
               --recurse-submodules=X
               --no-recurse-submodules
               --thin, --no-thin
               --receive-pack=X : runs *
               --no-receive-pack
               --exec=X : runs *
               --no-exec
               -u, --set-upstream, --no-set-upstream
               --prune, --no-prune
               --follow-tags, --no-follow-tags
               --signed[=X]
               --no-signed
               --atomic, --no-atomic
               -o X, --push-option=X
               --no-push-option
               -4, --ipv4
               -6, --ipv6
               @sub clone : changes
               @negatable
               @use git-19
               @use git-28
               @use git-33
               -n, --no-checkout
               --checkout
               --mirror, --no-mirror
               -l, --local, --no-local
               --no-hardlinks
               --hardlinks
               -s, --shared, --no-shared
               --recursive[=X]
               --no-recursive
               --reference=X : reads
               --no-reference
               --reference-if-able=X : reads
               --no-reference-if-able
               --dissociate, --no-dissociate
               -o X, --origin=X : harmless
               --no-origin
               -b X, --branch=X
               --no-branch
               -u X, --upload-pack=X : runs *
               --single-branch, --no-single-branch
               --no-tags
               --tags
               --shallow-submodules, --no-shallow-submodules
               -c X, --config=X
               --no-config
               --server-option=X : harmless
               --also-filter-submodules, --no-also-filter-submodules
               --remote-submodules, --no-remote-submodules
               --sparse, --no-sparse
               --bundle-uri=X
               --no-bundle-uri
               --reject-shallow, --no-reject-shallow
               @sub init : changes
               @negatable
               @use git-28
               --shared[=X]
               -q, --quiet, --no-quiet
               -b X, --initial-branch=X
               --no-initial-branch
               --object-format=X
               --no-object-format
               @sub rm : changes
               @negatable
               @use git-32
               -q, --quiet, --no-quiet
               --cached, --no-cached
               -r
               --ignore-unmatch
               @sub mv : changes
               @negatable
               -v, --verbose, --no-verbose
               -n, --dry-run, --no-dry-run
               -f, --force, --no-force
               -k
               --sparse, --no-sparse
               @sub clean : changes
               @negatable
               -q, --quiet, --no-quiet
               -n, --dry-run, --no-dry-run
               -f, --force, --no-force
               -i, --interactive, --no-interactive
               -d
               -e X, --exclude=X : harmless
               -x
               -X
               @sub cherry-pick : changes
               @negatable
               @use git-13
               -x
               --ff, --no-ff
               --allow-empty, --no-allow-empty
               --allow-empty-message, --no-allow-empty-message
               --keep-redundant-commits, --no-keep-redundant-commits
               --empty=X
               -r
               @sub revert : changes
               @negatable
               @use git-13
               --reference, --no-reference
               @sub am : changes
               @negatable
               -b
               @use git-17
               @use git-24
               -i, --interactive, --no-interactive
               -n, --no-verify
               -s, --signoff, --no-signoff
               -u, --utf8, --no-utf8
               -k, --keep, --no-keep
               --keep-cr, --no-keep-cr
               -c, --scissors, --no-scissors
               --quoted-cr=X
               --no-exclude
               --no-include
               --patch-format=X
               --no-patch-format
               -r, --resolved
               --show-current-patch[=X]
               --retry
               --allow-empty
               --ignore-date, --no-ignore-date
               --keep-non-patch
               -m, --message-id
               --no-message-id
               --resolvemsg=X
               @sub apply : changes
               @negatable
               @use git-24
               @use git-40
               --no-add
               --add
               --stat, --no-stat
               --numstat, --no-numstat
               --summary, --no-summary
               --check, --no-check
               --index, --no-index
               -N, --intent-to-add, --no-intent-to-add
               --cached, --no-cached
               --unsafe-paths : unprovable applies the patch to paths outside the repository
               --no-unsafe-paths
               --apply, --no-apply
               --ours
               --theirs
               --union
               --build-fake-ancestor=X
               --no-build-fake-ancestor
               -z
               -R, --reverse, --no-reverse
               --unidiff-zero, --no-unidiff-zero
               --allow-overlap, --no-allow-overlap
               -v, --verbose, --no-verbose
               --recount, --no-recount
               --allow-empty, --no-allow-empty
               --allow-binary-replacement, --binary
               --inaccurate-eof
               @sub format-patch : changes
               @negatable
               @numeric
               @use git-11
               @use git-20
               @use git-34
               @use git-42
               -n, --numbered, --no-numbered
               -N
               -s, --signoff, --no-signoff
               --stdout, --no-stdout
               --cover-letter, --no-cover-letter
               --suffix=X
               --no-suffix
               --start-number=X
               --no-start-number
               -v X, --reroll-count=X
               --no-reroll-count
               --filename-max-length=X
               --no-filename-max-length
               --rfc[=X]
               --no-rfc
               --cover-from-description=X
               --no-cover-from-description
               --description-file=X
               --no-description-file
               --subject-prefix=X
               -o X, --output-directory=X : writes-into
               -k, --keep-subject
               --no-binary
               --zero-commit, --no-zero-commit
               --ignore-if-in-upstream, --no-ignore-if-in-upstream
               -p, --no-stat
               --add-header=X : harmless
               --no-add-header
               --to=X
               --no-to
               --cc=X
               --no-cc
               --from[=X]
               --no-from
               --in-reply-to=X
               --no-in-reply-to
               --attach[=X]
               --no-attach
               --inline[=X]
               --thread[=X]
               --no-thread
               --signature=X
               --no-signature
               --base=X
               --no-base
               --signature-file=X
               --no-signature-file
               -q, --quiet, --no-quiet
               --progress, --no-progress
               --interdiff=X
               --no-interdiff
               --range-diff=X
               --no-range-diff
               --force-in-body-from, --no-force-in-body-from
               --output=X
               --numbered-files
               --always
               --encode-email-headers, --no-encode-email-headers
               --root
               @sub archive : changes
               @negatable
               @numeric
               --format=X
               --no-format
               --prefix=X
               --no-prefix
               --add-file=X : reads
               --no-add-file
               --add-virtual-file=X : harmless
               --no-add-virtual-file
               -o X, --output=X : writes
               --no-output
               --worktree-attributes, --no-worktree-attributes
               -v, --verbose, --no-verbose
               --mtime=X
               -NUM
               -l, --list, --no-list
               --remote=X : harmless
               --no-remote
               --exec=X : runs *
               --no-exec
               @sub gc : changes
               @negatable
               -q, --quiet, --no-quiet
               --prune[=X]
               --no-prune
               --cruft, --no-cruft
               --max-cruft-size=X
               --aggressive, --no-aggressive
               --auto, --no-auto
               --detach, --no-detach
               --force, --no-force
               --keep-largest-pack, --no-keep-largest-pack
               @sub prune : changes
               @negatable
               -n, --dry-run, --no-dry-run
               -v, --verbose, --no-verbose
               --progress, --no-progress
               --expire=X
               --no-expire
               --exclude-promisor-objects, --no-exclude-promisor-objects
               @sub repack : changes
               @negatable
               -a
               -A
               --cruft, --no-cruft
               --cruft-expiration=X
               --no-cruft-expiration
               --max-cruft-size=X
               -d
               -f
               -F
               -n
               -q, --quiet, --no-quiet
               -l, --local, --no-local
               -b, --write-bitmap-index, --no-write-bitmap-index
               -i, --delta-islands, --no-delta-islands
               --unpack-unreachable=X
               --no-unpack-unreachable
               -k, --keep-unreachable, --no-keep-unreachable
               --window=X
               --no-window
               --window-memory=X
               --no-window-memory
               --depth=X
               --no-depth
               --threads=X
               --no-threads
               --max-pack-size=X
               --filter=X
               --no-filter
               --pack-kept-objects, --no-pack-kept-objects
               --keep-pack=X
               --no-keep-pack
               -g X, --geometric=X
               --no-geometric
               --expire-to=X
               --no-expire-to
               --filter-to=X
               --no-filter-to
               -m, --write-midx
               @sub pack-refs : changes
               @negatable
               --all, --no-all
               --prune, --no-prune
               --auto, --no-auto
               --include=X
               --no-include
               --exclude=X
               --no-exclude
               @sub maintenance : changes
               @negatable
               @subs-optional
               --auto
               --schedule
               --quiet
               --task=X
               --scheduler=X
               @sub sparse-checkout : changes
               @negatable
               @subs-optional
               @sub update-index : changes
               @negatable
               --cacheinfo=INFO
               -q
               --ignore-submodules, --no-ignore-submodules
               --add, --no-add
               --replace, --no-replace
               --remove, --no-remove
               --unmerged, --no-unmerged
               --refresh
               --really-refresh
               --chmod=X
               --assume-unchanged
               --skip-worktree
               --no-skip-worktree
               --ignore-skip-worktree-entries, --no-ignore-skip-worktree-entries
               --info-only, --no-info-only
               --force-remove, --no-force-remove
               -z
               --stdin
               --index-info
               --unresolve
               -g, --again
               --verbose, --no-verbose
               --clear-resolve-undo
               --index-version=X
               --no-index-version
               --show-index-version, --no-show-index-version
               --split-index, --no-split-index
               --untracked-cache, --no-untracked-cache
               --test-untracked-cache, --no-test-untracked-cache
               --force-untracked-cache, --no-force-untracked-cache
               --force-write-index, --no-force-write-index
               --fsmonitor, --no-fsmonitor
               --fsmonitor-valid
               --no-fsmonitor-valid
               --ignore-missing
               --no-assume-unchanged
               @sub update-ref : changes
               @negatable
               -m X
               -d
               --no-deref
               --deref
               -z
               --stdin, --no-stdin
               --create-reflog, --no-create-reflog
               @sub symbolic-ref : changes
               @negatable
               -q, --quiet, --no-quiet
               -d, --delete, --no-delete
               --short, --no-short
               --recurse, --no-recurse
               -m X
               @sub mergetool : changes
               @negatable
               -t X, --tool=X : unprovable runs a merge tool named in git's settings
               --tool-help
               -y, --no-prompt
               --prompt
               -g, --gui
               --no-gui
               -O X
               @sub difftool : changes
               @negatable
               -g, --gui, --no-gui : unprovable runs a diff tool named in git's settings
               -d, --dir-diff, --no-dir-diff
               -y, --no-prompt
               --symlinks, --no-symlinks
               -t X, --tool=X : unprovable runs a diff tool named in git's settings
               --no-tool
               --tool-help, --no-tool-help
               --trust-exit-code, --no-trust-exit-code
               -x X, --extcmd=X : runs *
               --no-extcmd
               --no-index
               --index
               --prompt
               --rotate-to=X
               --skip-to=X
               @sub filter-branch : changes
               @negatable
               --setup=X
               --subdirectory-filter=X
               --env-filter=X : runs *
               --tree-filter=X : runs *
               --index-filter=X : runs *
               --parent-filter=X : runs *
               --msg-filter=X : runs *
               --commit-filter=X : runs *
               --tag-name-filter=X : runs *
               --prune-empty
               --original=X
               -d X : writes-into
               -f, --force
               --state-branch=X
               @sub rerere : changes
               @negatable
               --rerere-autoupdate, --no-rerere-autoupdate
               @sub bundle : changes
               @negatable
               @subs-optional
               # `bundle create` takes rev-list's ways of naming refs
               --all
               --branches[=X]
               --tags[=X]
               --remotes[=X]
               --progress
               --all-progress
               --all-progress-implied
               --version=X
               -q, --quiet
               --since=X
               @sub hash-object : changes
               @negatable
               -t X
               -w
               --stdin, --no-stdin
               --stdin-paths, --no-stdin-paths
               --no-filters
               --filters
               --literally, --no-literally
               --path=X
               --no-path
               @sub replace : changes
               @negatable
               -l, --list
               -d, --delete
               -e, --edit
               -g, --graft
               --convert-graft-file
               -f, --force, --no-force
               --raw, --no-raw
               --format=X
               --no-format
               @sub lfs : changes
               @negatable
               @subs-optional",
    hook: Some(git),
}];

const PAGERS: &[&str] = &[
    "less",
    "more",
    "most",
    "cat",
    "bat",
    "delta",
    "diff-so-fancy",
    "tig",
];
const EDITORS: &[&str] = &[
    "vim", "vi", "nvim", "nano", "emacs", "mg", "micro", "ed", "joe", "code", "subl", "true",
];
const SSH: &[&str] = &["ssh", "plink", "putty"];

/// The options given before the subcommand (git's own, not a subcommand's `-C <n>`).
fn own_options<'c>(call: &'c Call<'_>) -> impl Iterator<Item = &'c Found<'c>> {
    call.options.iter().filter(|found| {
        call.root
            .options
            .iter()
            .any(|def| std::ptr::eq(def, found.def))
    })
}

/// The folder git works in: `-C` values joined, or `--work-tree`, else the current folder.
fn work_dir(call: &Call<'_>) -> String {
    let mut dir = String::new();
    for found in own_options(call) {
        let Some(value) = found.value.as_deref() else {
            continue;
        };
        if found.def.has("-C") {
            dir = if dir.is_empty() || value.starts_with('/') || value.starts_with('~') {
                value.to_owned()
            } else {
                format!("{dir}/{value}")
            };
        } else if found.def.has("--work-tree") {
            dir = value.to_owned();
        }
    }
    if dir.is_empty() { ".".to_owned() } else { dir }
}

fn join(dir: &str, path: &str) -> String {
    if dir == "." || path.starts_with('/') || path.starts_with('~') {
        path.to_owned()
    } else {
        format!("{}/{path}", dir.trim_end_matches('/'))
    }
}

fn git(call: &Call<'_>, verdict: &mut Verdict) {
    let display = call.display();
    let mut aliases: Vec<(String, String)> = Vec::new();
    for found in own_options(call) {
        if found.def.has("-c")
            && let Some(setting) = found.value.as_deref()
        {
            setting_given(setting, found.index, &mut aliases, verdict);
        }
    }
    for (position, arg) in call.args.iter().enumerate() {
        // `ext::` runs its text as a command (with `%` escapes) on clone, fetch, push, …
        if let Some(command) = arg.strip_prefix("ext::") {
            verdict.unprovable(format!(
                "the git transport `ext::{command}` runs a program; what it does cannot be checked"
            ));
            verdict.script(
                &command.replace("% ", " "),
                "git ext:: transport",
                Some(position),
                true,
            );
        }
    }
    alias(call, &aliases, verdict);
    let sub = call.sub(0);
    let operands = call.operand_texts();
    // The action: a sub-subcommand where the spec lists them (`stash drop`; none for `git config
    // KEY VALUE`), else the first operand (`bundle create`); `rest` and `rest_at` follow it.
    let has_actions = call
        .path
        .first()
        .is_some_and(|level| !level.subs.is_empty());
    let (first, rest, rest_at): (&str, &[&str], &[usize]) = if has_actions {
        (call.sub(1), &operands, &call.operands)
    } else {
        (
            operands.first().copied().unwrap_or_default(),
            operands.get(1..).unwrap_or_default(),
            call.operands.get(1..).unwrap_or_default(),
        )
    };
    let dir = work_dir(call);
    let how = format!("git {sub}");
    let not_read_only = |verdict: &mut Verdict| {
        verdict.not_read_only(format!(
            "`{display}` is not read-only with these arguments (plan mode allows only reading forms)"
        ));
    };
    let tree = |verdict: &mut Verdict, paths: &[&str]| {
        verdict.write(&dir, &how, true, true);
        for path in paths {
            verdict.write(&join(&dir, path), &how, false, true);
        }
    };
    match sub {
        "checkout" | "restore" | "switch" => {
            tree(verdict, &operands);
            // `git checkout .`, `git restore :/`: every file below the folder, names unknown.
            for operand in &operands {
                let whole = operand
                    .trim_start_matches(":/")
                    .trim_start_matches(":(top)");
                if whole.is_empty() || matches!(whole, "*" | "**" | "./*") {
                    verdict.into_folder(&dir, &how);
                } else if !dir.starts_with('/') && !dir.starts_with('~') {
                    verdict.into_folder(&join(&dir, operand), &how);
                }
            }
        }
        "rm" if !call.has("--cached") => tree(verdict, &operands),
        // `git bundle create FILE …` writes FILE (relative to the repository's folder).
        "bundle" if first == "create" => {
            if let Some(file) = rest.first() {
                verdict.output(&join(&dir, file), &how, false);
            }
        }
        "mv" => tree(verdict, &operands),
        "merge" | "rebase" | "pull" | "cherry-pick" | "revert" | "am" | "sparse-checkout" => {
            tree(verdict, &[]);
        }
        "apply"
            if !["--check", "--stat", "--numstat", "--summary", "--cached"]
                .iter()
                .any(|option| call.has(option)) =>
        {
            tree(verdict, &[]);
        }
        "reset"
            if ["--hard", "--merge", "--keep"]
                .iter()
                .any(|mode| call.has(mode)) =>
        {
            tree(verdict, &[]);
            if call.has("--hard") && (is_system_folder(&dir) || dir.starts_with("/etc")) {
                verdict.dangerous(&display, &format!("discards every local change in {dir}"));
            }
        }
        "clean" => {
            let dry = call.has("--dry-run");
            if !dry {
                tree(verdict, &operands);
                let what = if call.has("-x") || call.has("-X") {
                    "deletes untracked files, ignored ones included"
                } else {
                    "deletes untracked files"
                };
                verdict.dangerous(
                    &display,
                    &format!("git clean {what}; they cannot be recovered"),
                );
            }
        }
        // The spec classes each action (drop and clear delete); these rewrite the files.
        "stash" => match first {
            "pop" | "apply" | "branch" => tree(verdict, &[]),
            // Push's operands are the paths it puts back to HEAD (save's are a message).
            "" | "push" => {
                tree(verdict, rest);
                not_read_only(verdict);
            }
            "save" => {
                tree(verdict, &[]);
                not_read_only(verdict);
            }
            _ => {}
        },
        "clone" => {
            let target = operands
                .get(1)
                .map(|target| (*target).to_owned())
                .or_else(|| {
                    operands.first().map(|url| {
                        let name = url
                            .trim_end_matches('/')
                            .rsplit(['/', ':'])
                            .next()
                            .unwrap_or(url);
                        name.trim_end_matches(".git").to_owned()
                    })
                });
            if let Some(target) = target {
                verdict.write(&join(&dir, &target), &how, true, true);
            }
            for found in &call.options {
                if (found.def.has("--config") || found.def.has("-c"))
                    && !own_options(call).any(|own| std::ptr::eq(own, found))
                    && let Some(setting) = found.value.as_deref()
                {
                    setting_given(setting, found.index, &mut Vec::new(), verdict);
                }
            }
        }
        "init" => {
            if let Some(target) = operands.first() {
                verdict.write(&join(&dir, target), &how, true, true);
            }
        }
        "worktree" if first == "add" => {
            if let Some(path) = rest.first() {
                verdict.write(&join(&dir, path), "git worktree add", true, true);
            }
        }
        "worktree" if first == "move" => {
            if let Some(path) = rest.get(1) {
                verdict.write(&join(&dir, path), "git worktree move", true, true);
            }
        }
        "submodule" => match first {
            "" | "status" | "summary" => {}
            "foreach" => {
                let start = rest_at.first().copied().unwrap_or(call.args.len());
                let script = call.args[start.min(call.args.len())..].join(" ");
                let any = Runs::any();
                verdict.runs_option(&script, "git submodule foreach", &any, None);
                not_read_only(verdict);
            }
            _ => {
                tree(verdict, &[]);
                not_read_only(verdict);
            }
        },
        "bisect" => match first {
            "log" | "visualize" | "view" | "terms" | "help" | "" => {}
            "run" => {
                if let Some(start) = rest_at.first() {
                    verdict.args(*start, call.args.len(), "git bisect run");
                }
                tree(verdict, &[]);
                not_read_only(verdict);
            }
            _ => {
                tree(verdict, &[]);
                not_read_only(verdict);
            }
        },
        "branch" => {
            let changes = !operands.is_empty()
                || [
                    "--delete",
                    "-D",
                    "--move",
                    "-M",
                    "--copy",
                    "-C",
                    "--set-upstream-to",
                    "--unset-upstream",
                    "--edit-description",
                    "--force",
                ]
                .iter()
                .any(|option| call.has(option));
            let lists = [
                "--list",
                "--contains",
                "--merged",
                "--no-merged",
                "--points-at",
            ]
            .iter()
            .any(|option| call.has(option));
            if changes && !lists {
                not_read_only(verdict);
            }
        }
        "tag" => {
            let lists = [
                "--list",
                "--verify",
                "--contains",
                "--points-at",
                "--merged",
            ]
            .iter()
            .any(|option| call.has(option));
            if !operands.is_empty() && !lists || call.has("--delete") {
                not_read_only(verdict);
            }
        }
        "reflog" if !matches!(first, "" | "show" | "exists") => not_read_only(verdict),
        "config" => config(call, first, rest, &display, verdict),
        _ => {}
    }
}

/// `git -c KEY=VALUE`: aliases are remembered, settings that name a program run it.
fn setting_given(
    setting: &str,
    source: usize,
    aliases: &mut Vec<(String, String)>,
    verdict: &mut Verdict,
) {
    let (key, value) = setting.split_once('=').unwrap_or((setting, ""));
    let key = key.to_ascii_lowercase();
    if let Some(alias) = key.strip_prefix("alias.") {
        match value.strip_prefix('!') {
            Some(command) => {
                let any = Runs {
                    expect: Vec::new(),
                    more_args: true,
                    remote: false,
                };
                verdict.runs_option(
                    command,
                    &format!("git -c alias.{alias}=!…"),
                    &any,
                    Some(source),
                );
            }
            None => aliases.push((alias.to_owned(), value.to_owned())),
        }
        return;
    }
    match program_key(&key) {
        Some(Key::Folder) => verdict.unprovable(format!(
            "`git -c {key}` makes git read hooks or settings from another place, which can run programs"
        )),
        Some(Key::Program { expect, more }) => {
            if key.ends_with(".helper") && !value.starts_with('!') && !value.starts_with('/') {
                if !value.is_empty() {
                    verdict.unprovable(format!(
                        "`git -c {key}={value}` runs a credential helper program"
                    ));
                }
                return;
            }
            if !is_switch(value) {
                let command = value.strip_prefix('!').unwrap_or(value);
                let runs = Runs {
                    expect: expect.iter().map(|name| (*name).to_owned()).collect(),
                    more_args: more,
                    remote: false,
                };
                verdict.runs_option(command, &format!("git -c {key}"), &runs, Some(source));
            }
        }
        None => {}
    }
}

/// What a git setting's value is, when it names a program.
enum Key {
    Program {
        expect: &'static [&'static str],
        more: bool,
    },
    Folder,
}

fn program_key(key: &str) -> Option<Key> {
    if key == "core.hookspath" || key.starts_with("include.") || key.starts_with("includeif.") {
        return Some(Key::Folder);
    }
    if key == "core.pager" || key.starts_with("pager.") || key == "interactive.difffilter" {
        return Some(Key::Program {
            expect: PAGERS,
            more: false,
        });
    }
    if key == "core.editor" || key == "sequence.editor" {
        return Some(Key::Program {
            expect: EDITORS,
            more: true,
        });
    }
    if key == "core.sshcommand" {
        return Some(Key::Program {
            expect: SSH,
            more: true,
        });
    }
    let program_suffixes = [
        "gitproxy",
        "fsmonitor",
        ".external",
        ".textconv",
        ".clean",
        ".smudge",
        ".process",
        ".driver",
        ".command",
        ".cmd",
        ".program",
        "askpass",
        ".helper",
        "proxycommand",
        ".sendmailcmd",
        ".smtpserver",
        ".path",
        ".gpgprogram",
    ];
    program_suffixes
        .iter()
        .any(|suffix| key.ends_with(suffix))
        .then_some(Key::Program {
            expect: &[],
            more: true,
        })
}

/// A git alias defined on the same line (`git -c alias.l=log l`) is the git command it expands
/// to; the subcommand is then known.
fn alias(call: &Call<'_>, aliases: &[(String, String)], verdict: &mut Verdict) {
    if !call.path.is_empty() {
        return;
    }
    let Some(first) = call.operands.first().copied() else {
        return;
    };
    let name = &call.args[first];
    let Some((_, value)) = aliases.iter().find(|(alias, _)| alias == name) else {
        return;
    };
    let mut line = format!("git {value}");
    for word in &call.args[first + 1..] {
        line.push(' ');
        line.push_str(word);
    }
    // The expansion is judged as the git command it is.
    let unknown = format!("subcommand {name} of git is not known to kaiport's rules");
    verdict.unprovable.retain(|reason| *reason != unknown);
    verdict.judged.read_only = Ok(());
    verdict.script(&line, format!("git alias {name}"), None, false);
}

/// `git config`: reading forms are read-only; setting a key that names a program (or an alias
/// starting with `!`) plants a program later git commands run, which asks.
fn config(call: &Call<'_>, action: &str, operands: &[&str], display: &str, verdict: &mut Verdict) {
    let reads = [
        "--get",
        "--get-all",
        "--get-regexp",
        "--get-urlmatch",
        "--list",
        "--get-color",
        "--get-colorbool",
    ]
    .iter()
    .any(|option| call.has(option))
        || matches!(action, "get" | "list")
        || action.is_empty()
            && operands.len() == 1
            && ![
                "--unset",
                "--unset-all",
                "--remove-section",
                "--rename-section",
                "--edit",
            ]
            .iter()
            .any(|option| call.has(option));
    if reads {
        return;
    }
    verdict.not_read_only(format!(
        "`{display}` is not read-only: it changes git's settings (plan mode allows only reading forms)"
    ));
    let (key, value) = match (action, operands) {
        ("set" | "", [key, value, ..]) => (*key, *value),
        _ => return,
    };
    let key = key.to_ascii_lowercase();
    let plants = key.starts_with("alias.") && value.trim_start().starts_with('!')
        || program_key(&key).is_some() && !is_switch(value);
    if plants {
        verdict.unprovable(format!(
            "`git config {key}` sets a program that later git commands run"
        ));
        // What it would run is analysed as typed, so a forbidden program in it still denies.
        verdict.script(
            value.trim_start().trim_start_matches('!'),
            format!("git config {key}"),
            None,
            false,
        );
    }
    if let Some(file) = call.value("--file") {
        verdict.output(file, "git config --file", false);
    }
}
