//! Database clients: mysql/mariadb, psql, sqlite3, redis-cli, mongosh, and the tools that drop
//! whole databases (dropdb, mysqladmin drop).
//!
//! Querying is their own effect. Decided here: SQL that drops or truncates a database or table
//! given inline (`mysql -e`, `psql -c`, `sqlite3 DB 'SQL'`, `mongosh --eval`) is dangerous, as are
//! `dropdb`, `mysqladmin drop`, `redis-cli FLUSHALL`; client commands that run a shell
//! (`psql -c '\! cmd'`, mysql's `system cmd`, sqlite's `.shell`) are analysed as typed and asked;
//! SQL or commands read from a file or standard input cannot be read here and ask.

use super::args::Call;
use super::common::{destroys_data, positional};
use super::model::Runs;
use super::spec::Spec;
use super::verdict::Verdict;

/// The TLS options of the MariaDB and MySQL clients (`@use mysql-tls`).
pub const BLOCKS: &[(&str, &str)] = &[(
    "mysql-tls",
    "--ssl
        --ssl-ca=X : reads
        --ssl-capath=X
        --ssl-cert=X : reads
        --ssl-cipher=X
        --ssl-key=X : reads
        --ssl-crl=X : reads
        --ssl-crlpath=X
        --tls-version=X
        --ssl-verify-server-cert",
)];

