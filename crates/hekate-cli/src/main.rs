//! The `hekate` command-line tool.
fn main() {}
