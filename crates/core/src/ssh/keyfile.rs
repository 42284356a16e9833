//! Decoding private key files, including the OpenSSH ECDSA P-256 keys that russh's decoder refuses.
//!
//! OpenSSH stores an ECDSA private scalar as a minimal mpint, so a P-256 key whose scalar starts
//! with a zero byte is written with 31 bytes (about one key in 256). ssh-key 0.7 wants at least 32
//! and answers "length invalid" (RustCrypto/SSH#350). For such a key this module decrypts the
//! file itself when it has a passphrase, widens the scalar to 32 bytes and decodes the result as
//! an unencrypted key. It never writes the key anywhere, and the decrypted bytes are zeroed when
//! dropped.

use base64::Engine as _;
use russh::keys::PrivateKey;
use russh::keys::ssh_encoding::{self, Decode, Encode};
use russh::keys::ssh_key::{Cipher, Kdf, cipher::Tag};
use zeroize::Zeroizing;

const MAGIC: &[u8] = b"openssh-key-v1\0";
const PEM_BEGIN: &str = "-----BEGIN OPENSSH PRIVATE KEY-----";
const PEM_END: &str = "-----END OPENSSH PRIVATE KEY-----";
const P256: &str = "ecdsa-sha2-nistp256";
const P256_SCALAR_BYTES: usize = 32;
/// The block size of an unencrypted private section: its padding makes it a multiple of this.
const PLAIN_BLOCK: usize = 8;

/// Why a key file could not be decoded.
#[derive(Debug)]
pub(super) enum KeyFileError {
    /// The key is encrypted and no passphrase was given.
    Encrypted,
    /// The passphrase does not decrypt the key.
    WrongPassphrase,
    /// The file is not a usable private key (the decoder's words).
    Unusable(String),
}

/// Decodes the private key in `text` (OpenSSH, PKCS#8 or PKCS#1 PEM), decrypting it with
/// `passphrase` when it is encrypted.
pub(super) fn decode(text: &str, passphrase: Option<&str>) -> Result<PrivateKey, KeyFileError> {
    let error = match russh::keys::decode_secret_key(text, passphrase) {
        Ok(key) => return Ok(key),
        Err(russh::keys::Error::KeyIsEncrypted) => return Err(KeyFileError::Encrypted),
        Err(e) => e,
    };
    if let Some(key) = decode_short_p256(text, passphrase) {
        return Ok(key);
    }
    Err(match passphrase {
        // russh reports a failed decryption in several ways (a check mismatch, a bad padding, a
        // decoding error of the garbage): with a passphrase, all of them mean that one is wrong.
        Some(_) => KeyFileError::WrongPassphrase,
        None => KeyFileError::Unusable(error.to_string()),
    })
}

/// The key in `text` if it is an OpenSSH P-256 key with a scalar shorter than 32 bytes, decrypted
/// with `passphrase` where needed; `None` for anything else.
fn decode_short_p256(text: &str, passphrase: Option<&str>) -> Option<PrivateKey> {
    let body: String = text
        .trim()
        .strip_prefix(PEM_BEGIN)?
        .strip_suffix(PEM_END)?
        .split_whitespace()
        .collect();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(body)
        .ok()?;
    let reader = &mut bytes.strip_prefix(MAGIC)?;
    let cipher = Cipher::decode(reader).ok()?;
    let kdf = Kdf::decode(reader).ok()?;
    if u32::decode(reader).ok()? != 1 {
        return None;
    }
    let public = Vec::<u8>::decode(reader).ok()?;
    let mut private = Zeroizing::new(Vec::<u8>::decode(reader).ok()?);
    if cipher.is_some() {
        let tag = match cipher.has_tag() {
            true => Some(Tag::try_from(*reader).ok()?),
            false => None,
        };
        let (key, iv) = kdf.derive_key_and_iv(cipher, passphrase?).ok()?;
        cipher.decrypt(&key, &iv, &mut private, tag).ok()?;
    }
    let widened = widen_p256_scalar(&private)?;
    let container = unencrypted_container(&public, &widened).ok()?;
    PrivateKey::from_bytes(&container).ok()
}

/// An unencrypted `openssh-key-v1` file (binary) with one key.
fn unencrypted_container(
    public: &[u8],
    private: &[u8],
) -> Result<Zeroizing<Vec<u8>>, ssh_encoding::Error> {
    let mut out = Zeroizing::new(MAGIC.to_vec());
    Cipher::None.encode(&mut *out)?;
    Kdf::None.encode(&mut *out)?;
    1u32.encode(&mut *out)?;
    public.encode(&mut *out)?;
    private.encode(&mut *out)?;
    Ok(out)
}

/// The decrypted private section `private` with its P-256 scalar widened to 32 bytes and its
/// padding redone; `None` if it is no P-256 key, its checks differ, or its scalar is not short.
fn widen_p256_scalar(private: &[u8]) -> Option<Zeroizing<Vec<u8>>> {
    let reader = &mut &private[..];
    let check = u32::decode(reader).ok()?;
    if u32::decode(reader).ok()? != check {
        return None;
    }
    let algorithm = String::decode(reader).ok()?;
    if algorithm != P256 {
        return None;
    }
    let curve = String::decode(reader).ok()?;
    let point = Vec::<u8>::decode(reader).ok()?;
    let scalar = Zeroizing::new(Vec::<u8>::decode(reader).ok()?);
    if scalar.is_empty() || scalar.len() >= P256_SCALAR_BYTES {
        return None;
    }
    let comment = String::decode(reader).ok()?;

    let mut wide = Zeroizing::new(vec![0u8; P256_SCALAR_BYTES]);
    wide[P256_SCALAR_BYTES - scalar.len()..].copy_from_slice(&scalar);
    let section = P256Section {
        check,
        curve: &curve,
        point: &point,
        scalar: &wide,
        comment: &comment,
    };
    section.encode().ok()
}

/// The private section of an unencrypted P-256 key file.
struct P256Section<'a> {
    check: u32,
    curve: &'a str,
    point: &'a [u8],
    scalar: &'a [u8],
    comment: &'a str,
}

impl P256Section<'_> {
    fn encode(&self) -> Result<Zeroizing<Vec<u8>>, ssh_encoding::Error> {
        let mut out = Zeroizing::new(Vec::new());
        self.check.encode(&mut *out)?;
        self.check.encode(&mut *out)?;
        P256.encode(&mut *out)?;
        self.curve.encode(&mut *out)?;
        self.point.encode(&mut *out)?;
        self.scalar.encode(&mut *out)?;
        self.comment.encode(&mut *out)?;
        // OpenSSH's padding: 1, 2, 3, … up to the block size.
        let mut pad = 1u8;
        while out.len() % PLAIN_BLOCK != 0 {
            out.push(pad);
            pad += 1;
        }
        Ok(out)
    }
}