pub const SPECS: &[Spec] = &[
    Spec {
        names: &["mysql", "mariadb"],
        family: "databases",
        text: "@operands args
               --print-defaults
               --no-defaults
               --defaults-file=X : unprovable reads client settings from a file, which can name a pager or startup SQL
               --defaults-extra-file=X : unprovable reads client settings from a file, which can name a pager or startup SQL
               --defaults-group-suffix=X
               -?, --help
               -I
               --abort-source-on-error
               --auto-rehash
               -A, --no-auto-rehash
               --auto-vertical-output
               -B, --batch
               --binary-as-hex
               --binary-mode
               --character-sets-dir=X : reads
               --column-names
               -N, --skip-column-names
               --column-type-info
               -c, --comments
               -C, --compress
               --connect-expired-password
               --connect-timeout=X
               -D X, --database=X
               -#
               --debug[=X]
               --debug-check
               -T, --debug-info
               --default-auth=X : unprovable loads an authentication plugin
               --default-character-set=X
               --delimiter=X
               --enable-cleartext-plugin
               -e X, --execute=X
               -f, --force
               -h X, --host=X
               -H, --html
               --init-command=X
               --line-numbers
               -L, --skip-line-numbers
               --local-infile
               --max-allowed-packet=X
               --max-join-size=X
               -G, --named-commands
               --net-buffer-length=X
               -b, --no-beep
               -o, --one-database
               --plugin-dir=X : unprovable loads plugins from a folder
               -P X, --port=X
               --print-query-on-error
               --progress-reports
               --prompt=X
               --protocol=X
               -q, --quick
               --quick-max-column-width=X
               -r, --raw
               --reconnect
               -U, --safe-updates
               --i-am-a-dummy
               --sandbox
               --secure-auth
               --select-limit=X
               --server-arg=X
               --show-warnings
               --sigint-ignore
               -s, --silent
               -S X, --socket=X
               @use mysql-tls
               -t, --table
               --tee=X : writes
               -n, --unbuffered
               -u X, --user=X
               -v, --verbose
               -V, --version
               -E, --vertical
               -w, --wait
               -X, --xml
               -p[PASSWORD], --password[=PASSWORD]
               --pager[=PAGER] : runs less more most cat
               -i, --ignore-spaces
               --skip-reconnect",
        hook: Some(mysql),
    },
    Spec {
        names: &["psql"],
        family: "databases",
        text: "@operands args
               -1, --single-transaction
               --help[=TOPIC]
               -c X, --command=X
               -d X, --dbname=X
               -f X, --file=X : unprovable runs SQL and psql commands from a file
               -l, --list
               -v X, --set=X, --variable=X
               -V, --version
               -X, --no-psqlrc
               --single-transaction
               -?
               -a, --echo-all
               -b, --echo-errors
               -e, --echo-queries
               -E, --echo-hidden
               -L X, --log-file=X : writes
               -n, --no-readline
               -o X, --output=X : writes
               -q, --quiet
               -s, --single-step
               -S, --single-line
               -A, --no-align
               --csv
               -F X, --field-separator=X
               -H, --html
               -P X, --pset=X
               -R X, --record-separator=X
               -t, --tuples-only
               -T X, --table-attr=X
               -x, --expanded
               -z, --field-separator-zero
               -0, --record-separator-zero
               -h X, --host=X
               -p X, --port=X
               -U X, --username=X
               -w, --no-password
               -W, --password",
        hook: Some(psql),
    },
    Spec {
        names: &["dropdb"],
        family: "databases",
        text: "@operands args
               -e, --echo
               -f, --force
               -i, --interactive
               -V, --version
               --if-exists
               -?, --help
               -h X, --host=X
               -p X, --port=X
               -U X, --username=X
               -w, --no-password
               -W, --password
               --maintenance-db=X",
        hook: Some(dropdb),
    },
    Spec {
        names: &["mysqladmin", "mariadb-admin"],
        family: "databases",
        text: "@read-only
               @operands args
               --print-defaults
               --no-defaults
               --defaults-file=X : unprovable reads client settings from a file
               --defaults-extra-file=X : unprovable reads client settings from a file
               --defaults-group-suffix=X
               -c X, --count=X
               --debug-check
               --debug-info
               -#[X], --debug[=X]
               -f, --force
               -C, --compress
               --character-sets-dir=X : reads
               --default-character-set=X
               -?, --help
               -h X, --host=X
               -l, --local
               -b, --no-beep
               -p[X], --password[=X]
               -P X, --port=X
               --protocol=X
               -r, --relative
               -s, --silent
               -S X, --socket=X
               -i X, --sleep=X
               @use mysql-tls
               -u X, --user=X
               -v, --verbose
               -V, --version
               -E, --vertical
               -w[X], --wait[=X]
               --connect-timeout=X
               --shutdown-timeout=X
               --wait-for-all-slaves
               --plugin-dir=X : unprovable loads plugins from a folder
               --default-auth=X : unprovable loads an authentication plugin",
        hook: Some(mysqladmin),
    },
    Spec {
        names: &["sqlite3"],
        family: "databases",
        text: "@operands args
               -A ARGS : unprovable runs an archive command, which can write files
               -append, --append
               -ascii, --ascii
               -bail, --bail
               -batch, --batch
               -box, --box
               -column, --column
               -cmd COMMAND, --cmd COMMAND
               -csv, --csv
               -deserialize, --deserialize
               -echo, --echo
               -init FILE, --init FILE : unprovable runs commands from a file
               -header, --header
               -noheader, --noheader
               -help, --help
               -html, --html
               -interactive, --interactive
               -json, --json
               -line, --line
               -list, --list
               -lookaside SIZE, --lookaside SIZE
               -markdown, --markdown
               -maxsize N, --maxsize N
               -memtrace, --memtrace
               -mmap N, --mmap N
               -newline SEP, --newline SEP
               -nofollow, --nofollow
               -nonce STRING, --nonce STRING
               -nullvalue TEXT, --nullvalue TEXT
               -pagecache SIZE, --pagecache SIZE
               -quote, --quote
               -readonly, --readonly
               -safe, --safe
               -separator SEP, --separator SEP
               -stats, --stats
               -table, --table
               -tabs, --tabs
               -version, --version
               -vfs NAME, --vfs NAME
               -zip, --zip
               -heap SIZE, --heap SIZE
               -utf8, --utf8
               -unsafe-testing, --unsafe-testing
               -multiplex, --multiplex
               -sorterref SIZE, --sorterref SIZE
               -vfstrace, --vfstrace
               -hexkey KEY, --hexkey KEY
               -key KEY, --key KEY
               -escape MODE, --escape MODE
               -no-rowid-in-view, --no-rowid-in-view",
        hook: Some(sqlite),
    },
    Spec {
        names: &["redis-cli"],
        family: "databases",
        text: "@read-only
               @operands args
               @posix
               -h HOST
               -p PORT
               -s SOCKET
               -a PASSWORD
               --user=USER
               --pass=PASSWORD
               --askpass
               -u URI
               -r REPEAT
               -i INTERVAL
               -n DB
               -2
               -3
               -x
               -X TAG
               -d DELIMITER
               -D DELIMITER
               -c
               -e
               --tls
               --sni=HOST
               --cacert=FILE : reads
               --cacertdir=DIR
               --insecure
               --cert=FILE : reads
               --key=FILE : reads
               --tls-ciphers=LIST
               --tls-ciphersuites=LIST
               --raw
               --no-raw
               --quoted-input
               --csv
               --json
               --quoted-json
               --show-pushes=BOOL
               --stat
               --latency
               --latency-history
               --latency-dist
               --lru-test=KEYS
               --replica
               --rdb=FILE : writes
               --functions-rdb=FILE : writes
               --pipe : unprovable sends the commands on its standard input, which cannot be read here
               --pipe-timeout=SECONDS
               --bigkeys
               --memkeys
               --memkeys-samples=N
               --hotkeys
               --scan
               --pattern=PATTERN
               --quoted-pattern=PATTERN
               --count=N
               --intrinsic-latency=SECONDS
               --eval=FILE : unprovable runs a Lua script on the server
               --ldb
               --ldb-sync-mode
               --cluster=COMMAND : changes manages a Redis cluster
               --verbose
               --no-auth-warning
               --help
               --version",
        hook: Some(redis),
    },
    Spec {
        names: &["mongosh", "mongo"],
        family: "databases",
        text: "@negatable
               @operands args
               -h, --help
               -u X, --username=X
               -p X, --password=X
               -f X, --file=X : unprovable runs a script file
               --eval=X
               --json[=X]
               --oidcDumpTokens[=X]
               --browser=X : runs *
               --cryptSharedLibPath=X : unprovable loads a library
               --csfleLibraryPath=X : unprovable loads a library
               --apiVersion=X
               --authenticationDatabase=X
               --authenticationMechanism=X
               --awsAccessKeyId=X
               --awsIamSessionToken=X
               --awsSecretAccessKey=X
               --awsSessionToken=X
               --db=X
               --gssapiHostName=X
               --gssapiServiceName=X
               --sspiHostnameCanonicalization=X
               --sspiRealmOverride=X
               --jsContext=X
               --host=X
               --keyVaultNamespace=X
               --kmsURL=X
               --locale=X
               --oidcFlows=X
               --oidcRedirectUri=X
               --oidcRedirectUrl=X
               --port=X
               --sslPEMKeyFile=X
               --sslPEMKeyPassword=X
               --sslCAFile=X
               --sslCertificateSelector=X
               --sslCRLFile=X
               --sslDisabledProtocols=X
               --tlsCAFile=X
               --tlsCertificateKeyFile=X
               --tlsCertificateKeyFilePassword=X
               --tlsCertificateSelector=X
               --tlsCRLFile=X
               --tlsDisabledProtocols=X
               --networkMessageCompressors=X
               --apiDeprecationErrors
               --apiStrict
               --buildInfo
               --build-info
               --exposeAsyncRewriter
               --ipv6
               --nodb
               --norc
               --oidcTrustedEndpoint
               --oidcIdTokenAsAccessToken
               --oidcIDTokenAsAccessToken
               --oidcNoNonce
               --perfTests
               --quiet
               --retryWrites
               --shell
               --smokeTests
               --skipStartupWarnings
               --ssl
               --sslAllowInvalidCertificates
               --sslAllowInvalidHostnames
               --sslFIPSMode
               --tls
               --tlsAllowInvalidCertificates
               --tlsAllowInvalidHostnames
               --tlsFIPSMode
               --tlsUseSystemCA
               --verbose
               --version
               --disableJavaScriptJIT
               --enableJavaScriptJIT
               --disableJavaScriptProtection
               --enableJavaScriptProtection
               --disableImplicitSessions",
        hook: Some(mongosh),
    },
];

