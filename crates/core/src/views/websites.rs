//! websites: the sites nginx serves (server names, listen addresses, TLS and its certificate,
//! root or proxy target), from `nginx -T`. `nginx -T` needs root on most servers (it opens the
//! pid file and the keys), so the configuration files are also read directly: `nginx.conf`,
//! `conf.d/*.conf` and `sites-enabled/*`, each after a `# configuration file NAME:` line as
//! `nginx -T` prints them, and the same parser reads both.

use super::text::{Summary, clean_line};
use super::{Built, Runner};
use kaiport_protocol::{SiteRow, ViewData, WebServer, WebsitesView};

const NGINX_T: &str = "nginx -T 2>/dev/null";
const NGINX_FILES: &str = "for f in /etc/nginx/nginx.conf /etc/nginx/conf.d/*.conf /etc/nginx/sites-enabled/*; do \
     [ -f \"$f\" ] && printf '# configuration file %s:\\n' \"$f\" && cat -- \"$f\"; done; true";
const FILE_MARK: &str = "# configuration file ";

/// nginx's configuration as `nginx -T` prints it.
pub(super) struct NginxConfig {
    pub text: String,
}

/// Reads nginx's configuration: `nginx -T` where the login user may, else the files.
pub(super) async fn read_config(runner: &Runner<'_>) -> Option<NginxConfig> {
    let ran = runner
        .run_all(&[NGINX_T.to_owned(), NGINX_FILES.to_owned()])
        .await;
    let (dump, files) = (&ran[0], &ran[1]);
    if dump.ok() && dump.stdout.contains(FILE_MARK) {
        return Some(NginxConfig {
            text: dump.stdout.clone(),
        });
    }
    if files.stdout.contains(FILE_MARK) {
        return Some(NginxConfig {
            text: files.stdout.clone(),
        });
    }
    None
}

pub(super) async fn build(runner: &Runner<'_>) -> Built {
    let Some(config) = read_config(runner).await else {
        return Built::unavailable("no nginx configuration (no nginx -T, no /etc/nginx)");
    };
    let files: Vec<String> = config
        .text
        .lines()
        .filter_map(|line| line.strip_prefix(FILE_MARK)?.strip_suffix(':'))
        .map(clean_line)
        .collect();
    let sites = parse_nginx(&config.text);
    let summary = summarise(&sites);
    Built::new(
        ViewData::Websites(WebsitesView {
            server: WebServer::Nginx,
            files,
            sites,
        }),
        summary,
    )
}

/// One token of nginx's configuration language.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    Open,
    Close,
    End,
}

fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        match c {
            '#' => while chars.next_if(|c| *c != '\n').is_some() {},
            '{' | '}' | ';' => {
                chars.next();
                out.push(match c {
                    '{' => Token::Open,
                    '}' => Token::Close,
                    _ => Token::End,
                });
            }
            c if c.is_whitespace() => {
                chars.next();
            }
            '"' | '\'' => {
                chars.next();
                let mut word = String::new();
                while let Some(next) = chars.next() {
                    match next {
                        '\\' => word.extend(chars.next()),
                        q if q == c => break,
                        other => word.push(other),
                    }
                }
                out.push(Token::Word(word));
            }
            _ => {
                let mut word = String::new();
                while let Some(next) =
                    chars.next_if(|n| !n.is_whitespace() && !matches!(n, '{' | '}' | ';'))
                {
                    word.push(next);
                }
                out.push(Token::Word(word));
            }
        }
    }
    out
}

/// The `server { … }` blocks of a configuration dump, with the file each is in.
pub(super) fn parse_nginx(text: &str) -> Vec<SiteRow> {
    let mut sites = Vec::new();
    let mut file = String::new();
    let mut chunk = String::new();
    let flush = |file: &str, chunk: &str, sites: &mut Vec<SiteRow>| {
        sites.extend(parse_chunk(file, chunk));
    };
    for line in text.lines() {
        if let Some(name) = line
            .strip_prefix(FILE_MARK)
            .and_then(|l| l.strip_suffix(':'))
        {
            flush(&file, &chunk, &mut sites);
            chunk.clear();
            file = clean_line(name);
        } else {
            chunk.push_str(line);
            chunk.push('\n');
        }
    }
    flush(&file, &chunk, &mut sites);
    sites
}

