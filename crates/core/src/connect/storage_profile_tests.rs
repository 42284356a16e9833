//! The storage entries of `connections.toml` read and written through [`ProfileStore`]: the
//! URLs they stand for, their round trip, and errors that name the file, the profile and the
//! field. Tests only; they sit beside both modules so neither has to import the other.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::profiles::{ProfileError, ProfileStore};
use crate::storage::{Service, StorageUrl};
use pretty_assertions::assert_eq;

const SAMPLE: &str = r#"
[[connection]]
name = "backups"
kind = "s3"
bucket = "nightly"
prefix = "db/full dumps"
endpoint = "http://127.0.0.1:9000"
region = "eu-1"
path_style = true
user = "AKID+1"
local_roots = ["/srv/restore"]
[connection.settings]
sensitivity = "confidential"

[[connection]]
name = "share"
kind = "webdav"
host = "dav.example"
port = 8443
https = true
ca_file = "/etc/kaiport/dav-ca.pem"
path = "team"
user = "ann"

[[connection]]
name = "blobs"
kind = "azblob"
container = "logs"
account = "acct"
endpoint = "http://127.0.0.1:10000/acct"
sas = true

[[connection]]
name = "mirror"
kind = "ftps"
host = "ftp.example"
port = 2121
user = "bob"
ca_file = "/etc/ca.pem"

[[connection]]
name = "box"
kind = "sftp"
host = "::1"
user = "carol"
path = "/var/www"
identity_files = ["/keys/id_ed25519", "/keys/id_rsa"]
"#;

fn load(text: &str) -> Result<ProfileStore, ProfileError> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("connections.toml");
    std::fs::write(&path, text).unwrap();
    ProfileStore::load(&path)
}

fn url_of(store: &ProfileStore, name: &str) -> StorageUrl {
    let url = store.get(name).unwrap().kind.storage_url().unwrap();
    StorageUrl::parse(&url, None).unwrap()
}

#[test]
fn profiles_become_the_urls_they_stand_for() {
    let store = load(SAMPLE).unwrap();
    assert_eq!(
        url_of(&store, "backups"),
        StorageUrl {
            service: Service::S3 {
                bucket: "nightly".to_owned(),
                endpoint: Some("http://127.0.0.1:9000".to_owned()),
                region: Some("eu-1".to_owned()),
                path_style: true,
                session_token: None,
            },
            root: "db/full dumps".to_owned(),
            user: Some("AKID+1".to_owned()),
        }
    );
    assert_eq!(
        store.get("backups").unwrap().kind.local_roots(),
        vec!["/srv/restore".to_owned()]
    );
    let share = url_of(&store, "share");
    assert_eq!(
        share.service,
        Service::Webdav {
            endpoint: "https://dav.example:8443".to_owned(),
            ca_file: Some("/etc/kaiport/dav-ca.pem".to_owned()),
        }
    );
    assert_eq!(
        (share.root.as_str(), share.user.as_deref()),
        ("team", Some("ann"))
    );
    assert_eq!(
        url_of(&store, "blobs").service,
        Service::Azure {
            container: "logs".to_owned(),
            account: Some("acct".to_owned()),
            endpoint: Some("http://127.0.0.1:10000/acct".to_owned()),
            sas: true,
        }
    );
    assert_eq!(
        url_of(&store, "mirror").service,
        Service::Ftp {
            host: "ftp.example".to_owned(),
            port: 2121,
            secure: true,
            ca_file: Some("/etc/ca.pem".to_owned()),
        }
    );
    let sftp = url_of(&store, "box");
    assert_eq!(
        sftp.service,
        Service::Sftp {
            host: "::1".to_owned(),
            port: 22
        }
    );
    assert_eq!(sftp.root, "var/www");
    assert_eq!(
        store.get("box").unwrap().kind.identity_files(),
        vec![
            std::path::PathBuf::from("/keys/id_ed25519"),
            std::path::PathBuf::from("/keys/id_rsa")
        ]
    );
    // Keys belong to SFTP: an FTP profile with identity_files is told so.
    let ftp_keys = load(
        "[[connection]]\nname = \"f\"\nkind = \"ftp\"\nhost = \"h\"\nidentity_files = [\"/k\"]\n",
    );
    assert!(
        ftp_keys
            .as_ref()
            .is_err_and(|error| error.to_string().contains("unknown field `identity_files`")),
        "{ftp_keys:?}"
    );
    // The profile's settings apply to its tabs.
    assert_eq!(
        store
            .get("backups")
            .unwrap()
            .connection_settings()
            .unwrap()
            .sensitivity,
        kaiport_protocol::Sensitivity::Confidential
    );
    // Saving keeps everything.
    store.save().unwrap_or_else(|error| panic!("{error}"));
}

#[test]
fn round_trip_through_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("connections.toml");
    std::fs::write(&path, SAMPLE).unwrap();
    let store = ProfileStore::load(&path).unwrap();
    store.save().unwrap();
    assert_eq!(
        ProfileStore::load(&path).unwrap().profiles(),
        store.profiles()
    );
}

fn error_of(text: &str) -> String {
    let error = load(text).unwrap_err().to_string();
    assert!(
        error.contains("connections.toml:"),
        "names the file: {error}"
    );
    error
}

#[test]
fn bad_entries_name_file_profile_and_field() {
    let error =
        error_of("[[connection]]\nname = \"b\"\nkind = \"s3\"\nbucket = \"x\"\nregoin = \"eu\"\n");
    assert!(
        error.contains(":5: connection \"b\": unknown field `regoin`"),
        "{error}"
    );
    assert!(error.contains("region"), "lists the right fields: {error}");

    let error = error_of("[[connection]]\nname = \"b\"\nkind = \"s3\"\nregion = \"eu\"\n");
    assert!(error.contains("connection \"b\""), "{error}");
    assert!(error.contains("`bucket`"), "{error}");

    let error =
        error_of("[[connection]]\nname = \"d\"\nkind = \"webdav\"\nhost = \"h\"\nport = 0\n");
    assert!(
        error.contains(":5: connection \"d\": `port` must be"),
        "{error}"
    );

    let error =
        error_of("[[connection]]\nname = \"f\"\nkind = \"ftp\"\nhost = \"h\"\nport = \"x\"\n");
    assert!(
        error.contains(":5: connection \"f\": `port`: invalid type"),
        "{error}"
    );

    let error = error_of(
        "[[connection]]\nname = \"a\"\nkind = \"azblob\"\ncontainer = \"c\"\naccount = \"x\"\nendpoint = \"ftp://nope\"\n",
    );
    assert!(
        error.contains(":6: connection \"a\": `endpoint` \"ftp://nope\" is not an http"),
        "{error}"
    );

    let error = error_of("[[connection]]\nname = \"k\"\nkind = \"gopher\"\nhost = \"h\"\n");
    assert!(error.contains("connection \"k\""), "{error}");
    assert!(error.contains("gopher"), "{error}");

    let error = error_of(
        "[[connection]]\nname = \"s\"\nkind = \"s3\"\nbucket = \"b\"\nsecret_key = \"hunter2\"\n",
    );
    assert!(
        error.contains(":5: `secret_key` does not belong"),
        "{error}"
    );
    assert!(!error.contains("hunter2"));
}