fn any() -> Runs {
    Runs::any()
}

fn not_read_only(call: &Call<'_>, verdict: &mut Verdict) {
    verdict.not_read_only(format!(
        "`{}` is not on plan mode's list of read-only commands",
        call.display()
    ));
}

/// Inline SQL: dropping data is dangerous.
fn sql(call: &Call<'_>, text: &str, verdict: &mut Verdict) {
    if destroys_data(text) {
        verdict.dangerous(
            &call.display(),
            "drops or empties a database or table, which cannot be undone",
        );
    }
    let lowered = text.to_ascii_lowercase();
    if lowered.contains("program") && (lowered.contains("copy") || lowered.contains("\\copy")) {
        verdict.unprovable("`COPY … PROGRAM` runs a program on the database server");
    }
    if lowered.contains("into outfile") || lowered.contains("into dumpfile") {
        verdict.unprovable("`SELECT … INTO OUTFILE` writes a file on the database server");
    }
}

/// Commands read from standard input (`mysql db < dump.sql`) are not known here.
fn reads_stdin_commands(verdict: &mut Verdict) {
    verdict.commands_on_stdin = true;
}

fn mysql(call: &Call<'_>, verdict: &mut Verdict) {
    not_read_only(call, verdict);
    let statements: Vec<(&str, usize)> = call
        .values("--execute")
        .into_iter()
        .chain(call.values("--init-command"))
        .collect();
    if call.values("--execute").is_empty() {
        reads_stdin_commands(verdict);
    }
    for (text, index) in statements {
        sql(call, text, verdict);
        for statement in text.split(';') {
            let statement = statement.trim();
            let lowered = statement.to_ascii_lowercase();
            if let Some(command) = statement
                .strip_prefix("\\!")
                .or_else(|| lowered.starts_with("system ").then(|| &statement[7..]))
            {
                verdict.runs_option(command, "mysql system", &any(), Some(index));
            }
            if lowered.starts_with("source ") || statement.starts_with("\\.") {
                verdict.unprovable("`mysql -e 'source FILE'` runs SQL from a file");
            }
            if lowered.starts_with("tee ")
                || statement.starts_with("\\T")
                || lowered.starts_with("pager ")
            {
                verdict.unprovable("a mysql client command writes a file or runs a pager");
            }
        }
    }
}

