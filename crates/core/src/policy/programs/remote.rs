//! Programs that copy to and talk with other hosts: ssh, scp, sftp, ssh-keygen, rsync, curl,
//! wget, nc, socat.
//!
//! Their own effect is the transfer: the destination they write (an rsync or scp destination,
//! `curl -o`, `wget`'s file names) joins the write and lock-out checks. Other effects ask: an
//! `-e`/`-S`/`ProxyCommand` that is not plainly ssh, `rsync --delete` (dangerous), `curl -K`,
//! `wget -e`. `ssh host cmd` runs `cmd` on the other host, analysed as typed. `ssh-keygen` only
//! writes its key file when it makes or changes a key (`-l -f FILE` reads).

use super::args::Call;
use super::common::empties_destination;
use super::model::Runs;
use super::spec::Spec;
use super::verdict::{Payload, Shape, Verdict};

/// Options scp and sftp share (`@use remote-copy`).
pub const BLOCKS: &[(&str, &str)] = &[
    (
        "remote-copy",
        "-c CIPHER
     -D PROGRAM : runs *
     -F FILE : unprovable reads an ssh configuration file, which can name programs to run
     -i FILE : reads
     -J DESTINATION
     -l LIMIT
     -o OPTION
     -P PORT
     -S PROGRAM : runs+ ssh",
    ),
    (
        "nc-openbsd",
        "-4
        -6
        -b
        -C
        -D
        -d
        -F
        -h
        -I LENGTH
        -i INTERVAL
        -k
        -l
        -M TTL
        -m MINTTL
        -N
        -n
        -O LENGTH
        -P USER
        -p PORT
        -q SECONDS
        -r
        -S
        -s ADDRESS
        -T KEYWORD
        -t
        -U
        -u
        -V RTABLE
        -v
        -W RECVLIMIT
        -w TIMEOUT
        -X PROTOCOL
        -x ADDRESS
        -Z
        -z",
    ),
    (
        "nc-traditional",
        "-c COMMAND : runs *
        -e FILE : runs *
        -o FILE : writes
        -b
        -C
        -g GATEWAY
        -G POINTER
        -h
        -i SECONDS
        -k
        -l
        -n
        -p PORT
        -q SECONDS
        -r
        -s ADDRESS
        -T TOS
        -t
        -u
        -v
        -w SECONDS
        -z",
    ),
    (
        "ncat",
        "-c COMMAND, --sh-exec=COMMAND : runs *
        -e COMMAND, --exec=COMMAND : runs *
        --lua-exec=FILE : unprovable runs a Lua program for each connection
        -o FILE, --output=FILE : writes
        -x FILE, --hex-dump=FILE : writes
        -4
        -6
        -U, --unixsock
        --vsock
        -C, --crlf
        -g HOPS
        -G POINTER
        -m N, --max-conns=N
        -h, --help
        -d TIME, --delay=TIME
        -i TIME, --idle-timeout=TIME
        -p PORT, --source-port=PORT
        -s ADDRESS, --source=ADDRESS
        -l, --listen
        -k, --keep-open
        -n, --nodns
        -t, --telnet
        -u, --udp
        --sctp
        -v, --verbose
        -w TIME, --wait=TIME
        -z
        --append-output
        --send-only
        --recv-only
        --no-shutdown
        --allow=HOSTS
        --allowfile=FILE : reads
        --deny=HOSTS
        --denyfile=FILE : reads
        --broker
        --chat
        --proxy=ADDRESS
        --proxy-type=TYPE
        --proxy-auth=AUTH
        --proxy-dns=TYPE
        --ssl
        --ssl-cert=FILE : reads
        --ssl-key=FILE : reads
        --ssl-verify
        --ssl-trustfile=FILE : reads
        --ssl-ciphers=CIPHERS
        --ssl-servername=NAME
        --ssl-alpn=PROTOCOLS
        --version",
    ),
];

