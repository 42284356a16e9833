//! The server side of a SOCKS5 handshake (RFC 1928) for dynamic forwards: no authentication,
//! CONNECT only, to an IPv4 or IPv6 address or a domain name (resolved by the SSH server, so
//! `curl --socks5-hostname` reaches names only the server knows). Any other command or an
//! offer without "no authentication" is answered with SOCKS5's refusal and an error here.

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

const VERSION: u8 = 5;
const NO_AUTH: u8 = 0;
const NO_ACCEPTABLE_METHOD: u8 = 0xff;
const CONNECT: u8 = 1;

/// SOCKS5 reply codes this proxy sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    Succeeded = 0,
    GeneralFailure = 1,
    ConnectionRefused = 5,
    CommandNotSupported = 7,
    AddressTypeNotSupported = 8,
}

/// Why a SOCKS client was turned away.
#[derive(Debug, thiserror::Error)]
pub enum SocksError {
    #[error("not a SOCKS5 client (version byte {0}); only SOCKS5 is spoken here")]
    NotSocks5(u8),
    #[error("the client offers no authentication method this proxy takes (it takes none)")]
    NoAcceptableMethod,
    #[error("SOCKS command {0} refused: only CONNECT is supported (no BIND, no UDP ASSOCIATE)")]
    CommandNotSupported(u8),
    #[error("SOCKS address type {0} is not supported")]
    AddressType(u8),
    #[error("the SOCKS client went away during the handshake: {0}")]
    Io(#[from] std::io::Error),
}

/// Reads a client's greeting and CONNECT request and returns where it wants to go. A refused
/// request has been answered (with the matching reply code) before the error returns; a
/// successful one waits for [`reply`].
pub async fn accept<S>(stream: &mut S) -> Result<(String, u16), SocksError>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let mut head = [0u8; 2];
    stream.read_exact(&mut head).await?;
    if head[0] != VERSION {
        return Err(SocksError::NotSocks5(head[0]));
    }
    let mut methods = vec![0u8; usize::from(head[1])];
    stream.read_exact(&mut methods).await?;
    if !methods.contains(&NO_AUTH) {
        stream.write_all(&[VERSION, NO_ACCEPTABLE_METHOD]).await?;
        return Err(SocksError::NoAcceptableMethod);
    }
    stream.write_all(&[VERSION, NO_AUTH]).await?;

    let mut request = [0u8; 4];
    stream.read_exact(&mut request).await?;
    if request[0] != VERSION {
        return Err(SocksError::NotSocks5(request[0]));
    }
    let host = match request[3] {
        1 => {
            let mut ip = [0u8; 4];
            stream.read_exact(&mut ip).await?;
            std::net::Ipv4Addr::from(ip).to_string()
        }
        3 => {
            let mut len = [0u8; 1];
            stream.read_exact(&mut len).await?;
            let mut name = vec![0u8; usize::from(len[0])];
            stream.read_exact(&mut name).await?;
            String::from_utf8_lossy(&name).into_owned()
        }
        4 => {
            let mut ip = [0u8; 16];
            stream.read_exact(&mut ip).await?;
            std::net::Ipv6Addr::from(ip).to_string()
        }
        other => {
            reply(stream, Reply::AddressTypeNotSupported).await?;
            return Err(SocksError::AddressType(other));
        }
    };
    let mut port = [0u8; 2];
    stream.read_exact(&mut port).await?;
    if request[1] != CONNECT {
        reply(stream, Reply::CommandNotSupported).await?;
        return Err(SocksError::CommandNotSupported(request[1]));
    }
    Ok((host, u16::from_be_bytes(port)))
}

/// Answers the request with `code`; the bound address is left as 0.0.0.0:0 (the connection is
/// made on the server, whose address the client has no use for).
pub async fn reply<S>(stream: &mut S, code: Reply) -> std::io::Result<()>
where
    S: AsyncWrite + Unpin,
{
    stream
        .write_all(&[VERSION, code as u8, 0, 1, 0, 0, 0, 0, 0, 0])
        .await?;
    stream.flush().await
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    async fn handshake(client_sends: &[u8]) -> (Result<(String, u16), SocksError>, Vec<u8>) {
        let (mut client, mut server) = tokio::io::duplex(1024);
        client.write_all(client_sends).await.unwrap();
        let result = accept(&mut server).await;
        drop(server);
        let mut answered = Vec::new();
        client.read_to_end(&mut answered).await.unwrap();
        (result, answered)
    }

    #[tokio::test]
    async fn connect_to_a_domain_name_an_ipv4_and_an_ipv6_address() {
        let mut domain = vec![5, 1, 0, 5, 1, 0, 3, 11];
        domain.extend_from_slice(b"example.org");
        domain.extend_from_slice(&443u16.to_be_bytes());
        let (result, answered) = handshake(&domain).await;
        assert_eq!(result.unwrap(), ("example.org".to_owned(), 443));
        assert_eq!(answered, [5, 0]);

        let (result, _) = handshake(&[5, 2, 2, 0, 5, 1, 0, 1, 10, 0, 0, 7, 0, 80]).await;
        assert_eq!(result.unwrap(), ("10.0.0.7".to_owned(), 80));

        let mut v6 = vec![5, 1, 0, 5, 1, 0, 4];
        v6.extend_from_slice(&std::net::Ipv6Addr::LOCALHOST.octets());
        v6.extend_from_slice(&22u16.to_be_bytes());
        let (result, _) = handshake(&v6).await;
        assert_eq!(result.unwrap(), ("::1".to_owned(), 22));
    }

    #[tokio::test]
    async fn bind_udp_auth_and_socks4_are_refused_clearly() {
        let (result, answered) = handshake(&[5, 1, 0, 5, 2, 0, 1, 1, 2, 3, 4, 0, 80]).await;
        assert!(matches!(result, Err(SocksError::CommandNotSupported(2))));
        assert_eq!(answered, [5, 0, 5, 7, 0, 1, 0, 0, 0, 0, 0, 0]);
        let (result, _) = handshake(&[5, 1, 0, 5, 3, 0, 1, 1, 2, 3, 4, 0, 80]).await;
        assert!(result.unwrap_err().to_string().contains("only CONNECT"));

        let (result, answered) = handshake(&[5, 1, 2]).await;
        assert!(matches!(result, Err(SocksError::NoAcceptableMethod)));
        assert_eq!(answered, [5, 0xff]);

        let (result, answered) = handshake(&[4, 1, 0, 80, 1, 2, 3, 4, 0]).await;
        assert!(matches!(result, Err(SocksError::NotSocks5(4))));
        assert!(answered.is_empty());
    }
}
