//! Disks, file systems and volumes: formatting, partitioning, erasing signatures, destroying
//! ZFS/LVM/RAID storage are dangerous; `mount` and the block-device listings read.
//!
//! Each program lists its options (from its help and manual). zfs and zpool (OpenZFS, which
//! Debian ships outside main) list every subcommand and option of OpenZFS's manual pages:
//! `destroy`, `rollback`, `receive -F`, `zpool create/add/attach/replace/labelclear` are
//! dangerous, `zfs program` and `zpool status/iostat -c` run code and ask.

use super::args::Call;
use super::common::{has_any, has_short};
use super::spec::Spec;
use super::verdict::Verdict;

pub const SPECS: &[Spec] = &[
    Spec {
        names: &["mkfs"],
        family: "storage",
        text: "@operands args
               -t X, --type=X
               -V, --verbose
               -h, --help
               --version",
        hook: Some(format),
    },
    Spec {
        names: &["mke2fs", "mkfs.ext2", "mkfs.ext3", "mkfs.ext4"],
        family: "storage",
        text: "@operands args
               -b X
               -c
               -C X
               -d X : reads
               -D
               -e X
               -E X
               -F
               -g X
               -G X
               -i X
               -I X
               -j
               -J X
               -l X : reads
               -L X
               -m X
               -M X
               -n
               -N X
               -o X
               -O X
               -q
               -r X
               -S
               -t X
               -T X
               -U X
               -v
               -V
               -z X : writes",
        hook: Some(format),
    },
    Spec {
        names: &["mkswap"],
        family: "storage",
        text: "@operands args
               -c, --check
               -f, --force
               -q, --quiet
               -p X, --pagesize=X
               -L X, --label=X
               -v X, --swapversion=X
               -U X, --uuid=X
               -e X, --endianness=X
               -o X, --offset=X
               -s X, --size=X
               -F, --file
               --verbose
               --lock[=X]
               -h, --help
               -V, --version",
        hook: Some(format),
    },
    Spec {
        names: &["mkfs.vfat", "mkfs.fat", "mkfs.msdos", "mkdosfs"],
        family: "storage",
        text: "@operands args
               -a
               -A
               -b X
               -B X : reads
               -c
               -C
               -D X
               -f X
               -F X
               -g X
               -h X
               -i X
               -I
               -l X : reads
               -m X : reads
               -M X
               -n X
               -r X
               -R X
               -s X
               -S X
               -v
               --help
               --invariant
               --mbr[=X]
               --codepage=X
               --offset=X
               --variant=X",
        hook: Some(format),
    },
    Spec {
        names: &["mkfs.xfs"],
        family: "storage",
        text: "@operands args
               -b X
               -c X : reads
               -d X
               -f
               -i X
               -l X
               -m X
               -n X
               -p X : reads
               -q
               -r X
               -s X
               -L X
               -N
               -K
               -V
               -h",
        hook: Some(format),
    },
    Spec {
        names: &["mkfs.btrfs"],
        family: "storage",
        text: "@operands args
               -b X, --byte-count=X
               --csum=X, --checksum=X
               -d X, --data=X
               -m X, --metadata=X
               -M, --mixed
               -n X, --nodesize=X
               -s X, --sectorsize=X
               -O X, --features=X
               -R X, --runtime-features=X
               -L X, --label=X
               -U X, --uuid=X
               -r X, --rootdir=X : reads
               --shrink
               -K, --nodiscard
               -f, --force
               -q, --quiet
               -v, --verbose
               -V, --version
               --help
               -l X, --leafsize=X",
        hook: Some(format),
    },
    Spec {
        names: &["wipefs"],
        family: "storage",
        text: "@read-only
               @operands args
               -a, --all
               -b, --backup : changes writes a backup of what it erases
               -f, --force
               -i, --noheadings
               -J, --json
               -n, --no-act
               -o X, --offset=X
               -O X, --output=X
               -p, --parsable
               -q, --quiet
               -t X, --types=X
               --lock[=X]
               -h, --help
               -V, --version",
        hook: Some(erase),
    },
    Spec {
        names: &["blkdiscard"],
        family: "storage",
        text: "@operands args
               -f, --force
               -o X, --offset=X
               -l X, --length=X
               -p X, --step=X
               -s, --secure
               -z, --zeroout
               -q, --quiet
               -v, --verbose
               -h, --help
               -V, --version",
        hook: Some(erase),
    },
    Spec {
        names: &["fdisk"],
        family: "storage",
        text: "@read-only
               @operands args
               -b X, --sector-size=X
               -B, --protect-boot
               -c, --compatibility[=X]
               -L, --color[=X]
               -l, --list
               -x, --list-details
               -n, --noauto-pt
               -o X, --output=X
               -t X, --type=X
               -u, --units[=X]
               -s, --getsz
               --bytes
               --lock[=X]
               -w X, --wipe=X
               -W X, --wipe-partitions=X
               -C X, --cylinders=X
               -H X, --heads=X
               -S X, --sectors=X
               -h, --help
               -V, --version",
        hook: Some(partition),
    },
    Spec {
        names: &["sfdisk"],
        family: "storage",
        text: "@read-only
               @operands args
               -A, --activate
               -d, --dump
               -J, --json
               -B, --backup-pt-sectors
               -g, --show-geometry
               -l, --list
               -F, --list-free
               -r, --reorder
               -s, --show-size
               -T, --list-types
               -V, --verify
               --delete
               --part-label
               --part-type
               --part-uuid
               --part-attrs
               --disk-id
               --relocate
               -a, --append
               -b, --backup
               --bytes
               --move-data[=X]
               --move-use-fsync
               -f, --force
               --color[=X]
               --lock[=X]
               -n, --no-act
               --no-reread
               --no-tell-kernel
               -O X, --backup-file=X : writes
               -o X, --output=X
               -q, --quiet
               -w X, --wipe=X
               -W X, --wipe-partitions=X
               -X X, --label=X
               -Y X, --label-nested=X
               -G, --show-pt-geometry
               -L, --Linux
               -u X, --unit=X
               -N X, --partno=X
               -h, --help
               -v, --version",
        hook: Some(partition),
    },
    Spec {
        names: &["cfdisk"],
        family: "storage",
        text: "@read-only
               @operands args
               -L, --color[=X]
               -z, --zero
               --lock[=X]
               -r, --read-only
               -h, --help
               -V, --version",
        hook: Some(partition),
    },
    Spec {
        names: &["parted"],
        family: "storage",
        text: "@read-only
               @operands args
               @posix
               -h, --help
               -l, --list
               -m, --machine
               -j, --json
               -s, --script
               -f, --fix
               -v, --version
               -a X, --align=X",
        hook: Some(partition),
    },
    Spec {
        names: &["sgdisk"],
        family: "storage",
        text: "@read-only
               @operands args
               -A X, --attributes=X
               -a X, --set-alignment=X
               -b X, --backup=X : writes
               -B X, --byte-swap-name=X
               -c X, --change-name=X
               -C, --recompute-chs
               -d X, --delete=X
               -D, --display-alignment
               -e, --move-second-header
               -E, --end-of-largest
               -f, --first-in-largest
               -F, --first-aligned-in-largest
               -g, --mbrtogpt
               -G, --randomize-guids
               -h X, --hybrid=X
               -i X, --info=X
               -I, --align-end
               -j X, --move-main-table=X
               --adjust-main-table=X
               -k X, --move-backup-table=X
               -l X, --load-backup=X : reads
               -L, --list-types
               -m X, --gpttombr=X
               -n X, --new=X
               -N X, --largest-new=X
               -o, --clear
               -O, --print-mbr
               -p, --print
               -P, --pretend
               -r X, --transpose=X
               -R X, --replicate=X
               -s, --sort
               -S X, --resize-table=X
               -t X, --typecode=X
               -T X, --transform-bsd=X
               -u X, --partition-guid=X
               -U X, --disk-guid=X
               -v, --verify
               -V, --version
               -z, --zap
               -Z, --zap-all
               -?, --help
               --usage",
        hook: Some(partition),
    },
    Spec {
        names: &["gdisk", "cgdisk"],
        family: "storage",
        text: "@read-only
               @operands args
               -l
               -a",
        hook: Some(partition),
    },
    Spec {
        names: &["zfs"],
        family: "storage",
        text: include_str!("zfs.spec"),
        hook: None,
    },
    Spec {
        names: &["zpool"],
        family: "storage",
        text: include_str!("zpool.spec"),
        hook: None,
    },
    Spec {
        names: &["lvremove", "vgremove", "pvremove"],
        family: "storage",
        text: "@operands args
               --commandprofile=X
               --config=X
               -d, --debug
               --devices=X
               --devicesfile=X
               --driverloaded=X
               -f, --force
               -h, --help
               --journal=X
               --lockopt=X
               --longhelp
               --nohints
               --nohistory
               --nolocking
               --noudevsync
               --profile=X
               -q, --quiet
               --reportformat=X
               -S X, --select=X
               -t, --test
               -v, --verbose
               --version
               -y, --yes
               -A X, --autobackup=X",
        hook: Some(lvm_remove),
    },
    Spec {
        names: &["mdadm"],
        family: "storage",
        text: "@read-only
               @operands args
               -h, --help
               --help-options
               -V, --version
               -v, --verbose
               -q, --quiet
               --brief
               -Y, --export
               -f, --force
               -A, --assemble
               -B, --build : dangerous builds an array over the named disks, overwriting them
               -C, --create : dangerous creates an array over the named disks, erasing them
               -D, --detail
               -E, --examine
               -X X, --examine-bitmap=X
               --examine-badblocks
               -F, --monitor, --follow
               -G, --grow
               --manage
               -I, --incremental
               -Q, --query
               --auto-detect
               -c X, --config=X : reads
               --chunk=X
               --rebuild-map
               --daemonise
               -s, --scan
               -e X, --metadata=X
               --homehost=X
               --prefer=X
               --home-cluster=X
               -n X, --raid-devices=X
               -x X, --spare-devices=X
               -z X, --size=X
               -Z X, --array-size=X
               --rounding=X
               -l X, --level=X
               -p X, --layout=X, --parity=X
               -b X, --bitmap=X : writes
               --bitmap-chunk=X
               -W, --write-mostly
               --write-behind=X
               --failfast
               --nofailfast
               --assume-clean
               --backup-file=X : writes
               --data-offset=X
               --continue
               -N X, --name=X
               -R, --run
               -o, --readonly
               -w, --readwrite
               -a X, --auto=X
               --add
               --nodes=X
               --write-journal=X
               --symlinks=X
               -k X, --consistency-policy=X
               -u X, --uuid=X
               -m X, --super-minor=X
               --no-degraded
               --invalid-backup
               -U X, --update=X
               --freeze-reshape
               -t, --test
               --re-add
               --add-spare
               --add-journal
               -r, --remove
               --fail, --set-faulty
               --replace
               --with
               --cluster-confirm
               --detail-platform
               --sparc2.2
               --dump=X : writes-into
               --restore=X : reads
               -S, --stop
               --zero-superblock
               --kill-subarray=X
               --update-subarray=X
               --wait
               --wait-clean
               --action=X
               --path=X
               -y, --syslog
               -d X, --delay=X
               -i X, --pid-file=X : writes
               -1, --oneshot
               --no-sharing
               -M X, --mail=X
               -P X, --program=X, --alert=X : runs *
               --increment=X
               -K, --offroot
               --no-devices
               --misc
               --write-zeroes
               --ignore-unknown-metadata",
        hook: Some(mdadm),
    },
    Spec {
        names: &["mount"],
        family: "storage",
        text: "@read-only
               @operands args
               -a, --all
               -c, --no-canonicalize
               -s
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
        names: &["lsblk"],
        family: "storage",
        text: "@read-only
               @operands args
               -A, --noempty
               -D, --discard
               -E X, --dedup=X
               -I X, --include=X
               -J, --json
               -M, --merge
               -O, --output-all
               -P, --pairs
               -S, --scsi
               -N, --nvme
               -v, --virtio
               -T, --tree[=X]
               -a, --all
               -b, --bytes
               -d, --nodeps
               -e X, --exclude=X
               -f, --fs
               -i, --ascii
               -l, --list
               -m, --perms
               -n, --noheadings
               -o X, --output=X
               -p, --paths
               -r, --raw
               -s, --inverse
               -t, --topology
               -w X, --width=X
               -x X, --sort=X
               -y, --shell
               -z, --zoned
               -H, --list-columns
               -Q X, --filter=X
               --ct-filter=X
               --ct=X
               --highlight=X
               --properties-by=X
               --sysroot=X
               -h, --help
               -V, --version",
        hook: None,
    },
    Spec {
        names: &["blkid"],
        family: "storage",
        text: "@read-only
               @operands args
               -c X, --cache-file=X : writes
               -d, --no-encoding
               -g, --garbage-collect : changes cleans the blkid cache
               -o X, --output=X
               -k, --list-filesystems
               -s X, --match-tag=X
               -t X, --match-token=X
               -l, --list-one
               -L X, --label=X
               -U X, --uuid=X
               -p, --probe
               -i, --info
               -H X, --hint=X
               -S X, --size=X
               -O X, --offset=X
               -u X, --usages=X
               -n X, --match-types=X
               -D, --no-part-details
               -h, --help
               -V, --version",
        hook: None,
    },
    Spec {
        names: &["findmnt"],
        family: "storage",
        text: "@read-only
               @operands args
               -s, --fstab
               -m, --mtab
               -k, --kernel
               -p, --poll[=X]
               -w X, --timeout=X
               -A, --all
               -a, --ascii
               -b, --bytes
               -C, --nocanonicalize
               -c, --canonicalize
               -D, --df
               -d X, --direction=X
               -e, --evaluate
               -F X, --tab-file=X : reads
               -f, --first-only
               -i, --invert
               -J, --json
               -l, --list
               -N X, --task=X
               -n, --noheadings
               -O X, --options=X
               -o X, --output=X
               --output-all
               -P, --pairs
               --pseudo
               --shadowed, --shadow
               -R, --submounts
               -r, --raw
               --real
               -S X, --source=X
               -T X, --target=X
               --tree
               -M X, --mountpoint=X
               -t X, --types=X
               -U, --uniq
               -u, --notruncate
               -v, --nofsroot
               -y, --shell
               -x, --verify
               -H, --list-columns
               -I, --dfi
               -Q X, --filter=X
               --verbose
               --vfs-all
               --deleted
               --hyperlink[=X]
               -h, --help
               -V, --version",
        hook: None,
    },
    Spec {
        names: &["mountpoint"],
        family: "storage",
        text: "@read-only
               @operands args
               -q, --quiet
               --nofollow
               -d, --fs-devno
               -x, --devno
               -h, --help
               -V, --version",
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