pub const SPECS: &[Spec] = &[
    Spec {
        names: &["ssh", "slogin"],
        family: "remote",
        text: "@read-only
               @operands args
               @posix
               -4
               -6
               -A
               -a
               -C
               -f
               -G
               -g
               -K
               -k
               -M
               -N
               -n
               -q
               -s
               -T
               -t
               -V
               -v
               -X
               -x
               -Y
               -y
               -B IFACE
               -b ADDRESS
               -c CIPHERS
               -D PORT : network forwards connections
               -E FILE : writes
               -e CHAR
               -F FILE : unprovable reads an ssh configuration file, which can name programs to run
               -I PKCS11 : unprovable loads a PKCS#11 library into ssh
               -i FILE : reads
               -J DESTINATION
               -L ADDRESS : network forwards connections
               -l USER
               -m MACS
               -O COMMAND
               -o OPTION
               -P TAG
               -p PORT
               -Q QUERY
               -R ADDRESS : network forwards connections
               -S PATH
               -W ADDRESS : network forwards connections
               -w TUNNEL : network forwards connections",
        hook: Some(ssh),
    },
    Spec {
        names: &["scp"],
        family: "remote",
        text: "@operands copy
               -3
               -4
               -6
               -A
               -B
               -C
               -O
               -p
               -q
               -R
               -r
               -s
               -T
               -v
               @use remote-copy
               -X OPTION",
        hook: Some(scp),
    },
    Spec {
        names: &["sftp"],
        family: "remote",
        text: "@read-only
               @operands args
               -4
               -6
               -A
               -a
               -C
               -f
               -N
               -p
               -q
               -r
               -v
               -B SIZE
               -b FILE : unprovable runs sftp commands from a batch file, which can run local commands (`!`)
               -R REQUESTS
               @use remote-copy
               -s SUBSYSTEM
               -X OPTION",
        hook: Some(ssh_options),
    },
    Spec {
        names: &["ssh-keygen"],
        family: "remote",
        text: "@read-only
               @operands args
               -A : changes makes the host keys
               -a ROUNDS
               -B
               -b BITS
               -C COMMENT
               -c : changes changes a key's comment
               -D PKCS11 : unprovable loads a PKCS#11 library into ssh-keygen
               -E HASH
               -e
               -F HOST
               -f FILE
               -g
               -H : changes hashes a known_hosts file
               -h
               -I IDENTITY
               -i
               -K : changes downloads keys into files
               -k : changes makes a key revocation list
               -L
               -l
               -M WHAT
               -m FORMAT
               -N PASSPHRASE
               -n PRINCIPALS
               -O OPTION
               -P PASSPHRASE
               -p : changes changes a key's passphrase
               -Q
               -q
               -R HOST : changes removes a host from a known_hosts file
               -r HOST
               -s KEY
               -t TYPE
               -U
               -u
               -V INTERVAL
               -v
               -w PROVIDER : unprovable loads a security key library into ssh-keygen
               -Y OPERATION
               -y
               -Z CIPHER
               -z SERIAL",
        hook: Some(ssh_keygen),
    },
    Spec {
        names: &["rsync"],
        family: "remote",
        text: "@operands copy
               @negatable
               --verbose, -v
               --info=X
               --debug=X
               --stderr=X
               --quiet, -q
               --no-motd
               --checksum, -c
               --archive, -a
               --no-OPTION
               --recursive, -r
               --inc-recursive, --i-r
               --no-inc-recursive
               --no-i-r
               --relative, -R
               --no-implied-dirs
               --backup, -b
               --backup-dir=X : writes-into
               --suffix=X
               --update, -u
               --inplace
               --append
               --append-verify
               --dirs, -d
               --old-dirs
               --old-d
               --mkpath
               --links, -l
               --copy-links, -L
               --copy-unsafe-links
               --safe-links
               --insecure-links
               --confine-root=X
               --munge-links
               --copy-dirlinks, -k
               --keep-dirlinks, -K
               --hard-links, -H
               --perms, -p
               --executability, -E
               --chmod=X
               --acls, -A
               --xattrs, -X
               --owner, -o
               --group, -g
               --devices
               --copy-devices
               --write-devices
               --specials
               --drop-D
               -D
               --times, -t
               --atimes, -U
               --open-noatime
               --crtimes, -N
               --omit-dir-times, -O
               --omit-link-times, -J
               --super
               --fake-super
               --sparse, -S
               --preallocate
               --dry-run, -n
               --whole-file, -W
               --no-whole-file, --no-W
               --checksum-choice=X
               --one-file-system, -x
               --block-size=X, -B X
               --rsh=X, -e X : runs+ ssh rsh
               --rsync-path=X : runs-remote rsync sudo
               --existing
               --ignore-non-existing
               --ignore-existing
               --remove-source-files : deletes removes the source files after copying
               --del : deletes removes files at the destination
               --delete : deletes removes files at the destination
               --delete-before : deletes removes files at the destination
               --delete-during : deletes removes files at the destination
               --delete-delay : deletes removes files at the destination
               --delete-after : deletes removes files at the destination
               --delete-excluded : deletes removes files at the destination
               --ignore-missing-args
               --delete-missing-args : deletes removes files at the destination
               --ignore-errors
               --force
               --max-delete=X
               --max-size=X
               --min-size=X
               --max-alloc=X
               --partial
               --partial-dir=X : writes-into
               --delay-updates
               --prune-empty-dirs, -m
               --numeric-ids
               --usermap=X
               --groupmap=X
               --chown=X
               --timeout=X
               --contimeout=X
               --ignore-times, -I
               --size-only
               --modify-window=X, -@ X
               --temp-dir=X, -T X : writes-into
               --fuzzy, -y
               --compare-dest=X : reads
               --copy-dest=X : reads
               --link-dest=X : reads
               --compress, -z
               --compress-choice=X
               --compress-level=X
               --compress-threads=X
               --skip-compress=X
               --cvs-exclude, -C
               --filter=X, -f X
               -F
               --exclude=X
               --exclude-from=X : reads
               --include=X
               --include-from=X : reads
               --files-from=X : reads
               --from0, -0
               --old-args
               --secluded-args, -s
               --trust-sender
               --copy-as=X
               --address=X
               --port=X
               --sockopts=X
               --blocking-io
               --outbuf=X
               --stats
               --8-bit-output, -8
               --human-readable, -h
               --progress
               -P
               --itemize-changes, -i
               --remote-option=X, -M X : unprovable passes options to the rsync on the other side
               --out-format=X
               --log-file=X : writes
               --log-file-format=X
               --password-file=X : reads
               --early-input=X : reads
               --list-only
               --bwlimit=X
               --stop-after=X
               --stop-at=X
               --fsync
               --write-batch=X : writes
               --only-write-batch=X : writes
               --read-batch=X : reads
               --protocol=X
               --iconv=X
               --checksum-seed=X
               --ipv4, -4
               --ipv6, -6
               --version, -V
               --help
               --daemon : changes starts the rsync daemon
               --config=FILE : reads
               --dparam=PARAM
               --no-detach
               --cc=NAME
               --zc=NAME
               --zl=NUM
               --zt=NUM",
        hook: Some(rsync),
    },
    Spec {
        names: &["curl"],
        family: "remote",
        text: "@read-only
               @operands args
               --abstract-unix-socket=X
               --alt-svc=X : writes
               --anyauth
               -a, --append
               --aws-sigv4=X
               --basic
               --cacert=X : reads
               --capath=X : reads
               -E X, --cert=X : reads
               --cert-status
               --cert-type=X
               --ciphers=X
               --compressed
               --compressed-ssh
               -K X, --config=X : unprovable reads more options from a file
               --connect-timeout=X
               --connect-to=X
               -C X, --continue-at=X
               -b X, --cookie=X
               -c X, --cookie-jar=X : writes
               --create-dirs
               --create-file-mode=X
               --crlf
               --crlfile=X : reads
               --curves=X
               -d X, --data=X : network sends data
               --data-ascii=X : network sends data
               --data-binary=X : network sends data
               --data-raw=X : network sends data
               --data-urlencode=X : network sends data
               --delegation=X
               --digest
               -q, --disable
               --disable-eprt
               --disable-epsv
               --dns-interface=X
               --dns-ipv4-addr=X
               --dns-ipv6-addr=X
               --dns-servers=X
               --doh-cert-status
               --doh-insecure
               --doh-url=X
               -D X, --dump-header=X : writes
               --egd-file=X
               --engine=X : unprovable loads a crypto engine (code) into curl
               --etag-compare=X : reads
               --etag-save=X : writes
               --expect100-timeout=X
               -f, --fail
               --fail-early
               --fail-with-body
               --false-start
               -F X, --form=X : network sends data
               --form-escape
               --form-string=X : network sends data
               --ftp-account=X
               --ftp-alternative-to-user=X
               --ftp-create-dirs
               --ftp-method=X
               --ftp-pasv
               -P X, --ftp-port=X
               --ftp-pret
               --ftp-skip-pasv-ip
               --ftp-ssl-ccc
               --ftp-ssl-ccc-mode=X
               --ftp-ssl-control
               -G, --get
               -g, --globoff
               --happy-eyeballs-timeout-ms=X
               --haproxy-protocol
               -I, --head
               -H X, --header=X
               -h X, --help=X
               --hostpubmd5=X
               --hostpubsha256=X
               --hsts=X : writes
               --http0.9
               -0, --http1.0
               --http1.1
               --http2
               --http3
               --http3-only
               -i, --include
               -k, --insecure
               --interface=X
               -4, --ipv4
               -6, --ipv6
               --json=X : network sends data
               --keepalive-time=X
               --key=X : reads
               --key-type=X
               --krb=X
               --libcurl=X : writes
               --limit-rate=X
               -l, --list-only
               --local-port=X
               -L, --location
               --location-trusted
               --login-options=X
               --mail-auth=X
               --mail-from=X : network sends mail
               --mail-rcpt=X : network sends mail
               -M, --manual
               --max-filesize=X
               --max-redirs=X
               -m X, --max-time=X
               --metalink
               --negotiate
               -n, --netrc
               --netrc-file=X : reads
               --netrc-optional
               --no-alpn
               -N, --no-buffer
               --no-clobber
               --no-keepalive
               --no-npn
               --no-progress-meter
               --no-sessionid
               --noproxy=X
               --ntlm
               --ntlm-wb
               --oauth2-bearer=X
               -o X, --output=X : writes
               --output-dir=X : writes-into
               -Z, --parallel
               --parallel-max=X
               --pass=X
               --path-as-is
               --pinnedpubkey=X
               --post301
               --post302
               --post303
               --preproxy[=X]
               -#, --progress-bar
               --proto=X
               --proto-default=X
               --proto-redir=X
               -x
               --proxy[=X]
               --proxy-anyauth
               --proxy-basic
               --proxy-cacert=X : reads
               --proxy-capath=X
               --proxy-cert=X : reads
               --proxy-cert-type=X
               --proxy-ciphers=X
               --proxy-crlfile=X
               --proxy-digest
               --proxy-header=X
               --proxy-insecure
               --proxy-key=X : reads
               --proxy-key-type=X
               --proxy-negotiate
               --proxy-ntlm
               --proxy-pass=X
               --proxy-pinnedpubkey=X
               --proxy-service-name=X
               --proxy-tls13-ciphers=X
               --proxy-tlsauthtype=X
               --proxy-tlspassword=X
               --proxy-tlsuser=X
               --proxy-tlsv1
               -U X, --proxy-user=X
               --proxy1.0=X
               -p, --proxytunnel
               --pubkey=X
               -Q X, --quote=X : network sends commands to the server
               --random-file=X
               -r X, --range=X
               --rate=X
               --raw
               -e X, --referer=X
               -O, --remote-name
               --remote-name-all
               -R, --remote-time
               --remove-on-error
               -X X, --request=X : network sends a request with another method
               --request-target=X
               --resolve=X
               --retry=X
               --retry-all-errors
               --retry-connrefused
               --retry-delay=X
               --retry-max-time=X
               --sasl-authzid=X
               --sasl-ir
               --service-name=X
               -S, --show-error
               -s, --silent
               --socks4=X
               --socks4a=X
               --socks5=X
               --socks5-basic
               --socks5-gssapi
               --socks5-gssapi-nec
               --socks5-gssapi-service=X
               -Y X, --speed-limit=X
               -y X, --speed-time=X
               --ssl
               --ssl-allow-beast
               --ssl-no-revoke
               --ssl-reqd
               -2, --sslv2
               -3, --sslv3
               --stderr=X : writes
               --styled-output
               --tcp-fastopen
               --tcp-nodelay
               -t X, --telnet-option=X
               --tftp-blksize=X
               --tftp-no-options
               -z X, --time-cond=X
               --tls-max=X
               --tls13-ciphers=X
               --tlsauthtype=X
               --tlspassword=X
               --tlsuser=X
               -1, --tlsv1
               --tlsv1.0
               --tlsv1.1
               --tlsv1.2
               --tlsv1.3
               --tr-encoding
               --trace=X : writes
               --trace-time
               --unix-socket=X
               -T X, --upload-file=X : network uploads a file
               --url=X
               --url-query=X
               -B, --use-ascii
               -u X, --user=X
               -A X, --user-agent=X
               -v, --verbose
               -V, --version
               -w X, --write-out=X
               --xattr
               --eprt, --no-eprt
               --epsv, --no-epsv
               --disallow-username-in-url
               --http2-prior-knowledge
               --ignore-content-length
               -j, --junk-session-cookies
               --mail-rcpt-allowfails
               -:, --next
               --parallel-immediate
               --proxy-ssl-allow-beast
               --proxy-ssl-auto-client-cert
               -J, --remote-header-name
               --no-remote-name
               --socks5-hostname=HOST
               --ssl-auto-client-cert
               --ssl-revoke-best-effort
               --suppress-connect-headers
               --trace-ascii=FILE : writes",
        hook: Some(curl),
    },
    Spec {
        names: &["wget"],
        family: "remote",
        text: "@read-only
               @operands args
               -V, --version
               -h, --help
               -b, --background
               -e X, --execute=X : unprovable runs wgetrc commands, which can set where it writes
               -o X, --output-file=X : writes
               -a X, --append-output=X : writes
               -d, --debug
               -q, --quiet
               -v, --verbose
               -nv, --no-verbose
               --report-speed=X
               -i X, --input-file=X : reads
               -F, --force-html
               -B X, --base=X
               --config=X : unprovable reads wgetrc commands from a file, which can set where it writes
               --no-config
               --rejected-log=X : writes
               -t X, --tries=X
               --retry-connrefused
               --retry-on-http-error=X
               -O X, --output-document=X : writes
               -nc, --no-clobber
               --no-netrc
               -c, --continue
               --start-pos=X
               --progress=X
               --show-progress
               -N, --timestamping
               --no-if-modified-since
               --no-use-server-timestamps
               -S, --server-response
               --spider
               -T X, --timeout=X
               --dns-timeout=X
               --connect-timeout=X
               --read-timeout=X
               -w X, --wait=X
               --waitretry=X
               --random-wait
               --no-proxy
               -Q X, --quota=X
               --bind-address=X
               --limit-rate=X
               --no-dns-cache
               --restrict-file-names=X
               --ignore-case
               -4, --inet4-only
               -6, --inet6-only
               --prefer-family=X
               --user=X
               --password=X
               --ask-password
               --use-askpass=X : runs *
               --no-iri
               --local-encoding=X
               --remote-encoding=X
               --unlink
               --xattr
               -nd, --no-directories
               -x, --force-directories
               -nH, --no-host-directories
               --protocol-directories
               -P X, --directory-prefix=X : writes-into
               --cut-dirs=X
               --http-user=X
               --http-password=X
               --no-cache
               --default-page=X
               -E, --adjust-extension
               --ignore-length
               --header=X
               --compression=X
               --max-redirect
               --proxy-user=X
               --proxy-password=X
               --referer=X
               --save-headers
               -U X, --user-agent=X
               --no-http-keep-alive
               --no-cookies
               --load-cookies=X : reads
               --save-cookies=X : writes
               --keep-session-cookies
               --post-data=X : network sends data
               --post-file=X : network sends data
               --method=X : network sends a request with another method
               --body-data=X : network sends data
               --body-file=X : network sends data
               --content-disposition
               --content-on-error
               --auth-no-challenge
               --secure-protocol=X
               --https-only
               --no-check-certificate
               --certificate=X : reads
               --certificate-type=X
               --private-key=X : reads
               --private-key-type=X
               --ca-certificate=X : reads
               --ca-directory=X
               --crl-file=X
               --pinnedpubkey=X
               --ciphers=X
               --no-hsts
               --hsts-file
               --ftp-user=X
               --ftp-password=X
               --no-remove-listing
               --no-glob
               --no-passive-ftp
               --preserve-permissions
               --retr-symlinks
               --ftps-implicit
               --ftps-resume-ssl
               --ftps-clear-data-connection
               --ftps-fallback-to-ftp
               --warc-file=X : writes
               --warc-header=X
               --warc-max-size=X
               --warc-cdx
               --warc-dedup=X
               --no-warc-compression
               --no-warc-digests
               --no-warc-keep-log
               --warc-tempdir=X
               -r, --recursive
               -l X, --level=X
               --delete-after : harmless
               -k, --convert-links
               --convert-file-only
               --backups=X : harmless
               -K, --backup-converted
               -m, --mirror
               -p, --page-requisites
               --strict-comments
               -A X, --accept=X
               -R X, --reject=X
               --accept-regex=X
               --reject-regex=X
               --regex-type=X
               -D X, --domains=X
               --exclude-domains=X
               --follow-ftp
               --follow-tags=X
               --ignore-tags=X
               -H, --span-hosts
               -L, --relative
               -I X, --include-directories=X
               --trust-server-names
               -X X, --exclude-directories=X
               -np, --no-parent
               --input-metalink=FILE : reads
               --keep-badhash
               --metalink-over-http
               --metalink-index=N
               --preferred-location=URL
               --bind-dns-address=ADDRESS
               --dns-servers=ADDRESSES
               --retry-on-host-error
               --check-certificate
               --random-file=FILE : reads
               --egd-file=FILE : reads
               --no-ftps-resume-ssl",
        hook: Some(wget),
    },
    Spec {
        names: &["nc.openbsd"],
        family: "remote",
        text: "@read-only
               @operands args
               @use nc-openbsd",
        hook: Some(nc),
    },
    Spec {
        names: &["nc.traditional"],
        family: "remote",
        text: "@read-only
               @operands args
               @use nc-traditional",
        hook: Some(nc),
    },
    Spec {
        names: &["ncat"],
        family: "remote",
        text: "@read-only
               @operands args
               @use ncat",
        hook: Some(nc),
    },
    Spec {
        // Any of the three: the options that run or write come first, as the most careful
        // reading of a letter the variants use differently.
        names: &["nc", "netcat"],
        family: "remote",
        text: "@read-only
               @operands args
               @use nc-traditional
               @use ncat
               @use nc-openbsd",
        hook: Some(nc),
    },
    Spec {
        names: &["socat"],
        family: "remote",
        text: "@operands args
               -V
               -h, -?, -hh, -??, -hhh, -???
               -d, -dd, -ddd, -dddd
               -D
               -ly[FACILITY]
               -lf LOGFILE : writes
               -ls
               -lp PROGNAME
               -lu
               -lm[FACILITY]
               -lh
               -v
               -x
               -r FILE : writes
               -R FILE : writes
               -b SIZE
               -s
               -t TIMEOUT
               -T TIMEOUT
               -u
               -U
               -g
               -L LOCKFILE : writes
               -W LOCKFILE : writes
               -4
               -6
               -S SIGNALS
               --statistics
               --experimental",
        hook: Some(socat),
    },
];

