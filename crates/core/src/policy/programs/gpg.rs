//! gpg: signs, encrypts, decrypts and verifies data, and keeps keyrings. Its commands are
//! options (`--sign`, `-d`, `--import`); the spec lists every one, and every other option.
//!
//! Files it writes: `-o FILE`, and without `-o` the file next to the input (`F.gpg`, `F.asc`,
//! `F.sig` when signing or encrypting F; `F` when `gpg F.gpg` or `--decrypt-files` decrypts), so
//! `gpg -o ~/.ssh/authorized_keys -d k.gpg` and `gpg --decrypt-files authorized_keys.gpg` are
//! lock-out writes; logs, status files, keyrings and the trust database it is pointed at. What
//! cannot be followed asks: `--use-embedded-filename` (the name comes from the data), a settings
//! file (`--options`, which can name programs), the photo viewer and `--exec-path`, helpers other
//! than gpg-agent and dirmngr, and `--server` (requests on standard input).

use super::args::Call;
use super::spec::Spec;
use super::verdict::Verdict;

pub const SPECS: &[Spec] = &[Spec {
    names: &["gpg", "gpg2"],
    family: "gpg",
    text: "@read-only
           @operands files
           # Commands: data.
           -s, --sign
           --clear-sign, --clearsign
           -b, --detach-sign
           -e, --encrypt
           --encrypt-files
           -c, --symmetric
           --store
           -d, --decrypt
           --decrypt-files
           --verify
           --verify-files
           --dearmor, --dearmour
           --enarmor, --enarmour
           --print-md
           --print-mds
           --gen-prime
           --gen-random
           --list-packets
           --server : unprovable reads requests on its standard input as a server
           # Commands: listing keys.
           -k, --list-keys, --list-public-keys, --list-key
           --list-signatures, --list-sigs, --list-sig
           --check-signatures, --check-sigs, --check-sig
           --fingerprint
           -K, --list-secret-keys
           --show-keys, --show-key
           --list-config
           --list-gcrypt-config
           --gpgconf-list
           --gpgconf-test
           --list-trustdb
           --card-status
           --export
           --export-secret-keys
           --export-secret-subkeys
           --export-ssh-key
           --export-ownertrust
           --generate-revocation, --gen-revoke
           --generate-designated-revocation, --desig-revoke
           # Commands: changing keyrings and cards.
           --generate-key, --gen-key : changes makes a key
           --quick-generate-key, --quick-gen-key : changes makes a key
           --full-generate-key, --full-gen-key : changes makes a key
           --quick-add-uid, --quick-adduid : changes changes a key
           --quick-add-key, --quick-addkey : changes changes a key
           --quick-revoke-uid, --quick-revuid : changes changes a key
           --quick-set-expire : changes changes a key
           --quick-set-primary-uid : changes changes a key
           --delete-keys : changes deletes keys from the keyring
           --delete-secret-keys : changes deletes keys from the keyring
           --delete-secret-and-public-keys : changes deletes keys from the keyring
           --quick-sign-key : changes signs a key
           --quick-lsign-key : changes signs a key
           --quick-revoke-sig : changes changes a key
           --sign-key : changes signs a key
           --lsign-key : changes signs a key
           --edit-key, --key-edit : changes edits a key
           --change-passphrase, --passwd : changes changes a key
           --import : changes imports keys
           --fast-import : changes imports keys
           --import-ownertrust : changes changes the trust database
           --update-trustdb : changes changes the trust database
           --check-trustdb : changes changes the trust database
           --fix-trustdb : changes changes the trust database
           --rebuild-keydb-caches : changes changes the keyring
           --tofu-policy : changes changes the trust database
           --edit-card, --card-edit : changes changes a smartcard
           --change-pin : changes changes a smartcard
           # Commands: key servers.
           --send-keys : network sends keys to a key server
           --receive-keys, --recv-keys : network fetches keys
           --search-keys : network searches a key server
           --refresh-keys : network fetches keys
           --locate-keys : network fetches keys
           --locate-external-keys : network fetches keys
           --fetch-keys : network fetches keys
           # Files it reads, writes or runs.
           -o FILE, --output=FILE : writes
           --log-file=FILE, --logger-file=FILE : writes
           --status-file=FILE : writes
           --attribute-file=FILE : writes
           --keyring=FILE : writes
           --primary-keyring=FILE : writes
           --secret-keyring=FILE : writes
           --trustdb-name=FILE : writes
           --homedir=DIR : writes-into
           --temp-directory=DIR : writes-into
           --command-file=FILE : reads
           --passphrase-file=FILE : reads
           -f FILE, --recipient-file=FILE : reads
           -F FILE, --hidden-recipient-file=FILE : reads
           --options=FILE : unprovable reads settings from a file, which can name programs gpg runs
           --use-embedded-filename : unprovable writes to the file name stored in the data
           --photo-viewer=COMMAND : runs *
           --exec-path=PATH : unprovable sets the folders gpg runs helper programs from
           --show-photos : unprovable runs the photo viewer
           --agent-program=PROGRAM : runs gpg-agent
           --dirmngr-program=PROGRAM : runs dirmngr
           # Everything else only sets how it works.
           -v, --verbose
           --no-verbose
           -q, --quiet
           --no-tty
           --no-greeting
           --debug=FLAGS
           --debug-level=LEVEL
           --debug-all
           --debug-iolbf
           --debug-quick-random
           --display-charset=NAME, --charset=NAME
           --no-options
           --logger-fd=N
           --faked-system-time=TIME
           --default-key=NAME
           --encrypt-to=NAME
           --no-encrypt-to
           --hidden-encrypt-to=NAME
           --encrypt-to-default-key
           --default-recipient=NAME
           --default-recipient-self
           --no-default-recipient
           --group=SPEC
           --ungroup=NAME
           --no-groups
           --compliance=STRING
           --gnupg
           --no-pgp2
           --no-pgp6
           --no-pgp7
           --no-pgp8
           --rfc2440
           --rfc4880
           --rfc4880bis
           --openpgp
           --pgp6
           --pgp7
           --pgp8
           --default-new-key-algo=STRING
           --min-rsa-length=N
           --always-trust
           --trust-model=MODEL
           --known-notation=NAME
           --exit-on-status-write-error
           --limit-card-insert-tries=N
           --enable-progress-filter
           --expert
           --no-expert
           --no-secmem-warning
           --require-secmem
           --no-require-secmem
           --no-permission-warning
           -n, --dry-run
           -i, --interactive
           --default-sig-expire=TIME
           --ask-sig-expire
           --no-ask-sig-expire
           --default-cert-expire=TIME
           --ask-cert-expire
           --no-ask-cert-expire
           --default-cert-level=N
           --min-cert-level=N
           --ask-cert-level
           --no-ask-cert-level
           --only-sign-text-ids
           --enable-large-rsa
           --disable-large-rsa
           --enable-dsa2
           --disable-dsa2
           --personal-cipher-preferences=LIST, --personal-cipher-prefs=LIST
           --personal-digest-preferences=LIST, --personal-digest-prefs=LIST
           --personal-compress-preferences=LIST, --personal-compress-prefs=LIST
           --default-preference-list=LIST
           --default-keyserver-url=URL
           --no-expensive-trust-checks
           --allow-non-selfsigned-uid
           --no-allow-non-selfsigned-uid
           --allow-freeform-uid
           --no-allow-freeform-uid
           --preserve-permissions
           --default-cert-check-level=N
           --tofu-default-policy=POLICY
           --lock-once
           --lock-multiple
           --lock-never
           --compress-algo=NAME, --compression-algo=NAME
           --bzip2-decompress-lowmem
           --completes-needed=N
           --marginals-needed=N
           --max-cert-depth=N
           --auto-check-trustdb
           --no-auto-check-trustdb
           --force-ownertrust=VALUE
           --multifile
           --input-size-hint=N
           --utf8-strings
           --no-utf8-strings
           --set-filesize=N
           --no-literal
           -N NAME=VALUE, --set-notation=NAME=VALUE
           --sig-notation=NAME=VALUE
           --cert-notation=NAME=VALUE
           --set-policy-url=URL
           --sig-policy-url=URL
           --cert-policy-url=URL
           --sig-keyserver-url=URL
           -a, --armor, --armour
           --no-armor, --no-armour
           --max-output=N
           --comment=TEXT
           --default-comment
           --no-comments
           --emit-version
           --no-emit-version, --no-version
           --not-dash-escaped
           --escape-from-lines
           --no-escape-from-lines
           --mimemode
           -t, --textmode
           --no-textmode
           --set-filename=NAME
           --for-your-eyes-only
           --no-for-your-eyes-only
           --show-notation
           --no-show-notation
           --show-session-key
           --no-use-embedded-filename
           --unwrap
           --mangle-dos-filenames
           --no-mangle-dos-filenames
           --no-symkey-cache
           --skip-verify
           --list-only
           -z N
           --compress-level=N
           --bzip2-compress-level=N
           --disable-signer-uid
           --auto-key-locate=MECHANISMS
           --no-auto-key-locate
           --auto-key-import
           --no-auto-key-import
           --auto-key-retrieve
           --no-auto-key-retrieve
           --include-key-block
           --no-include-key-block
           --disable-dirmngr
           --keyserver=NAME
           --keyserver-options=OPTIONS
           --key-origin=STRING
           --import-options=OPTIONS
           --import-filter=FILTER
           --export-options=OPTIONS
           --export-filter=FILTER
           --merge-only
           --allow-secret-key-import
           --list-options=OPTIONS
           --no-show-photos
           --show-policy-url
           --no-show-policy-url
           --with-colons
           --with-tofu-info
           --with-key-data
           --with-sig-list
           --with-sig-check
           --with-fingerprint
           --with-subkey-fingerprint, --with-subkey-fingerprints
           --with-icao-spelling
           --with-keygrip
           --with-secret
           --with-wkd-hash
           --with-key-origin
           --fast-list-mode
           --fixed-list-mode
           --legacy-list-mode
           --print-pka-records
           --print-dane-records
           --keyid-format=FORMAT
           --show-keyring
           -r NAME, --recipient=NAME, --remote-user=NAME, --user=NAME
           -R NAME, --hidden-recipient=NAME
           --throw-keyids
           --no-throw-keyids
           -u NAME, --local-user=NAME, --sign-with=NAME
           --trusted-key=KEYID
           --sender=MBOX
           --try-secret-key=NAME
           --try-all-secrets
           --no-default-keyring
           --no-keyring
           --skip-hidden-recipients
           --no-skip-hidden-recipients
           --override-session-key=STRING
           --override-session-key-fd=N
           --s2k-mode=N
           --s2k-digest-algo=NAME
           --s2k-cipher-algo=NAME
           --s2k-count=N
           --require-backsigs
           --require-cross-certification
           --no-require-backsigs
           --no-require-cross-certification
           --verify-options=OPTIONS
           --enable-special-filenames
           --no-random-seed-file
           --no-sig-cache
           --ignore-time-conflict
           --ignore-valid-from
           --ignore-crc-error
           --ignore-mdc-error
           --disable-cipher-algo=NAME
           --disable-pubkey-algo=NAME
           --cipher-algo=NAME
           --digest-algo=NAME
           --cert-digest-algo=NAME
           --override-compliance-check
           --allow-weak-key-signatures
           --allow-weak-digest-algos
           --weak-digest=NAME
           --allow-multisig-verification
           --allow-multiple-messages
           --no-allow-multiple-messages
           --batch
           --no-batch
           --yes
           --no
           --status-fd=N
           --attribute-fd=N
           --command-fd=N
           --passphrase[=STRING]
           --passphrase-fd=N
           --passphrase-repeat=N
           --pinentry-mode=MODE
           --force-sign-key
           --request-origin=ORIGIN
           --display=STRING
           --ttyname=STRING
           --ttytype=STRING
           --lc-ctype=STRING
           --lc-messages=STRING
           --xauthority=STRING
           --no-autostart
           --forbid-gen-key
           --require-compliance
           --use-only-openpgp-card
           --rfc2440-text
           --no-rfc2440-text
           --use-agent
           --no-use-agent
           --gpg-agent-info=STRING
           --reader-port=STRING
           --ctapi-driver=STRING
           --pcsc-driver=STRING
           --disable-ccid
           --honor-http-proxy
           --tofu-db-format=FORMAT
           --strict
           --no-strict
           --load-extension
           --sk-comments
           --no-sk-comments
           --compress-keys
           --compress-sigs
           --force-v3-sigs
           --no-force-v3-sigs
           --force-v4-certs
           --no-force-v4-certs
           --no-mdc-warning
           --force-mdc
           --no-force-mdc
           --disable-mdc
           --no-disable-mdc
           -h, --help
           --version
           --warranty
           --dump-option-table
           --dump-options",
    hook: Some(gpg),
}];

