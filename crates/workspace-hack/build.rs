//! Empty: it exists so that the build-dependencies above take part in the build's features.
fn main() {}