fn ssh(call: &Call<'_>, verdict: &mut Verdict) {
    ssh_options(call, verdict);
    let Some(host) = call.operands.first().copied() else {
        return;
    };
    if host + 1 < call.args.len() {
        verdict.shape = Shape::Shell {
            payload: Payload::Joined(host + 1),
        };
        verdict.remote = call.args.get(host).cloned();
    } else {
        // An interactive session on the other host.
        verdict.not_read_only(format!(
            "`{}` opens a session on another host (plan mode runs only commands it can read)",
            call.display()
        ));
    }
}

fn scp(call: &Call<'_>, verdict: &mut Verdict) {
    ssh_options(call, verdict);
    empties_destination(call, verdict);
}

/// ssh/scp/sftp `-o Key=Value` (or `-o "Key Value"`) settings that run commands.
fn ssh_options(call: &Call<'_>, verdict: &mut Verdict) {
    let name = call.name;
    for (setting, source) in call.values("-o") {
        let setting = setting.trim();
        let split = setting
            .find(|c: char| c == '=' || c.is_whitespace())
            .unwrap_or(setting.len());
        let key = setting[..split].to_ascii_lowercase();
        let value = setting[split..].trim_start_matches(|c: char| c == '=' || c.is_whitespace());
        let any = |remote: bool| Runs {
            expect: Vec::new(),
            more_args: false,
            remote,
        };
        match key.as_str() {
            "proxycommand" | "localcommand" | "knownhostscommand"
                if !value.eq_ignore_ascii_case("none") =>
            {
                verdict.runs_option(
                    value,
                    &format!("{name} -o {key}"),
                    &any(false),
                    Some(source),
                );
            }
            "remotecommand" => {
                verdict.script(
                    value,
                    format!("{name} -o RemoteCommand"),
                    Some(source),
                    false,
                );
                if let Some(last) = verdict.runs.last_mut() {
                    last.remote = Some("the ssh host".to_owned());
                }
            }
            "include" | "sshconfig" | "pkcs11provider" | "securitykeyprovider" => verdict
                .unprovable(format!(
                    "`{name} -o {key}` reads another configuration file or loads code"
                )),
            "permitlocalcommand" | "proxyusefdpass" => {}
            _ => {}
        }
    }
}

