//! Disks, file systems and volumes: formatting, partitioning, erasing signatures, destroying
//! ZFS/LVM/RAID storage are dangerous; `mount` and the block-device listings read.
//!
//! The option lists are not complete yet (`@loose`).

use super::args::Call;
use super::common::{has_any, has_short, positional};
use super::spec::Spec;
use super::verdict::Verdict;

pub const SPECS: &[Spec] = &[
    Spec {
        names: &[
            "mkfs",
            "mke2fs",
            "mkswap",
            "mkdosfs",
            "mkfs.ext4",
            "mkfs.xfs",
            "mkfs.btrfs",
            "mkfs.vfat",
        ],
        family: "storage",
        text: "@loose
               @opaque",
        hook: Some(format),
    },
    Spec {
        names: &["wipefs", "blkdiscard"],
        family: "storage",
        text: "@read-only
               @loose
               @opaque",
        hook: Some(erase),
    },
    Spec {
        names: &[
            "fdisk", "sfdisk", "cfdisk", "parted", "sgdisk", "gdisk", "cgdisk",
        ],
        family: "storage",
        text: "@read-only
               @loose
               @opaque",
        hook: Some(partition),
    },
    Spec {
        names: &["zpool", "zfs"],
        family: "storage",
        text: "@read-only
               @loose
               @opaque",
        hook: Some(zfs),
    },
    Spec {
        names: &["lvremove", "vgremove", "pvremove"],
        family: "storage",
        text: "@loose
               @opaque",
        hook: Some(lvm_remove),
    },
    Spec {
        names: &["mdadm"],
        family: "storage",
        text: "@read-only
               @loose
               @opaque",
        hook: Some(mdadm),
    },
    Spec {
        names: &["mount"],
        family: "storage",
        text: "@read-only
               @loose
               @opaque",
        hook: Some(mount),
    },
    Spec {
        names: &["lsblk", "blkid", "findmnt", "mountpoint"],
        family: "storage",
        text: "@read-only
               @loose
               @opaque",
        hook: None,
    },
];

fn not_read_only(call: &Call<'_>, verdict: &mut Verdict) {
    verdict.not_read_only(format!(
        "`{}` is not read-only with these arguments (plan mode allows only reading forms)",
        call.display()
    ));
}

fn format(call: &Call<'_>, verdict: &mut Verdict) {
    verdict.dangerous(&call.display(), "formats a file system");
    not_read_only(call, verdict);
}

fn erase(call: &Call<'_>, verdict: &mut Verdict) {
    let lists = call.name == "wipefs"
        && !call.args.iter().any(|arg| {
            arg.starts_with("-a")
                || arg == "--all"
                || arg.starts_with("-o")
                || arg.starts_with("--offset")
        });
    if !lists || call.name == "blkdiscard" {
        verdict.dangerous(
            &call.display(),
            "erases file system signatures or blocks of a device",
        );
        not_read_only(call, verdict);
    }
}

fn partition(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    if !has_short(args, "l") || has_any(args, &["--delete", "--zap-all"]) || call.name == "sgdisk" {
        verdict.dangerous(&call.display(), "changes a disk's partition table");
        not_read_only(call, verdict);
    }
}

fn zfs(call: &Call<'_>, verdict: &mut Verdict) {
    let first = positional(call.args).first().copied().unwrap_or_default();
    if first == "destroy" {
        verdict.dangerous(&call.display(), "destroys a storage pool or dataset");
    }
    if !matches!(
        first,
        "list" | "get" | "status" | "iostat" | "history" | "version" | ""
    ) {
        not_read_only(call, verdict);
    }
}

fn lvm_remove(call: &Call<'_>, verdict: &mut Verdict) {
    verdict.dangerous(&call.display(), "removes a logical volume");
    not_read_only(call, verdict);
}

fn mdadm(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    if has_any(
        args,
        &[
            "--zero-superblock",
            "--stop",
            "-S",
            "--remove",
            "--fail",
            "-f",
            "-r",
        ],
    ) {
        verdict.dangerous(&call.display(), "stops, breaks or erases a RAID array");
    }
    if !has_any(
        args,
        &["--detail", "-D", "--examine", "-E", "--query", "-Q"],
    ) {
        not_read_only(call, verdict);
    }
}

fn mount(call: &Call<'_>, verdict: &mut Verdict) {
    let args = call.args;
    let lists = args.is_empty()
        || (args.len() == 1 && matches!(args[0].as_str(), "-l" | "--show-labels"))
        || (has_any(args, &["-t"])
            && positional(args).len() <= 1
            && !args.iter().any(|arg| arg.starts_with('/')));
    if !lists {
        not_read_only(call, verdict);
    }
}
