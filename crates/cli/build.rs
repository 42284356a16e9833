//! The built UI (`ui/dist`) is embedded in `kaiport` (`kaiport serve`): rebuild when it changes.

fn main() {
    println!("cargo:rerun-if-changed=../../ui/dist");
}