/// ssh-keygen writes the key file only when it makes or changes a key; `-l`, `-y`, `-e`, `-i`,
/// `-B`, `-F`, `-L`, `-Q`, `-D` read it.
fn ssh_keygen(call: &Call<'_>, verdict: &mut Verdict) {
    let display = call.display();
    let reads = ["-l", "-y", "-e", "-i", "-B", "-F", "-L", "-Q", "-D", "-r"]
        .iter()
        .any(|option| call.has(option));
    let file = call.value("-f");
    let changes_file = ["-R", "-H", "-c", "-p", "-k", "-u"]
        .iter()
        .any(|option| call.has(option));
    if call.has("-Y") {
        // `-Y sign` writes FILE.sig for each file; the other operations read.
        if call.value("-Y") == Some("sign") {
            for operand in call.operand_texts() {
                verdict.output(&format!("{operand}.sig"), "ssh-keygen -Y sign", false);
            }
            verdict.not_read_only(format!("`{display}` writes signature files"));
        }
        return;
    }
    if call.has("-A") {
        let prefix = file.unwrap_or("");
        verdict.output(&format!("{prefix}/etc/ssh"), "ssh-keygen -A", true);
        return;
    }
    if call.has("-s") {
        for operand in call.operand_texts() {
            let base = operand.trim_end_matches(".pub");
            verdict.output(&format!("{base}-cert.pub"), "ssh-keygen -s", false);
        }
        verdict.not_read_only(format!("`{display}` writes certificates"));
        return;
    }
    if call.has("-M") {
        if let Some(output) = call.operand_texts().last() {
            verdict.output(output, "ssh-keygen -M", false);
        }
        verdict.not_read_only(format!("`{display}` writes a file"));
        return;
    }
    if reads && !changes_file {
        return;
    }
    let file = file.unwrap_or("~/.ssh/id_rsa");
    verdict.output(file, "ssh-keygen -f", false);
    if !changes_file {
        verdict.output(&format!("{file}.pub"), "ssh-keygen -f", false);
    }
    verdict.not_read_only(format!(
        "`{display}` is not read-only: it writes {file} (plan mode allows only reading forms)"
    ));
}