/// psql's backslash commands that run a shell, write files or read SQL from files.
fn psql_meta(call: &Call<'_>, text: &str, index: usize, verdict: &mut Verdict) {
    sql(call, text, verdict);
    let mut rest = text;
    while let Some(position) = rest.find('\\') {
        let after = &rest[position + 1..];
        let command: String = after
            .chars()
            .take_while(|c| c.is_ascii_alphabetic() || *c == '!')
            .collect();
        let argument = after[command.len()..]
            .split("\\")
            .next()
            .unwrap_or_default();
        match command.as_str() {
            "!" => verdict.runs_option(argument.trim(), "psql \\!", &any(), Some(index)),
            "o" | "out" | "w" | "write" | "g" | "gx" | "copy" | "lo_export" => verdict.unprovable(
                format!("`psql \\{command}` writes a file or runs a program"),
            ),
            "i" | "include" | "ir" | "include_relative" | "lo_import" => {
                verdict.unprovable(format!("`psql \\{command}` runs SQL from a file"))
            }
            "setenv" => verdict.unprovable("`psql \\setenv` changes what later programs run"),
            _ => {}
        }
        rest = after;
    }
}

fn psql(call: &Call<'_>, verdict: &mut Verdict) {
    not_read_only(call, verdict);
    let commands = call.values("--command");
    if commands.is_empty() && call.values("--file").is_empty() && !call.has("--list") {
        reads_stdin_commands(verdict);
    }
    for (text, index) in commands {
        psql_meta(call, text, index, verdict);
    }
    // `-o '|cmd'` pipes the query results into a shell command.
    for (output, index) in call.values("--output") {
        if let Some(command) = output.trim_start().strip_prefix('|') {
            verdict.runs_option(command.trim(), "psql -o |", &any(), Some(index));
        }
    }
}

fn dropdb(call: &Call<'_>, verdict: &mut Verdict) {
    verdict.dangerous(
        &call.display(),
        "drops a whole database, which cannot be undone",
    );
    not_read_only(call, verdict);
}

/// mysqladmin's commands, each with how many arguments it takes (`drop NAME`); a command may be
/// shortened to any unique prefix.
const MYSQLADMIN_COMMANDS: &[(&str, usize)] = &[
    ("create", 1),
    ("debug", 0),
    ("drop", 1),
    ("extended-status", 0),
    ("flush-all-statistics", 0),
    ("flush-all-status", 0),
    ("flush-client-statistics", 0),
    ("flush-hosts", 0),
    ("flush-index-statistics", 0),
    ("flush-logs", 0),
    ("flush-privileges", 0),
    ("flush-binary-log", 0),
    ("flush-engine-log", 0),
    ("flush-error-log", 0),
    ("flush-general-log", 0),
    ("flush-relay-log", 0),
    ("flush-slow-log", 0),
    ("flush-ssl", 0),
    ("flush-status", 0),
    ("flush-table-statistics", 0),
    ("flush-tables", 0),
    ("flush-threads", 0),
    ("flush-user-statistics", 0),
    ("flush-user-resources", 0),
    ("kill", 1),
    ("password", 1),
    ("old-password", 1),
    ("ping", 0),
    ("processlist", 0),
    ("reload", 0),
    ("refresh", 0),
    ("shutdown", 0),
    ("status", 0),
    ("start-all-slaves", 0),
    ("start-slave", 0),
    ("stop-all-slaves", 0),
    ("stop-slave", 0),
    ("variables", 0),
    ("version", 0),
];