fn parse_chunk(file: &str, text: &str) -> Vec<SiteRow> {
    let mut sites = Vec::new();
    // Block names from the outside in; `Some(index)` where a server block's site is built.
    let mut stack: Vec<(String, Option<usize>)> = Vec::new();
    let mut words: Vec<String> = Vec::new();
    for token in tokens(text) {
        match token {
            Token::Word(word) => words.push(word),
            Token::Open => {
                let name = words.first().cloned().unwrap_or_default();
                let site = (name == "server").then(|| {
                    sites.push(SiteRow {
                        names: Vec::new(),
                        listen: Vec::new(),
                        tls: false,
                        root: None,
                        proxies: Vec::new(),
                        certificate: None,
                        file: file.to_owned(),
                    });
                    sites.len() - 1
                });
                stack.push((name, site));
                words.clear();
            }
            Token::Close => {
                stack.pop();
                words.clear();
            }
            Token::End => {
                let site = stack.iter().rev().find_map(|(_, site)| *site);
                let in_server_block = stack.last().is_some_and(|(_, s)| s.is_some());
                if let (Some(index), Some((name, args))) = (site, words.split_first()) {
                    let row = &mut sites[index];
                    let args: Vec<String> = args.iter().map(|a| clean_line(a)).collect();
                    match name.as_str() {
                        "listen" if in_server_block => {
                            row.tls |= args.iter().any(|a| a == "ssl" || a == "quic");
                            row.listen.push(args.join(" "));
                        }
                        "server_name" if in_server_block => row.names.extend(args),
                        "ssl" if in_server_block => {
                            row.tls |= args.first().is_some_and(|a| a == "on")
                        }
                        "ssl_certificate" if in_server_block => {
                            row.certificate = args.into_iter().next()
                        }
                        "root" if row.root.is_none() || in_server_block => {
                            row.root = args.into_iter().next()
                        }
                        "proxy_pass" | "fastcgi_pass" | "uwsgi_pass" | "grpc_pass" => {
                            row.proxies.extend(args.into_iter().next());
                        }
                        _ => {}
                    }
                }
                words.clear();
            }
        }
    }
    for site in &mut sites {
        if site.listen.is_empty() {
            // nginx's default when a server block names no listen.
            site.listen.push("80".to_owned());
        }
    }
    sites
}

fn summarise(sites: &[SiteRow]) -> Summary {
    let mut summary = Summary::default();
    let tls = sites.iter().filter(|s| s.tls).count();
    summary.line(format!(
        "nginx: {} sites, {tls} with TLS, {} without",
        sites.len(),
        sites.len() - tls
    ));
    for site in sites {
        let names = if site.names.is_empty() {
            "(no server_name)".to_owned()
        } else {
            site.names.join(" ")
        };
        let target = match (&site.root, site.proxies.first()) {
            (_, Some(proxy)) => format!("proxy {proxy}"),
            (Some(root), None) => format!("root {root}"),
            (None, None) => "no root or proxy".to_owned(),
        };
        let tls = match (&site.certificate, site.tls) {
            (Some(cert), true) => format!("TLS {cert}"),
            (None, true) => "TLS (no certificate named)".to_owned(),
            (_, false) => "no TLS".to_owned(),
        };
        summary.line(format!(
            "  {names} listen {} | {tls} | {target} ({})",
            site.listen.join(", "),
            site.file
        ));
    }
    summary
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn server_blocks_become_sites() {
        let dump = "# configuration file /etc/nginx/nginx.conf:\nhttp { include /etc/nginx/sites-enabled/*; \
                    upstream app { server 127.0.0.1:8080; } }\n\
                    # configuration file /etc/nginx/sites-enabled/shop:\n\
                    server {\n  listen 443 ssl http2; # comment }\n  server_name shop.example \"www.shop.example\";\n\
                    ssl_certificate /etc/letsencrypt/live/shop/fullchain.pem;\n  location / { proxy_pass http://app; }\n}\n\
                    server { listen 80; server_name _; root /var/www/html; location /x { root /srv/x; } }\n";
        let sites = parse_nginx(dump);
        assert_eq!(sites.len(), 2);
        assert_eq!(sites[0].names, vec!["shop.example", "www.shop.example"]);
        assert_eq!(sites[0].listen, vec!["443 ssl http2"]);
        assert!(sites[0].tls);
        assert_eq!(sites[0].proxies, vec!["http://app"]);
        assert_eq!(sites[0].file, "/etc/nginx/sites-enabled/shop");
        assert_eq!(sites[1].root.as_deref(), Some("/var/www/html"));
        assert!(!sites[1].tls);
        let text = summarise(&sites).finish();
        assert!(
            text.starts_with("nginx: 2 sites, 1 with TLS, 1 without"),
            "{text}"
        );
    }
}