fn rsync(call: &Call<'_>, verdict: &mut Verdict) {
    empties_destination(call, verdict);
    let listing = call.has("--list-only") || call.has("--dry-run") || call.operands.len() < 2;
    if listing {
        verdict.writes.retain(|write| !write.own);
        verdict.judged.read_only = Ok(());
    }
}

/// curl: `-O`/`--remote-name` writes the URL's file name in the current folder; `-J` lets the
/// server choose it; `-w '%output{FILE}'` writes FILE.
fn curl(call: &Call<'_>, verdict: &mut Verdict) {
    for (format, _) in call.values("--write-out") {
        if format.contains("%output{") {
            verdict.unprovable("`curl -w %output{…}` writes to a file named in its format");
        }
    }
    if call.has("--remote-header-name") {
        verdict.unprovable("`curl -J` writes to a file name the server chooses");
    }
    let remote_name = call.has("--remote-name") || call.has("--remote-name-all");
    if !remote_name {
        return;
    }
    let folder = call.value("--output-dir");
    for url in call.args.iter().filter(|arg| arg.contains("://")) {
        match (url_file_name(url), folder) {
            (Some(name), Some(folder)) => {
                verdict.output(&format!("{folder}/{name}"), "curl -O", false)
            }
            (Some(name), None) => verdict.output(&name, "curl -O", false),
            (None, _) => verdict.unprovable(format!("`curl -O {url}`: the URL names no file")),
        }
    }
    verdict.not_read_only(format!(
        "`{}` is not read-only: it saves files (plan mode allows only reading forms)",
        call.display()
    ));
}