fn mysqladmin(call: &Call<'_>, verdict: &mut Verdict) {
    // Each operand as the command it names (a unique prefix counts), skipping their arguments.
    let mut words: Vec<&str> = Vec::new();
    let mut operands = call.operand_texts().into_iter();
    while let Some(word) = operands.next() {
        let lowered = word.to_ascii_lowercase();
        let exact = MYSQLADMIN_COMMANDS
            .iter()
            .find(|(command, _)| *command == lowered);
        let matches: Vec<&(&str, usize)> = MYSQLADMIN_COMMANDS
            .iter()
            .filter(|(command, _)| command.starts_with(lowered.as_str()))
            .collect();
        match (exact, matches.as_slice()) {
            (Some((command, takes)), _) | (None, [(command, takes)]) => {
                words.push(*command);
                for _ in 0..*takes {
                    operands.next();
                }
            }
            _ => verdict.unprovable(format!(
                "command {word} of mysqladmin is not known to kaiport's rules"
            )),
        }
    }
    if words
        .iter()
        .any(|word| matches!(*word, "drop" | "shutdown"))
    {
        verdict.dangerous(
            &call.display(),
            "drops a database or stops the database server",
        );
    }
    if !words.iter().all(|word| {
        matches!(
            *word,
            "status" | "extended-status" | "processlist" | "variables" | "version" | "ping"
        )
    }) {
        not_read_only(call, verdict);
    }
}

/// sqlite3: SQL and dot-commands given as arguments; dot-commands that run shell commands or
/// write files.
fn sqlite(call: &Call<'_>, verdict: &mut Verdict) {
    not_read_only(call, verdict);
    let args = call.args;
    let inline = positional(args).len() >= 2 || args.iter().any(|arg| arg == "-cmd");
    if !inline {
        reads_stdin_commands(verdict);
    }
    for (index, arg) in args.iter().enumerate() {
        let text = arg.trim_start();
        sql(call, text, verdict);
        for command in [".shell", ".system"] {
            if let Some(rest) = text.strip_prefix(command) {
                verdict.runs_option(rest, &format!("sqlite3 {command}"), &any(), Some(index));
            }
        }
        if [
            ".once", ".output", ".load", ".read", ".import", ".backup", ".save", ".excel",
        ]
        .iter()
        .any(|command| text.starts_with(command))
        {
            verdict.unprovable(format!(
                "`sqlite3 {text}` writes a file, reads commands or loads code"
            ));
        }
        if arg == "-init" {
            verdict.unprovable("`sqlite3 -init FILE` runs commands from a file");
        }
    }
}

fn redis(call: &Call<'_>, verdict: &mut Verdict) {
    let words: Vec<String> = call
        .operand_texts()
        .iter()
        .map(|word| word.to_ascii_lowercase())
        .collect();
    let display = call.display();
    if words
        .iter()
        .any(|word| matches!(word.as_str(), "flushall" | "flushdb" | "shutdown" | "debug"))
    {
        verdict.dangerous(&display, "empties the database or stops the server");
    }
    if words
        .windows(2)
        .any(|pair| pair[0] == "config" && pair[1] == "set")
    {
        verdict.unprovable("`redis-cli CONFIG SET` can make the server write files anywhere");
    }
    if call
        .args
        .iter()
        .any(|arg| arg == "--eval" || arg == "--pipe")
    {
        verdict.unprovable(
            "`redis-cli --eval/--pipe` runs scripts or commands this analysis cannot read",
        );
    }
    let reads = matches!(
        words.first().map(String::as_str),
        Some(
            "get"
                | "keys"
                | "scan"
                | "info"
                | "ping"
                | "ttl"
                | "type"
                | "exists"
                | "dbsize"
                | "hgetall"
                | "lrange"
                | "smembers"
                | "mget"
                | "strlen"
                | "hget"
                | "llen"
                | "scard"
                | "zrange"
                | "memory"
                | "slowlog"
                | "client"
                | "monitor"
        )
    ) || call.args.iter().any(|arg| {
        matches!(
            arg.as_str(),
            "--stat" | "--bigkeys" | "--memkeys" | "--latency" | "--scan" | "--version"
        )
    });
    if !reads {
        not_read_only(call, verdict);
    }
}

fn mongosh(call: &Call<'_>, verdict: &mut Verdict) {
    not_read_only(call, verdict);
    let args = call.args;
    for (index, arg) in args.iter().enumerate() {
        if arg == "--eval"
            && let Some(code) = args.get(index + 1)
        {
            sql(call, code, verdict);
        }
        if let Some(code) = arg.strip_prefix("--eval=") {
            sql(call, code, verdict);
        }
        // The shell is Node.js: `require('child_process')` runs programs.
        if arg.contains("child_process") || arg.contains("require(") || arg.contains("process.") {
            verdict.unprovable("`mongosh` code that loads Node.js modules can run programs");
        }
        if arg.ends_with(".js") || arg == "--file" || arg == "-f" {
            verdict.unprovable("`mongosh` runs a script file this analysis cannot read");
        }
    }
}