/// The commands that write data next to their input file (without `-o`), with what they add.
const NEXT_TO_INPUT: &[(&str, &str)] = &[
    ("--detach-sign", ".sig"),
    ("--clear-sign", ".asc"),
    ("--sign", ".gpg"),
    ("--encrypt", ".gpg"),
    ("--encrypt-files", ".gpg"),
    ("--symmetric", ".gpg"),
    ("--store", ".gpg"),
    ("--dearmor", ".gpg"),
    ("--enarmor", ".asc"),
];

/// Commands after which gpg does not guess what to do with a file (without any, `gpg F.gpg`
/// decrypts F.gpg to F).
const OTHER_COMMANDS: &[&str] = &[
    "--decrypt",
    "--verify",
    "--verify-files",
    "--print-md",
    "--print-mds",
    "--gen-prime",
    "--gen-random",
    "--list-packets",
    "--server",
    "--list-keys",
    "--list-signatures",
    "--check-signatures",
    "--fingerprint",
    "--list-secret-keys",
    "--show-keys",
    "--list-config",
    "--list-gcrypt-config",
    "--gpgconf-list",
    "--gpgconf-test",
    "--list-trustdb",
    "--card-status",
    "--export",
    "--export-secret-keys",
    "--export-secret-subkeys",
    "--export-ssh-key",
    "--export-ownertrust",
    "--generate-revocation",
    "--generate-designated-revocation",
    "--generate-key",
    "--quick-generate-key",
    "--full-generate-key",
    "--quick-add-uid",
    "--quick-add-key",
    "--quick-revoke-uid",
    "--quick-set-expire",
    "--quick-set-primary-uid",
    "--delete-keys",
    "--delete-secret-keys",
    "--delete-secret-and-public-keys",
    "--quick-sign-key",
    "--quick-lsign-key",
    "--quick-revoke-sig",
    "--sign-key",
    "--lsign-key",
    "--edit-key",
    "--change-passphrase",
    "--import",
    "--fast-import",
    "--import-ownertrust",
    "--update-trustdb",
    "--check-trustdb",
    "--fix-trustdb",
    "--rebuild-keydb-caches",
    "--tofu-policy",
    "--edit-card",
    "--change-pin",
    "--send-keys",
    "--receive-keys",
    "--search-keys",
    "--refresh-keys",
    "--locate-keys",
    "--locate-external-keys",
    "--fetch-keys",
    "--help",
    "--version",
    "--warranty",
    "--dump-option-table",
    "--dump-options",
];