/// The last path component of a URL, without query or fragment.
fn url_file_name(url: &str) -> Option<String> {
    let without_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    let path = without_scheme.split(['?', '#']).next().unwrap_or_default();
    let (_, path) = path.split_once('/')?;
    let name = path.rsplit('/').next().unwrap_or_default();
    (!name.is_empty() && name != "." && name != "..").then(|| name.to_owned())
}

/// wget without `-O` writes each URL's file name (or a whole tree with `-r`) in its folder.
fn wget(call: &Call<'_>, verdict: &mut Verdict) {
    let chooses_name = !call.has("--output-document") && !call.has("--spider");
    if !chooses_name {
        if call
            .value("--output-document")
            .is_some_and(|file| file != "-")
        {
            verdict.not_read_only(format!(
                "`{}` is not read-only: it saves a file (plan mode allows only reading forms)",
                call.display()
            ));
        }
        return;
    }
    let folder = call.value("--directory-prefix");
    let recursive = call.has("--recursive") || call.has("--mirror");
    let join = |name: &str| match folder {
        Some(folder) => format!("{folder}/{name}"),
        None => name.to_owned(),
    };
    let mut saves = false;
    for url in call.args.iter().filter(|arg| arg.contains("://")) {
        saves = true;
        if recursive {
            verdict.output(&join("."), "wget -r", true);
        } else {
            let name = url_file_name(url).unwrap_or_else(|| "index.html".to_owned());
            // Saving the download is what wget is for.
            verdict.write(&join(&name), "wget", false, true);
        }
    }
    if saves {
        verdict.not_read_only(format!(
            "`{}` is not read-only: it saves files (plan mode allows only reading forms)",
            call.display()
        ));
    }
}

