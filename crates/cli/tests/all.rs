//! End-to-end tests of the `kaiport` binary against real servers (see kaiport-tests).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod suite;
