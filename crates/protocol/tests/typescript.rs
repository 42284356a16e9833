//! The TypeScript bindings of the protocol (`ui/src/lib/protocol.ts`) are generated from the Rust
//! types by specta; this test fails when the committed file is stale. Rewrite it with
//! `scripts/gen-types.sh` (which runs this test with `KAIPORT_WRITE_TYPES=1`).
//!
//! 64-bit integers (`duration_ms`, `turn`, transfer byte counts, and numbers inside
//! `serde_json::Value`) are exported as TypeScript `number`: serde_json writes them as plain JSON
//! numbers and the browser's `JSON.parse` reads them as doubles, exact up to 2^53 — 104 days in
//! milliseconds, 9 PB in bytes. The exporter refuses 64-bit integers unless told how to map
//! them; this is where it is told, for the whole protocol at once.

use kaiport_protocol::tools::{
    self, EditFileResult, ReadFileResult, RunCommandResult, SearchFilesResult, WriteFileResult,
};
use kaiport_protocol::{Event, Op};
use specta::Types;
use specta::datatype::{DataType, Fields, NamedReferenceType, Primitive, Reference};
use std::path::PathBuf;

const HEADER: &str = "// Generated from kaiport-protocol by crates/protocol/tests/typescript.rs.\n\
// Do not edit: change the Rust types and run scripts/gen-types.sh.\n\
/* eslint-disable */";

/// The protocol as TypeScript source.
fn bindings() -> String {
    // The tool results the UI's cards read (exit code, detection, files read, what was left
    // out) travel as JSON values in `ToolOutcome`; their shapes are exported too.
    let mut types = Types::default()
        .register::<Op>()
        .register::<Event>()
        .register::<RunCommandResult>()
        .register::<ReadFileResult>()
        .register::<SearchFilesResult>()
        .register::<EditFileResult>()
        .register::<WriteFileResult>();
    // What a storage tab sends in `RunTool` and reads from `ToolFinished` (ui/src/lib/state/storage.ts).
    types = types
        .register::<tools::ListDirParams>()
        .register::<tools::ListDirResult>()
        .register::<tools::MakeDirParams>()
        .register::<tools::RenameParams>()
        .register::<tools::DeleteParams>()
        .register::<tools::UploadParams>()
        .register::<tools::DownloadParams>()
        .register::<tools::StorageOpResult>()
        .register::<tools::FindFilesParams>()
        .register::<tools::FindFilesResult>()
        .register::<tools::ExecutePlanParams>()
        .register::<tools::ExecutePlanResult>()
        // The file editor of a terminal tab's pane (ui/src/components/terminal/FileEditor.svelte).
        .register::<tools::ReadFileParams>()
        .register::<tools::WriteFileParams>();
    types.iter_mut(|named| {
        if let Some(ty) = named.ty.as_mut() {
            wide_integers_as_numbers(ty);
        }
    });
    let mut exported = specta_typescript::Typescript::default()
        .header(HEADER)
        .export(&types, specta_serde::Format)
        .unwrap_or_else(|error| panic!("exporting the protocol to TypeScript: {error}"));
    // The constants the UI needs as well, from the same Rust source.
    exported.push_str(&format!(
        "\n/** The most entries list_dir returns to the user's own file pane (Pilot gets 500). */\n\
         export const MAX_USER_LIST_ENTRIES = {};\n",
        tools::MAX_USER_LIST_ENTRIES
    ));
    exported
}

/// Replaces the 64-bit (and pointer-sized) integers anywhere in `ty` by `u32`, which exports as
/// `number` (see the module doc for why that is exact enough for the protocol).
fn wide_integers_as_numbers(ty: &mut DataType) {
    match ty {
        DataType::Primitive(primitive) => {
            if matches!(
                primitive,
                Primitive::i64 | Primitive::u64 | Primitive::isize | Primitive::usize
            ) {
                *primitive = Primitive::u32;
            }
        }
        DataType::List(list) => wide_integers_as_numbers(&mut list.ty),
        DataType::Map(map) => {
            wide_integers_as_numbers(map.key_ty_mut());
            wide_integers_as_numbers(map.value_ty_mut());
        }
        DataType::Struct(strukt) => fields(&mut strukt.fields),
        DataType::Enum(enumeration) => {
            for (_, variant) in &mut enumeration.variants {
                fields(&mut variant.fields);
            }
        }
        DataType::Tuple(tuple) => tuple.elements.iter_mut().for_each(wide_integers_as_numbers),
        DataType::Nullable(inner) => wide_integers_as_numbers(inner),
        DataType::Intersection(parts) => parts.iter_mut().for_each(wide_integers_as_numbers),
        DataType::Generic(_) => {}
        DataType::Reference(Reference::Named(named)) => match &mut named.inner {
            NamedReferenceType::Inline { dt, .. } => wide_integers_as_numbers(dt),
            NamedReferenceType::Reference { generics, .. } => {
                for (_, generic) in generics {
                    wide_integers_as_numbers(generic);
                }
            }
            NamedReferenceType::Recursive(_) => {}
        },
        DataType::Reference(Reference::Opaque(_)) => {}
    }
}

fn fields(fields: &mut Fields) {
    match fields {
        Fields::Unit => {}
        Fields::Unnamed(unnamed) => {
            for field in &mut unnamed.fields {
                if let Some(ty) = field.ty.as_mut() {
                    wide_integers_as_numbers(ty);
                }
            }
        }
        Fields::Named(named) => {
            for (_, field) in &mut named.fields {
                if let Some(ty) = field.ty.as_mut() {
                    wide_integers_as_numbers(ty);
                }
            }
        }
    }
}

fn committed_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/lib/protocol.ts")
}

#[test]
fn the_committed_typescript_bindings_match_the_rust_types() {
    let generated = bindings();
    let path = committed_path();
    if std::env::var_os("KAIPORT_WRITE_TYPES").is_some() {
        std::fs::create_dir_all(path.parent().unwrap_or(&path))
            .unwrap_or_else(|error| panic!("creating {}: {error}", path.display()));
        std::fs::write(&path, &generated)
            .unwrap_or_else(|error| panic!("writing {}: {error}", path.display()));
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} is stale (or missing): run scripts/gen-types.sh and commit the result",
        path.display()
    );
}

#[test]
fn the_bindings_carry_every_op_and_event() {
    let generated = bindings();
    for name in [
        "export type Op",
        "export type Event",
        "open_tab",
        "terminal_output",
        "prompt_requested",
        "unknown_host_key",
    ] {
        assert!(
            generated.contains(name),
            "{name} is missing from the bindings"
        );
    }
}