fn nc(call: &Call<'_>, verdict: &mut Verdict) {
    let scans = call
        .args
        .iter()
        .any(|arg| arg.starts_with('-') && !arg.starts_with("--") && arg.contains('z'));
    let listens = call
        .args
        .iter()
        .any(|arg| arg.starts_with('-') && !arg.starts_with("--") && arg.contains(['l', 'e', 'c']));
    if !scans || listens {
        verdict.not_read_only(format!(
            "`{}` is not read-only with these arguments (plan mode allows only reading forms)",
            call.display()
        ));
    }
}

/// socat `EXEC:` and `SYSTEM:` addresses run commands.
fn socat(call: &Call<'_>, verdict: &mut Verdict) {
    verdict.not_read_only(format!(
        "`{}` is not on plan mode's list of read-only commands",
        call.display()
    ));
    for index in call.operands.iter().copied() {
        let Some(arg) = call.args.get(index) else {
            continue;
        };
        let lowered = arg.to_ascii_lowercase();
        // File addresses (`CREATE:/path`, `OPEN:…`, a bare path) may be written: the data flows
        // both ways unless -u/-U says otherwise.
        let head = lowered.split(',').next().unwrap_or_default();
        let file = ["create:", "creat:", "open:", "gopen:", "file:"]
            .iter()
            .find_map(|prefix| head.strip_prefix(prefix).map(|_| &arg[prefix.len()..]))
            .or_else(|| arg.starts_with(['/', '.', '~']).then_some(arg.as_str()));
        if let Some(file) = file {
            let path = file.split(',').next().unwrap_or_default();
            verdict.output(path, "socat file address", false);
        }
        for prefix in ["exec:", "system:"] {
            if lowered.starts_with(prefix) {
                let command = arg[prefix.len()..].split(',').next().unwrap_or_default();
                let any = Runs::any();
                verdict.runs_option(
                    command,
                    &format!("socat {}", prefix.trim_end_matches(':')),
                    &any,
                    Some(index),
                );
            }
        }
    }
}
