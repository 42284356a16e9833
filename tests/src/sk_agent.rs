//! A software FIDO2 security key behind an SSH agent socket, for tests on machines without an
//! authenticator: [`SoftSkAgent`] holds one `sk-ssh-ed25519@openssh.com` key and answers the agent
//! protocol's list and sign requests the way `ssh-agent` does for a real security key, so the
//! real sshd checks a genuine security-key signature (user-presence flag, counter, application
//! hash). The socket is in its own temp dir; the serving task ends when the fixture is dropped.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use anyhow::Result;
use russh::keys::signature::Signer;
use russh::keys::ssh_encoding::{Decode, Encode};
use russh::keys::ssh_key::private::Ed25519Keypair;
use russh::keys::ssh_key::public::{KeyData, SkEd25519};
use russh::keys::ssh_key::sha2::{Digest, Sha256};
use russh::keys::{PublicKey, ssh_key};
use tempfile::TempDir;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{UnixListener, UnixStream};

/// The FIDO application OpenSSH uses for its keys.
const APPLICATION: &str = "ssh:";
/// The authenticator data flag "user present": sshd refuses signatures without it.
const USER_PRESENT: u8 = 0x01;
const REQUEST_IDENTITIES: u8 = 11;
const IDENTITIES_ANSWER: u8 = 12;
const SIGN_REQUEST: u8 = 13;
const SIGN_RESPONSE: u8 = 14;
const FAILURE: u8 = 5;

/// A running software security-key agent. See the module docs.
pub struct SoftSkAgent {
    dir: TempDir,
    public: PublicKey,
    signatures: Arc<AtomicU32>,
    task: tokio::task::JoinHandle<()>,
}

impl SoftSkAgent {
    /// Starts serving on a new socket (inside a Tokio runtime).
    pub fn start() -> Result<SoftSkAgent> {
        let dir = tempfile::Builder::new()
            .prefix("kaiport-sk-agent-")
            .tempdir()?;
        let keypair = Ed25519Keypair::from_seed(&[7u8; 32]);
        let public = PublicKey::new(
            KeyData::SkEd25519(SkEd25519::new(keypair.public, APPLICATION)),
            "kaiport-test-sk",
        );
        let listener = UnixListener::bind(dir.path().join("agent.sock"))?;
        let signatures = Arc::new(AtomicU32::new(0));
        let key = Arc::new(Key {
            keypair,
            public: public.clone(),
            counter: signatures.clone(),
        });
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve(stream, key.clone()));
            }
        });
        Ok(SoftSkAgent {
            dir,
            public,
            signatures,
            task,
        })
    }

    /// The agent's socket (what `SSH_AUTH_SOCK` would name).
    pub fn socket(&self) -> PathBuf {
        self.dir.path().join("agent.sock")
    }

    /// The key's `authorized_keys` line.
    pub fn public_line(&self) -> Result<String> {
        Ok(self.public.to_openssh()?)
    }

    /// The key's `SHA256:…` fingerprint.
    pub fn fingerprint(&self) -> String {
        self.public
            .fingerprint(ssh_key::HashAlg::Sha256)
            .to_string()
    }

    /// How many signatures it has made.
    pub fn signatures(&self) -> u32 {
        self.signatures.load(Ordering::SeqCst)
    }
}

impl Drop for SoftSkAgent {
    fn drop(&mut self) {
        self.task.abort();
    }
}

struct Key {
    keypair: Ed25519Keypair,
    public: PublicKey,
    counter: Arc<AtomicU32>,
}

impl Key {
    /// A security key's signature of `data`, as `SSH_AGENT_SIGN_RESPONSE` carries it: the
    /// authenticator signs SHA256(application) ‖ flags ‖ counter ‖ SHA256(data).
    fn sign(&self, data: &[u8]) -> Result<Vec<u8>> {
        let counter = self.counter.fetch_add(1, Ordering::SeqCst) + 1;
        let mut signed = Sha256::digest(APPLICATION.as_bytes()).to_vec();
        signed.push(USER_PRESENT);
        signed.extend_from_slice(&counter.to_be_bytes());
        signed.extend_from_slice(&Sha256::digest(data));
        let signature: ssh_key::Signature = self.keypair.try_sign(&signed)?;
        let mut blob = Vec::new();
        "sk-ssh-ed25519@openssh.com".encode(&mut blob)?;
        signature.as_bytes().encode(&mut blob)?;
        blob.push(USER_PRESENT);
        counter.encode(&mut blob)?;
        Ok(blob)
    }
}

/// Answers one client's requests until it hangs up.
async fn serve(mut stream: UnixStream, key: Arc<Key>) {
    loop {
        let mut len = [0u8; 4];
        if stream.read_exact(&mut len).await.is_err() {
            return;
        }
        let mut request = vec![0u8; u32::from_be_bytes(len) as usize];
        if stream.read_exact(&mut request).await.is_err() {
            return;
        }
        let reply = answer(&request, &key).unwrap_or_else(|_| vec![FAILURE]);
        let mut framed = (reply.len() as u32).to_be_bytes().to_vec();
        framed.extend_from_slice(&reply);
        if stream.write_all(&framed).await.is_err() {
            return;
        }
    }
}

fn answer(request: &[u8], key: &Key) -> Result<Vec<u8>> {
    let (kind, mut body) = request
        .split_first()
        .ok_or_else(|| anyhow::anyhow!("empty request"))?;
    match *kind {
        REQUEST_IDENTITIES => {
            let mut out = vec![IDENTITIES_ANSWER];
            1u32.encode(&mut out)?;
            key.public.key_data().encode_prefixed(&mut out)?;
            key.public.comment().encode(&mut out)?;
            Ok(out)
        }
        SIGN_REQUEST => {
            let blob = Vec::<u8>::decode(&mut body)?;
            let data = Vec::<u8>::decode(&mut body)?;
            if KeyData::decode(&mut blob.as_slice())? != *key.public.key_data() {
                anyhow::bail!("not this agent's key");
            }
            let mut out = vec![SIGN_RESPONSE];
            key.sign(&data)?.encode(&mut out)?;
            Ok(out)
        }
        _ => Ok(vec![FAILURE]),
    }
}
