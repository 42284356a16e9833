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
               @operands args
               -a, --all
               -c, --no-canonicalize
               -f, --fake
               -F, --fork
               -T X, --fstab=X : reads
               -i, --internal-only
               -l, --show-labels
               -m
               --mkdir[=X] : changes makes the mount point
               -n, --no-mtab
               --options-mode=X
               --options-source=X
               --options-source-force
               -o X, --options=X
               -O X, --test-opts=X
               -r, --read-only
               -t X, --types=X
               --source=X
               --target=X
               --target-prefix=X
               -v, --verbose
               -w, --rw, --read-write
               -N X, --namespace=X
               -h, --help
               -V, --version
               -L X, --label=X
               -U X, --uuid=X
               -B, --bind
               -M, --move
               -R, --rbind
               --make-shared
               --make-slave
               --make-private
               --make-unbindable
               --make-rshared
               --make-rslave
               --make-rprivate
               --make-runbindable",
        hook: Some(mount),
    },
    Spec {
        names: &["umount"],
        family: "storage",
        text: "@operands args
               -a, --all
               -A, --all-targets
               -c, --no-canonicalize
               -d, --detach-loop
               --fake
               -f, --force
               -i, --internal-only
               -n, --no-mtab
               -l, --lazy
               -O X, --test-opts=X
               -R, --recursive
               -r, --read-only
               -t X, --types=X
               -v, --verbose
               -q, --quiet
               -N X, --namespace=X
               -h, --help
               -V, --version",
        hook: Some(umount),
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

/// `mount` lists without operands; with them it puts a file system over a folder, which hides
/// what was there (a mount over /etc/ssh replaces sshd's settings): the folder counts as written.
fn mount(call: &Call<'_>, verdict: &mut Verdict) {
    let operands = call.operand_texts();
    let lists = operands.is_empty() && !call.has("--all");
    if !lists {
        not_read_only(call, verdict);
    }
    let target = call.value("--target").or_else(|| operands.last().copied());
    if let Some(target) = target.filter(|_| !lists)
        && target.starts_with('/')
    {
        verdict.write(target, "mount (over)", true, true);
    }
}

/// `umount` takes a file system away from a folder (unmounting /home takes every authorized_keys
/// with it): the folder counts as written.
fn umount(call: &Call<'_>, verdict: &mut Verdict) {
    for target in call.operand_texts() {
        if target.starts_with('/') {
            verdict.write(target, "umount", true, true);
        }
    }
    if call.has("--all") {
        verdict.dangerous(&call.display(), "unmounts every file system");
    }
}
