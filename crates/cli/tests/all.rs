//! End-to-end tests of the `kaiport` binary against real servers (see kaiport-tests).
//! Unix only: the fixtures start Linux servers; the Windows build is run under Wine by
//! scripts/test-windows.sh instead.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