/// The extensions gpg takes off when it decrypts a file to the name without them.
const ENCRYPTED_EXTENSIONS: &[&str] = &[".gpg", ".pgp", ".asc", ".sig"];

fn gpg(call: &Call<'_>, verdict: &mut Verdict) {
    let display = call.display();
    for option in ["--list-options", "--verify-options"] {
        for (value, _) in call.values(option) {
            if value
                .split([',', ' '])
                .any(|word| word.trim() == "show-photos")
            {
                verdict.unprovable(format!(
                    "`gpg {option} {value}` runs the photo viewer, a program settings can name"
                ));
            }
        }
    }
    if call.has("--output") {
        // The output option is the one file written (the table records it).
        return;
    }
    let files = call.operand_texts();
    let many = call.has("--multifile") || call.has("--encrypt-files");
    let inputs: Vec<&str> = if many {
        files.clone()
    } else {
        files.first().copied().into_iter().collect()
    };
    let mut writes = false;
    if let Some((command, extension)) = NEXT_TO_INPUT.iter().find(|(command, _)| call.has(command))
    {
        let extension = if call.has("--armor") {
            ".asc"
        } else {
            *extension
        };
        for file in &inputs {
            verdict.output(
                &format!("{file}{extension}"),
                format!("gpg {command}"),
                false,
            );
            writes = true;
        }
    } else if call.has("--decrypt-files") || !OTHER_COMMANDS.iter().any(|command| call.has(command))
    {
        // `gpg F.gpg` and `--decrypt-files`: F.gpg is decrypted to F.
        let inputs = if call.has("--decrypt-files") {
            &files
        } else {
            &inputs
        };
        for file in inputs {
            if let Some(plain) = ENCRYPTED_EXTENSIONS
                .iter()
                .find_map(|extension| file.strip_suffix(extension))
            {
                verdict.output(plain, "gpg (decrypts next to the input)", false);
                writes = true;
            }
        }
    }
    if writes {
        verdict.not_read_only(format!(
            "`{display}` is not read-only: it writes next to its input (plan mode allows only reading forms)"
        ));
    }
}
